import Foundation
import SchemaGenCore
import Testing

/// The diagnostics corpus: one broken schema per case in `Fixtures/Diagnostics/<case>/`, in
/// either syntax or both, and the exact diagnostics it must produce in `expected.txt`
/// (`path:line:column: error: message` and `note:` lines, as the CLI prints them).
///
/// Each case must generate nothing, and every diagnostic must point into one of its files,
/// at a line that exists. After an intended message change, run the tests with
/// `SCHEMAGEN_UPDATE_CORPUS=1` to rewrite the expected files, and review the diff.
@Suite struct DiagnosticsCorpusTests {
    static let folder = "Tests/SchemaGenCoreTests/Fixtures/Diagnostics"

    static var cases: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.url(folder).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func corpusIsNotEmpty() {
        #expect(Self.cases.count >= 40)
    }

    @Test(arguments: cases)
    func brokenSchemaGetsItsDiagnostics(_ name: String) throws {
        let directory = PackagePaths.url("\(Self.folder)/\(name)")
        let fileNames = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(SchemaSource.isSchemaFile).sorted()
        #expect(!fileNames.isEmpty, "case \(name) has no schema files")
        let sources = try fileNames.map { file in
            SchemaSource(path: file, text: String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self))
        }
        let output = SchemaGenerator.generate(sources)
        #expect(output.files.isEmpty, "a broken schema generated code")
        #expect(output.hasErrors)
        for diagnostic in output.diagnostics {
            let source = sources.first { $0.path == diagnostic.location.path }
            #expect(source != nil, "\(diagnostic) points outside the case's files")
            let lineCount = source.map { $0.text.split(separator: "\n", omittingEmptySubsequences: false).count } ?? 0
            #expect((1...max(1, lineCount)).contains(diagnostic.location.line), "\(diagnostic) points past the end of the file")
            let oneLine = { (text: String) in !text.unicodeScalars.contains { $0 == "\n" || $0 == "\r" } }
            #expect(oneLine(diagnostic.message) && oneLine(diagnostic.hint ?? ""), "\(diagnostic) spans several lines")
        }
        let actual = output.diagnostics.map(\.description).joined(separator: "\n") + "\n"
        let expectedURL = directory.appendingPathComponent("expected.txt")
        if ProcessInfo.processInfo.environment["SCHEMAGEN_UPDATE_CORPUS"] == "1" {
            try Data(actual.utf8).write(to: expectedURL)
        }
        let expected = (try? String(decoding: Data(contentsOf: expectedURL), as: UTF8.self)) ?? ""
        #expect(actual == expected, "\(TextDiff.lines(old: expected, new: actual, oldName: "\(name)/expected.txt", newName: "actual"))")
    }
}
