/// A schema document (`docs/preset.schema.json`) and its parts: JSON values, whose objects keep their members in
/// order, so that the generated schema reads in the order it is declared (a kind's settings in its own order) and
/// the same declarations always give the same bytes. The name says what a value is for; the model is `JSONValue`'s,
/// read by `JSONParser` and written by `JSONWriter` in the `.indented` style.
public typealias SchemaValue = JSONValue

extension JSONValue {
    /// The schema document's text: `.indented` (the layout Python's `json.dumps(indent=2, ensure_ascii=False)`
    /// gives, so a schema edited by either tool stays the same bytes), ending with a newline.
    public var text: String { document(.indented) }

    /// Why a schema document could not be read (`JSONParser`'s error).
    public typealias SyntaxError = JSONSyntaxError

    /// A schema written as JSON text in the source (a kind's `$defs` entry): a constant of the program, so a
    /// mistake in it is the program's, found by the schema test, not a preset's.
    static func declared(_ text: String) -> JSONValue {
        do { return try parse(text) } catch { preconditionFailure("a schema in the source is not JSON: \(error)") }
    }

    /// The object with `extra` appended to its `properties` (made if missing).
    func addingProperties(_ extra: [Member]) -> JSONValue {
        setting("properties", to: .object((self["properties"]?.members ?? []) + extra))
    }

}
