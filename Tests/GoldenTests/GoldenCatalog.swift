import Foundation
import MixEngine
import Testing

/// One golden: a preset (or part of its timeline, at an output rate), and the reference it is compared with.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    enum Tier: Sendable {
        /// Rendered into memory as float, compared with a 24-bit FLAC golden (`LosslessTier`).
        case lossless
        /// Rendered to a lossy format (the golden's: Ogg Vorbis, MP3, Ogg Opus) through `RenderJob.render(to:)`,
        /// decoded, compared band by band (`SpectralTier`).
        case lossy
        /// Rendered to a lossless format other than FLAC (the golden's: ALAC in CAF, AIFF) through
        /// `RenderJob.render(to:)`, decoded, compared by the lossless tier.
        case encodedLossless
        /// For presets that speak: rendered by the `mixrender` executable (to a WAV), compared by length and band
        /// levels (`SpokenTier`): the neural voice's samples move with any change in onnxruntime's arithmetic,
        /// its sound does not.
        case spoken
    }

    /// File stem of the golden, and its name in messages and in `MIXRENDER_RECORD_GOLDENS`.
    var name: String
    /// The preset, relative to the package root.
    var preset: String
    /// Part of the timeline `[start, end)` in seconds (fades and envelopes stay where the preset puts them).
    var start: Double? = nil
    var end: Double? = nil
    /// Output rate override, to keep the golden small.
    var sampleRate: Int? = nil
    var tier: Tier = .lossless
    /// A spoken preset's voice (`voice.speech.voice`) replaced by this one, in a copy the render reads.
    var voice: String? = nil
    /// The golden file, relative to the package root.
    var golden: String
    /// What it guards.
    var guards: String

    var testDescription: String { name }
    var fileExtension: String { String(golden.split(separator: ".").last ?? "") }

    var presetPath: String { GoldenPaths.root.appendingPathComponent(preset).path }
    var goldenPath: String { GoldenPaths.root.appendingPathComponent(golden).path }

    var overrides: RenderOverrides { GoldenRender.overrides(start: start, end: end, sampleRate: sampleRate) }
}

/// Every golden in `golden/`. Presets are rendered over short stretches of their real timeline (the
/// partial-render invariant test shows a stretch equals the same slice of the full render), mostly at
/// 16 kHz to keep the files small; the features come from the tiny presets in `golden/features/`.
///
/// Lossless goldens are 24-bit FLAC (`.flac`): noise costs about 2.6 bytes a sample there against 4 in a
/// float WAV. A window so quiet that 24-bit rounding alone would come near the SNR threshold (the end of a
/// fade to silence) is stored as a float WAV (`.wav`), which holds the render exactly; the test
/// `flacGoldensHaveHeadroomForTheSNRThreshold` keeps it that way.
enum GoldenCatalog {
    static func preset(_ name: String, _ label: String, start: Double, end: Double, sampleRate: Int? = 16_000,
                       format: String = "flac", guards: String) -> GoldenCase {
        GoldenCase(name: "\(name)-\(label)", preset: "presets/\(name).json", start: start, end: end,
                   sampleRate: sampleRate, golden: "golden/presets/\(name)-\(label).\(format)", guards: guards)
    }

    static func feature(_ name: String, start: Double? = nil, end: Double? = nil, label: String? = nil, tier: GoldenCase.Tier = .lossless,
                        guards: String) -> GoldenCase {
        let stem = label.map { "\(name)-\($0)" } ?? name
        return GoldenCase(name: stem, preset: "golden/features/\(name).json", start: start, end: end, tier: tier,
                          golden: "golden/features/\(stem).flac", guards: guards)
    }

    /// A window of a preset that speaks, rendered in a fresh process (see `GoldenCase.Tier.spoken`), with another
    /// `voice` when given.
    static func spoken(_ name: String, _ label: String, voice: String? = nil, start: Double, end: Double,
                       guards: String) -> GoldenCase {
        GoldenCase(name: "\(name)-\(label)", preset: "presets/\(name).json", start: start, end: end, sampleRate: 16_000,
                   tier: .spoken, voice: voice, golden: "golden/presets/\(name)-\(label).flac", guards: guards)
    }

