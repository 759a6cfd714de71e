import Foundation
import Testing

/// Builds a consumer package that depends on this package by path and applies
/// SchemaGenPlugin, then edits its schema and rebuilds, as a user would.
///
/// Slow (it builds SchemaGen from scratch in a temporary directory), so it runs only when
/// `CI` is set (CI sets `CI=true`) or `SCHEMAGEN_E2E=1`.
@Suite(.enabled(if: EndToEnd.isEnabled, "set SCHEMAGEN_E2E=1 to run the end-to-end plugin test"))
struct ConsumerPackageTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func buildEditRebuildAndBreakASchema() throws {
        let consumer = try ConsumerPackage(dependingOn: Self.packageRoot)
        defer { consumer.remove() }

        // 1. A fresh package with one schema builds and runs.
        try consumer.write("Sources/App/Notes.schema", """
            /// A note.
            entity Note {
                let id: String
                var text: String
            }
            """)
        try consumer.write("Sources/App/main.swift", """
            import SchemaRuntime
            var context = Context()
            try Note(id: "1", text: "hello").save(to: &context)
            print("note:", context.find(Note.self, id: "1")!.text)
            """)
        let first = try consumer.swift(["build"])
        #expect(first.status == 0, "\(first.output)")
        #expect(try consumer.run().contains("note: hello"))

        // 2. Add a field and a relation to a new entity in a new file; the rebuild uses them.
        try consumer.write("Sources/App/Notes.schema", """
            /// A note.
            entity Note {
                let id: String
                var text: String
                var pinned: Bool = false
                relation tags: [Tag], inverse: notes
            }
            """)
        try consumer.write("Sources/App/Tags.schema", """
            entity Tag {
                let id: String
                relation notes: [Note], inverse: tags
            }
            """)
        try consumer.write("Sources/App/main.swift", """
            import SchemaRuntime
            var context = Context()
            try Note(id: "1", text: "hello", pinned: true, tags: .relation([Tag(id: "swift")])).save(to: &context)
            let tag = Tag.query("swift", in: context).with(\\.$notes).resolve()!
            print("pinned:", tag.notes!.map(\\.pinned))
            print("entities:", AppSchema.entities.map { $0.entityName })
            """)
        let second = try consumer.swift(["build"])
        #expect(second.status == 0, "\(second.output)")
        #expect(try consumer.run().contains("pinned: [true]"))

        // 2b. An entity added to a schema file, with no Swift file touched: SwiftPM does not run
        // the plugin again, so the file it declared for each entity is what it compiles; the
        // new entity's code goes into its schema file's file and the build still works.
        try consumer.write("Sources/App/Tags.schema", """
            entity Tag {
                let id: String
                relation notes: [Note], inverse: tags
            }
            entity Label {
                let id: String
                relation tag: Tag
            }
            """)
        let added = try consumer.swift(["build"])
        #expect(added.status == 0, "\(added.output)")
        #expect(try consumer.run().contains(#"entities: ["Note", "Tag", "Label"]"#))

        // 3. A no-op rebuild does not rerun the generator.
        let noop = try consumer.swift(["build"])
        #expect(noop.status == 0)
        #expect(!noop.output.contains("Generating Swift"), "\(noop.output)")

        // 4. A broken schema fails the build with a located error, and the old code is not used.
        try consumer.write("Sources/App/Notes.schema", """
            entity Note {
                let id: String
                var text: Strin
                relation tags: [Tag], inverse: notes
            }
            """)
        let broken = try consumer.swift(["build"])
        #expect(broken.status != 0)
        #expect(broken.output.contains("Notes.schema:3:15: error: unknown type 'Strin'"), "\(broken.output)")
        #expect(broken.output.contains("note: did you mean 'String'?"))
    }
}

enum EndToEnd {
    static var isEnabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["SCHEMAGEN_E2E"] == "1" || environment["CI"] == "true"
    }
}

/// A throwaway SwiftPM package in a temporary directory.
struct ConsumerPackage {
    let directory: URL

    init(dependingOn root: URL) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let identity = root.lastPathComponent
        try write("Package.swift", """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Consumer",
                dependencies: [.package(path: "\(root.path)")],
                targets: [
                    .executableTarget(
                        name: "App",
                        dependencies: [.product(name: "SchemaRuntime", package: "\(identity)")],
                        plugins: [.plugin(name: "SchemaGenPlugin", package: "\(identity)")]
                    )
                ]
            )
            """)
    }

    func write(_ relative: String, _ text: String) throws {
        let url = directory.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Runs `swift <arguments>` in the package; returns the exit status and combined output.
    func swift(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try execute("/usr/bin/env", ["swift"] + arguments + ["--package-path", directory.path])
    }

    func run() throws -> String {
        let result = try execute(directory.appendingPathComponent(".build/debug/App").path, [])
        return result.output
    }

    private func execute(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
