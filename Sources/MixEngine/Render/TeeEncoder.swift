import MixDSP

/// Sends the same frames to several encoders (the output file and, say, a waveform analyser).
/// Holds an array of encoders, made in `init`; `write` and `finish` allocate nothing themselves and call
/// each encoder in turn on the caller's thread. Not thread-safe: one thread at a time, as for any
/// `AudioEncoder`.
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