    /// The example presets in `presets/`.
    static let presets: [GoldenCase] = [
        preset("night", "fade-in", start: 17.5, end: 19, sampleRate: 12_000,
               guards: "the end of the 20 s master sCurve fade-in over procedural rain (seed 11) under its gain drift"),
        preset("night", "surf", start: 69, end: 70.5, sampleRate: 12_000,
               guards: "procedural wind with gusts fading in (equalPower) and drifting, the procedural surf fading in"),
        preset("night", "envelope", start: 600, end: 602, sampleRate: 8000,
               guards: "10 minutes in: rain and wind generators started mid-way (their warm start), each under its drift"),
        preset("night", "end", start: 3598, end: 3600, sampleRate: 8000, format: "wav",
               guards: "the last 2 s of the 20-minute exponential sleep-timer fade-out, an hour into the generators (below -80 dBFS: float WAV)"),
        preset("storm", "thunder", start: 160, end: 161.5, sampleRate: 12_000,
               guards: "heavy rain and gusting wind, and the first distant-thunder event (160.2 s), its gain and pan drawn from the seed"),
        preset("beach", "waves", start: 90, end: 91.5, sampleRate: 12_000,
               guards: "procedural surf (waves about 3 s apart) under its drift, a sea breeze"),
        preset("campfire", "crackle", start: 30, end: 31,
               guards: "the fire generator's roar, crackles and pops; crickets chirping at 24 °C"),
        preset("garden", "joins", start: 10, end: 11.5, sampleRate: 12_000,
               guards: "a 12 s surf recording re-sequenced (1 s crossfades at correlation-chosen joins), a re-sequenced rain loop, bird chirps at random"),
        preset("seaside", "start", start: 0, end: 3,
               guards: "master gain and equalPower fade-in, surf loop (44.1 kHz), rain (22.05 kHz mono, hard seam) under its envelope"),
        preset("seaside", "gusts", start: 116.75, end: 120.75,
               guards: "the rain loop's hard seam at 117 s, then at 120 s the wind loop (48 kHz, panned) starting with its sCurve fade-in and the surf loop's seam crossfade"),
        preset("seaside", "envelope", start: 300, end: 302, sampleRate: 8000,
               guards: "5 minutes in: the middle of the rain's sCurve envelope segment from -24 dB to 0 dB"),
        preset("seaside", "fade-out", start: 2398, end: 2401,
               guards: "the gusts' sCurve fade-out ending at 40 min inside the logarithmic master fade-out; rain envelope after its last point"),
        preset("nap", "start", start: 1.5, end: 4.5,
               guards: "pink bed, master fade-in, the looping playlist starting at 3 s with its fade-in"),
        preset("nap", "crossfade", start: 13.5, end: 16.5,
               guards: "the playlist's 4 s equalPower crossfade from wind.ogg (14 s) into surf.ogg at 13-17 s"),
        preset("focus", "start", start: 0, end: 2, format: "wav",
               guards: "mono output, brown and white noise, the exponential master fade-in from silence (quiet: float WAV)"),
        preset("focus", "fade-out", start: 1455, end: 1457, sampleRate: nil,
               guards: "at the preset's own 32 kHz: the 1-minute linear master fade-out, 25 minutes into the noise"),
        spoken("sleep-hypnosis", "first-words", start: 19.5, end: 21.5,
               guards: "the night bed (6 dB down) ducking 1 s before the first words at 20 s, the neural voice's words at the voice level, binaural beats ramping from 10 Hz"),
        spoken("waking", "start", start: 4, end: 5,
               guards: "the pink air and the 6 Hz isochronic pulse fading in, before the first words at 6 s"),
        // The bell comes after 90 s of speech, and the neural voice's lengths move with the CPU's arithmetic (its bell
        // lands 50 ms later on an AVX2-only EPYC than on the machine that recorded it); espeak-ng's do not.
        spoken("waking", "bell", voice: "espeak:en-us", start: 90.3, end: 92.3,
               guards: "spoken by espeak-ng: the end of the wake ending's 6 dB rise of the bed and pulse, and the bell at 1:30.882"),
        spoken("breathing-478", "first-breath", start: 11, end: 13,
               guards: "the end of the spoken introduction, then the first 4-7-8 inhale of the pacer (174 Hz, 3-semitone glide) with its cue 'In'"),
    ]

