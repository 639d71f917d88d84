/// A render request that cannot be carried out: an unusable output path or format, or a range outside
/// the render. (A destination whose folder is missing or not writable is a `DestinationError` from
/// MixIO's `AtomicOutputFile`; both read `cannot write '<path>': ...`.)
public struct OutputError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
