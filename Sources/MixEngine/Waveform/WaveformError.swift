/// A waveform request that cannot be carried out, in one line for a person at a terminal:
/// `cannot write 'rain.txt': unknown extension '.txt'; use .json, .dat, .png or .svg`.
public struct WaveformError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
