import Foundation
import SchemaGenCore
import Testing

/// Mistakes a new user makes with the generated API (#27) are compile errors that say the
/// fix. Each snippet is type-checked against the generated code of a small recipes schema;
/// every misuse line must get its error, and the right spellings must compile.
@Suite struct MisuseCompileTests {
    static let schema = """
    entity Recipe {
        let id: String
        var title: String
        var minutes: Int = 0
        var notes: String?

        relation author: Author
        relation tags: [Tag], inverse: recipes

        index fulltext(title)
    }

    entity Author {
        let id: String
        var name: String = ""
    }

    entity Tag {
        let id: String

        relation recipes: [Recipe], inverse: tags
    }

    """

    /// A misuse, and a fragment of the error the compiler must give for its line.
    struct Misuse {
        let code: String
        let error: String
    }

    static let misuses: [Misuse] = [
        // Core Data / SwiftData habit: assigning the related entity.
        Misuse(code: "recipe.author = author", error: "setter for 'author' is unavailable: set a relation through its projected value: `$name = .relation(entity)`, `.id(id)`"),
        Misuse(code: "recipe.tags = [tag]", error: "setter for 'tags' is unavailable: set a relation through its projected value: `$name = .relation(entities)`, `.ids(ids)`"),
        // Text conditions over a field that holds no text.
        Misuse(code: "_ = Recipe.filter(.string(\\.minutes, matches: \"3\"), in: context)",
               error: "static method 'string(_:matches:)' requires that 'Int' conform to 'TextSearchable'"),
        Misuse(code: "_ = Recipe.filter(.string(\\.title, \\.minutes, contains: \"3\"), in: context)",
               error: "static method 'string(_:contains:caseSensitive:)' requires that 'Int' conform to 'TextSearchable'"),
        Misuse(code: "_ = Recipe.filter(.string(\\.minutes, fuzzyMatches: \"3\"), in: context)",
               error: "requires that 'Int' conform to 'TextSearchable'"),
        // A query made without a context has nothing to resolve in.
        Misuse(code: "_ = Recipe.filter(\\.minutes >= 3).resolve()",
               error: "'resolve()' is unavailable: a query made without a context resolves in one: use resolve(in: context)"),
        Misuse(code: "_ = Recipe.query().count()",
               error: "'count()' is unavailable: a query made without a context counts in one: use count(in: context)"),
        Misuse(code: "_ = Recipe.query(\"r1\").resolve()",
               error: "'resolve()' is unavailable: a query made without a context resolves in one"),
        Misuse(code: "_ = Recipe.query([\"r1\"]).sorted(by: \\.minutes).first().resolve()",
               error: "'resolve()' is unavailable"),
        Misuse(code: "_ = recipe.query().related(\\.$tags).resolve()",
               error: "'resolve()' is unavailable"),
        Misuse(code: "_ = Recipe.query().sum(\\.minutes)", error: "missing argument for parameter 'in' in call"),
    ]

    /// The right spellings of the same intents.
    static let rightSpellings = [
        "recipe.$author = .relation(author)",
        "recipe.$author = .id(\"a1\")",
        "recipe.$tags = .relation([tag])",
        "recipe.$tags = .appending(ids: [\"t2\"])",
        "_ = Recipe.filter(.string(\\.title, matches: \"3\"), in: context)",
        "_ = Recipe.filter(.string(\\.title, \\.notes, contains: \"3\"), in: context)",
        "_ = Recipe.filter(.string(\\.notes, notHavingPrefix: \"3\"), in: context)",
        "_ = Recipe.filter(\\.minutes >= 3, in: context).resolve()",
        "_ = Recipe.filter(\\.minutes >= 3).resolve(in: context)",
        "_ = Recipe.filter(\\.minutes >= 3).in(context).resolve()",
        "_ = Recipe.query().count(in: context)",
        "_ = Recipe.query(\"r1\").resolve(in: context)",
        "_ = recipe.query().related(\\.$tags).resolve(in: context)",
        "_ = Recipe.query().sum(\\.minutes, in: context)",
        "_ = Recipe.query(in: context).or(.filter(\\.minutes > 30).and(\\.minutes < 60)).resolve()",
        "_ = Recipe.query().or(.filter(\\.minutes > 30)).resolve(in: context)",
    ]

    static func snippet(_ lines: [String]) -> String {
        """
        import SchemaRuntime
        func use(_ context: Context, _ author: Author, _ tag: Tag) {
            var recipe = Recipe(id: "r1", title: "Soup")
        \(lines.map { "    " + $0 }.joined(separator: "\n"))
            _ = recipe
        }

        """
    }

    static func typeCheck(_ lines: [String]) throws -> SwiftCompiler.Result? {
        let output = SchemaGenerator.generate([SchemaSource(path: "Recipes.schema", text: schema)])
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("misuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let usage = directory.appendingPathComponent("Usage.swift")
        try Data(snippet(lines).utf8).write(to: usage)
        return try SwiftCompiler.typeCheck(output.files, companions: [usage.path])
    }

    @Test func eachMisuseIsACompileErrorThatSaysTheFix() throws {
        guard let result = try Self.typeCheck(Self.misuses.map(\.code)) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(!result.succeeded)
        for (index, misuse) in Self.misuses.enumerated() {
            // The snippet's fourth line is the first misuse.
            let line = index + 4
            let errors = result.errors.filter { $0.contains("Usage.swift:\(line):") }
            #expect(errors.contains { $0.contains(misuse.error) }, "line \(line) `\(misuse.code)`: \(errors)")
        }
    }

    @Test func theRightSpellingsCompile() throws {
        guard let result = try Self.typeCheck(Self.rightSpellings) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(result.succeeded, "\(result.errors.prefix(5).joined(separator: "\n"))")
    }
}
