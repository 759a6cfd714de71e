/// A token of Swift source, as the SwiftletModel importer reads it: enough to find
/// declarations, attributes and types, and to copy untouched code verbatim.
struct SwiftToken: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case identifier
        /// A string literal, text as written (quotes and escapes included).
        case string
        case number
        /// `///` or `/** */` documentation, text without the markers.
        case docComment
        /// Any other single character: `{`, `@`, `\`, `?`, `:`...
        case punctuation
    }

    var kind: Kind
    var text: String
    var location: SourceLocation
    /// Where the token starts and ends in the file's scalars (`end` exclusive).
    var start: Int
    var end: Int

    func isPunctuation(_ character: String) -> Bool { kind == .punctuation && text == character }
    func isIdentifier(_ name: String) -> Bool { kind == .identifier && text == name }
}
