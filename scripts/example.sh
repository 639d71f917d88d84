#!/usr/bin/env bash
# Builds and runs the example program on the MixRender library (Examples/RenderPreset, which takes the library
# by path), rendering 20 s to a WAV in a temporary folder, and checks the file with Python's own WAV reader:
# 882,000 frames at 44.1 kHz, 2 channels. The example resolves its dependencies as the main package does (the same
# pinned versions, from SwiftPM's cache once the main package has been built); its first build takes 3-5 min here.
set -euo pipefail
cd "$(dirname "$0")/../Examples/RenderPreset"
swift build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$(swift build --show-bin-path)/RenderPreset" "$out/example.wav" 20 | tail -n 1
python3 - "$out/example.wav" <<'PY'
import sys, wave
with wave.open(sys.argv[1]) as w:
    found = (w.getnframes(), w.getframerate(), w.getnchannels())
expected = (20 * 44100, 44100, 2)
if found != expected:
    sys.exit(f"example.wav: {found[0]} frames at {found[1]} Hz, {found[2]} channels; expected {expected}")
print(f"example   {found[0]} frames at {found[1]} Hz, {found[2]} channels: as expected")
PY
