#!/usr/bin/env bash
# Re-makes the small source files in presets/sounds/ from the generator presets in presets/sounds/make/.
# They are committed so that the example presets render on a fresh clone; run this only to change them.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product mixrender
for preset in presets/sounds/make/*.json; do
  name=$(basename "$preset" .json)
  .build/release/mixrender "$preset" -o "presets/sounds/$name.ogg" --quiet
done
ls -l presets/sounds/*.ogg
