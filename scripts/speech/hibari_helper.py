"""mixrender's neural-voice helper: hibari-tts behind a pipe (docs/sessions.md, "Voices").

mixrender starts this once per render with the project's virtual environment's Python (.venv-speech), a clean
environment, a fresh empty working folder and no shell, and feeds it texts. It never reads or writes a file
of the caller's choosing, and runs nothing.

Protocol (JSON Lines in, a header line and raw samples out):
  start-up:  it writes {"ready": true, "engine": "hibari", "version": "0.2.1", "sampleRate": 24000}
  request:   {"text": "...", "voice": "heart", "speed": 0.9, "seed": 0,
              "sentencePause": 0.4, "paragraphPause": 1.2}      (one line, at most 1 MiB)
  reply:     {"ok": true, "sampleRate": 24000, "count": N} then N little-endian 16-bit samples,
             or {"ok": false, "error": "one line"}
Each text gets a fresh random generator from its seed and one onnxruntime thread, so the samples are a
function of the request alone (the same in any process, after any other text).
"""
import json, os, re, resource, shutil, signal, sys

MAX_LINE = 1 << 20
MAX_SECONDS = 20 * 60          # of speech per text; the output is bounded by this


def limit(args):
    """Limits the helper sets on itself before it reads any text: CPU seconds, address space, no files
    written (RLIMIT_FSIZE 0), no core dumps."""
    cpu = int(args.get("--cpu-seconds", "600"))
    memory = int(args.get("--memory-mb", "3072")) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main():
    argv = sys.argv[1:]
    args = dict(zip(argv[::2], argv[1::2]))
    out = sys.stdout.buffer
    try:
        import numpy as np
        import hibari
        from hibari.tts import Hibari, SAMPLE_RATE
        from hibari.voices import VOICES
    except Exception as e:  # noqa: BLE001 - any import failure is reported as one line
        out.write((json.dumps({"ready": False, "error": f"cannot load hibari-tts: {e}"}) + "\n").encode())
        out.flush()
        return 1
    voices = {}

    def engine(name):
        if name not in VOICES or not VOICES[name].get("bundled"):
            raise ValueError(f"hibari has no bundled voice '{name}'")
        if name not in voices:
            voices[name] = Hibari(voice=name, threads=1)
        return voices[name]

    engine("heart")                      # loads the model and its G2P before the limits and the first text
    engine("heart")("Ready.", 1.0, 0)    # warms the G2P's lazy tables
    limit(args)
    out.write((json.dumps({"ready": True, "engine": "hibari", "version": hibari.__version__,
                           "sampleRate": SAMPLE_RATE}) + "\n").encode())
    out.flush()
    for line in iter(lambda: sys.stdin.buffer.readline(MAX_LINE + 1), b""):
        try:
            if len(line) > MAX_LINE or not line.endswith(b"\n"):
                raise ValueError("request longer than 1 MiB")
            request = json.loads(line)
            tts = engine(str(request.get("voice", "heart")))
            text = str(request["text"])
            speed = float(request.get("speed", 1.0))
            if not 0.5 <= speed <= 2.0:
                raise ValueError(f"speed {speed} is outside 0.5 to 2")
            rng = np.random.default_rng(int(request.get("seed", 0)))
            sentence_pause = np.zeros(int(round(float(request.get("sentencePause", 0)) * SAMPLE_RATE)), np.float32)
            paragraph_pause = np.zeros(int(round(float(request.get("paragraphPause", 0)) * SAMPLE_RATE)), np.float32)
            parts, total = [], 0
            paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
            for p, paragraph in enumerate(paragraphs):
                if p > 0:
                    parts.append(paragraph_pause)
                for s, phonemes in enumerate(tts.phonemize(paragraph)):
                    if s > 0:
                        parts.append(sentence_pause)
                    parts.append(tts.from_ids(tts.ids(phonemes), speed, rng))
                    total += len(parts[-1])
                    if total > MAX_SECONDS * SAMPLE_RATE:
                        raise ValueError(f"the text makes more than {MAX_SECONDS // 60} minutes of speech")
            audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
            pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
            out.write((json.dumps({"ok": True, "sampleRate": SAMPLE_RATE, "count": len(pcm) // 2}) + "\n").encode())
            out.write(pcm)
        except Exception as e:  # noqa: BLE001 - every failure is one line back to mixrender
            message = " ".join(str(e).split()) or type(e).__name__
            out.write((json.dumps({"ok": False, "error": message}) + "\n").encode())
        out.flush()
    return 0


def remove_own_folder():
    """The helper's working folder is one mixrender made for it alone (`mixrender-speech-XXXXXX`); the helper
    removes it as it ends, however it ends (end of input, mixrender gone, a signal), so that a mixrender killed
    mid-render leaves nothing behind (onnxruntime keeps a database in it)."""
    here = os.getcwd()
    if os.path.basename(here).startswith("mixrender-speech-"):
        shutil.rmtree(here, ignore_errors=True)


if __name__ == "__main__":
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda n, _frame: sys.exit(128 + n))
    try:
        status = main()
    finally:
        remove_own_folder()
    sys.exit(status)
