import Foundation
import SchemaGenCore
import Testing

/// Issue #8: Swift that only the compiler can check (an `external` type, a resolver) is
/// named on lines carrying `#sourceLocation` directives, so every compiler error about it
/// points at the schema line that named it, never into a generated file.
@Suite struct SourceLocationTests {
    static let schema = """
        external Missing: Hashable
        external AlsoMissing

        struct Box {
            var inside: AlsoMissing?
        }

        entity Shelf {
            let id: String
            var code: String
            var label: Missing?
            var box: Box?
            var thing: AlsoMissing = .empty

            index unique(code, onCollision: noSuchResolver)
            merge fragment: patch
        }
        """

    private func errors(path: String, style: SourcePathStyle) throws -> [String]? {
        let output = SchemaGenerator.generate([SchemaSource(path: path, text: Self.schema)], sourcePaths: style)
        #expect(!output.hasErrors, "\(output.diagnostics)")
        guard let result = try SwiftCompiler.typeCheck(output.files) else {
            Issue.record("SchemaRuntime.swiftmodule not found next to the tests")
            return nil
        }
        #expect(!result.succeeded)
        return result.errors
    }

    @Test func compilerErrorsPointAtTheSchemaLinesThatNamedTheSwift() throws {
        guard let errors = try errors(path: "Sources/Library/Shelf.schema", style: .fileName) else { return }
        #expect(!errors.isEmpty)
        let outside = errors.filter { !$0.hasPrefix("Shelf.schema:") }
        #expect(outside.isEmpty, "errors outside the schema:\n\(outside.joined(separator: "\n"))")
        let lines = Set(errors.compactMap { Int($0.split(separator: ":")[1]) })
        // The external declarations, the fields using them (the struct's too), the resolver.
        #expect(lines.isSuperset(of: [1, 2, 5, 11, 13, 15]), "\(errors.joined(separator: "\n"))")
        #expect(errors.contains { $0.hasPrefix("Shelf.schema:1:") && $0.contains("cannot find 'Missing' in scope") })
        #expect(errors.contains { $0.hasPrefix("Shelf.schema:15:") && $0.contains("noSuchResolver") })
    }

    @Test func theBuildPluginsFullPathsAreKept() throws {
        let path = "/work/Package/Sources/Library/Shelf.schema"
        guard let errors = try errors(path: path, style: .asGiven) else { return }
        #expect(!errors.isEmpty && errors.allSatisfy { $0.hasPrefix(path + ":") }, "\(errors.joined(separator: "\n"))")
    }

    @Test func pathsTheCompilerCannotReadBackGetNoDirective() {
        let output = SchemaGenerator.generate([SchemaSource(path: "odd\"dir/Shelf.schema", text: Self.schema)], sourcePaths: .asGiven)
        #expect(!output.hasErrors)
        #expect(!output.files.isEmpty && !output.files.contains { $0.contents.contains("#sourceLocation") })
        let plain = SchemaGenerator.generate([SchemaSource(path: "odd\"dir/Shelf.schema", text: Self.schema)])
        #expect(plain.files.contains { $0.contents.contains("#sourceLocation(file: \"Shelf.schema\", line: 11)") })
    }
}
