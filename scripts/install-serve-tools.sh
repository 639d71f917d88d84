#!/usr/bin/env bash
# Installs the Python tools that check `mixrender serve` (docs/serve.md) into .venv-serve/ in the project:
# websocket-client for the page test (scripts/page-test.py, which drives Debian's chromium over the DevTools
# protocol) and schemathesis for the API fuzz run (scripts/schemathesis.sh), every package pinned with its hash in
# scripts/serve-tools-requirements.txt. Idempotent: when the virtual environment already holds exactly these
# requirements it does nothing. MIXRENDER_SERVE_VENV chooses another folder. Debian's chromium, which the page
# test drives, is installed with apt-get when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""; [[ "$(id -u)" == 0 ]] || sudo=sudo
if ! command -v chromium >/dev/null; then
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
venv="${MIXRENDER_SERVE_VENV:-$PWD/.venv-serve}"
requirements=scripts/serve-tools-requirements.txt
stamp="$venv/.mixrender-requirements"
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$requirements" "$stamp"; then
    exit 0
fi
python=/usr/bin/python3
[[ -x "$python" ]] || python="$(command -v python3)"
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    # Debian splits venv and ensurepip into python3-venv.
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    --require-hashes -r "$requirements"
cp "$requirements" "$stamp"
echo "installed the serve tools (websocket-client, schemathesis) into $venv"
