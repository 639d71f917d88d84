extension AudioFileWriter {
    /// A chapter mark a container stores itself (M4A's chapter track): its name and the frame it starts at,
    /// counted from the file's first frame. A chapter ends where the next one starts, the last one at the end
    /// of the file.
    ///
    /// A value: a `String` and a number; allocates only the string. `Sendable`, safe to share.
    public struct Chapter: Sendable, Equatable {
        public var name: String
        public var frame: Int64

        public init(name: String, frame: Int64) {
            self.name = name
            self.frame = frame
        }
    }
}
