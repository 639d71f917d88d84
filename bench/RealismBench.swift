import Foundation
import MixDSP
import MixIO

/// How real the procedural nature sounds measure (issue 25): `SoundStatistics` of a generator beside a recording of
/// the real thing, measure by measure, with the difference and whether it is within the targets (`SoundComparison`).
///
/// - `bench --only realism A.wav B.ogg`: any two files, B taken as the reference.
/// - `bench --only realism --recordings DIR`: each generator, at the presets' settings and wrapped as a render wraps
///   it (`DCBlocker`), beside its recording in DIR (the names of `../shared/audio/nature`), at the recording's rate.
/// - `bench --only realism`: each generator's own measures, with no reference.
struct RealismBench {
    let isQuick: Bool
    let files: [String]
    let recordings: String?

    /// A generator at the settings the presets use, and the recording it is set beside.
    struct Pairing: Sendable {
        var name: String
        var settings: String
        var recording: String
        var make: @Sendable (_ sampleRate: Int) -> FrameSource
    }

    static let pairings: [Pairing] = [
        Pairing(name: "rain", settings: "intensity 0.6, brightness 0.5, seed 4", recording: "binaural_LluviasDeMayo.flac") {
            RainGenerator(intensity: 0.6, brightness: 0.5, seed: 4, sampleRate: $0, channelCount: 2)
        },
        Pairing(name: "fire", settings: "intensity 0.55, seed 71", recording: "blanket_fireplace.ogg") {
            FireGenerator(intensity: 0.55, seed: 71, sampleRate: $0, channelCount: 2)
        },
        Pairing(name: "surf", settings: "intensity 0.8, period 3 s, seed 61", recording: "alarmclock_waves.mp3") {
            SurfGenerator(intensity: 0.8, periodSeconds: 3, seed: 61, sampleRate: $0, channelCount: 2)
        },
        Pairing(name: "wind", settings: "intensity 0.5, gustiness 0.6, seed 23", recording: "blanket_wind.ogg") {
            WindGenerator(intensity: 0.5, gustiness: 0.6, seed: 23, sampleRate: $0, channelCount: 2)
        },
        Pairing(name: "crickets", settings: "intensity 0.35, 24 °C, seed 73", recording: "") {
            CricketChorus(intensity: 0.35, temperatureC: 24, seed: 73, sampleRate: $0, channelCount: 2)
        },
    ]

    func run() throws -> Section {
        var section = Section(id: "realism", title: "Realism: measures of a sound beside a recording (targets of issue 25)",
                              labels: ["sound", "measure", "difference", "target"],
                              columns: [Column(key: "measured", title: "measured", format: .ratio),
                                        Column(key: "reference", title: "reference", format: .ratio)])
        if files.count == 2 {
            let a = try Self.measure(file: files[0]), b = try Self.measure(file: files[1])
            add(SoundComparison(a, against: b), as: (files[0] as NSString).lastPathComponent, to: &section)
            section.notes.append("reference: \(files[1])")
            return section
        }
        precondition(files.isEmpty, "BenchOptions.parse allows two files or none")
        let seconds = isQuick ? 10.0 : 60.0
        for pairing in Self.pairings {
            if let recordings, !pairing.recording.isEmpty {
                let path = (recordings as NSString).appendingPathComponent(pairing.recording)
                let reference = try Self.measure(file: path)
                // A generator runs at the recording's rate, or at 48 kHz beside one below 44.1 kHz (the comparison
                // reads the bands both hold).
                let rate = reference.sampleRate >= 44_100 ? reference.sampleRate : 48_000
                let generated = try Self.measure(DCBlocker(pairing.make(rate), sampleRate: rate), sampleRate: rate, seconds: seconds)
                add(SoundComparison(generated, against: reference, wide: true), as: "\(pairing.name) (\(pairing.settings))", to: &section)
                section.notes.append("\(pairing.name): beside \(pairing.recording), \(fixed(seconds, 0)) s at \(rate) Hz")
            } else {
                let m = try Self.measure(DCBlocker(pairing.make(48_000), sampleRate: 48_000), sampleRate: 48_000, seconds: seconds)
                add(SoundComparison(m, against: m), as: "\(pairing.name) (\(pairing.settings))", to: &section, measuredOnly: true)
            }
        }
        section.notes.append("targets: bands ±4 dB after level matching, centroid 20 %, crest and level spreads 35 %, onsets 30 % "
                             + "(when the reference has events), correlation < 0.5 (every generator is to be wide; two files: when the reference is), DC < -80 dBFS")
        return section
    }

    private func add(_ comparison: SoundComparison, as name: String, to section: inout Section, measuredOnly: Bool = false) {
        for row in comparison.rows {
            var figures: [String: Spread] = [:]
            if let m = row.measured, m.isFinite { figures["measured"] = Spread([m]) }
            if !measuredOnly, let r = row.reference, r.isFinite { figures["reference"] = Spread([r]) }
            let verdict = measuredOnly ? "" : row.withinTarget.map { $0 ? "ok" : "MISSED" } ?? "n/a"
            section.add([name, row.name, measuredOnly ? "" : row.difference, verdict], figures)
        }
        if !measuredOnly {
            section.notes.append("\(name): \(comparison.rows.count - comparison.misses.count) of \(comparison.rows.count) measures within target")
        }
    }

    /// A whole file's measures, decoded as `mixrender waveform` decodes it.
    static func measure(file path: String) throws -> SoundStatistics {
        let reader = try AudioFile.open(path: path, purpose: .wholeFile)
        let channels = reader.channelCount
        let meter = SoundStatisticsMeter(sampleRate: reader.sampleRate, channelCount: channels, fft: FFTWRealFFT(size: 4096))
        let frames = 16_384
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
        defer { buffer.deallocate() }
        let block = AudioBlock(channelCount: channels, capacity: frames)
        while true {
            let n = try reader.read(into: buffer, frames: frames)
            guard n > 0 else { break }
            Kernels.deinterleave(buffer, channelCount: channels, count: n, into: block)
            meter.add(block, count: n)
        }
        return meter.finish()
    }

    /// The first `seconds` of a source, measured.
    static func measure(_ source: FrameSource, sampleRate: Int, seconds: Double) throws -> SoundStatistics {
        let meter = SoundStatisticsMeter(sampleRate: sampleRate, channelCount: source.channelCount, fft: FFTWRealFFT(size: 4096))
        let block = AudioBlock(channelCount: source.channelCount, capacity: 4096)
        let total = Int64(seconds * Double(sampleRate))
        var at: Int64 = 0
        while at < total {
            let n = Int(min(4096, total - at))
            try source.render(into: block, offset: 0, count: n, at: at)
            meter.add(block, count: n)
            at += Int64(n)
        }
        return meter.finish()
    }
}
