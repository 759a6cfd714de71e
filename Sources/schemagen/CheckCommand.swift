import Foundation
import SchemaGenCore

/// `schemagen check --generated <dir> [--schema-name <Name>] <path>...`
enum CheckCommand {
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let directory = try arguments.required("--generated")
        let paths = try SchemaFileCollector.collect(arguments.positional)
        let sources = try SchemaFileCollector.read(paths)
        let result = SchemaGenerator.generate(sources, schemaName: SchemaGenCommand.schemaName(arguments, folder: directory))
        SchemaGenCommand.report(result.diagnostics, sources: sources)
        if result.hasErrors { return 1 }
        var problems = 0
        for file in result.files {
            let path = (directory as NSString).appendingPathComponent(file.name)
            let existing = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
            guard let existing else {
                print("missing: \(path)")
                problems += 1
                continue
            }
            let diff = TextDiff.lines(old: existing, new: file.contents, oldName: path, newName: "\(file.name) (generated now)")
            if !diff.isEmpty {
                print(diff, terminator: "")
                problems += 1
            }
        }
        for name in try GeneratedFileWriter.stale(in: directory, expected: Set(result.files.map(\.name))) {
            print("stale: \((directory as NSString).appendingPathComponent(name)) (its schema file is gone)")
            problems += 1
        }
        if problems > 0 {
            SchemaGenCommand.printError("schemagen: \(directory) is out of date (\(problems) file\(problems == 1 ? "" : "s")); run 'swift package generate-schema-code' or 'schemagen generate'")
            return 1
        }
        print("schemagen: \(directory) is up to date")
        return 0
    }
}
