import Foundation
import SchemaGenCore
import Testing

/// Generated code is checked against checked-in files: the fixture's golden file, and
/// `Generated/`, which must match what the build plugin compiles from `Schemas/` (except
/// that the plugin names schema files by absolute path in `#sourceLocation` directives).
@Suite struct GoldenTests {
    /// The fixture covering every construct is compiled by GeneratedCodeTests; its golden
    /// files are the committed `Generated/GeneratedCodeTests/AllConstructs*.generated.swift`:
    /// the schema file's own file, and one per entity.
    @Test func allConstructsMatchesItsGoldenFiles() throws {
        let source = SchemaSource(path: "AllConstructs.schema", text: try PackagePaths.text(ParserTests.dslPath))
        let output = SchemaGenerator.generate([source])
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let files = output.files.filter { $0.name.hasPrefix("AllConstructs") }
        #expect(files.map(\.name) == ["AllConstructs.generated.swift"] + ["Document", "Folder", "Section", "Revision"].map { "AllConstructs+\($0).generated.swift" })
        for file in files {
            let golden = "Generated/GeneratedCodeTests/\(file.name)"
            let expected = try PackagePaths.text(golden)
            #expect(file.contents == expected, "\(TextDiff.lines(old: expected, new: file.contents, oldName: golden, newName: "generated"))")
        }
    }

    /// One case per target that applies the plugin: its schema folder and its Generated/ folder.
    @Test(arguments: [
        ("Schemas/Chat", "Generated/ChatModels"),
        ("Schemas/Catalog", "Generated/CatalogModels"),
        ("Benchmarks/BenchModels", "Generated/BenchModels"),
        ("Tests/GeneratedCodeTests", "Generated/GeneratedCodeTests"),
    ])
    func generatedFolderIsUpToDate(schemas: String, generated: String) throws {
        let paths = try SchemaFileCollector.collect([PackagePaths.url(schemas).path])
        #expect(!paths.isEmpty)
        let schemaName = SchemaGenerator.schemaName(forTarget: URL(fileURLWithPath: generated).lastPathComponent)
        let output = SchemaGenerator.generate(try SchemaFileCollector.read(paths), schemaName: schemaName)
        #expect(!output.hasErrors, "\(output.diagnostics)")
        for file in output.files {
            let path = "\(generated)/\(file.name)"
            let existing = try? PackagePaths.text(path)
            #expect(existing == file.contents,
                    "\(path) is stale; run `swift package --allow-writing-to-package-directory generate-schema-code`\n\(TextDiff.lines(old: existing ?? "", new: file.contents, oldName: path, newName: "generated"))")
        }
        let stale = try GeneratedFileWriter.stale(in: PackagePaths.url(generated).path, expected: Set(output.files.map(\.name)))
        #expect(stale.isEmpty, "generated files without a schema: \(stale)")
    }

    @Test func generationIsDeterministic() throws {
        let paths = try SchemaFileCollector.collect([PackagePaths.url("Schemas/Chat").path])
        let sources = try SchemaFileCollector.read(paths)
        let first = SchemaGenerator.generate(sources).files
        let second = SchemaGenerator.generate(sources.reversed()).files
        #expect(first.map(\.contents).sorted() == second.map(\.contents).sorted())
    }

    @Test func pluginNamingMatchesTheGenerator() {
        for name in ["Chat.schema", "Chat.schema.json", "a.b.schema", "Weird Name.schema"] {
            #expect(SchemaFiles.outputName(for: URL(fileURLWithPath: "/x/" + name)) == SchemaValidator.outputName(for: "/x/" + name))
            #expect(SchemaFiles.isSchemaFile(name) == SchemaSource.isSchemaFile(name))
        }
        for target in ["ChatModels", "my-models", "9lives", "Ünïcode", "", "a b.c"] {
            #expect(SchemaFiles.schemaName(forTarget: target) == SchemaGenerator.schemaName(forTarget: target))
        }
        #expect(!SchemaFiles.isSchemaFile("Chat.swift") && !SchemaSource.isSchemaFile("Chat.json"))
        for (entity, schemaOutput) in [("Message", "Chat.generated.swift"), ("Chat", "Chat.generated.swift"), ("chat", "Chat.generated.swift"), ("A", "a.b.generated.swift")] {
            #expect(SchemaFiles.entityOutputName(entity, schemaOutput: schemaOutput) == FileModel.entityOutputName(entity, schemaOutput: schemaOutput))
        }
        #expect(FileModel.entityOutputName("Message", schemaOutput: "Chat.generated.swift") == "Chat+Message.generated.swift")
    }
}
