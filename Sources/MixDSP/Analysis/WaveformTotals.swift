/// What a whole stream measured: its length, its sample peak and RMS, and how its energy divides
/// between the bands.
///
/// A value: numbers and two per-channel arrays; allocates only those arrays when made. `Sendable`, safe
/// to share.
public struct WaveformTotals: Sendable, Equatable {
    /// The three bands; a plain enum value (`Sendable`) that allocates nothing.
    public enum Band: String, Sendable, CaseIterable {
        case low, mid, high
    }

    public var sampleRate: Int
    public var frameCount: Int64
    /// Largest |x| per input channel.
    public var channelPeaks: [Float]
    /// Mean of x² per input channel.
    public var channelMeanSquares: [Double]
    /// Mean band powers of the mono mix over all FFT frames centred inside the stream
    /// (see `SpectralFrameAnalyzer`).
    public var lowPower: Double
    public var midPower: Double
    public var highPower: Double
    /// Magnitude-weighted spectral centroid of the whole stream, Hz: Σ Σ f_k |X_k| / Σ Σ |X_k|.
    public var centroidHz: Double

    public init(sampleRate: Int, frameCount: Int64, channelPeaks: [Float], channelMeanSquares: [Double],
                lowPower: Double, midPower: Double, highPower: Double, centroidHz: Double) {
        self.sampleRate = sampleRate
        self.frameCount = frameCount
        self.channelPeaks = channelPeaks
        self.channelMeanSquares = channelMeanSquares
        self.lowPower = lowPower
        self.midPower = midPower
        self.highPower = highPower
        self.centroidHz = centroidHz
    }

    public var durationSeconds: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// Largest |x| over all channels.
    public var peak: Float { channelPeaks.max() ?? 0 }

    /// RMS over every sample of every channel: sqrt(mean over channels of mean x²).
    public var rms: Double {
        channelMeanSquares.isEmpty ? 0 : (channelMeanSquares.reduce(0, +) / Double(channelMeanSquares.count)).squareRoot()
    }

    /// Each band's fraction of the total band power (they add up to 1; all 0 for silence).
    public func share(of band: Band) -> Double {
        let total = lowPower + midPower + highPower
        guard total > 0 else { return 0 }
        switch band {
        case .low: return lowPower / total
        case .mid: return midPower / total
        case .high: return highPower / total
        }
    }

    /// The band with the most power; nil for silence.
    public var dominantBand: Band? {
        guard lowPower + midPower + highPower > 0 else { return nil }
        return Band.allCases.max { share(of: $0) < share(of: $1) }
    }
}
