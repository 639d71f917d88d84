#!/usr/bin/env bash
# Installs the system packages and the neural voice (.venv-speech) and runs every test: unit, golden and end-to-end CLI tests.
#
# The tests are built optimised: the package sets no compiler flags (a library with unsafeFlags cannot be depended
# on by version, docs/library.md), and MixDSP's SIMD kernels run 1000x slower in a plain debug build. `-Xswiftc -O`
# on the debug configuration keeps testability and incremental builds (measured against `-c release
# -Xswiftc -enable-testing` in docs/library.md). To run some tests alone, build with the same flags (other flags
# rebuild everything): swift build --build-tests -Xswiftc -O && swift test --skip-build --filter GoldenTests
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-speech.sh
# The render server's tests over PostgreSQL (two servers sharing one database) need a server: a local one, started
# here (scripts/start-postgres.sh: the cluster Debian's postgresql package made, a role and a database for the tests).
if [ -z "${MIXRENDER_TEST_POSTGRES_URL:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then url=$(scripts/start-postgres.sh | tail -n 1); else url=$(sudo scripts/start-postgres.sh | tail -n 1); fi
  export MIXRENDER_TEST_POSTGRES_URL="$url"
fi
swift build --build-tests -Xswiftc -O
swift test --skip-build
