#!/usr/bin/env bash
# batch.sh [SECONDS] [RUNS] [JOBS]   (defaults: 300 s per job, 3 rounds, 8 jobs)
#
# A batch of JOBS renders against the same renders run one after another, as separate processes: speed (the
# two alternate in each round, so every ratio comes from one round) and peak memory (`/usr/bin/time -v`'s
# maximum resident set: each is a single process).
#
# The jobs are eight mixes of the peers' six 60 s Ogg Vorbis loops (../shared/peers, see compare.sh): the same
# sounds at different gains and lengths, as an app's saved mixes are, rendered to 16-bit WAV at 48 kHz.
# Also run: one job alone (the single-render peak the batch's is compared with), and the batch again with a
# warm --cache-dir (what a repeated batch costs when nothing needs preparing).
#
# Environment: PEERS_DIR, PEERS_DATA, MIXRENDER, OUT as in compare.sh. Needs hyperfine, python3 and, when
# PEERS_DATA is missing, sox (for make-data.sh).
set -euo pipefail
SECS=${1:-300}
RUNS=${2:-3}
N=${3:-8}
REPO=$(cd "$(dirname "$0")/.." && pwd)
PEERS_DIR=${PEERS_DIR:-$(cd "$REPO/../shared/peers" && pwd)}
export PEERS_DATA=${PEERS_DATA:-/tmp/peers-data}
OUT=${OUT:-$(mktemp -d /tmp/mixrender-batch-XXXXXX)}
mkdir -p "$OUT"
for tool in hyperfine python3; do
  command -v $tool >/dev/null || { echo "batch.sh needs $tool" >&2; exit 2; }
done
[ -r "$PEERS_DATA/MANIFEST.md5" ] || "$PEERS_DIR/make-data.sh" "$PEERS_DATA"
if [ -z "${MIXRENDER:-}" ]; then
  (cd "$REPO" && swift build -c release --product mixrender >&2)
  MIXRENDER="$(cd "$REPO" && swift build -c release --show-bin-path)/mixrender"
fi

# The presets and the job list, written here so that no machine path is ever committed.
python3 - "$PEERS_DATA" "$SECS" "$N" "$OUT" <<'PY'
import json, sys
data, secs, n, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
files = ["rain_44k.ogg", "wind_44k.ogg", "crickets_44k.ogg", "surf_48k.ogg", "drone_48k.ogg", "rumble_22k.ogg"]
jobs = []
for k in range(n):
    gains = [-3 - (k + i) % 7 for i in range(len(files))]
    preset = {"name": f"mix {k}", "duration": secs * (1 + 0.05 * k),
              "output": {"sampleRate": 48000, "channels": 2, "bitDepth": 16, "resampler": "medium"},
              "master": {"fadeIn": {"duration": 20, "curve": "linear"}, "fadeOut": {"duration": 60, "curve": "linear"}},
              "tracks": [{"file": f"{data}/{f}", "gainDb": g, "loop": {"crossfade": 0}} for f, g in zip(files, gains)]}
    with open(f"{out}/mix{k}.json", "w") as fh:
        json.dump(preset, fh, indent=2)
    jobs.append({"preset": f"mix{k}.json", "output": f"batch/mix{k}.wav"})
with open(f"{out}/jobs.jsonl", "w") as fh:
    fh.writelines(json.dumps(j) + "\n" for j in jobs)
with open(f"{out}/separate.sh", "w") as fh:
    fh.write("#!/bin/sh\nset -e\n" + "".join(f'"$1" "{out}/mix{k}.json" -o "{out}/separate/mix{k}.wav" --quiet\n' for k in range(n)))
PY
chmod +x "$OUT/separate.sh"
mkdir -p "$OUT/separate" "$OUT/batch"

echo "mixrender: $MIXRENDER; jobs, outputs and timings: $OUT" >&2
hyperfine -N --runs "$RUNS" --warmup 1 --style basic --export-json "$OUT/hf.json" \
  -n batch "$MIXRENDER batch $OUT/jobs.jsonl --quiet --results $OUT/batch.results.jsonl" \
  -n separate "$OUT/separate.sh $MIXRENDER" >&2
rm -rf "$OUT/cache"
"$MIXRENDER" batch "$OUT/jobs.jsonl" --quiet --results "$OUT/warm.results.jsonl" --cache-dir "$OUT/cache"
hyperfine -N --runs "$RUNS" --style basic --export-json "$OUT/hf-warm.json" \
  -n "batch, warm --cache-dir" "$MIXRENDER batch $OUT/jobs.jsonl --quiet --results $OUT/warm.results.jsonl --cache-dir $OUT/cache" >&2

peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n -E 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p'; }
single=$(peak "$MIXRENDER" "$OUT/mix0.json" -o "$OUT/single.wav" --quiet)
batch=$(peak "$MIXRENDER" batch "$OUT/jobs.jsonl" --quiet --results "$OUT/peak.results.jsonl")
warm=$(peak "$MIXRENDER" batch "$OUT/jobs.jsonl" --quiet --results "$OUT/peak.results.jsonl" --cache-dir "$OUT/cache")

# Same audio either way: compare each batch output with its separate render.
for k in $(seq 0 $((N - 1))); do cmp -s "$OUT/batch/mix$k.wav" "$OUT/separate/mix$k.wav" || { echo "mix$k.wav differs" >&2; exit 1; }; done

python3 - "$OUT" "$SECS" "$N" "$single" "$batch" "$warm" <<'PY'
import json, sys
out, secs, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
single, batch, warm = (int(x) / 1024 for x in sys.argv[4:7])
hf = {r["command"]: r for r in json.load(open(f"{out}/hf.json"))["results"]}
hw = json.load(open(f"{out}/hf-warm.json"))["results"][0]
audio = sum(secs * (1 + 0.05 * k) for k in range(n))
b, s = hf["batch"]["times"], hf["separate"]["times"]
ratios = sorted(y / x for x, y in zip(b, s))
med = lambda v: sorted(v)[len(v) // 2]
print(f"\n{n} jobs, {audio:.0f} s of 48 kHz stereo 16-bit WAV in all; median of {len(b)} rounds (batch and separate alternate)\n")
print("| run | wall s | x realtime | peak RSS MiB |")
print("|---|---|---|---|")
print(f"| one job alone | | | {single:.0f} |")
print(f"| {n} separate runs, one after another | {med(s):.2f} | {audio / med(s):.0f} | {single:.0f} (each) |")
print(f"| batch (--jobs = cores) | {med(b):.2f} | {audio / med(b):.0f} | {batch:.0f} |")
print(f"| batch, warm --cache-dir | {med(hw['times']):.2f} | {audio / med(hw['times']):.0f} | {warm:.0f} |")
print(f"\nseparate / batch, per round: median {med(ratios):.2f}x [{ratios[0]:.2f}-{ratios[-1]:.2f}]; batch peak / single peak: {batch / single:.2f}x")
print("outputs: every batch file is byte-identical to its separate render")
PY
