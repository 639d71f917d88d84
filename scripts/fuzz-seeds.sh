#!/usr/bin/env bash
# Re-makes the committed seed corpora of the fuzz targets (docs/fuzzing.md) from what the repository holds:
#   Fuzz/corpus/preset/  the example presets, and every ```json example in docs/ and the source kinds' READMEs
#   Fuzz/corpus/time/    the time strings of the parser's tests, and the time values written in those presets
#   Fuzz/preset.dict     the keys and names of docs/preset.schema.json, as a libFuzzer dictionary
# The audio seeds are not committed: scripts/fuzz.sh renders them with mixrender each time it runs.
# Run this after changing the presets, the docs' examples or the schema; commit what it changes.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=Fuzz/corpus/preset time=Fuzz/corpus/time
rm -rf "$preset" "$time"
mkdir -p "$preset" "$time"

for file in presets/*.json presets/sounds/make/*.json; do
  name=${file#presets/}
  cp "$file" "$preset/preset-${name//\//-}"
done
# Each ```json fence of a Markdown file becomes md-<file>-<n>.json.
for file in docs/*.md Sources/MixEngine/SourceKinds/*/README.md; do
  stem=$(echo "${file%.md}" | tr '/' '-')
  awk -v out="$preset/md-$stem" '
    /^```json[ \t]*$/ { n++; inside = 1; name = out "-" n ".json"; printf "" > name; next }
    /^```/ && inside { inside = 0; close(name); next }
    inside { print >> name }
  ' "$file"
done

# Time strings: every quoted string in the argument lists of the tests validTimeStrings and invalidTimeStrings,
# and the string values of time keys in the preset seeds.
awk '
  /@Test\(arguments: \[/ { buffer = ""; collecting = 1; next }
  collecting && /^[ \t]*\]\)/ { collecting = 0; next }
  collecting { buffer = buffer "\n" $0; next }
  /func (valid|invalid)TimeStrings/ { print buffer }
' Tests/MixEngineTests/PresetParserTests.swift | grep -o '"[^"]*"' > "$time.list"
grep -ohE '"(duration|start|end|time|crossfade|fadeIn|fadeOut|at|after|before|length|every|pause|gap|hold|lookahead|attack|release)" *: *"[^"]*"' \
  "$preset"/*.json | sed -E 's/^"[^"]*" *: *//' >> "$time.list"
n=0
sort -u "$time.list" | while IFS= read -r quoted; do
  n=$((n + 1))
  text=${quoted#\"}; text=${text%\"}
  printf '%s' "$text" > "$time/time-$n.txt"
done
rm "$time.list"

# The dictionary: every property name and enumerated value of the schema, and JSON's own tokens.
{
  printf '"{"\n"}"\n"["\n"]"\n":"\n","\n"true"\n"false"\n"null"\n"\\""\n"\\\\u0000"\n"1e308"\n"1e-9"\n"0.00001"\n"-0"\n"0.5"\n"99999"\n"100h"\n"1:00:00"\n"0:00.001"\n"\\"tiny.wav\\""\n"\\"blip.wav\\""\n"\\"short.ogg\\""\n"\\"short.mp3\\""\n"\\"memo.m4a\\""\n"\\"sounds/rain.ogg\\""\n'
  grep -oE '"[A-Za-z$][A-Za-z0-9_$]*"' docs/preset.schema.json | sort -u | sed -E 's/^"(.*)"$/"\\"\1\\""/'
} > Fuzz/preset.dict

echo "$(ls "$preset" | wc -l) preset seeds, $(ls "$time" | wc -l) time seeds, $(wc -l < Fuzz/preset.dict) dictionary entries"
