import SchemaGenCore

/// `schemagen generate --output <dir> [--schema-name <Name>] [--entity-files <names>] <path>...`
enum GenerateCommand {
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let output = try arguments.required("--output")
        guard !arguments.positional.isEmpty else { throw UsageError(message: "generate needs at least one schema file or directory") }
        let paths = try SchemaFileCollector.collect(arguments.positional)
        let sources = try SchemaFileCollector.read(paths)
        let sourcePaths: SourcePathStyle = arguments.flags.contains("--full-source-paths") ? .asGiven : .fileName
        let result = SchemaGenerator.generate(sources, sourcePaths: sourcePaths, schemaName: SchemaGenCommand.schemaName(arguments, folder: output),
                                              entityFiles: try entityFiles(arguments.options["--entity-files"]))
        SchemaGenCommand.report(result.diagnostics, sources: sources)
        if result.hasErrors { return 1 }
        let report = try GeneratedFileWriter.write(result.files, to: output, removeStale: !arguments.flags.contains("--keep-stale"))
        if !arguments.flags.contains("--quiet") {
            print("schemagen: \(paths.count) schema file\(paths.count == 1 ? "" : "s"): \(report.written.count) written, \(report.unchanged.count) unchanged, \(report.removed.count) removed")
        }
        return 0
    }

    /// `--entity-files A+X.generated.swift/A+Y.generated.swift`: '/' separates the names
    /// because no file name contains it; an empty value names none.
    static func entityFiles(_ value: String?) throws -> EntityFiles {
        guard let value else { return .all }
        let names = value.split(separator: "/").map(String.init)
        if let bad = names.first(where: { !$0.hasSuffix(".generated.swift") || $0.hasPrefix(".") || $0.contains("\\") }) {
            throw UsageError(message: "--entity-files: '\(bad)' is not the name of a generated file (<Schema>+<Entity>.generated.swift)")
        }
        return .declared(Set(names))
    }
}