    /// Tiny presets, one feature each.
    static let features: [GoldenCase] = [
        feature("curve-linear", guards: "fade-in and fade-out along g = t"),
        feature("curve-equalPower", guards: "fade-in and fade-out along g = sin(t pi/2)"),
        feature("curve-sCurve", guards: "fade-in and fade-out along g = (1 - cos(pi t)) / 2"),
        feature("curve-logarithmic", guards: "fade-in and fade-out along g = log10(1 + 9 t)"),
        feature("curve-exponential", guards: "fade-in and fade-out linear in dB over 60 dB"),
        feature("envelope", guards: "a gain envelope with a segment of every curve, points 0.6 s apart"),
        feature("loop-crossfade", start: 7.75, end: 9.25, guards: "a loop's 1 s equalGain seam crossfade (22.05 kHz mono source)"),
        feature("loop-hard-seam", start: 11.9, end: 12.1, guards: "a hard-seam loop resampled circularly from 44.1 kHz"),
        feature("playlist", start: 6.8, end: 9.2, guards: "a streamed playlist's 2 s equalPower crossfade"),
        feature("resample-44k", start: 1, end: 1.25, guards: "a stereo 44.1 kHz file streamed through the default resampler (soxr-hq) to 48 kHz"),
        feature("resample-22k", start: 1, end: 1.25, guards: "a mono 22.05 kHz file streamed through the default resampler (soxr-hq) to 48 kHz"),
        feature("channels-stereo", start: 1, end: 2, guards: "mono and stereo sources, panned, into stereo"),
        feature("channels-mono", start: 1, end: 2, guards: "the same sources into mono output (stereo averaged, pan ignored)"),
        feature("generators", guards: "white, pink and brown noise from their seeds"),
        feature("tone", guards: "sine and triangle tones from the timeline's position: a late start keeps the phase of 0:00, a phase, a fade"),
        feature("sweep", guards: "sines gliding along equal musical steps from the track's start, then holding: down two octaves, and up two from a late start, in mono"),
        feature("binaural", guards: "binaural beats: an sCurve ramp of the beat from 10 to 4 Hz, then a step to 6 Hz, phase-continuous"),
        feature("isochronic", guards: "an isochronic tone: raised-cosine pulses, the rate ramping from 8 to 3 Hz"),
        feature("breathing", guards: "a breathing pacer's tone (swell, hold, glide, rest) and a second pacer swelling the bed"),
        feature("chime", guards: "a synthesised bell and a rising tone"),
        feature("session", start: 0, end: 2, label: "ducking",
                guards: "a session: the bed going down 0.4 s before the first recorded segment, levelled to -20 dBFS, beats from the sections' schedule"),
        feature("session", start: 23.6, end: 26.1, label: "wake",
                guards: "a session's wake ending: the bed and beats rising 4 dB, then the bell, the bed fading under it"),
        feature("speech", tier: .spoken, guards: "text spoken by the neural voice (default) and SSML with a break by espeak-ng, levelled, the bed ducking under them"),
        feature("limiter", guards: "the limiter turning a hot mix down to its ceiling"),
        feature("everything", start: 0, end: 2, guards: "every source, gain and fade at once (also used by the invariant tests)"),
    ]

    /// Ogg Vorbis goldens: the whole path to a lossy file, compared with the spectral measure.
    static let lossy: [GoldenCase] = formats.filter { $0.tier == .lossy } + [
        GoldenCase(name: "night-surf-vorbis", preset: "presets/night.json", start: 66, end: 72, tier: .lossy,
                   golden: "golden/presets/night-surf-vorbis.ogg",
                   guards: "night.json at 48 kHz through the Vorbis encoder (quality 0.4): rain, wind and surf generators"),
    ]

    /// One golden per output format the encoders above do not cover, through its own encoder.
    static let formats: [GoldenCase] = [
        GoldenCase(name: "night-surf-mp3", preset: "presets/night.json", start: 66, end: 69, tier: .lossy,
                   golden: "golden/presets/night-surf-mp3.mp3",
                   guards: "night.json at 48 kHz through LAME (variable bitrate, quality 0.5: V5), gapless"),
        GoldenCase(name: "night-surf-opus", preset: "presets/night.json", start: 66, end: 69, tier: .lossy,
                   golden: "golden/presets/night-surf-opus.opus",
                   guards: "night.json at 48 kHz through libopus (quality 0.5: 96 kbit/s stereo), pre-skip trimmed"),
        GoldenCase(name: "night-surf-aac", preset: "presets/night.json", start: 66, end: 69, tier: .lossy,
                   golden: "golden/presets/night-surf-aac.m4a",
                   guards: "night.json at 48 kHz through FFmpeg's AAC encoder (quality 0.5: 128 kbit/s stereo), edit list trimmed"),
        GoldenCase(name: "night-surf-alac", preset: "presets/night.json", start: 66, end: 67, sampleRate: 16_000, tier: .encodedLossless,
                   golden: "golden/presets/night-surf-alac.caf",
                   guards: "night.json at 16 kHz, 16-bit ALAC in CAF"),
        GoldenCase(name: "night-surf-aiff", preset: "presets/night.json", start: 67, end: 68, sampleRate: 16_000, tier: .encodedLossless,
                   golden: "golden/presets/night-surf-aiff.aiff",
                   guards: "night.json at 16 kHz, 16-bit big-endian AIFF"),
    ]

    static let lossless: [GoldenCase] = presets + features
    static let encodedLossless: [GoldenCase] = formats.filter { $0.tier == .encodedLossless }
    static let all: [GoldenCase] = lossless + lossy + encodedLossless
}
