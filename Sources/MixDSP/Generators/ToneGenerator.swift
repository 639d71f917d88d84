// TEMPORARY STUB (replaced by the real generator from the tone branch before commit)
import RealModule
public final class ToneGenerator: FrameSource {
    public enum Waveform: String, Sendable, CaseIterable { case sine, triangle }
    public let channelCount: Int
    public var frameCount: Int64? { nil }
    let w: Waveform; let inc: Double; let amp: Float; let phase: Double
    public init(waveform: Waveform, frequencyHz: Double, sampleRate: Int, amplitude: Float, phase: Double = 0, channelCount: Int) {
        w = waveform; inc = frequencyHz / Double(sampleRate); amp = amplitude; self.phase = phase; self.channelCount = channelCount
    }
    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        for i in 0..<count {
            var p = Double(position + Int64(i)) * inc + phase; p -= p.rounded(.down)
            let v: Float = w == .sine ? amp * Float(Double.sin(2 * .pi * p)) : amp * Float(4 * abs(p - (p + 0.75).rounded(.down) + 0.25) - 1)
            for c in 0..<channelCount { block.channel(c)[offset + i] = v }
        }
    }
}
