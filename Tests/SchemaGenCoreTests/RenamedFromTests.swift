import Foundation
import SchemaEvolution
import SchemaGenCore
import Testing

/// `renamedFrom:` in both syntaxes: parsed into the shape a store records, printed back, and
/// every misuse reported at its schema location.
@Suite struct RenamedFromTests {
    private func diagnose(_ path: String, _ text: String) -> [String] {
        let output = SchemaGenerator.generate([SchemaSource(path: path, text: text)])
        #expect(output.files.isEmpty)
        return output.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
    }

    static let dsl = """
        entity Writer, renamedFrom: Author {
            let id: String
            var fullName: String = "", renamedFrom: [name, label]
            relation works: [Book], inverse: writer, renamedFrom: books
        }
        entity Book {
            let id: String
            relation writer: Writer, inverse: works, renamedFrom: author
        }
        """

    @Test func bothSyntaxesGiveTheSameShape() throws {
        let (document, problems) = SchemaGenerator.parse(SchemaSource(path: "Library.schema", text: Self.dsl))
        #expect(problems.isEmpty)
        let json = JSONPrinter.print(document)
        #expect(json.contains(#""renamedFrom": "Author""#))
        #expect(json.contains(#""renamedFrom": ["#))
        let fromDSL = SchemaGenerator.shape([SchemaSource(path: "Library.schema", text: Self.dsl)]).0
        let fromJSON = SchemaGenerator.shape([SchemaSource(path: "Library.schema.json", text: json)]).0
        let shape = try #require(fromDSL)
        #expect(fromJSON == shape)
        #expect(shape.entity("Writer")?.renamedFrom == ["Author"])
        #expect(shape.entity("Writer")?.field("fullName")?.renamedFrom == ["name", "label"])
        #expect(shape.entity("Writer")?.relation("works")?.renamedFrom == ["books"])
        #expect(shape.entity("Book")?.relation("writer")?.renamedFrom == ["author"])
        // And the DSL printer writes it back as it was read.
        let reprinted = DSLPrinter.print(document)
        #expect(SchemaGenerator.shape([SchemaSource(path: "Again.schema", text: reprinted)]).0 == shape)
        #expect(reprinted.contains("entity Writer, renamedFrom: Author {"))
    }

    @Test func misusesAreReportedWhereTheyAre() {
        #expect(diagnose("test.schema", """
            entity A, renamedFrom: A {
                let id: String
                var x: Int = 0, renamedFrom: y
                var y: Int = 0
                var z: Int = 0, renamedFrom: w
                var v: Int = 0, renamedFrom: w
                relation b: B, renamedFrom: c
                relation c: B
            }
            entity B {
                let id: String
            }
            struct S {
                var s: Int, renamedFrom: t
            }
            """) == [
                "1:24: entity 'A' is renamed from its own name",
                "3:34: 'y' still names a field of entity 'A' (at 4:9), so stored data under it stays there",
                "6:34: 'w' is already a former name of field 'z' in entity 'A'",
                "7:33: 'c' still names a relation of entity 'A' (at 8:14), so stored data under it stays there",
                "14:30: 'renamedFrom' applies to entities, entity fields and relations, not to fields of struct 'S'",
            ])
    }

    @Test func syntaxErrorsNameTheOption() {
        #expect(diagnose("test.schema", """
            entity A, renamed: B {
                let id: String
            }
            entity C {
                let id: String
                var x: Int, renamedFrom x
                relation d: C, renamedFrom: [e,
            }
            """) == [
                "1:11: unknown option 'renamed' for entity 'A'",
                "6:29: expected ':' after 'renamedFrom', found 'x'",
                "8:1: expected a former name, found '}'",
            ])
        #expect(diagnose("test.schema.json", """
            {"declarations": [{"entity": "A", "renamedFrom": 3, "fields": [{"let": "id", "type": "String", "renamedFrom": ["x y"]}]}]}
            """) == [
                "1:50: expected 'renamedFrom' to be a name or an array of names, found a number",
                "1:112: 'x y' contains U+0020; names use ASCII letters, digits and '_'",
            ])
    }
}
