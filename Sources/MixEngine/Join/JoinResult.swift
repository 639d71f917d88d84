import MixIO

/// What `JoinJob.run` wrote. A value (`Sendable`).
public struct JoinResult: Sendable, Equatable {
    public var outputPath: String
    public var partCount: Int
    public var frameCount: Int64
    public var sampleRate: Int
    public var channelCount: Int
    public var sampleFormat: OutputSampleFormat
    public var format: OutputFileFormat
    /// The output's size, if it could be seen after the rename.
    public var outputBytes: Int64?

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
}
