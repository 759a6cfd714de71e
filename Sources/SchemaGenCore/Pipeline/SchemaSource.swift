/// A schema file's path and text: the pipeline's input.
public struct SchemaSource: Hashable, Sendable {
    public enum Syntax: Sendable { case dsl, json }

    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// `*.schema.json` is JSON; everything else (`*.schema`) is the DSL.
    public var syntax: Syntax { path.hasSuffix(".json") ? .json : .dsl }

    /// Whether a file name is a schema file the tools pick up.
    public static func isSchemaFile(_ path: String) -> Bool {
        path.hasSuffix(".schema") || path.hasSuffix(".schema.json")
    }
}

/// A Swift file produced by the pipeline.
public struct GeneratedFile: Hashable, Sendable {
    public var name: String
    public var contents: String

    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}
