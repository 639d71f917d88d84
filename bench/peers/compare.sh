#!/usr/bin/env bash
# compare.sh [SECONDS] [RUNS]   (defaults: 1800 s of output, 5 runs)
#
# mixrender against SoX and FFmpeg on the peers' night mix (../shared/peers, see its BASELINES.md):
# the same six 60 s Ogg Vorbis loops at 44.1/48/22.05 kHz, gains -3 -6 -9 -12 -4 -8 dB, each looped
# with a hard seam after circular resampling, 20 s linear fade-in, 120 s linear fade-out, 48 kHz
# stereo; workload A writes Ogg Vorbis q4 (mixrender quality 0.4), workload B 16-bit WAV without dither.
#
# Each round runs sox, ffmpeg and mixrender once, one after another (hyperfine --runs 1), so the
# three alternate and every ratio comes from one round; the first round is a warm-up and is dropped.
# Then one more run of each under limits/treepeak.py for peak RSS (summed over the process tree).
# Finally checks mixrender's B output against ffmpeg's (levels and the level of the difference).
#
# Environment:
#   PEERS_DIR   the peers' scripts (default: ../shared/peers beside this repository)
#   PEERS_DATA  their inputs (default /tmp/peers-data; made with PEERS_DIR/make-data.sh if missing)
#   MIXRENDER   the mixrender binary (default: built here with swift build -c release)
#   SCRATCH     scratch path for that build (default .build)
#   OUT         where outputs, the generated preset and the timings go (default: a new folder in /tmp)
#   MIX_RESAMPLER  mixrender's output.resampler in the preset (default soxr-hq: libsoxr's HQ recipe, the
#               very resampler SoX runs here with `rate -h`; FFmpeg runs its own swr at its defaults;
#               soxr-hq is the presets' default since 0.15.0; medium, the default before, gives the figures of earlier runs)
# Needs sox, ffmpeg, hyperfine and python3 (for the comparison only: mixrender itself needs none of them).
set -euo pipefail
SECS=${1:-1800}
RUNS=${2:-5}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PEERS_DIR=${PEERS_DIR:-$(cd "$REPO/../shared/peers" && pwd)}
export PEERS_DATA=${PEERS_DATA:-/tmp/peers-data}
OUT=${OUT:-$(mktemp -d /tmp/mixrender-peers-XXXXXX)}
mkdir -p "$OUT"
for tool in sox ffmpeg hyperfine python3; do
  command -v $tool >/dev/null || { echo "compare.sh needs $tool (apt-get install sox libsox-fmt-all ffmpeg hyperfine)" >&2; exit 2; }
done
[ -r "$PEERS_DATA/MANIFEST.md5" ] || "$PEERS_DIR/make-data.sh" "$PEERS_DATA"

if [ -z "${MIXRENDER:-}" ]; then
  (cd "$REPO" && swift build -c release --scratch-path "${SCRATCH:-.build}" --product mixrender >&2)
  MIXRENDER="$(cd "$REPO" && swift build -c release --scratch-path "${SCRATCH:-.build}" --show-bin-path)/mixrender"
fi

# The preset, written here so that no machine path is ever committed.
PRESET="$OUT/night-peers.json"
python3 - "$PEERS_DATA" "$SECS" "${MIX_RESAMPLER:-soxr-hq}" > "$PRESET" <<'PY'
import json, sys
data, secs, resampler = sys.argv[1], float(sys.argv[2]), sys.argv[3]
tracks = [("rain_44k.ogg", -3), ("wind_44k.ogg", -6), ("crickets_44k.ogg", -9),
          ("surf_48k.ogg", -12), ("drone_48k.ogg", -4), ("rumble_22k.ogg", -8)]
print(json.dumps({
    "name": "peers night mix",
    "duration": secs,
    "output": {"sampleRate": 48000, "channels": 2, "quality": 0.4, "bitDepth": 16, "resampler": resampler},
    "master": {"fadeIn": {"duration": 20, "curve": "linear"}, "fadeOut": {"duration": 120, "curve": "linear"}},
    "tracks": [{"name": f.split("_")[0], "file": f"{data}/{f}", "gainDb": g, "loop": {"crossfade": 0}} for f, g in tracks],
}, indent=2))
PY

echo "mixrender: $MIXRENDER; preset: $PRESET; outputs and timings: $OUT" >&2
for w in B A; do
  ext=wav; [ $w = A ] && ext=ogg
  for round in $(seq 0 "$RUNS"); do
    echo "workload $w, round $round of $RUNS (0 = warm-up)" >&2
    hyperfine -N --runs 1 --style none --export-json "$OUT/hf-$w-$round.json" \
      -n sox "$PEERS_DIR/sox-night.sh $OUT/sox_$w.$ext $SECS" \
      -n ffmpeg "$PEERS_DIR/ffmpeg-night.sh $OUT/ff_$w.$ext $SECS" \
      -n mixrender "$MIXRENDER $PRESET -o $OUT/mix_$w.$ext --quiet" >&2
  done
  for tool in sox ffmpeg mixrender; do
    case $tool in
      sox) cmd=("$PEERS_DIR/sox-night.sh" "$OUT/sox_$w.$ext" "$SECS") ;;
      ffmpeg) cmd=("$PEERS_DIR/ffmpeg-night.sh" "$OUT/ff_$w.$ext" "$SECS") ;;
      mixrender) cmd=("$MIXRENDER" "$PRESET" -o "$OUT/mix_$w.$ext" --quiet) ;;
    esac
    python3 "$PEERS_DIR/limits/treepeak.py" -- "${cmd[@]}" 2> "$OUT/treepeak-$w-$tool.txt"
  done
done

python3 - "$OUT" "$RUNS" "$SECS" <<'PY'
import json, re, statistics, sys
out, runs, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
tools = ["sox", "ffmpeg", "mixrender"]
print(f"\n{secs:.0f} s of 48 kHz stereo; median [min-max] of {runs} rounds (sox, ffmpeg, mixrender in turn; warm-up round dropped)\n")
print("| workload | tool | wall s | x realtime | cpu s | peak RSS (tree) | tool / mixrender (wall, per round) |")
print("|---|---|---|---|---|---|---|")
for w, name in [("A", "A: Ogg Vorbis q4"), ("B", "B: 16-bit WAV")]:
    wall = {t: [] for t in tools}; cpu = {t: [] for t in tools}
    for r in range(1, runs + 1):
        for res in json.load(open(f"{out}/hf-{w}-{r}.json"))["results"]:
            wall[res["command"]].append(res["times"][0])
            cpu[res["command"]].append(res["user"] + res["system"])
    for t in tools:
        peak = re.search(r"tree_peak_rss_mib=([\d.]+)", open(f"{out}/treepeak-{w}-{t}.txt").read())
        ratio = ""
        if t != "mixrender":
            rs = [a / b for a, b in zip(wall[t], wall["mixrender"])]
            ratio = f"**{statistics.median(rs):.2f}** [{min(rs):.2f}-{max(rs):.2f}]"
        m = statistics.median(wall[t])
        print(f"| {name} | {t} | {m:.2f} [{min(wall[t]):.2f}-{max(wall[t]):.2f}] | {secs / m:.0f} | "
              f"{statistics.median(cpu[t]):.2f} | {peak.group(1) if peak else '?'} MiB | {ratio} |")
PY

echo >&2
echo "== output check, workload B: mixrender against ffmpeg" >&2
"$PEERS_DIR/check-outputs.sh" "$OUT/mix_B.wav" "$OUT/ff_B.wav" >&2 || true
