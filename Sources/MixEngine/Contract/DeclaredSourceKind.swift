/// A kind whose settings are declared (`DeclaredSettings`): its reader, its keys and its schema come from the
/// declaration.
protocol DeclaredSourceKind: ReadableSourceKind {
    static var settings: DeclaredSettings<Self> { get }
}

extension DeclaredSourceKind {
    static func read(_ cursor: JSONCursor, reader: any SourceReader) throws -> Self { try settings.read(cursor, reader: reader) }
    static var settingsKeys: [String]? { settings.keys }
    static var schema: SchemaValue { settings.schema }
}
