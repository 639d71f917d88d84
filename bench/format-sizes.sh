#!/usr/bin/env bash
# format-sizes.sh [HOURS] [PRESET...]   (defaults: 1 hour; presets/night.json and presets/seaside.json)
#
# Renders each preset for HOURS hours in every output format at the settings an app developer chooses
# between, and prints a Markdown table of the file sizes and their average bitrates (the table in
# docs/formats.md). Sizes of the lossy formats follow the material: the presets here are mixrender's own
# sounds (noise and loops made from it), about the hardest material for an encoder, so real nature
# recordings usually come out smaller at the same settings.
#
# Environment:
#   MIXRENDER  the mixrender binary (default: built here with swift build -c release)
#   SETTINGS   "all" (default) or "defaults" (each format at its default only: for long renders)
#   OUT        where the files go (default: a new folder in /tmp, removed at the end)
set -euo pipefail
HOURS=${1:-1}
shift || true
REPO=$(cd "$(dirname "$0")/.." && pwd)
PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=("$REPO/presets/night.json" "$REPO/presets/seaside.json")
if [ -z "${MIXRENDER:-}" ]; then
  (cd "$REPO" && swift build -c release --product mixrender >&2)
  MIXRENDER="$REPO/.build/release/mixrender"
fi
OUT=${OUT:-$(mktemp -d /tmp/mixrender-sizes-XXXXXX)}
trap 'rm -rf "$OUT"' EXIT

# extension | options | label
ALL=(
  "ogg|--quality 0.2|Ogg Vorbis, quality 0.2"
  "ogg||Ogg Vorbis, quality 0.5 (default)"
  "ogg|--quality 0.7|Ogg Vorbis, quality 0.7"
  "opus|--bitrate 48|Ogg Opus, 48 kbit/s"
  "opus||Ogg Opus, quality 0.5 (default: 96 kbit/s)"
  "opus|--bitrate 128|Ogg Opus, 128 kbit/s"
  "mp3|--bitrate 96|MP3, 96 kbit/s CBR"
  "mp3||MP3, quality 0.5 (default: LAME V5)"
  "mp3|--quality 0.8|MP3, quality 0.8 (LAME V2)"
  "mp3|--bitrate 192|MP3, 192 kbit/s CBR"
  "m4a|--bitrate 96|AAC in M4A, 96 kbit/s"
  "m4a||AAC in M4A, default"
  "m4a|--bitrate 192|AAC in M4A, 192 kbit/s"
  "flac||FLAC, 16 bit"
  "caf||ALAC in CAF, 16 bit"
  "wav||WAV, 16 bit"
  "aiff||AIFF, 16 bit"
)
DEFAULTS=("ogg||Ogg Vorbis, quality 0.5 (default)" "opus||Ogg Opus, quality 0.5 (default: 96 kbit/s)"
          "mp3||MP3, quality 0.5 (default: LAME V5)" "m4a||AAC in M4A, default" "flac||FLAC, 16 bit")
if [ "${SETTINGS:-all}" = defaults ]; then ROWS=("${DEFAULTS[@]}"); else ROWS=("${ALL[@]}"); fi

header="| format and setting |"; rule="|---|"
for p in "${PRESETS[@]}"; do header+=" $(basename "$p" .json), ${HOURS} h |"; rule+="---|"; done
echo "$header"; echo "$rule"
for row in "${ROWS[@]}"; do
  IFS='|' read -r ext options label <<<"$row"
  # A format this build does not write is left out of the table (m4a before it existed, say).
  line="| $label |"
  for p in "${PRESETS[@]}"; do
    file="$OUT/$(basename "$p" .json).$ext"
    # shellcheck disable=SC2086
    if ! "$MIXRENDER" "$p" -o "$file" --duration "${HOURS}h" -q $options 2>"$OUT/error"; then
      line=""; echo "skipped $label: $(cat "$OUT/error")" >&2; break
    fi
    bytes=$(stat -c %s "$file")
    line+=" $(python3 -c "b=$bytes; h=$HOURS; print(f'{b/1048576:.1f} MiB ({b*8/(h*3600)/1000:.0f} kbit/s)')") |"
    rm -f "$file"
  done
  [ -n "$line" ] && echo "$line"
done
