import DeterministicRandom
import Foundation
import SchemaGenCore
import Testing

/// A mutation fuzzer over the repository's schemas (issue #8). Each mutant is one or more
/// random edits of a real schema file (deleting, duplicating or moving a span, inserting
/// characters and tokens that stress the lexers). For every mutant the pipeline must
/// return (no crash, no hang), every diagnostic must point at a line of the mutant and fit
/// on one line, and a mutant it accepts must generate Swift that compiles: a sample of
/// accepted mutants is type-checked with swiftc against SchemaRuntime.
///
/// Time-bounded: `SCHEMAGEN_FUZZ_SECONDS` (default 8), `SCHEMAGEN_FUZZ_SEED` (default 1) and
/// `SCHEMAGEN_FUZZ_SAMPLES` (accepted mutants type-checked, default 3; each takes seconds).
@Suite struct SchemaFuzzTests {
    /// The targets whose schemas are mutated: each mutant changes one file of a target and
    /// is generated together with the target's other schema files, so cross-file relations
    /// resolve; its Swift companions (externals, resolvers, hooks) are type-checked with it.
    struct Seed {
        var folder: String
        var schemas: [String]
        var companions: [String]
    }

    static let seeds = [
        Seed(folder: "Schemas/Chat", schemas: ["Chat.schema", "Message.schema", "User.schema"],
             companions: ["Profile.swift", "User+CurrentUser.swift"]),
        Seed(folder: "Schemas/Catalog", schemas: ["Catalog.schema.json"], companions: ["Product+Pricing.swift", "Review+Validation.swift"]),
        Seed(folder: "Tests/GeneratedCodeTests", schemas: ["AllConstructs.schema", "Regressions.schema", "Equivalence.schema"],
             companions: ["Owner.swift", "Document+Resolvers.swift"]),
    ]

    /// Text that stresses lexers and parsers: brackets, quotes, escapes, numbers at the
    /// edges, keywords, invisible and multi-byte characters, and a code injection attempt.
    static let fragments = [
        "{", "}", "[", "]", "(", ")", ":", ",", ".", "?", "=", "\"", "\\", "`", "/", "*", "///", "//", "/*", "\n", " ",
        "entity ", "enum ", "struct ", "external ", "relation ", "index ", "merge ", "let ", "var ", "case ",
        "self", "init", "Type", "String", "Int8", "default", "_", "required", "inverse: ", "onDelete: cascade",
        "0", "-1", "300", "1e999", "0x", "1.5e3", "99999999999999999999", "\\u{1F600}", "\\(x)", "\\q",
        "é", "😀", "\u{200B}", "\u{202E}", "\u{FEFF}", "\r", "\t", "null", "true", "{}", "[]", "[:]",
        "}\nfunc injected() {}\n", "\"a-b\"", "\"\"", "[[[[[[[[[[", "]]]]]]]]]]",
    ]

    struct Mutant {
        var seed: Seed
        var sources: [SchemaSource]
        /// The mutated file.
        var path: String
        var text: String { sources.first { $0.path == path }!.text }
    }

    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0...scalars.count, using: &random)
            let length = min(scalars.count - position, Int.random(in: 0...12, using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                scalars.removeSubrange(position..<position + length)
            case 1:
                scalars.insert(contentsOf: scalars[position..<position + length], at: position)
            case 2:
                let span = Array(scalars[position..<position + length])
                scalars.removeSubrange(position..<position + length)
                scalars.insert(contentsOf: span, at: scalars.isEmpty ? 0 : Int.random(in: 0...scalars.count, using: &random))
            default:
                scalars.insert(contentsOf: fragments.randomElement(using: &random)!.unicodeScalars, at: position)
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    @Test func mutantsNeverCrashHangOrMisplaceDiagnostics() throws {
        let environment = ProcessInfo.processInfo.environment
        let budget = Double(environment["SCHEMAGEN_FUZZ_SECONDS"] ?? "") ?? 8
        let maximumSamples = Int(environment["SCHEMAGEN_FUZZ_SAMPLES"] ?? "") ?? 3
        var random = SplitMix64(seed: UInt64(environment["SCHEMAGEN_FUZZ_SEED"] ?? "") ?? 1)
        let originals = try Self.seeds.map { seed in
            try seed.schemas.map { SchemaSource(path: $0, text: try PackagePaths.text("\(seed.folder)/\($0)")) }
        }
        let originalOutputs = Set(originals.flatMap { SchemaGenerator.generate($0).files.map(\.contents) })
        let start = Date()
        var runs = 0, accepted = 0
        var samples: [(mutant: Mutant, files: [GeneratedFile])] = []
        while Date().timeIntervalSince(start) < budget {
            let which = Int.random(in: 0..<Self.seeds.count, using: &random)
            var sources = originals[which]
            let target = Int.random(in: 0..<sources.count, using: &random)
            sources[target].text = Self.mutate(sources[target].text, &random)
            let mutant = Mutant(seed: Self.seeds[which], sources: sources, path: sources[target].path)
            let began = Date()
            let output = SchemaGenerator.generate(sources)
            runs += 1
            #expect(Date().timeIntervalSince(began) < 10, "mutant took over 10 s (a hang?):\n\(mutant.text)")
            for diagnostic in output.diagnostics {
                let source = sources.first { $0.path == diagnostic.location.path }
                let lines = source.map { $0.text.split(separator: "\n", omittingEmptySubsequences: false).count } ?? 0
                #expect((1...max(1, lines)).contains(diagnostic.location.line) && diagnostic.location.column >= 1,
                        "\(diagnostic) is outside the files:\n\(mutant.text)")
                #expect(!diagnostic.message.contains("\n") && !(diagnostic.hint ?? "").contains("\n"), "\(diagnostic)")
            }
            #expect(output.hasErrors == output.files.isEmpty)
            if !output.hasErrors {
                accepted += 1
                #expect(output.files.allSatisfy { !$0.contents.contains("func injected") }, "injected code:\n\(mutant.text)")
                if samples.count < maximumSamples, !output.files.allSatisfy({ originalOutputs.contains($0.contents) }) {
                    samples.append((mutant, output.files))
                }
            }
        }
        print("schema fuzzer: \(runs) mutants, \(accepted) accepted, \(samples.count) type-checked with swiftc")
        #expect(runs > 100, "only \(runs) mutants in \(budget) s")
        #expect(accepted > 0, "no mutant was accepted; the mutations are too destructive to test generation")
        try Self.typeCheck(samples)
    }

    /// Type-checks accepted mutants' output against the SchemaRuntime module built for the tests,
    /// with the target's hand-written companions (externals, resolvers, hooks).
    static func typeCheck(_ samples: [(mutant: Mutant, files: [GeneratedFile])]) throws {
        for sample in samples {
            let companions = sample.mutant.seed.companions.map { PackagePaths.url("\(sample.mutant.seed.folder)/\($0)").path }
            guard let result = try SwiftCompiler.typeCheck(sample.files, companions: companions) else {
                Issue.record("SchemaRuntime.swiftmodule not found next to the tests")
                return
            }
            #expect(result.succeeded, "accepted mutant does not compile:\n\(sample.mutant.text)\n\(result.output)")
        }
    }
}
