import Foundation

/// Schema file conventions shared by the plugins. Plugins cannot import library targets,
/// so this mirrors `SchemaSource.isSchemaFile`, `SchemaValidator.outputName(for:)`, `FileModel.entityOutputName` and
/// `SchemaGenerator.schemaName(forTarget:)` in SchemaGenCore; `GoldenTests.pluginNamingMatchesTheGenerator` checks the two agree.
enum SchemaFiles {
    static func isSchemaFile(_ name: String) -> Bool {
        name.hasSuffix(".schema") || name.hasSuffix(".schema.json")
    }

    /// `Chat.schema` and `Chat.schema.json` both become `Chat.generated.swift`.
    static func outputName(for url: URL) -> String {
        var base = url.lastPathComponent
        for suffix in [".schema.json", ".schema"] where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
            break
        }
        return base + ".generated.swift"
    }

    /// `Message` of `Chat.schema` is generated into `Chat+Message.generated.swift`, and `Chat`
    /// into `Chat.generated.swift` (mirrors `FileModel.entityOutputName(_:schemaOutput:)`).
    static func entityOutputName(_ entity: String, schemaOutput: String) -> String {
        let suffix = ".generated.swift"
        let base = schemaOutput.hasSuffix(suffix) ? String(schemaOutput.dropLast(suffix.count)) : schemaOutput
        return base == entity ? schemaOutput : base + "+" + entity + suffix
    }

    /// The type listing a target's entities for a store, `ChatModels` -> `ChatModelsSchema`
    /// (mirrors `SchemaGenerator.schemaName(forTarget:)`).
    static func schemaName(forTarget target: String) -> String {
        var name = String(target.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if name.first?.isNumber ?? true { name = "_" + name }
        return name.prefix(1).uppercased() + name.dropFirst() + "Schema"
    }

    /// The target's schema files, sorted so commands are deterministic.
    static func schemas(in files: some Sequence<URL>) -> [URL] {
        files.filter { isSchemaFile($0.lastPathComponent) }.sorted { $0.path < $1.path }
    }

    /// The error for a target that holds schema files but no Swift file, or nil.
    static func schemaOnlyTargetProblem(files: [URL], targetName: String) -> String? {
        let schemas = files.filter { isSchemaFile($0.lastPathComponent) }
        guard !schemas.isEmpty, !files.contains(where: { $0.pathExtension == "swift" }) else { return nil }
        return "target '\(targetName)' has schema files but no Swift file; SwiftPM does not link the code generated for such a target. "
            + "Add one Swift file to it, e.g. '\(targetName).swift' containing '@_exported import SchemaRuntime' (see docs/Adopting.md)"
    }
}
