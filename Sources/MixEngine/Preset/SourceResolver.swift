/// How a preset's source names become files when the program reading it decides, instead of the preset's folder: a
/// render server names sounds by hash (`sha256:<hex>`) or within folders its operator configured
/// (`library/rain.ogg`), and never opens a path a request wrote.
///
/// Every name the preset gives for a file (a track's, a playlist's, a narrator's recording, a bed preset, and the
/// names inside that bed) goes through `resolve`; a refusal is reported at the name's JSON path, as any error in
/// the preset is. A value, `Sendable`: the resolver may be called from any thread.
public struct SourceResolver: Sendable {
    let resolve: @Sendable (String) -> Result<String, Refusal>

    /// `resolve` gives the file a name stands for, or why it is refused (one line, without the name's JSON path).
    public init(_ resolve: @escaping @Sendable (String) -> Result<String, Refusal>) {
        self.resolve = resolve
    }

    /// Why a name was refused: one line (`no sound 'sha256:…' has been uploaded`).
    public struct Refusal: Error, Sendable, Equatable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}
