#!/usr/bin/env bash
# Runs built tests on both cores as two shards, each a process of the test bundle of its own running its tests one
# at a time, and prints how long the run took, the 20 slowest tests and one closing line for the whole run.
#
#   scripts/run-tests.sh NAME SCRATCH TARGETS [--filter REGEX] [--skip REGEX]...
#
# SCRATCH is the build's scratch folder (.build, .build-tsan). The first shard runs the test targets named in TARGETS
# (a regex of target names, e.g. 'CLITests|MixDSPTests'), the second every other test target (so a new target is
# never left out); both take the --filter and --skip given. scripts/test.sh and scripts/tsan.sh call it.
#
# Each shard runs the bundle that `swift build --build-tests` made as `swift test --skip-build` would, with Swift
# Testing's own options (--testing-library swift-testing --no-parallel ...), not through `swift test`: two `swift
# test` in one scratch folder wait for each other's lock, and with --ignore-lock they fight over its build database
# ("database is locked", and the second shard ran nothing). Within a shard the tests run one at a time, so that each
# test's time is its own (Swift Testing's parallel mode counts a test's time from when it was scheduled, behind
# hundreds of others): the 20 slowest are printed from the shards' event streams (scripts/slowest-tests.py). Two
# shards keep both cores as busy as the parallel mode did. Each shard's output is printed as it comes, each line
# after [NAME 1] or [NAME 2], and kept with its event stream in test-output/.
#
# Exit status: 0 when both shards passed, 1 otherwise. The shards' closing lines are printed again as Swift Testing
# wrote them, and the last line is the plain `NAME: N passed, N failed`, also written to test-output/NAME.count as
# `N N` for .ci/run's closing count.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/run-tests.sh NAME SCRATCH TARGETS [--filter REGEX] [--skip REGEX]..." >&2; exit 2; }
name=$1 scratch=$2 targets=$3
shift 3
bundle=$(swift build --scratch-path "$scratch" --show-bin-path)/mixrenderPackageTests.xctest
[ -x "$bundle" ] || { echo "run-tests.sh: no test bundle at $bundle: build it (swift build --build-tests --scratch-path $scratch)" >&2; exit 2; }
mkdir -p test-output
rm -f test-output/"$name"-[12].{log,jsonl} test-output/"$name".count
shard() {  # number, selection...
  local number=$1
  shift
  local log=test-output/$name-$number.log events=test-output/$name-$number.jsonl status=0
  # sed -u: each line as it comes, so a hung test shows where it hangs.
  # NO_COLOR: Swift Testing colours its symbols when not run by `swift test`, and the counts below read them.
  NO_COLOR=1 "$bundle" --testing-library swift-testing --no-parallel --event-stream-output-path "$events" --event-stream-version 0 "$@" 2>&1 \
    | tee "$log" | sed -u "s/^/[$name $number] /" || status=$?
  return "$status"
}
start=$SECONDS
# Swift Testing runs a test that matches any --filter and no --skip: the shards are chosen with --skip alone, so that
# the --filter given still narrows both (the first skips every test outside TARGETS, the second every test in them).
shard 1 "$@" --skip "^(?!($targets)\\.)" & first=$!
shard 2 "$@" --skip "^($targets)\\." & second=$!
status=0
wait "$first" || status=1
wait "$second" || status=1
echo "[$name] run: $((SECONDS - start)) s (two shards at once)"
python3 scripts/slowest-tests.py --count 20 test-output/"$name"-[12].jsonl || true
# The whole run's count, from each shard's closing line (Swift Testing's "Test run with N tests ... passed" or
# "... failed"), and the failed tests, each named on a line of its own with a cross.
ran=0 failed=0
for number in 1 2; do
  log=test-output/$name-$number.log
  line=$(grep -a -E 'Test run with [0-9]+ tests?' "$log" | tail -n 1 || true)
  if [ -z "$line" ]; then
    echo "[$name $number] ended with no closing line: see $log" >&2
    status=1
    continue
  fi
  ran=$((ran + $(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<< "$line")))
  failed=$((failed + $(grep -a -E '^✘ Test .* failed after' "$log" | grep -a -c -v 'Test run with' || true)))
  echo "$line"
done
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1   # a shard that failed with no test named: say so in the count
echo "$((ran - failed)) $failed" > test-output/"$name".count
echo "$name: $((ran - failed)) passed, $failed failed"
exit "$status"
