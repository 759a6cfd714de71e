import Foundation
import SchemaGenCore

/// `schemagen convert <file> [--to dsl|json] [--output <file>]`, and
/// `schemagen convert --from swiftletmodel <file.swift>... --output <dir>`.
enum ConvertCommand {
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        if let from = arguments.options["--from"] {
            guard from == "swiftletmodel" else { throw UsageError(message: "--from takes 'swiftletmodel'") }
            return try importSwiftletModel(arguments)
        }
        guard arguments.positional.count == 1, let path = arguments.positional.first else {
            throw UsageError(message: "convert takes exactly one schema file")
        }
        let source = try SchemaFileCollector.read([path])[0]
        let (document, diagnostics) = SchemaGenerator.parse(source)
        SchemaGenCommand.report(diagnostics)
        if diagnostics.contains(where: { $0.severity == .error }) { return 1 }
        let target = arguments.options["--to"] ?? (source.syntax == .json ? "dsl" : "json")
        let text: String
        switch target {
        case "dsl": text = DSLPrinter.print(document)
        case "json": text = JSONPrinter.print(document)
        default: throw UsageError(message: "--to must be 'dsl' or 'json'")
        }
        if let output = arguments.options["--output"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            print(text, terminator: "")
        }
        return 0
    }

    /// Converts SwiftletModel model files into schema files (and kept Swift) in `--output`.
    private static func importSwiftletModel(_ arguments: ParsedArguments) throws -> Int32 {
        let output = try arguments.required("--output")
        guard !arguments.positional.isEmpty else { throw UsageError(message: "convert --from swiftletmodel needs the model files (*.swift)") }
        let sources = try arguments.positional.map { path in
            do {
                return SchemaSource(path: path, text: try String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw UsageError(message: "cannot read \(path): \(error.localizedDescription)")
            }
        }
        // The target's schema type is named after the folder, as `generate` names it.
        let schemaName = SchemaGenerator.schemaName(forTarget: URL(fileURLWithPath: output).lastPathComponent)
        let result = SwiftletModelImport.convert(sources, options: .init(tracksUpdatedAt: !arguments.flags.contains("--no-updated-at"),
                                                                         keepsDeletedArchives: !arguments.flags.contains("--no-soft-delete"),
                                                                         schemaName: schemaName))
        SchemaGenCommand.report(result.diagnostics)
        if result.hasErrors {
            SchemaGenCommand.printError("nothing written: fix the errors above (in the Swift models) and convert again")
            return 1
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        for file in result.files {
            let stem = URL(fileURLWithPath: file.sourcePath).deletingPathExtension().lastPathComponent
            if let schema = file.schemaText {
                try Data(schema.utf8).write(to: URL(fileURLWithPath: output).appendingPathComponent(file.schemaStem + ".schema"), options: .atomic)
            }
            if let swift = file.swiftText {
                try Data(swift.utf8).write(to: URL(fileURLWithPath: output).appendingPathComponent(stem + "+Kept.swift"), options: .atomic)
            }
        }
        return 0
    }
}
