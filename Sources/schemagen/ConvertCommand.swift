import Foundation
import SchemaGenCore

/// `schemagen convert <file> [--to dsl|json] [--output <file>]`
enum ConvertCommand {
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
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
}
