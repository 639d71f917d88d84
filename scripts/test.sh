#!/usr/bin/env bash
# Installs the system packages and the neural voice (.venv-speech) and runs every test: unit, golden and end-to-end CLI tests.
#
# The project's own modules are built optimised, the dependencies not: MixDSP's SIMD kernels run 1000x slower in a
# plain debug build, and optimising SwiftNIO, swift-crypto and the rest too makes the build about 60 % longer
# (docs/library.md). MIXRENDER_OPTIMIZE_OWN_MODULES=1 makes Package.swift add -O to the project's targets; the
# package sets no compiler flag otherwise (a library with unsafeFlags cannot be depended on by version). The debug
# configuration keeps testability and incremental builds. To run some tests alone, build with the same setting
# (without it the project's modules are rebuilt unoptimised):
#   export MIXRENDER_OPTIMIZE_OWN_MODULES=1; swift build --build-tests && swift test --skip-build --filter GoldenTests
# The run's logs and event streams are kept in test-output/ (tests-1.log, tests-2.log, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-speech.sh --test-voices
# The render server's tests over PostgreSQL (two servers sharing one database) need a server: a local one, started
# here (scripts/start-postgres.sh: the cluster Debian's postgresql package made, a role and a database for the tests).
if [ -z "${MIXRENDER_TEST_POSTGRES_URL:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then url=$(scripts/start-postgres.sh | tail -n 1); else url=$(sudo scripts/start-postgres.sh | tail -n 1); fi
  export MIXRENDER_TEST_POSTGRES_URL="$url"
fi
export MIXRENDER_OPTIMIZE_OWN_MODULES=1
start=$SECONDS
swift build --build-tests
echo "[tests] build: $((SECONDS - start)) s"
# The tests on both cores, in two shards of about the same length (the engine's and the server's in one, the CLI's
# and the DSP's in the other), each running its tests one at a time: the run's time, the 20 slowest tests and the
# closing count are printed at the end (scripts/run-tests.sh).
scripts/run-tests.sh tests .build 'CLITests|MixDSPTests'
