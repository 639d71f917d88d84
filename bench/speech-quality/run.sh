#!/usr/bin/env bash
# Measures the voices' word error rate (PocketSphinx) and MOS estimate (DNSMOS, speechmos) on ten sentences
# written for this bench (measure.py). The measuring models go in their own virtual environment, .venv-bench/
# in the project (not part of the set-up: about 400 MB with librosa); mixrender must be built and the neural
# voice installed (scripts/install-speech.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ ! -x .venv-bench/bin/python ]] || ! .venv-bench/bin/python -c 'import pocketsphinx, speechmos, librosa, onnxruntime' 2>/dev/null; then
    /usr/bin/python3 -m venv .venv-bench
    .venv-bench/bin/pip install --quiet --disable-pip-version-check -r bench/speech-quality/requirements.txt
fi
mixrender="${1:-.build/release/mixrender}"
shift || true
.venv-bench/bin/python bench/speech-quality/measure.py "$mixrender" "$@"
