#!/usr/bin/env bash
# Fuzzes the preset reader, the time parser and the audio file opener with libFuzzer (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s each of preset, time, audio, jobs and cache
#
# Builds the targets with the toolchain's libFuzzer and AddressSanitizer (FUZZ_SANITIZERS, default
# fuzzer,address): the project's own modules instrumented and optimised (MIXRENDER_SANITIZE and
# MIXRENDER_OPTIMIZE_OWN_MODULES, Package.swift), the dependencies built as for the tests, in .build-fuzz
# (MIXRENDER_SCRATCH: CI names the tests' .build, where only the project's modules are compiled again). It makes
# the audio seeds with mixrender first (MIXRENDER: the one to use; default the tests' build in .build), then runs the
# targets, as many at a time as there are cores (FUZZ_JOBS), each with its working corpus in <scratch>/fuzz-work/corpus/
# (kept between runs) and the committed seeds in Fuzz/corpus/. A crash, a hang (one input over FUZZ_TIMEOUT s,
# default 30) or running out of memory (2 GB) is a finding: its input is written to fuzz-findings/<Target>/ and
# the script exits non-zero after the other targets have run. So is a target that never got past its seeds (no
# INITED line: the time ran out reading them). FUZZ_KEEP_GOING=1 carries on after a finding (libFuzzer's fork
# mode), for long runs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(preset time audio jobs cache)
sanitizers=${FUZZ_SANITIZERS:-fuzzer,address}
scratch=${MIXRENDER_SCRATCH:-.build-fuzz}
work=$scratch/fuzz-work
findings=fuzz-findings
jobs=${FUZZ_JOBS:-$(nproc)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_JOBS must be a whole number above 0, not '$jobs'" >&2; exit 2; }

product() {
  case $1 in
    preset) echo PresetFuzz ;;
    jobs) echo JobListFuzz ;;
    time) echo TimeFuzz ;;
    audio) echo AudioFileFuzz ;;
    cache) echo CacheFuzz ;;
    *) echo "unknown target '$1'; expected preset, time, audio, jobs or cache" >&2; exit 2 ;;
  esac
}

# 1. Audio seeds: tiny renders in each format mixrender writes, and the FFmpeg test fixtures, each with the byte
#    that picks its name's extension (0 .wav, 1 .flac, 2 .ogg, 3 .mp3, 4 .opus, 5 .aiff, 6 .m4a, 7 .mp4, 8 .webm,
#    9 .aac; plus 128: opened for analysis; see Fuzz/AudioFileFuzz), some under a name that does not match (a WAV
#    called .aiff, an Ogg Vorbis called .opus).
seeds=$work/seeds/audio make=$work/seeds/make
# The tests' mixrender (scripts/test.sh's build), unless MIXRENDER names one; only the audio and preset targets' seeds
# need it.
mixrender=${MIXRENDER:-}
if [ -z "$mixrender" ] && [[ " ${targets[*]} " == *" audio "* || " ${targets[*]} " == *" preset "* ]]; then
  MIXRENDER_OPTIMIZE_OWN_MODULES=1 swift build --product mixrender
  mixrender=$(swift build --show-bin-path)/mixrender
