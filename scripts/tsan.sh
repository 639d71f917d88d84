#!/usr/bin/env bash
# The Thread Sanitizer over the engine's, the library's and the command line's tests (docs/architecture.md,
# "Threads"): everything built with -sanitize=thread in .build-tsan, then those suites run; any report fails the
# run (the sanitizer's exit status). CLI tests run the sanitized mixrender, its speech helpers included.
# About 13 min to build from nothing on two cores, and the suites take several minutes more.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --sanitize=thread --scratch-path .build-tsan
TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0}" \
    swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter 'MixEngineTests|CLITests|MixRenderTests'
