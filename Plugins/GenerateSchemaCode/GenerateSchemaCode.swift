import Foundation
import PackagePlugin

/// `swift package generate-schema-code [--target <name>]...`
///
/// Writes the code the build plugin compiles into `Generated/<target>/`, byte for byte, so
/// it can be read, reviewed and diffed. Covers every target with schema files unless
/// targets are named.
@main
struct GenerateSchemaCode: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) throws {
        var extractor = ArgumentExtractor(arguments)
        let requested = Set(extractor.extractOption(named: "target"))
        let tool = try context.tool(named: "schemagen").url
        var generated = 0
        for target in context.package.targets {
            guard let module = target.sourceModule, requested.isEmpty || requested.contains(target.name) else { continue }
            let schemas = SchemaFiles.schemas(in: module.sourceFiles.map(\.url))
            guard !schemas.isEmpty else { continue }
            let output = context.package.directoryURL.appending(path: "Generated").appending(path: target.name)
            let process = Process()
            process.executableURL = tool
            process.arguments = ["generate", "--output", output.path, "--schema-name", SchemaFiles.schemaName(forTarget: target.name)] + schemas.map(\.path)
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw GenerationFailed(target: target.name)
            }
            generated += 1
        }
        if generated == 0 {
            Diagnostics.warning("no target with schema files\(requested.isEmpty ? "" : " among \(requested.sorted().joined(separator: ", "))")")
        }
    }
}

struct GenerationFailed: Error, CustomStringConvertible {
    var target: String
    var description: String { "schemagen failed for target \(target); see the diagnostics above" }
}
