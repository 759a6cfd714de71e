import Foundation
import SchemaGenCore
import Testing

/// `schemagen convert --from swiftletmodel`: SwiftletModel models in, schemas and kept Swift
/// out. The README's models and a realistic model set are converted, compared with checked-in
/// output, and the generated code is type-checked with the kept Swift and with code written
/// against the SwiftletModel models. Untranslatable input gets located diagnostics.
@Suite struct SwiftletModelImportTests {
    static let folder = "Tests/SchemaGenCoreTests/Fixtures/SwiftletModel"

    static func convert(_ relative: String) throws -> SwiftletModelImport {
        SwiftletModelImport.convert([SchemaSource(path: relative, text: try PackagePaths.text(relative))])
    }

    /// Compares with the checked-in output; regenerate with
    /// `schemagen convert --from swiftletmodel <model> --output <dir>` and copy as `*.expected`.
    static func expectMatches(_ result: SwiftletModelImport, schema: String, kept: String) throws {
        let file = try #require(result.files.first)
        #expect(file.schemaText == (try PackagePaths.text(schema)), "\(schema) differs")
        #expect(file.swiftText == (try PackagePaths.text(kept)), "\(kept) differs")
    }

    /// #30: `Indexed.RichProperty` and `NotIndexed.RichProperty`: two entities, each named
    /// after its namespace at the top level and aliased under its own name in it; relations
    /// find the one Swift would (the enclosing namespace's, or the one a qualified name says).
    @Test func theSameModelNameInTwoNamespacesBecomesTwoEntities() throws {
        let source = """
        enum Indexed {}
        enum NotIndexed {}

        extension Indexed {
            @EntityModel
            struct RichProperty {
                let id: String
                var value: Int
                @Index<Self>(\\.value) private static var valueIndex
                @Relationship(inverse: \\.properties)
                var owner: Owner?
            }

            @EntityModel
            struct Owner {
                let id: String
                @Relationship(inverse: \\.owner)
                var properties: [RichProperty]?
                @Relationship
                var other: NotIndexed.RichProperty?
            }
        }

        extension NotIndexed {
            @EntityModel
            struct RichProperty {
                let id: String
                var value: Int

                func doubled() -> Int { value * 2 }
            }
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models/Rich.swift", text: source)])
        #expect(!result.hasErrors && result.diagnostics.isEmpty, "\(result.diagnostics)")
        let schemas = result.files.compactMap(\.schemaText).joined(separator: "\n")
        #expect(schemas.contains("namespace Indexed\nalias RichProperty = IndexedRichProperty\n"), "\(schemas)")
        #expect(schemas.contains("namespace NotIndexed\nalias RichProperty = NotIndexedRichProperty\n"), "\(schemas)")
        #expect(schemas.contains("relation properties: [IndexedRichProperty], inverse: owner"), "\(schemas)")
        #expect(schemas.contains("relation other: NotIndexedRichProperty\n"), "\(schemas)")
        let sources = result.files.compactMap { file in file.schemaText.map { SchemaSource(path: file.schemaStem + ".schema", text: $0) } }
        let output = SchemaGenerator.generate(sources)
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("same-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = directory.appendingPathComponent("Kept.swift"), usage = directory.appendingPathComponent("Usage.swift")
        try Data(try #require(result.files.first?.swiftText).utf8).write(to: kept)
        try Data("""
        import SchemaRuntime
        func use() throws {
            var context = Context()
            let other = NotIndexed.RichProperty(id: "n", value: 2)
            try Indexed.Owner(id: "o", properties: .relation([Indexed.RichProperty(id: "i", value: 1)]), other: .relation(other)).save(to: &context)
            let doubled: Int = other.doubled()
            let found: [Indexed.RichProperty] = Indexed.RichProperty.filter(\\.value > 0, in: context).resolve()
            _ = (doubled, found)
        }
        """.utf8).write(to: usage)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: [kept.path, usage.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(10).joined(separator: "\n"))")
    }

    /// Generates Swift from the converted schema and type-checks it with the kept Swift and
    /// the code in the file `usage` (written against SwiftletModel).
    static func typeCheck(_ result: SwiftletModelImport, usage: String) throws {
        try typeCheckSource(result, usage: try PackagePaths.text(usage))
    }

    @Test func theReadmeModelsConvertAndTheReadmeExamplesCompileAgainstThem() throws {
        let result = try Self.convert("\(Self.folder)/Readme/Models.swift")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        try Self.expectMatches(result, schema: "\(Self.folder)/Readme/Models.schema.expected", kept: "\(Self.folder)/Readme/Models+Kept.swift.expected")
        try Self.typeCheck(result, usage: "\(Self.folder)/Readme/Usage.swift")
    }

    @Test func aRealisticModelSetConvertsWithEveryKindOfMember() throws {
        let result = try Self.convert("\(Self.folder)/Shop/Shop.swift")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        // The entity declared inside `extension Catalog` keeps its name there: `namespace Catalog`.
        #expect(result.files.first?.schema?.namespace?.value == ["Catalog"])
        try Self.expectMatches(result, schema: "\(Self.folder)/Shop/Shop.schema.expected", kept: "\(Self.folder)/Shop/Shop+Kept.swift.expected")
        try Self.typeCheck(result, usage: "\(Self.folder)/Shop/Usage.swift")
    }

    @Test func whatCannotBeTranslatedIsReportedWhereItIs() throws {
        let source = """
        import SwiftletModel

        @EntityModel
        struct Note {
            let id: String
            var createdAt: Date = Date()
            @Clamped var score: Int
            var body
            @Relationship(.required, .unique)
            var tags: [Tag]?
            @Relationship
            var owner: [String: Tag]?
            static var defaultMergeStrategy: MergeStrategy<Self> { .custom { old, new in new } }
        }

        @EntityModel
        struct Tag {
            var id: String
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Note.swift", text: source)])
        #expect(result.hasErrors)
        let lines = result.diagnostics.map { "\($0.location.line):\($0.location.column) \($0.severity.rawValue): \($0.message)" }
        #expect(lines == [
            "6:27 error: default value 'Date()' of 'createdAt' is not a constant a schema can hold",
            "7:5 error: stored property 'score' has attribute '@Clamped', which a schema cannot express",
            "8:9 error: stored property 'body' needs a type annotation to move into a schema",
            "9:19 warning: '.required' on to-many relation 'tags' is dropped",
            "9:30 warning: relationship argument '.unique' is not translated",
            "12:16 error: relation 'owner' must have type 'Entity?' or '[Entity]?'",
            "13:12 warning: defaultMergeStrategy is not translated: the generated entity uses the schema's default",
            "18:9 warning: 'var id' becomes 'let id': an entity's id never changes",
        ], "\(result.diagnostics)")
        // The untranslated merge strategy is kept as a comment (the generated entity defines one).
        let kept = result.files.first?.swiftText?.split(separator: "\n") ?? []
        #expect(kept.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") && $0.contains("static var defaultMergeStrategy") })
    }

    /// #30: every key path spelling Swift accepts for the entity (`\\.x`, `\\Self.x`,
    /// `\\Message.x`, with a namespace) in indexes, inverses and merge strategies.
    @Test func keyPathsThatNameTheirTypeConvert() throws {
        let source = """
        enum Models {
            @EntityModel
            struct Message {
                let id: String
                var text: String
                var timestamp: Int
                var slug: String
                var note: String?
                var tags: [String]
                @Relationship(inverse: \\Chat.messages)
                var chat: Chat?

                @Index<Self>(\\Message.timestamp.desc)
                private static var byTime
                @FullTextIndex<Self>(\\Self.text)
                private static var search
                @Unique<Self>(\\Models.Message.slug, collisions: .upsert)
                private static var uniqueSlug
                static var fragmentMergeStrategy: MergeStrategy<Self> { MergeStrategy(.patch(\\Message.note), .append(\\Self.tags)) }
            }

            @EntityModel
            struct Chat {
                let id: String
                @Relationship(inverse: \\Message.chat)
                var messages: [Message]?
            }
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models.swift", text: source)])
        #expect(!result.hasErrors && result.diagnostics.isEmpty, "\(result.diagnostics)")
        let schema = result.files.compactMap(\.schemaText).joined(separator: "\n")
        for line in ["index ordered(timestamp desc)", "index fulltext(text)", "index unique(slug, onCollision: upsert)",
                     "relation chat: Chat, inverse: messages", "relation messages: [Message], inverse: chat", "merge fragment: patch(note), append(tags)"] {
            #expect(schema.contains(line), "missing '\(line)' in\n\(schema)")
        }
    }

    /// #30: an init the generated memberwise init already provides (same labels, same order)
    /// is not copied into the kept Swift, where it would be a redeclaration; others are kept.
    @Test func anInitLikeTheMemberwiseOneIsNotKept() throws {
        let source = """
        @EntityModel
        struct User {
            let id: String
            var name: String
            var tags: [String: Int] = [:]
            @Relationship(inverse: \\.users)
            var chats: [Chat]?

            init(id: String, name: String, tags: [String: Int] = [:], chats: ToMany<Chat, Mutual> = .none) {
                self.id = id
                self.name = name
                self.tags = tags
                self.$chats = chats
            }

            init(name: String) {
                self.init(id: name, name: name)
            }
        }

        @EntityModel
        struct Chat {
            let id: String
            @Relationship(inverse: \\.chats)
            var users: [User]?
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models.swift", text: source)])
        #expect(!result.hasErrors)
        #expect(result.diagnostics.map(\.message) == ["init(id:name:tags:chats:) of 'User' is not kept: the generated memberwise init is the same"])
        let kept = try #require(result.files.first?.swiftText)
        #expect(kept.contains("init(name: String)") && !kept.contains("init(id: String, name: String"))
        try Self.typeCheckSource(result, usage: "func use() { _ = User(name: \"ada\"); _ = User(id: \"1\", name: \"b\", tags: [\"x\": 1], chats: .ids([\"c\"])) }")
    }

    /// #30: converting one file of a set says the others must come along; diagnostics about
    /// generated files name them after the schema files, not the Swift sources.
    @Test func convertingPartOfASetSaysWhatIsMissingAndNamesSchemaFiles() throws {
        let message = "@EntityModel\nstruct Message {\n    let id: String\n    @Relationship(.required)\n    var author: User?\n}\n"
        let alone = SwiftletModelImport.convert([SchemaSource(path: "Models/Message.swift", text: message)])
        let unknown = try #require(alone.diagnostics.first { $0.message == "unknown entity 'User'" })
        #expect(unknown.hint?.contains("convert that file in the same command (schemagen convert --from swiftletmodel A.swift B.swift ...)") == true)
        let user = "@EntityModel\nstruct User {\n    let id: String\n}\n"
        let together = SwiftletModelImport.convert([SchemaSource(path: "Models/Message.swift", text: message),
                                                    SchemaSource(path: "Models/User.swift", text: user)])
        #expect(!together.hasErrors, "\(together.diagnostics)")
        // `Chat+User.swift` becomes `Chat+User.schema`, whose generated file is the one entity
        // `User` of `Chat.schema` would get.
        let clash = SwiftletModelImport.convert([
            SchemaSource(path: "Chat.swift", text: "@EntityModel\nstruct Chat {\n    let id: String\n}\n\n" + user),
            SchemaSource(path: "Chat+User.swift", text: "@EntityModel\nstruct Room {\n    let id: String\n}\n"),
        ])
        let text = clash.diagnostics.map(\.description).joined(separator: "\n")
        #expect(text.contains("Chat+User.generated.swift") && !text.contains(".swift+"), "\(text)")
    }

    /// #30: two models each declaring a nested type of the same name: each field names its
    /// own model's type, each file declares only its own alias, and the whole set compiles.
    @Test func sameNamedNestedTypesResolveToTheirOwnModel() throws {
        let order = """
        @EntityModel
        struct Order {
            let id: String
            var status: Status
            @HashIndex<Self>(\\.status)
            private static var byStatus

            enum Status: String, Codable, Hashable, Sendable { case open, shipped }
        }
        """
        let ticket = """
        @EntityModel
        struct Ticket {
            let id: String
            var status: Status?
            var priority: Priority

            enum Status: Int, Codable, Hashable, Sendable { case new = 0, closed = 1 }
        }

        enum Priority: String { case low, high }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Order.swift", text: order), SchemaSource(path: "Ticket.swift", text: ticket)])
        #expect(!result.hasErrors, "\(result.diagnostics)")
        let orderFile = try #require(result.files.first { $0.sourcePath == "Order.swift" })
        let ticketFile = try #require(result.files.first { $0.sourcePath == "Ticket.swift" })
        #expect(orderFile.schemaText?.contains("var status: OrderStatus") == true && ticketFile.schemaText?.contains("var status: TicketStatus?") == true)
        #expect(orderFile.swiftText?.contains("typealias OrderStatus = Order.Status") == true && orderFile.swiftText?.contains("TicketStatus") == false)
        #expect(ticketFile.swiftText?.contains("typealias TicketStatus = Ticket.Status") == true && ticketFile.swiftText?.contains("OrderStatus") == false)
        // The set compiles: generated code, both kept files, and code using both statuses.
        let sources = result.files.compactMap { file in file.schemaText.map { SchemaSource(path: file.sourcePath.replacingOccurrences(of: ".swift", with: ".schema"), text: $0) } }
        let output = SchemaGenerator.generate(sources)
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var companions: [String] = []
        for (index, file) in result.files.enumerated() {
            guard let swift = file.swiftText else { continue }
            let url = directory.appendingPathComponent("Kept\(index).swift")
            try Data(swift.utf8).write(to: url)
            companions.append(url.path)
        }
        let usage = directory.appendingPathComponent("Usage.swift")
        try Data("""
        import SchemaRuntime
        func use(_ context: Context) {
            _ = Order(id: "o", status: .shipped)
            _ = Ticket(id: "t", status: .closed, priority: .high)
            _ = Order.filter(\\.status == .open, in: context)
        }
        """.utf8).write(to: usage)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: companions + [usage.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(10).joined(separator: "\n"))")
    }

    /// #30: SwiftletModel's schema root (no id, relations to every entity type and archives)
    /// becomes a document of the whole graph, not seven errors.
    @Test func theSchemaRootBecomesAContextDocument() throws {
        let source = """
        @EntityModel
        struct User {
            let id: String
            var name: String
        }

        @EntityModel
        struct Schema {
            @Relationship
            var users: [User]?
            @Relationship
            var deletedUsers: [Deleted<User>]?
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models.swift", text: source)])
        #expect(!result.hasErrors, "\(result.diagnostics)")
        #expect(result.diagnostics.map(\.message) == ["'Schema' has no id: it is a schema root, kept as 'typealias Schema = ContextDocument<StoreSchema>'"])
        let file = try #require(result.files.first)
        #expect(file.schemaText?.contains("entity Schema") == false && file.swiftText?.contains("typealias Schema = ContextDocument<StoreSchema>") == true)
        try Self.typeCheckSource(result, usage: """
            import Foundation
            import SchemaRuntime
            func sync(_ context: Context) throws -> Data {
                try JSONEncoder().encode(Schema(context))
            }
            """)
    }

    /// #30: generic field types keep their full spelling through an alias in the kept Swift
    /// (usable in indexes and predicates when Codable and Hashable); a generic entity gets an
    /// error that says what to do instead.
    @Test func genericFieldTypesAndGenericEntities() throws {
        let source = """
        struct ComparableBox<Value: Comparable & Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
            var value: Value
        }

        @EntityModel
        struct Measurement {
            let id: String
            var box: ComparableBox<Int>
            var label: ComparableBox<String>?
            @HashIndex<Self>(\\.box)
            private static var byBox
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models.swift", text: source)])
        #expect(!result.hasErrors, "\(result.diagnostics)")
        let file = try #require(result.files.first)
        #expect(file.schemaText?.contains("var box: ComparableBoxOfInt") == true && file.schemaText?.contains("var label: ComparableBoxOfString?") == true)
        #expect(file.swiftText?.contains("typealias ComparableBoxOfInt = ComparableBox<Int>") == true)
        try Self.typeCheckSource(result, usage: """
            func use(_ context: Context) {
                _ = Measurement(id: "m", box: ComparableBox(value: 3), label: nil)
                _ = Measurement.filter(\\.box == ComparableBox(value: 3), in: context)
            }
            """)

        let generic = SwiftletModelImport.convert([SchemaSource(path: "Attachment.swift", text: """
            @EntityModel
            struct GenericAttachment<T: Codable> {
                let id: String
                var payload: T
            }
            """)])
        #expect(generic.diagnostics.map(\.message) == ["generic entity 'GenericAttachment<...>' cannot become a schema entity"])
        #expect(generic.diagnostics.first?.hint?.contains("declare one entity per type it is used with") == true)
    }

    /// #30: models in two namespaces of one file: a schema file per namespace, so both stay
    /// reachable under their namespace.
    @Test func twoNamespacesInOneFileBecomeTwoSchemaFiles() throws {
        let source = """
        enum Indexed {}
        enum Plain {}

        extension Indexed {
            @EntityModel
            struct Note {
                let id: String
                var text: String
                @Index<Self>(\\.text)
                private static var byText
            }
        }

        extension Plain {
            @EntityModel
            struct Memo {
                let id: String
                var text: String
            }
        }
        """
        let result = SwiftletModelImport.convert([SchemaSource(path: "Models/Notes.swift", text: source)])
        #expect(!result.hasErrors && result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.files.map(\.schemaStem) == ["Notes", "Notes+Plain"])
        #expect(result.files.map { $0.schemaText?.split(separator: "\n").first.map(String.init) } == ["namespace Indexed", "namespace Plain"])
        // Both schema files, the kept Swift and code naming both namespaces compile together.
        let sources = result.files.compactMap { file in file.schemaText.map { SchemaSource(path: file.schemaStem + ".schema", text: $0) } }
        let output = SchemaGenerator.generate(sources)
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("namespaces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = directory.appendingPathComponent("Kept.swift"), usage = directory.appendingPathComponent("Usage.swift")
        try Data(try #require(result.files.first?.swiftText).utf8).write(to: kept)
        try Data("import SchemaRuntime\nfunc use() { _ = Indexed.Note(id: \"n\", text: \"t\"); _ = Plain.Memo(id: \"m\", text: \"t\") }\n".utf8).write(to: usage)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: [kept.path, usage.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(10).joined(separator: "\n"))")
    }

    /// Generates Swift from the converted schema and type-checks it with the kept Swift and
    /// `usage` source.
    static func typeCheckSource(_ result: SwiftletModelImport, usage: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Usage.swift")
        try Data((usage.contains("import SchemaRuntime") ? usage : "import SchemaRuntime\n" + usage + "\n").utf8).write(to: url)
        let file = try #require(result.files.first)
        let output = SchemaGenerator.generate([SchemaSource(path: "Converted.schema", text: try #require(file.schemaText))])
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let kept = directory.appendingPathComponent("Kept.swift")
        try Data(try #require(file.swiftText).utf8).write(to: kept)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: [kept.path, url.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(10).joined(separator: "\n"))")
    }
}
