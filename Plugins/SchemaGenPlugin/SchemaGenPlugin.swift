import Foundation
import PackagePlugin

/// Build-tool plugin: compiles the schema files of the target that applies it.
///
/// One build command covers all of a target's schema files, because relations cross files
/// and every file is validated with the others. SwiftPM reruns it when any schema file is
/// edited, added or removed; `schemagen` rewrites only the outputs whose content changed.
@main
struct SchemaGenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target.sourceModule else { return [] }
        let files = target.sourceFiles.map(\.url)
        if let problem = SchemaFiles.schemaOnlyTargetProblem(files: files, targetName: target.name) {
            // SwiftPM compiles generated sources of a target with no Swift file of its own, but
            // never links them: every use fails with undefined symbols. Say why instead.
            Diagnostics.error(problem)
            return []
        }
        return try commands(
            schemas: SchemaFiles.schemas(in: target.sourceFiles.map(\.url)),
            targetName: target.name,
            workDirectory: context.pluginWorkDirectoryURL,
            tool: try context.tool(named: "schemagen").url
        )
    }
}

func commands(schemas: [URL], targetName: String, workDirectory: URL, tool: URL) throws -> [Command] {
    guard !schemas.isEmpty else { return [] }
    let output = workDirectory.appending(path: "GeneratedSources")
    // Two schema files with one base name collide; schemagen reports it, SwiftPM must not see duplicates first.
    let schemaName = SchemaFiles.schemaName(forTarget: targetName)
    var outputs: [URL] = [output.appending(path: schemaName + ".generated.swift")]
    // Each entity is compiled from a file of its own (compile time grows with the square of
    // the entities in one file). SwiftPM needs the names now, before schemagen runs, and does
    // not ask again when only a schema's content changes; `--entity-files` tells schemagen
    // which were declared, and it puts any other entity in its schema file's file.
    var entityFiles: [String] = []
    for schema in schemas {
        let url = output.appending(path: SchemaFiles.outputName(for: schema))
        guard !outputs.contains(url) else { continue }
        outputs.append(url)
        let text = (try? String(contentsOf: schema, encoding: .utf8)) ?? ""
        for entity in SchemaEntityNames.names(in: text, isJSON: schema.lastPathComponent.hasSuffix(".json")) {
            let name = SchemaFiles.entityOutputName(entity, schemaOutput: url.lastPathComponent)
            let entityURL = output.appending(path: name)
            // The entity named like its schema file is in that file.
            guard !name.contains("/"), !outputs.contains(entityURL) else { continue }
            outputs.append(entityURL)
            entityFiles.append(name)
        }
    }
    return [
        .buildCommand(
            displayName: "Generating Swift from \(schemas.count) schema file\(schemas.count == 1 ? "" : "s") of \(targetName)",
            executable: tool,
            // Absolute schema paths in #sourceLocation directives: compiler errors about Swift
            // the schema names (external types, resolvers) link to the schema line.
            arguments: ["generate", "--quiet", "--full-source-paths", "--output", output.path, "--schema-name", schemaName,
                        "--entity-files", entityFiles.joined(separator: "/")] + schemas.map(\.path),
            inputFiles: schemas,
            outputFiles: outputs
        )
    ]
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SchemaGenPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        try commands(
            schemas: SchemaFiles.schemas(in: target.inputFiles.map(\.url)),
            targetName: target.displayName,
            workDirectory: context.pluginWorkDirectoryURL,
            tool: try context.tool(named: "schemagen").url
        )
    }
}
#endif
