import MixDSP

/// Sends the same frames to several encoders (the output file and, say, a waveform analyser).
public final class TeeEncoder: AudioEncoder {
    public let encoders: [AudioEncoder]
    public init(_ encoders: [AudioEncoder]) { self.encoders = encoders }

    public func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        for e in encoders { try e.write(interleaved: interleaved, frames: frames) }
    }

    public func finish() throws {
        for e in encoders { try e.finish() }
    }
}
