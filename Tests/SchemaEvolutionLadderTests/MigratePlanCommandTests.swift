import Foundation
import LadderV1
import LadderV4
import SchemaStore
import Testing

/// `schemagen migrate-plan` and `schemagen diff` print the plan a store would apply, without
/// an app and without changing the file.
@Suite struct MigratePlanCommandTests {
    static let ladder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EvolutionLadder")

    /// `schemagen`, built next to the tests as the plugin-applied ladder targets' tool.
    static var schemagen: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("schemagen").path), directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("schemagen")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.schemagen.path), "schemagen was not built next to the tests")
        let process = Process()
        process.executableURL = Self.schemagen
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private func version(_ number: Int) -> String { Self.ladder.appendingPathComponent("V\(number)").path }

    @Test func migratePlanPrintsWhatTheStoreWouldApply() throws {
        let folder = try TemporaryFolder()
        try EvolutionLadderTests.seedV1(folder.file())
        let bytes = try Data(contentsOf: folder.file())
        let result = try run(["migrate-plan", "--store", folder.file().path, version(4)])
        let plan = try #require(try Store.migrationPlan(at: folder.file(), schema: LadderV4Schema.self))
        #expect(result.status == 0)
        #expect(result.output == plan.description + "\nnote: the steps marked '-' delete stored data\n")
        #expect(try Data(contentsOf: folder.file()) == bytes)
        #expect(try run(["migrate-plan", "--store", folder.file().path, version(1)]).output == "no changes\n")
    }

    @Test func migratePlanRefusesWhatIsNotAStore() throws {
        let folder = try TemporaryFolder()
        try Data("not a database".utf8).write(to: folder.file())
        let result = try run(["migrate-plan", "--store", folder.file().path, version(1)])
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("schemagen: error: \(folder.file().path): "))
    }

    @Test func diffComparesTwoSchemaFolders() throws {
        let additive = try run(["diff", version(1), version(2)])
        #expect(additive.status == 0)
        #expect(additive.output.hasPrefix("+ Book.isbn: String?, new; existing rows get nil\n"))
        let needsHelp = try run(["diff", version(4), version(5)])
        #expect(needsHelp.status == 1)
        #expect(needsHelp.output.contains("error: Writer.born: type changed from Int? to String?"))
        // A broken schema gets its diagnostics, not a plan.
        let folder = try TemporaryFolder()
        try Data("entity Broken {".utf8).write(to: folder.file("Broken.schema"))
        let broken = try run(["diff", version(1), folder.url.path])
        #expect(broken.status == 1)
        #expect(broken.errors.contains("Broken.schema:1:16: error:"))
    }
}
