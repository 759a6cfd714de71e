/// Checks that the generated schema type (`<Target>Schema`) and its file collide with nothing
/// the schema files declare or generate.
enum SchemaNameCheck {
    static func problems(schemaName: String, documents: [SchemaDocument]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        let schemaFile = SchemaRenderer.outputName(for: schemaName)
        for document in documents {
            if SchemaValidator.outputName(for: document.path) == schemaFile {
                problems.append(.error(
                    "this file would generate '\(schemaFile)', the file of the generated schema type '\(schemaName)'",
                    at: SourceLocation(path: document.path, line: 1, column: 1),
                    hint: "rename the schema file, or name the schema type otherwise (schemagen generate --schema-name)"))
            }
            for declaration in document.declarations where declaration.name.value == schemaName {
                problems.append(.error(
                    "'\(schemaName)' is the name of the generated schema type listing this target's entities",
                    at: declaration.name.location,
                    hint: "rename the declaration, or name the schema type otherwise (schemagen generate --schema-name)"))
            }
        }
        return problems
    }
}
