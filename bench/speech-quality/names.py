"""A recogniser's transcript of names said with and without their lexicon entry (issue 57, "Names said right").

  .venv-bench/bin/python bench/speech-quality/names.py <mixrender> [voice]

Each name is said in the same sentence three times by mixrender (a session at 16 kHz): as written, with a `lexicon`
entry giving its respelling, and with one giving its phonemes in IPA. PocketSphinx (its US English model, inside its wheel) writes down what it
hears; the table shows both transcripts beside the respelling, and the words the voice said it guessed (the render
report's `guessedWords`). Needs .venv-bench (made by bench/speech-quality/run.sh).
"""
import json, os, subprocess, sys, tempfile, wave

NAMES = [("Aoife", "Eefa", "/ˈiːfə/"), ("Siobhan", "Shivawn", "/ʃɪˈvɔːn/"), ("Niamh", "Neev", "/niːv/"),
         ("Saoirse", "Sersha", "/ˈsɜːrʃə/"), ("Tadhg", "Tige", "/taɪɡ/"), ("Caoimhe", "Keeva", "/ˈkiːvə/")]
SENTENCE = "Hello {}, it is time to rest."


def render(mixrender, voice, text, lexicon, folder, tag):
    preset, output, report = (os.path.join(folder, tag + suffix) for suffix in (".json", ".wav", ".report.json"))
    speech = {"voice": voice}
    if lexicon:
        speech["lexicon"] = lexicon
    with open(preset, "w") as f:
        json.dump({"output": {"sampleRate": 16000, "channels": 1, "bitDepth": 16},
                   "sections": [{"name": "A", "segments": [{"text": text, "gapBefore": 0.3, "pauseAfter": 0.3,
                                                            "speech": speech}]}]}, f)
    subprocess.run([mixrender, preset, "-o", output, "--report", report, "--quiet"], check=True)
    with wave.open(output) as w:
        pcm = w.readframes(w.getnframes())
    with open(report) as f:
        guessed = [word for entry in json.load(f)["guessedWords"] for word in entry["words"]]
    return pcm, guessed


def main():
    mixrender = sys.argv[1]
    voice = sys.argv[2] if len(sys.argv) > 2 else "hibari:heart"
    from pocketsphinx import Decoder
    decoder = Decoder(loglevel="FATAL")

    def hear(pcm):
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        return decoder.hyp().hypstr if decoder.hyp() else ""

    print(f"| name ({voice}) | respelling | heard without the entry | guessed | heard with it | guessed | IPA | heard with the IPA |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for k, (name, respelling, ipa) in enumerate(NAMES):
            text = SENTENCE.format(name)
            plain, plain_guessed = render(mixrender, voice, text, None, folder, f"n{k}")
            fixed, fixed_guessed = render(mixrender, voice, text, {name: respelling}, folder, f"l{k}")
            phonemes, _ = render(mixrender, voice, text, {name: ipa}, folder, f"p{k}")
            print(f"| {name} | {respelling} | {hear(plain)} | {', '.join(plain_guessed) or '-'} | {hear(fixed)} | "
                  f"{', '.join(fixed_guessed) or '-'} | {ipa} | {hear(phonemes)} |")


if __name__ == "__main__":
    main()
