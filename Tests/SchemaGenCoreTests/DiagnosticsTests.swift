import Foundation
import SchemaGenCore
import Testing

/// Every kind of schema error, with its exact message and location. Each test also checks
/// that nothing is generated.
@Suite struct DiagnosticsTests {
    /// `line:column: message` for each diagnostic of the files, in order; hints as `note: ...`.
    private func diagnose(_ files: [(String, String)], notes: Bool = false) -> [String] {
        let output = SchemaGenerator.generate(files.map { SchemaSource(path: $0.0, text: $0.1) })
        #expect(output.files.isEmpty)
        return output.diagnostics.flatMap { d -> [String] in
            let file = files.count > 1 ? "\(d.location.path):" : ""
            let main = "\(file)\(d.location.line):\(d.location.column): \(d.severity.rawValue): \(d.message)"
            return notes && d.hint != nil ? [main, "note: \(d.hint!)"] : [main]
        }
    }

    private func diagnose(_ text: String, notes: Bool = false) -> [String] {
        diagnose([("test.schema", text)], notes: notes)
    }

    // Syntax errors come first; 'relation chats: [Chat]' is not reported, because 'enity Chat'
    // meant to declare Chat.
    @Test func syntaxErrorsRecoverAndEveryProblemIsReported() {
        let text = """
        entity User {
            let id: String
            var name String
            var age: Int = "x"
            relation chats: [Chat]
        }
        enity Chat {}
        entity Tag { let id: Int }
        """
        #expect(diagnose(text) == [
            "3:14: error: expected ':' after field name 'name', found 'String'",
            "7:1: error: expected a declaration ('entity', 'enum', 'struct' or 'external'), found 'enity'",
            "4:20: error: default value \"x\" does not match type 'Int' of 'age'",
        ])
    }

    // Issue #7.13: every name the generator derives is checked, not only the declarations.
    /// #27: a typo in a relation target is reported once, where it is; the inverse in the
    /// other file that points at it adds no error of its own that would come first.
    @Test func aTypoedRelationTargetIsReportedOnceAtItsRoot() {
        let author = "entity Author {\n    let id: String\n\n    relation recipes: [Recipe], inverse: author\n}\n"
        let recipe = "entity Recipe {\n    let id: String\n\n    relation author: Autor, inverse: recipes\n}\n"
        #expect(diagnose([("Author.schema", author), ("Recipe.schema", recipe)], notes: true) == [
            "Recipe.schema:4:22: error: unknown entity 'Autor'",
            "note: did you mean 'Author'?",
        ])
        // A target that is a type but not an entity: one error too.
        let value = "entity Recipe {\n    let id: String\n\n    relation author: String, inverse: recipes\n}\n"
        #expect(diagnose([("Author.schema", author), ("Recipe.schema", value)]) == ["Recipe.schema:4:22: error: relation target 'String' is not an entity"])
    }

    /// #27: Swift attributes (SwiftData and SwiftletModel habits) get the schema's spelling,
    /// and the member they are on is still read (its other problems are reported too).
    @Test func swiftAttributesGetTheSchemaSpelling() {
        let text = """
        entity Recipe {
            let id: String
            @Attribute(.unique) var slug: String
            @Transient var draft: Bool = "no"
            @Relationship(deleteRule: .cascade) relation steps: [Step]
        }
        """
        #expect(diagnose(text, notes: true) == [
            "3:5: error: attributes such as '@Attribute' are Swift, not part of the schema language",
            "note: a unique field is an index in a schema: add 'index unique(slug)' to the entity",
            "4:5: error: attributes such as '@Transient' are Swift, not part of the schema language",
            "note: a schema holds stored data only; keep computed or transient values in a Swift extension of the generated type",
            "5:5: error: attributes such as '@Relationship' are Swift, not part of the schema language",
            "note: relations are members of their own: 'relation name: Target, inverse: other'",
            "4:34: error: default value \"no\" does not match type 'Bool' of 'draft'",
            "5:58: error: unknown entity 'Step'",
            "note: declare 'entity Step' in a schema file of this target",
        ])
    }

    /// #30: a unique index needs what SwiftletModel's needs: Hashable or Comparable fields.
    @Test func uniqueIndexesTakeHashableOrComparableFields() {
        let text = """
        entity A {
            let id: String
            var rank: Rank
            var tag: Tag
            var blob: Blob
            index unique(rank)
            index unique(tag)
            index unique(blob)
        }
        external Rank: Comparable
        external Tag: Hashable
        external Blob: Equatable
        """
        #expect(diagnose(text) == ["8:18: error: unique index field 'blob' has type 'Blob', which is neither Hashable nor Comparable"])
    }

    @Test func indexesWhoseGeneratedNamesCollide() {
        let text = """
        entity A {
            let id: String
            var a: Int
            var b: Int
            var aB: Int
            index ordered(a, b)
            index ordered(a desc, b)
            index hash(aB)
            index hash(a, b)
            index ordered(a desc, b desc)
        }
        """
        // (a, b) and (a desc, b) are different orders (#30): both are kept, the second named
        // with its directions. (a desc, b desc) is (a, b) read backwards.
        #expect(diagnose(text, notes: true) == [
            "9:5: error: hash index on a, b would be generated as 'A.Indexes.aBHash', like the hash index at test.schema:8:5",
            "note: rename a field, or drop one of the two indexes",
            "10:5: error: ordered index on a desc, b desc would be generated as 'A.Indexes.aBOrdered', like the ordered index at test.schema:6:5",
            "note: each index is the other read backwards, and a reversed scan serves every sort either one serves; keep one",
        ])
    }

    @Test func theGeneratedSchemaTypeCollidesWithNothing() {
        let output = SchemaGenerator.generate([
            SchemaSource(path: "App.schema", text: "entity AppSchema {\n    let id: String\n}\n"),
            SchemaSource(path: "AppSchema.schema", text: "entity B {\n    let id: String\n}\n"),
        ], schemaName: "AppSchema")
        #expect(output.files.isEmpty)
        let messages = output.diagnostics.map { "\($0.location): \($0.message)" }
        #expect(messages.contains("App.schema:1:8: 'AppSchema' is the name of the generated schema type listing this target's entities"))
        #expect(messages.contains("AppSchema.schema:1:1: this file would generate 'AppSchema.generated.swift', the file of the generated schema type 'AppSchema'"))
        #expect(SchemaGenerator.generate([SchemaSource(path: "App.schema", text: "entity A {\n    let id: String\n}\n")], schemaName: "AppSchema")
            .files.map(\.name) == ["App.generated.swift", "App+A.generated.swift", "AppSchema.generated.swift"])
    }

    @Test func compilerStyleOutputWithHints() {
        let output = SchemaGenerator.generate([SchemaSource(path: "Schemas/App.schema", text: "entity A {\n    let id: Strin\n}")])
        #expect(output.diagnostics.map(\.description) == [
            "Schemas/App.schema:2:13: error: unknown type 'Strin'\nSchemas/App.schema:2:13: note: did you mean 'String'?",
        ])
    }

    @Test func unknownTypesSuggestExternalDeclarations() {
        #expect(diagnose("entity A {\n    let id: String\n    var avatar: Avatar?\n}", notes: true) == [
            "3:17: error: unknown type 'Avatar'",
            "note: declare Swift types defined elsewhere with 'external Avatar' (they must be Codable & Sendable)",
        ])
    }

    @Test func entitiesAreNotFieldTypes() {
        #expect(diagnose("entity A { let id: String }\nentity B {\n    let id: String\n    var a: A\n}") == [
            "4:12: error: entity 'A' cannot be the type of a field",
        ])
    }

    @Test func duplicateDeclarationsAcrossFiles() {
        let diagnostics = diagnose([("a.schema", "entity User { let id: String }"), ("b.schema", "\nentity User { let id: Int }")], notes: true)
        #expect(diagnostics == ["b.schema:2:8: error: duplicate declaration of 'User'", "note: 'User' is first declared at a.schema:1:8"])
    }

    @Test func duplicateMembers() {
        #expect(diagnose("entity A {\n    let id: String\n    var name: String\n    relation name: A\n}") == [
            "4:14: error: duplicate member 'name' in entity 'A'",
        ])
    }

    @Test func missingAndMutableIDs() {
        #expect(diagnose("entity A { var name: String }\nentity B { var id: String }\nentity C { let id: URL? }") == [
            "1:8: error: entity 'A' has no 'id' field",
            "2:16: error: the 'id' of entity 'B' must be declared with 'let'",
            "3:20: error: the 'id' of entity 'C' cannot be optional",
        ])
    }

    @Test func inverseThatDoesNotExist() {
        let text = """
        entity Chat {
            let id: String
            relation messages: [Message], inverse: chat
        }
        entity Message {
            let id: String
            relation chats: Chat, inverse: messages
        }
        """
        #expect(diagnose(text, notes: true) == [
            "3:44: error: 'Message' has no relation 'chat' to be the inverse of 'Chat.messages'",
            "note: did you mean 'chats'?",
            "7:36: error: mutual relations are declared inconsistently: 'Message.chats' names 'Chat.messages' as its inverse, but that one names 'chat'",
            "note: make 'Chat.messages' name 'inverse: chats', or fix this inverse",
        ])
    }

    @Test func inverseThatDoesNotPointBack() {
        let text = """
        entity User { let id: String }
        entity Chat {
            let id: String
            relation owner: User, inverse: chats
        }
        entity Other {
            let id: String
            relation chats: [Chat], inverse: owner
        }
        """
        let diagnostics = diagnose(text)
        #expect(diagnostics.contains("4:36: error: 'User' has no relation 'chats' to be the inverse of 'Chat.owner'"))
        #expect(diagnostics.contains("8:38: error: inverse 'Chat.owner' of 'Other.chats' links to 'User', not back to 'Other'"))
    }

    @Test func oneSidedMutualRelation() {
        let text = """
        entity Chat {
            let id: String
            relation messages: [Message]
        }
        entity Message {
            let id: String
            relation chat: Chat, inverse: messages
        }
        """
        #expect(diagnose(text, notes: true) == [
            "7:35: error: 'Message.chat' names 'Chat.messages' as its inverse, but 'Chat.messages' names no inverse",
            "note: mutual relations name each other: add 'inverse: chat' to relation 'messages' of 'Chat'",
        ])
    }

    @Test func requiredToMany() {
        #expect(diagnose("entity A {\n    let id: String\n    relation others: [A], required\n}", notes: true) == [
            "3:27: error: to-many relation 'others' cannot be required",
            "note: remove 'required': an empty list already means no related entities",
        ])
    }

    @Test func indexProblems() {
        let text = """
        entity A {
            let id: String
            var flag: Bool
            var count: Int
            var a: Int
            var b: Int
            var c: Int
            var avatar: Avatar?
            index ordered(flag)
            index fulltext(count)
            index ordered(count, a, b, c, id)
            index hash(missing)
            index ordered(avatar)
        }
        external Avatar: Hashable
        """
        #expect(diagnose(text, notes: true) == [
            "9:19: error: ordered index field 'flag' has type 'Bool', which is not Comparable",
            "note: use 'index hash(flag)' for equality lookups",
            "10:20: error: full-text index field 'count' has type 'Int'; full-text indexes need String fields",
            "11:5: error: ordered index has 5 fields; at most 4 are supported",
            "note: keep the most selective fields first and drop the rest",
            "12:16: error: unknown field 'missing' in hash index of 'A'",
            "13:19: error: ordered index field 'avatar' has type 'Avatar?', which is not Comparable",
            "note: use 'index hash(avatar)' for equality lookups",
        ])
    }

    @Test func keywordsAreEscapedNotRejected() {
        let output = SchemaGenerator.generate([SchemaSource(path: "k.schema", text: "entity A {\n    let id: String\n    var `default`: Int = 0\n    var `class`: String?\n}")])
        #expect(output.diagnostics.isEmpty)
        let code = output.files.first { $0.name == "k+A.generated.swift" }?.contents ?? ""
        #expect(code.contains("public var `default`: Int") == false) // internal entity
        #expect(code.contains("var `default`: Int"))
        #expect(code.contains("`default`: Int = 0,"))
        #expect(code.contains("self.`class` = try container.decodeIfPresent(String.self, forKey: \"class\")"))
    }

    @Test func namesCollidingWithGeneratedMembers() {
        #expect(diagnose("entity A {\n    let id: String\n    var save: Int\n    relation relations: A\n}\nentity Context { let id: Int }") == [
            "3:9: error: 'save' collides with a member generated for entity 'A'",
            "4:14: error: 'relations' collides with a member generated for entity 'A'",
            "6:8: error: 'Context' would shadow the Swift or SchemaRuntime type of that name, which generated code uses",
        ])
    }

    /// Generated code names SchemaRuntime types unqualified, so a schema type with the name
    /// of any of them would be picked up instead. Every top-level public type of the runtime
    /// must be rejected as a schema type name.
    @Test func everyRuntimeTypeNameIsReserved() throws {
        let sources = try FileManager.default.subpathsOfDirectory(atPath: PackagePaths.url("Sources/SchemaRuntime").path)
            .filter { $0.hasSuffix(".swift") }
        let declaration = #/^public (?:final )?(?:struct|enum|protocol|class|actor|typealias) ([A-Za-z_]\w*)/#.anchorsMatchLineEndings()
        var names: Set<String> = []
        for path in sources {
            let text = try PackagePaths.text("Sources/SchemaRuntime/" + path)
            for match in text.matches(of: declaration) { names.insert(String(match.output.1)) }
        }
        #expect(names.count > 30, "found \(names.count) runtime types; the pattern no longer matches the sources")
        for name in names.sorted() {
            let diagnostics = diagnose("entity \(name) { let id: Int }")
            #expect(diagnostics.contains { $0.contains("would shadow the Swift or SchemaRuntime type") }, "\(name) is accepted as a schema type name")
        }
    }

    @Test func mergeRuleProblems() {
        let text = """
        entity A {
            let id: String
            var name: String
            var tags: [String] = []
            merge fragment: patch(name), append(nme), lastWriteWins(tags)
        }
        """
        #expect(diagnose(text) == [
            "5:27: error: 'patch' needs an optional 'var' field; 'name' is 'String'",
            "5:41: error: unknown field 'nme' in merge rule 'append' of 'A'",
            "5:61: error: 'lastWriteWins' needs a Comparable field; 'tags' is '[String]'",
        ])
    }

    @Test func accessLevelsMustNotLeakInternalTypes() {
        #expect(diagnose("public entity A {\n    let id: String\n    relation b: B\n}\nentity B { let id: String }", notes: true) == [
            "3:17: error: public 'A' uses internal type 'B' in 'b'",
            "note: declare 'B' public, or lower the access level of 'A'",
        ])
    }

    @Test func enumProblems() {
        #expect(diagnose("enum E: Double { case a }\nenum F: String {\n    case a = \"x\", b = \"x\", a\n}") == [
            "1:9: error: enum 'E' has raw type 'Double'; use String or Int",
            "3:23: error: raw value \"x\" of case 'b' is already used",
            "3:28: error: duplicate case 'a' in enum 'F'",
        ])
    }

    @Test func outputNameCollisions() {
        let diagnostics = diagnose([("A/Chat.schema", "entity A { let id: String }"), ("B/Chat.schema.json", #"{"declarations": []}"#)])
        #expect(diagnostics == ["B/Chat.schema.json:1:1: error: 'B/Chat.schema.json' and 'A/Chat.schema' would both generate 'Chat.generated.swift'"])
    }

    @Test func jsonProblemsHaveLocations() {
        let text = """
        {
          "declarations": [
            {"entity": "A", "fields": [{"let": "id", "type": "String"}], "indexs": []},
            {"entity": "B", "fields": [{"let": "id", "type": 3}]}
          ]
        }
        """
        #expect(diagnose([("a.schema.json", text)], notes: true) == [
            "3:66: error: unknown key 'indexs' in entity",
            "note: did you mean 'indexes'?",
            "4:54: error: expected 'type' to be a string, found a number",
        ])
    }

    @Test func malformedJSON() {
        #expect(diagnose([("a.schema.json", "{\n  \"declarations\": [\n    {\"entity\": \"A\",}\n  ]\n}")]) == [
            "3:20: error: expected a quoted member name",
        ])
    }
}
