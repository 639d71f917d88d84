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

    /// The resolver for the names inside a preset that this resolver named `reference` (a session's bed): a name is
    /// taken from that preset's folder (`library/beds/night.json` naming `sounds/rain.ogg` is
    /// `library/beds/sounds/rain.ogg`), as a preset file's names are taken from its folder, and then resolved as any
    /// name is, with the same refusals ('..' included, so a bed reaches nothing outside the folders this resolver
    /// does); a `sha256:` name is taken as it is. A preset named by hash has no folder: its names are taken as they are.
    public func inside(_ reference: String) -> SourceResolver {
        guard !reference.hasPrefix("sha256:"), let slash = reference.lastIndex(of: "/") else { return self }
        let folder = String(reference[..<slash]), resolve = self.resolve
        return SourceResolver { name in
            name.hasPrefix("sha256:") ? resolve(name) : resolve(folder + "/" + name)
        }
    }

    /// Why a name was refused: one line (`no sound 'sha256:…' has been uploaded`).
    public struct Refusal: Error, Sendable, Equatable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}
