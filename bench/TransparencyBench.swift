import DSPTestSupport
import MixDSP
import MixIO

/// How clean each resampler quality is, on exact sines (`ResamplerProbe`): libsamplerate against libsoxr.
/// Measurements, not timings: the same on every run and machine (up to libm).
struct TransparencyBench {
    /// Fractions of the lower rate's Nyquist frequency the passband is measured at.
    static let passband = [0.01, 0.1, 0.3, 0.5, 0.7, 0.8]

    func run() throws -> Section {
        var section = Section(id: "transparency", title: "SampleRateResampler transparency on exact sines (mono, 0.5 amplitude)",
                              labels: ["quality", "conversion"],
                              columns: [Column(key: "snr", title: "worst SNR ≤0.8 Nyq", format: .decibels),
                                        Column(key: "residue", title: "worst residue ≤0.9 Nyq", format: .decibels),
                                        Column(key: "ripple", title: "gain range ≤0.8 Nyq", format: .decibels),
                                        Column(key: "edge", title: "gain @0.9 Nyq", format: .decibels),
                                        Column(key: "rejection", title: "alias level", format: .decibels)])
        for quality in [ResamplerChoice.medium, .best, .fast, .soxrHQ, .soxrVHQ] {
            let make: ConverterFactory = { c, i, o in
                try makeSampleRateConverter(channelCount: c, inputRate: i, outputRate: o, quality: quality)
            }
            for (from, to) in [(44_100, 48_000), (22_050, 48_000)] {
                let nyquist = Double(min(from, to)) / 2
                var snr = Double.infinity, residue = Double.infinity, low = Double.infinity, high = -Double.infinity
                for fraction in Self.passband {
                    let r = try ResamplerProbe.sine(frequency: fraction * nyquist, inputRate: from, outputRate: to, makeConverter: make)
                    snr = min(snr, r.snrDb); residue = min(residue, r.residueDb)
                    low = min(low, r.gainDb); high = max(high, r.gainDb)
                }
                let edge = try ResamplerProbe.sine(frequency: 0.9 * nyquist, inputRate: from, outputRate: to, makeConverter: make)
                residue = min(residue, edge.residueDb)
                section.add([quality.rawValue, "\(fixed(Double(from) / 1000, 2)) -> \(to / 1000) kHz"],
                            ["snr": Spread([snr]), "residue": Spread([residue]), "ripple": Spread([high - low]),
                             "edge": Spread([edge.gainDb])])
            }
            // Downsampling: sines above the output's Nyquist frequency must not come back as aliases.
            var worst = -Double.infinity
            for frequency in [22_500.0, 23_000, 23_500] {
                worst = max(worst, try ResamplerProbe.rejectionDb(frequency: frequency, inputRate: 48_000, outputRate: 44_100,
                                                                  makeConverter: make))
            }
            section.add([quality.rawValue, "48 -> 44.1 kHz"], ["rejection": Spread([worst])])
        }
        section.notes = [
            "2 s sines, the output compared with the exact sine at the output rate over [0.25 s, end - 0.25 s); "
                + "Nyq = the lower rate's Nyquist frequency; passband sines at \(Self.passband.map { fixed($0, 2) }.joined(separator: ", ")) x Nyq.",
            "SNR: exact sine over (output - exact sine), every error counted; residue: exact sine over what is left once "
                + "the least-squares fitted sine is removed (aliases, images, noise); gain: fitted amplitude over the input's.",
            "alias level: output power over input power for sines at 22.5, 23 and 23.5 kHz converted from 48 to 44.1 kHz "
                + "(above the output's 22.05 kHz Nyquist), the worst of the three.",
        ]
        return section
    }
}
