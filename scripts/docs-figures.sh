#!/usr/bin/env bash
# docs-figures.sh [--write | --check [--quick]] [--mixrender PATH] [--bench PATH] [--only NAME[,NAME]] [--jobs N] [--verbose]
#
# The measured figures in the docs, from one command: docs/formats.md's size tables (every row rendered from the
# presets at the table's length, in the format and setting its label names) and docs/aac.md's encoder table
# (`bench --only encoders`, the machine named under it, and the figures aac.md's text quotes from it). They sit
# between `<!-- figures: NAME (scripts/docs-figures.sh) -->` and `<!-- /figures -->`; only those blocks and
# the quoted figures are rewritten. The rules for reading a row, and the tolerances, are in docs-figures.py.
#
#   --write          (the default) measure at full length and rewrite the blocks: about 45 minutes on 2 cores, two
#                    renders at a time (22 for the 34 one-hour renders, 22 for the five 8-hour ones, 25 s of bench);
#                    --only sizes-1h (or sizes-8h, encoders) for one table
#   --check          measure at full length and fail on any difference
#   --check --quick  for CI (about 2 min on 2 cores): each size estimated from short windows spread over the render,
#                    WAV and AIFF predicted exactly from their length, the encoder table from `bench --quick`; exits
#                    1 with one line per stale figure (the doc, the row and what was measured)
#   --mixrender PATH the mixrender to measure (default .build/release/mixrender)
#   --bench PATH     the bench for docs/aac.md's table (default: the bench beside the mixrender)
#   --jobs N         renders at a time (default: the number of cores)
#   --verbose        with --check --quick, print every estimate beside its table figure
#
# Exit status: 0 fresh (or written), 1 stale figures, 2 the script could not measure (a missing binary, a row
# label it cannot read, a failed render). Renders go to a temporary folder, removed at the end.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)

MIXRENDER=.build/release/mixrender
MIXRENDER_GIVEN=false
BENCH=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mixrender) [ $# -ge 2 ] || { echo "docs-figures.sh: --mixrender needs a path" >&2; exit 2; }
                 MIXRENDER=$2; MIXRENDER_GIVEN=true; shift 2 ;;
    --bench) [ $# -ge 2 ] || { echo "docs-figures.sh: --bench needs a path" >&2; exit 2; }
             BENCH=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
# The default is the repository's release build; a path given is the caller's, from where they stand.
$MIXRENDER_GIVEN || MIXRENDER="$REPO/$MIXRENDER"
if [ ! -f "$MIXRENDER" ] || [ ! -x "$MIXRENDER" ]; then
  echo "docs-figures.sh: no mixrender executable at '$MIXRENDER': build it (swift build -c release --product mixrender)" \
       "or give --mixrender PATH" >&2
  exit 2
fi
MIXRENDER=$(cd "$(dirname "$MIXRENDER")" && pwd)/$(basename "$MIXRENDER")
[ -n "$BENCH" ] || BENCH="$(dirname "$MIXRENDER")/bench"
case "$BENCH" in /*) ;; *) BENCH="$PWD/$BENCH" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/docs-figures-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$REPO"
python3 "$REPO/scripts/docs-figures.py" --mixrender "$MIXRENDER" --bench "$BENCH" --tmp "$TMP" ${args[@]+"${args[@]}"}
