import SchemaGenCore

/// `schemagen generate --output <dir> [--schema-name <Name>] <path>...`
enum GenerateCommand {
    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let output = try arguments.required("--output")
        guard !arguments.positional.isEmpty else { throw UsageError(message: "generate needs at least one schema file or directory") }
        let paths = try SchemaFileCollector.collect(arguments.positional)
        let sources = try SchemaFileCollector.read(paths)
        let sourcePaths: SourcePathStyle = arguments.flags.contains("--full-source-paths") ? .asGiven : .fileName
        let result = SchemaGenerator.generate(sources, sourcePaths: sourcePaths, schemaName: SchemaGenCommand.schemaName(arguments, folder: output))
        SchemaGenCommand.report(result.diagnostics, sources: sources)
        if result.hasErrors { return 1 }
        let report = try GeneratedFileWriter.write(result.files, to: output, removeStale: !arguments.flags.contains("--keep-stale"))
        if !arguments.flags.contains("--quiet") {
            print("schemagen: \(paths.count) schema file\(paths.count == 1 ? "" : "s"): \(report.written.count) written, \(report.unchanged.count) unchanged, \(report.removed.count) removed")
        }
        return 0
    }
}