fi
if [[ " ${targets[*]} " == *" audio "* ]]; then
  rm -rf "$seeds" && mkdir -p "$seeds" "$make"
  render() {  # name, output settings, tracks
    printf '{"duration": "0.15s", "output": {%s}, "tracks": [%s]}\n' "$2" "$3" > "$make/$1.json"
  }
  tone='{"tone": {"frequencyHz": 440}}'
  noise='{"generator": {"type": "pink", "seed": 1}, "pan": 0.5}'
  render mono16 '"sampleRate": 8000, "channels": 1, "bitDepth": 16' "$tone"
  render mono24 '"sampleRate": 11025, "channels": 1, "bitDepth": 24' "$tone"
  render stereoFloat '"sampleRate": 22050, "channels": 2, "bitDepth": "float"' "$tone, $noise"
  render stereo16 '"sampleRate": 16000, "channels": 2, "bitDepth": 16, "quality": 0' "$noise"
  seed() {  # file, byte
    { printf "\\$(printf '%03o' "$2")"; cat "$1"; } > "$seeds/$(basename "$1" | tr . -)-as-$2"
  }
  for spec in mono16.wav:0 mono24.wav:0 stereoFloat.wav:0 mono16.flac:1 mono24.flac:1 stereo16.flac:1 \
              mono16.ogg:2 stereo16.ogg:2 stereo16.ogg:4 mono16.wav:5 mono16.wav:3 stereo16.flac:6 \
              mono16.mp3:3 stereo16.mp3:3 stereo16.ogg:130 mono16.ogg:130 mono16.flac:129; do
    file=${spec%:*} byte=${spec#*:}
    [ -f "$make/$file" ] || "$mixrender" "$make/${file%.*}.json" -o "$make/$file" --quiet
    seed "$make/$file" "$byte"
  done
  for spec in memo-48k-mono.m4a:6 stereo-44k.mp4:7 video-only.mp4:7 opus-48k-mono.webm:8 vorbis-44k-stereo.webm:136 \
              rate-change.aac:9; do
    seed "Tests/Fixtures/ffmpeg/${spec%:*}" "${spec#*:}"
  done
  echo "audio seeds: $(ls "$seeds" | wc -l) files, $(cat "$seeds"/* | wc -c) bytes"
fi

# The preset target's source folder: the example presets' sounds, and tiny files (8 frames at 8 kHz, 1 frame at
# 192 kHz) that loop or play many times.
files=$work/seeds/preset-files
if [[ " ${targets[*]} " == *" preset "* ]]; then
  rm -rf "$files" && mkdir -p "$files" "$make"
  cp -R presets/sounds "$files/"
  printf '{"duration": "0.001s", "output": {"sampleRate": 8000, "channels": 1, "bitDepth": 16}, "tracks": [{"tone": {"frequencyHz": 440}}]}\n' > "$make/tiny.json"
  printf '{"duration": "0.1s", "output": {"sampleRate": 44100, "channels": 2}, "tracks": [{"generator": {"type": "pink"}}]}\n' > "$make/short.json"
  "$mixrender" "$make/tiny.json" -o "$files/tiny.wav" --quiet
  printf '{"duration": "0.000005s", "output": {"sampleRate": 192000, "channels": 1}, "tracks": [{"tone": {"frequencyHz": 440}}]}\n' > "$make/blip.json"
  "$mixrender" "$make/short.json" -o "$files/short.ogg" --quiet
  "$mixrender" "$make/blip.json" -o "$files/blip.wav" --quiet
  "$mixrender" "$make/short.json" -o "$files/short.mp3" --quiet
  cp Tests/Fixtures/ffmpeg/memo-48k-mono.m4a "$files/memo.m4a"
fi

# 2. The fuzzers: the project's modules instrumented (and built with -DFUZZING, which gives each target libFuzzer's
#    driver as its main), after the seeds, which need the uninstrumented mixrender that a shared scratch folder holds
#    until now.
start=$(date +%s)
for target in "${targets[@]}"; do
  MIXRENDER_OPTIMIZE_OWN_MODULES=1 MIXRENDER_SANITIZE=$sanitizers \
    swift build --scratch-path "$scratch" --product "$(product "$target")"
done
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
echo "fuzz build: $(($(date +%s) - start)) s"

# 3. The targets, $jobs at a time (libFuzzer runs one input at a time: one core each). Each writes its log, and a
#    line saying how it ended, in $work; the summary is printed in the targets' order once all have ended.
fuzz_one() {  # target
  local target=$1 name corpus marker status=0 options inputs log
  name=$(product "$target")
  corpus=$work/corpus/$name log=$work/$name.log marker=$work/tmp/$name/started
  mkdir -p "$corpus" "$findings/$name" "$work/tmp/$name"
  case $target in
    preset) options=(-max_len=16384 "-dict=Fuzz/preset.dict") inputs=(Fuzz/corpus/preset) ;;
    time) options=(-max_len=256) inputs=(Fuzz/corpus/time) ;;
    jobs) options=(-max_len=4096 "-dict=Fuzz/preset.dict") inputs=(Fuzz/corpus/jobs) ;;
    audio) options=(-max_len=65536) inputs=("$seeds") ;;
    cache) options=(-max_len=4096) inputs=() ;;   # seeds itself: its inputs start from the real entry
  esac
  if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
    options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  touch "$marker"
  # The Swift runtime's backtracer would take the crash signal before libFuzzer, which then writes no reproducer.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} TMPDIR=$work/tmp/$name FUZZ_PRESET_FOLDER=$files \
    "$bin/$name" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 -close_fd_mask=1 \
      -print_final_stats=1 -artifact_prefix="$findings/$name/" "${options[@]}" "$corpus" "${inputs[@]}" \
      > "$log" 2>&1 || status=$?
  echo "$status" > "$work/$name.status"
}

rm -rf "$work/tmp" "$work"/*.status
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  echo "== $(product "$target") for $seconds s"
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

failed=()
for target in "${targets[@]}"; do
  name=$(product "$target")
  log=$work/$name.log
  status=$(cat "$work/$name.status" 2>/dev/null || echo "none")
  # How far it got: the corpus after reading the seeds (INITED) and at the end (DONE), and the inputs run.
  inited=$(grep -m1 -E '^#[0-9]+[[:space:]]+INITED' "$log" | grep -oE 'corp: [0-9]+' || true)
  done_=$(grep -m1 -E '^#[0-9]+[[:space:]]+DONE' "$log" | grep -oE 'corp: [0-9]+' || true)
  runs=$(grep -m1 -E '^stat::number_of_executed_units' "$log" | grep -oE '[0-9]+$' || true)
  echo "$name: ${runs:-?} inputs run; corpus ${inited#corp: } after the seeds, ${done_#corp: } at the end"
  rm -rf "$work/tmp/$name"/mixrender-fuzz-*
  new=$(find "$findings/$name" -type f -newer "$work/tmp/$name/started" 2>/dev/null | sort)
  if [ "$status" != 0 ] || [ -n "$new" ]; then
    failed+=("$name")
    echo "$name FOUND SOMETHING (exit $status); log: $log"
    grep -E 'ERROR: |Fatal error|SUMMARY|runtime failure|Precondition|deadly signal|Timeout|out-of-memory' "$log" | head -5 || true
    for file in $new; do
      echo "  reproducer: $file   replay: $bin/$name $file   (or: swift run $name $file)"
      # A CI log alone is enough to make the input again: base64 -d > input.
      [ "$(wc -c < "$file")" -gt 4096 ] || echo "  base64: $(base64 -w0 "$file")"
    done
  elif [ -z "$inited" ]; then
    # The time ran out before libFuzzer had read every seed: nothing past them was tried.
    failed+=("$name")
    echo "$name never got past its seeds in $seconds s (no INITED line); log: $log"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]}"
  exit 1
fi
echo "fuzzing found nothing (${targets[*]}, $seconds s each, $jobs at a time)"
