import Foundation
import SchemaGenCore

/// Type-checks generated files with `swiftc` against the SchemaRuntime module built for the
/// tests, as a target applying the build plugin would compile them.
enum SwiftCompiler {
    struct Result {
        var succeeded: Bool
        /// Everything swiftc printed.
        var output: String
        /// `path:line:column: error: message` lines, as printed.
        var errors: [String] {
            output.split(separator: "\n").map(String.init).filter { $0.contains(": error: ") && !$0.hasPrefix(" ") }
        }
    }

    /// nil when the SchemaRuntime module cannot be found next to the tests.
    static func typeCheck(_ files: [GeneratedFile], companions: [String] = [], searchPaths: [String] = []) throws -> Result? {
        guard let modules = runtimeModuleDirectory() else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-swiftc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for file in files {
            let url = directory.appendingPathComponent(file.name)
            try Data(file.contents.utf8).write(to: url)
            paths.append(url.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-module-name", "CheckedModels", "-package-name", "CheckedPackage",
                             "-I", modules.path] + searchPaths.flatMap { ["-I", $0] } + paths + companions
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(succeeded: process.terminationStatus == 0, output: text)
    }

    static func runtimeModuleDirectory() -> URL? {
        var directory = Bundle.main.bundleURL
        while directory.pathComponents.count > 1 {
            let candidate = directory.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("SchemaRuntime.swiftmodule").path) { return candidate }
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("SchemaRuntime.swiftmodule").path) { return directory }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
