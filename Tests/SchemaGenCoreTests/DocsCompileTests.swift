import Foundation
import SchemaGenCore
import Testing

/// Every code block of README.md and docs/ is checked, so the docs cannot drift from the
/// code (#27): Swift blocks type-check against the chat schema's generated code (each
/// statement block inside a function whose parameters declare the names the docs assume,
/// declaration blocks at file scope), and schema blocks parse. A block that cannot compile
/// here says why in a `<!-- not compiled: reason -->` line right above it.
@Suite struct DocsCompileTests {
    struct Block {
        let file: String
        let line: Int
        let code: String

        /// Schema DSL, not Swift: entities, relations, indexes, `external` declarations.
        var isSchema: Bool {
            code.range(of: #"(?m)^\s*((public )?entity \w+ \{|relation \w+:|index \w+\(|external \w+)"#, options: .regularExpression) != nil
        }

        /// Declarations that belong at file scope (an extension, a type), not in a function.
        var isFileScope: Bool {
            code.range(of: #"(?m)^(@_exported |extension |struct |(public )?enum |final class |class )"#, options: .regularExpression) != nil
        }

        /// A Package.swift manifest.
        var isManifest: Bool { code.contains("import PackageDescription") }
    }

    /// The fenced blocks of the docs, except those marked as not compiled.
    static func blocks() throws -> [Block] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.url("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var blocks: [Block] = []
        for file in ["README.md"] + docs {
            let lines = try PackagePaths.text(file).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                defer { index += 1 }
                guard lines[index] == "```swift" else { continue }
                let start = index
                var code: [String] = []
                index += 1
                while index < lines.count, lines[index] != "```" { code.append(lines[index]); index += 1 }
                if start > 0, lines[start - 1].hasPrefix("<!-- not compiled: ") { continue }
                blocks.append(Block(file: file, line: start + 1, code: code.joined(separator: "\n")))
            }
        }
        return blocks
    }

    /// The names the docs' statement blocks assume, as the parameters of the function each
    /// block becomes.
    static let assumedNames = """
        context: inout Context, store: Store, url: URL, message: Message, user: User, chat: Chat,
        edited: Chat, id: String, chatID: String, cutoff: Int, lastSync: Date, start: Date, end: Date,
        lastSeenMessage: Message, pinned: Message, offsets: IndexSet, destination: Int, messages: [Message],
        groupURL: URL, userURL: URL, packsURL: URL, downloadedPackURL: URL, olderPackURL: URL, packID: UUID,
        messageIDs: [String], authorIDs: [String],
        render: ([Message]) -> Void, reload: (Context) -> Void
        """

    @Test func everySchemaBlockParses() throws {
        let schemas = try Self.blocks().filter(\.isSchema)
        #expect(schemas.count >= 8)
        for block in schemas {
            // `...` stands for members left out.
            let text = block.code.replacingOccurrences(of: "...", with: "")
            let (_, problems) = SchemaGenerator.parse(SchemaSource(path: "\(block.file):\(block.line)", text: text))
            #expect(problems.isEmpty, "\(block.file):\(block.line): \(problems.map(\.description))")
        }
    }

    @Test func everySwiftBlockTypeChecks() throws {
        let swift = try Self.blocks().filter { !$0.isSchema && !$0.isManifest }
        #expect(swift.count >= 20)
        // The chat schema, generated with the schema type's name the docs use.
        let sources = try SchemaFileCollector.read(try SchemaFileCollector.collect([PackagePaths.url("Schemas/Chat").path]))
        let output = SchemaGenerator.generate(sources, schemaName: "ChatModelsSchema")
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let imports = "import Foundation\nimport SchemaRuntime\nimport SchemaStore\n\n"
        var files: [(path: String, block: Block?, firstLine: Int)] = []
        func write(_ name: String, _ text: String, block: Block?, firstLine: Int) throws {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            files.append((url.path, block, firstLine))
        }
        // The schema's Swift companions, except the resolver a doc block declares itself.
        let companions = ["Profile.swift"]
        for name in companions { try write(name, try PackagePaths.text("Schemas/Chat/" + name), block: nil, firstLine: 0) }
        for (number, block) in swift.enumerated() {
            let code = block.code.components(separatedBy: "\n").filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
            if block.isFileScope {
                try write("Block\(number).swift", imports + code + "\n", block: block, firstLine: 5)
            } else {
                // A block that awaits is async code; the others are synchronous code, where
                // the synchronous overloads (`try store.write { }`) are the ones meant.
                let statements = code.components(separatedBy: "\n").map { $0.components(separatedBy: "//")[0] }
                let effects = statements.contains { $0.contains("await ") } ? "async throws" : "throws"
                let header = imports + "@MainActor func docBlock\(number)(\(Self.assumedNames)) \(effects) {\n"
                try write("Block\(number).swift", header + code + "\n}\n", block: block, firstLine: header.components(separatedBy: "\n").count)
            }
        }
        let csqlite = PackagePaths.url("Sources/CSQLite").path
        guard let result = try SwiftCompiler.typeCheck(output.files, companions: files.map(\.path), searchPaths: [csqlite]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        // Each error reported at the doc line it comes from.
        for error in result.errors {
            let located = files.first { error.hasPrefix($0.path + ":") }
            if let located, let block = located.block,
               let line = Int(error.dropFirst(located.path.count + 1).prefix { $0.isNumber }) {
                Issue.record("\(block.file):\(block.line + 1 + line - located.firstLine): \(error.split(separator: ": error: ").last ?? "")")
            } else {
                Issue.record("\(error)")
            }
        }
        #expect(result.succeeded || !result.errors.isEmpty, "\(result.output.prefix(2000))")
    }
}
