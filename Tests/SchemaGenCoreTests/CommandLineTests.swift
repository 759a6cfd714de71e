import Foundation
import Testing

/// Runs the `schemagen` executable as users and the plugins do. `swift test` builds it
/// because the plugin-applied targets in the test graph need it as their tool.
@Suite struct CommandLineTests {
    /// `schemagen` in the products directory that also holds the test bundle.
    static var schemagen: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("schemagen").path), directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("schemagen")
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    func run(_ arguments: [String], environment: [String: String] = ["SCHEMAGEN_CODE_FRAMES": "0"]) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: Self.schemagen.path), "schemagen was not built next to the tests")
        let process = Process()
        process.executableURL = Self.schemagen
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func helpAndVersion() throws {
        let help = try run(["--help"])
        #expect(help.status == 0 && help.output.contains("USAGE: schemagen <command> [options]"))
        #expect(try run(["--version"]).output.hasPrefix("schemagen "))
        let unknown = try run(["frobnicate"])
        #expect(unknown.status == 64 && unknown.errors.contains("error: unknown command 'frobnicate'"))
    }

    @Test func generateWritesNothingWhenASchemaIsBroken() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("Good.schema"), bad = directory.appendingPathComponent("Bad.schema")
        try Data("entity A { let id: String }\n".utf8).write(to: good)
        try Data("entity B {\n    let id: String\n    var c: Strng\n}\n".utf8).write(to: bad)
        let output = directory.appendingPathComponent("out")
        let result = try run(["generate", "--output", output.path, directory.path])
        #expect(result.status == 1)
        #expect(result.errors.contains("\(bad.path):3:12: error: unknown type 'Strng'"))
        #expect(result.errors.contains("\(bad.path):3:12: note: did you mean 'String'?"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        try FileManager.default.removeItem(at: bad)
        let fixed = try run(["generate", "--output", output.path, directory.path])
        #expect(fixed.status == 0 && fixed.output.contains("3 written"))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("Good.generated.swift").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("Good+A.generated.swift").path))
        // The schema type is named after the output folder, as the plugin names it after the target.
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("OutSchema.generated.swift").path))
    }

    @Test func checkReportsUpToDateAndStaleFolders() throws {
        let root = PackagePaths.root
        let upToDate = try run(["check", "--generated", root.appendingPathComponent("Generated/ChatModels").path, root.appendingPathComponent("Schemas/Chat").path])
        #expect(upToDate.status == 0, "\(upToDate.output)\(upToDate.errors)")

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("Notes.schema")
        try Data("entity Note {\n    let id: String\n    var text: String\n}\n".utf8).write(to: schema)
        let generated = directory.appendingPathComponent("Generated")
        #expect(try run(["generate", "--output", generated.path, schema.path]).status == 0)
        try Data("entity Note {\n    let id: String\n    var body: String\n}\n".utf8).write(to: schema)
        let stale = try run(["check", "--generated", generated.path, schema.path])
        #expect(stale.status == 1)
        #expect(stale.output.contains("-     var text: String") && stale.output.contains("+     var body: String"))
        #expect(stale.errors.contains("is out of date"))
    }

    @Test func convertRoundTripsBetweenSyntaxes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("User.schema.json")
        let source = PackagePaths.root.appendingPathComponent("Schemas/Chat/User.schema").path
        #expect(try run(["convert", source, "--output", json.path]).status == 0)
        let back = try run(["convert", json.path])
        let direct = try run(["convert", source, "--to", "dsl"])
        #expect(back.status == 0 && back.output == direct.output && back.output.contains("public entity User {"))
    }

    @Test func convertFromSwiftletModelWritesSchemasAndKeptSwiftOrNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = PackagePaths.url("Tests/SchemaGenCoreTests/Fixtures/SwiftletModel/Readme/Models.swift").path
        let output = directory.appendingPathComponent("out")
        let converted = try run(["convert", "--from", "swiftletmodel", model, "--output", output.path])
        #expect(converted.status == 0, "\(converted.errors)")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(written == ["Models+Kept.swift", "Models.schema"])
        #expect(try String(contentsOf: output.appendingPathComponent("Models.schema"), encoding: .utf8)
                == PackagePaths.text("Tests/SchemaGenCoreTests/Fixtures/SwiftletModel/Readme/Models.schema.expected"))
        // The flags leave the metadata out.
        let plain = try run(["convert", "--from", "swiftletmodel", model, "--output", output.path, "--no-updated-at", "--no-soft-delete"])
        #expect(plain.status == 0)
        #expect(try !String(contentsOf: output.appendingPathComponent("Models.schema"), encoding: .utf8).contains("metadata"))

        // A model with an error: diagnostics located in the Swift source, nothing written.
        let broken = directory.appendingPathComponent("Broken.swift")
        try Data("@EntityModel\nstruct Note {\n    let id: String\n    var at: Date = Date()\n}\n".utf8).write(to: broken)
        let elsewhere = directory.appendingPathComponent("none")
        let failed = try run(["convert", "--from", "swiftletmodel", broken.path, "--output", elsewhere.path])
        #expect(failed.status == 1)
        #expect(failed.errors.contains("\(broken.path):4:20: error: default value 'Date()' of 'at' is not a constant a schema can hold"))
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(try run(["convert", "--from", "swift", model, "--output", output.path]).status != 0)
    }

    // Issue #8: I/O failures are one line naming the operation, the path and the reason.
    @Test func fileSystemFailuresAreOneLine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("Notes.schema")
        try Data("entity Note {\n    let id: String\n}\n".utf8).write(to: schema)
        let blocker = directory.appendingPathComponent("out")
        try Data("not a directory".utf8).write(to: blocker)
        let blocked = try run(["generate", "--output", blocker.path, schema.path])
        #expect(blocked.status == 1)
        #expect(blocked.errors == "schemagen: error: cannot write generated files into '\(blocker.path)': it is a file, not a directory\n")

        let nested = blocker.appendingPathComponent("deeper")
        let underFile = try run(["generate", "--output", nested.path, schema.path])
        #expect(underFile.status == 1)
        #expect(underFile.errors.hasPrefix("schemagen: error: cannot create the output directory '\(nested.path)': "))
        #expect(underFile.errors.split(separator: "\n").count == 1 && !underFile.errors.contains("Domain="), "\(underFile.errors)")

        let binary = directory.appendingPathComponent("Binary.schema")
        try Data([0x65, 0x6E, 0xFF, 0xFE, 0x00]).write(to: binary)
        let notText = try run(["generate", "--output", directory.appendingPathComponent("gen").path, binary.path])
        #expect(notText.errors == "\(binary.path):1:3: error: the file is not UTF-8 text: byte 0xFF cannot be read as a character\n"
                + "\(binary.path):1:3: note: save the file as UTF-8 (schema files are UTF-8 text, like Swift sources)\n")
        // Every such file at once, each at its first invalid byte: line 3, after "é" (one column).
        let latin1 = directory.appendingPathComponent("Latin1.schema")
        try Data("entity A {\n    let id: String\n    // é".utf8 + [0xE9, 0x0A, 0x7D]).write(to: latin1)
        let both = try run(["generate", "--output", directory.appendingPathComponent("gen").path, binary.path, latin1.path])
        #expect(both.status == 1)
        #expect(both.errors.split(separator: "\n").filter { $0.contains(": error: ") }
                == ["\(binary.path):1:3: error: the file is not UTF-8 text: byte 0xFF cannot be read as a character",
                    "\(latin1.path):3:9: error: the file is not UTF-8 text: byte 0xE9 cannot be read as a character"])
    }

    // Issue #8: on a terminal each diagnostic shows its line and a caret; the plain
    // `path:line:column:` lines stay as they are for SwiftPM and Xcode.
    @Test func codeFramesPointAtTheColumn() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("Notes.schema")
        try Data("entity Note {\n    let id: String\n    var 📝: Strng\n    var text: Strng\n}\n".utf8).write(to: schema)
        let result = try run(["generate", "--output", directory.appendingPathComponent("gen").path, schema.path],
                             environment: ["SCHEMAGEN_CODE_FRAMES": "1"])
        let lines = result.errors.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("\(schema.path):3:9: error:") }, "\(result.errors)")
        #expect(lines[first + 1] == "3 |     var 📝: Strng")
        #expect(lines[first + 2] == "  |         ^")
        let second = try #require(lines.firstIndex { $0.hasPrefix("\(schema.path):4:15: error: unknown type 'Strng'") })
        #expect(lines[second + 1] == "4 |     var text: Strng")
        #expect(lines[second + 2] == "  |               ^")
        #expect(lines[second + 3] == "\(schema.path):4:15: note: did you mean 'String'?")

        let plain = try run(["generate", "--output", directory.appendingPathComponent("gen").path, schema.path])
        #expect(!plain.errors.contains(" | "))
    }

    @Test func jsonSchemaCommandPrintsTheEditorSchema() throws {
        let result = try run(["json-schema"])
        #expect(result.status == 0)
        #expect(result.output == (try PackagePaths.text("docs/schemagen-format.json")))
    }
}
