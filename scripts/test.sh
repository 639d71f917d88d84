#!/usr/bin/env bash
# Installs the system packages and the neural voice (.venv-speech) and runs every test: unit, golden and end-to-end CLI tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-speech.sh
swift build --build-tests
swift test --skip-build
