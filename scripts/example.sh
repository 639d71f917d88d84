#!/usr/bin/env bash
# Builds and runs the example program on the MixRender library (Examples/RenderPreset, which takes the library
# by path), rendering 20 s to a WAV in a temporary folder, and checks the file with Python's own WAV reader:
# 882,000 frames at 44.1 kHz, 2 channels. The example resolves its dependencies as the main package does (the same
# pinned versions, from SwiftPM's cache once the main package has been built); its first build takes 3-5 min here.
# MIXRENDER_SCRATCH names a scratch folder to build in instead of the example's own .build: CI names the main
# package's (.build, after scripts/test.sh's build, with MIXRENDER_OPTIMIZE_OWN_MODULES=1 as that build had it), so
# that the library and its dependencies, compiled there already, are reused and only the example is compiled.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/Examples/RenderPreset"
scratch=()
if [ -n "${MIXRENDER_SCRATCH:-}" ]; then
  case $MIXRENDER_SCRATCH in /*) scratch=(--scratch-path "$MIXRENDER_SCRATCH") ;; *) scratch=(--scratch-path "$root/$MIXRENDER_SCRATCH") ;; esac
fi
swift build "${scratch[@]}" --product RenderPreset
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$(swift build "${scratch[@]}" --show-bin-path)/RenderPreset" "$out/example.wav" 20 | tail -n 1
python3 - "$out/example.wav" <<'PY'
import sys, wave
with wave.open(sys.argv[1]) as w:
    found = (w.getnframes(), w.getframerate(), w.getnchannels())
expected = (20 * 44100, 44100, 2)
if found != expected:
    sys.exit(f"example.wav: {found[0]} frames at {found[1]} Hz, {found[2]} channels; expected {expected}")
print(f"example   {found[0]} frames at {found[1]} Hz, {found[2]} channels: as expected")
PY
