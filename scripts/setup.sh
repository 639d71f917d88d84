#!/usr/bin/env bash
# Installs the system packages, builds mixrender (release) and renders the default preset to night.ogg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product mixrender
.build/release/mixrender presets/night.json -o night.ogg --progress
