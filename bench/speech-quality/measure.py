"""Intelligibility and naturalness of mixrender's voices, measured by independent models (docs/performance.md,
"Speech quality"): PocketSphinx's word error rate (its US English model, inside the pocketsphinx wheel) and
DNSMOS's MOS estimates (speechmos, its ONNX models inside the wheel), on sentences written for this bench (English,
and Japanese for the Japanese voices, which get DNSMOS alone).

Each sentence is rendered by mixrender itself, as a one-segment session at 16 kHz mono (the voice levelled to
-20 dBFS, exactly as a session speaks it), once per voice. Usage:
    .venv-bench/bin/python bench/speech-quality/measure.py .build/release/mixrender [voice ...]
"""
import json, os, re, subprocess, sys, tempfile, wave
import numpy as np

SENTENCES = [
    "Let your shoulders drop and your breathing slow down.",
    "With every breath out, your body grows heavier and warmer.",
    "Notice the gentle sound of the rain outside the window.",
    "You are safe, calm, and completely relaxed.",
    "Count slowly backwards from ten, and drift a little deeper with each number.",
    "Tomorrow morning you will wake up rested and full of energy.",
    "Imagine a quiet beach at sunset, the waves rolling in and out.",
    "Each time you hear my voice, you can let go a little more.",
    "The train to Lisbon leaves from platform four at half past nine.",
    "Drink a glass of water and stretch your arms before you stand up.",
]


# Japanese sentences written for this bench, for the Japanese voices (kokoro:*, espeak:ja). PocketSphinx has no
# Japanese model in its wheel, so these get DNSMOS only (the word error rate column says so).
JAPANESE = [
    "肩の力を抜いて、ゆっくりと息を吐きましょう。",
    "息を吐くたびに、体が重く、温かくなっていきます。",
    "窓の外の、静かな雨の音に耳を傾けてください。",
    "あなたは安全で、穏やかで、すっかりくつろいでいます。",
    "十から一まで、ゆっくりと数えていきましょう。",
    "明日の朝は、すっきりと目覚めることができます。",
    "夕暮れの静かな浜辺と、寄せては返す波を思い浮かべてください。",
    "リスボン行きの列車は、九時半に四番線から出発します。",
]


def is_japanese(voice):
    return voice.startswith("kokoro:") or voice in ("espeak:ja", "ja")


def words(text):
    return re.sub(r"[^a-z' ]", " ", text.lower().replace("-", " ")).split()


def errors(reference, hypothesis):
    """Word-level edit distance."""
    r, h = words(reference), words(hypothesis)
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        previous, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            previous, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, previous + (r[i - 1] != h[j - 1]))
    return d[len(h)], len(r)


def render(mixrender, voice, text, folder, index):
    preset = os.path.join(folder, f"s{index}.json")
    output = os.path.join(folder, f"s{index}.wav")
    with open(preset, "w") as f:
        json.dump({"output": {"sampleRate": 16000, "channels": 1, "bitDepth": 16},
                   "sections": [{"name": "A", "segments": [{"text": text, "gapBefore": 0.3, "pauseAfter": 0.3,
                                                            "speech": {"voice": voice}}]}]}, f)
    subprocess.run([mixrender, preset, "-o", output, "--quiet"], check=True)
    with wave.open(output) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
        return w.readframes(w.getnframes())


def main():
    mixrender = sys.argv[1]
    voices = sys.argv[2:] or ["hibari:heart", "espeak:en-us", "espeak:en-gb"]
    from pocketsphinx import Decoder
    from speechmos import dnsmos
    decoder = Decoder(loglevel="FATAL")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for voice in voices:
            wrong = total = 0
            overall, p808 = [], []
            for i, sentence in enumerate(JAPANESE if is_japanese(voice) else SENTENCES):
                pcm = render(mixrender, voice, sentence, folder, i)
                heard = ""
                if not is_japanese(voice):
                    decoder.start_utt()
                    decoder.process_raw(pcm, full_utt=True)
                    decoder.end_utt()
                    heard = decoder.hyp().hypstr if decoder.hyp() else ""
                    e, n = errors(sentence, heard)
                    wrong, total = wrong + e, total + n
                audio = np.frombuffer(pcm, "<i2").astype(np.float32) / 32768
                mos = dnsmos.run(audio, sr=16000)
                overall.append(mos["ovrl_mos"])
                p808.append(mos["p808_mos"])
                print(f"{voice}\t{heard}\t{mos['p808_mos']:.2f}", file=sys.stderr)
            rows.append((voice, wrong / total if total else None, float(np.mean(overall)), float(np.mean(p808))))
    print("| voice | word error rate (PocketSphinx) | DNSMOS overall | DNSMOS P.808 |")
    print("|---|---|---|---|")
    for voice, wer, overall, p808 in rows:
        shown = f"{wer:.2f}" if wer is not None else "- (Japanese: no recogniser)"
        print(f"| {voice} | {shown} | {overall:.2f} | {p808:.2f} |")


if __name__ == "__main__":
    main()
