#!/usr/bin/env bash
# Installs the system packages and the neural voice (.venv-speech), builds mixrender (release) and renders the default preset to night.ogg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-speech.sh
swift build -c release --product mixrender
.build/release/mixrender presets/night.json -o night.ogg --progress
