import Foundation
import SchemaGenCore
import Testing

/// `namespace Models.V1`: a schema file's types are also reachable inside an enum the user
/// declares (SwiftletModel users nest their models), in both syntaxes, with errors located.
@Suite struct NamespaceTests {
    static let dsl = """
    namespace Models.V1

    public entity User {
        let id: String
        var status: Status = .active
    }

    public enum Status: String {
        case active
        case away
    }

    """

    @Test func bothSyntaxesReadAndPrintIt() throws {
        let (document, problems) = SchemaGenerator.parse(SchemaSource(path: "Models.schema", text: Self.dsl))
        #expect(problems.isEmpty && document.namespace?.value == ["Models", "V1"])
        #expect(DSLPrinter.print(document) == Self.dsl)
        let json = JSONPrinter.print(document)
        #expect(json.contains(#""namespace": "Models.V1""#) || json.contains(#""namespace" : "Models.V1""#), "\(json)")
        let (fromJSON, jsonProblems) = SchemaGenerator.parse(SchemaSource(path: "Models.schema.json", text: json))
        #expect(jsonProblems.isEmpty && fromJSON.namespace?.value == ["Models", "V1"])
    }

    @Test func theGeneratedTypesAreReachableInTheNamespace() throws {
        let output = SchemaGenerator.generate([SchemaSource(path: "Models.schema", text: Self.dsl)])
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let file = try #require(output.files.first { $0.name == "Models.generated.swift" })
        #expect(file.contents.contains("extension Models.V1 {\n    public typealias User = _Models_V1_User\n    public typealias Status = _Models_V1_Status\n}"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("namespace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let usage = directory.appendingPathComponent("Usage.swift")
        try Data("""
        import SchemaRuntime
        public enum Models { public enum V1 {} }
        func use() throws {
            var context = Context()
            try Models.V1.User(id: "1", status: .away).save(to: &context)
            let user: Models.V1.User? = Models.V1.User.query("1", in: context).resolve()
            let status: Models.V1.Status? = user?.status
            _ = status
        }
        """.utf8).write(to: usage)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: [usage.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(5).joined(separator: "\n"))")
    }

    @Test func misplacedOrClashingNamespacesAreErrors() {
        let late = "entity A {\n    let id: String\n}\nnamespace Models\n"
        #expect(SchemaGenerator.generate([SchemaSource(path: "Late.schema", text: late)]).diagnostics.map(\.description)
                == ["Late.schema:4:1: error: 'namespace' must be the first line of a schema file, and come once\nLate.schema:4:1: note: move it above every declaration"])
        let clash = "namespace Models.A\n\nentity A {\n    let id: String\n}\n"
        let problems = SchemaGenerator.generate([SchemaSource(path: "Clash.schema", text: clash)]).diagnostics
        #expect(problems.map(\.message) == ["namespace 'Models.A' names 'A', a type this file declares"])
        #expect(problems.first?.location.line == 1)
        let json = #"{"namespace": "Models.9V", "declarations": [{"entity": "A", "fields": [{"let": "id", "type": "String"}]}]}"#
        #expect(SchemaGenerator.generate([SchemaSource(path: "Bad.schema.json", text: json)]).diagnostics.map(\.message)
                == ["namespace: '9V' starts with a digit"])
    }

    // MARK: Aliases (#30: `Indexed.RichProperty` and `NotIndexed.RichProperty`)

    static func richProperty(_ namespace: String, indexed: Bool) -> String {
        """
        namespace \(namespace)
        alias RichProperty = \(namespace)RichProperty

        public entity \(namespace)RichProperty {
            let id: String
            var value: Int = 0\(indexed ? "\n\n    index ordered(value)" : "")
        }

        """
    }

    @Test func aliasesReadAndPrintInBothSyntaxes() throws {
        let dsl = Self.richProperty("Indexed", indexed: true)
        let (document, problems) = SchemaGenerator.parse(SchemaSource(path: "Indexed.schema", text: dsl))
        #expect(problems.isEmpty && document.aliases.map { [$0.name.value, $0.target.value] } == [["RichProperty", "IndexedRichProperty"]])
        #expect(DSLPrinter.print(document) == dsl)
        let json = JSONPrinter.print(document)
        let (fromJSON, jsonProblems) = SchemaGenerator.parse(SchemaSource(path: "Indexed.schema.json", text: json))
        #expect(jsonProblems.isEmpty, "\(jsonProblems)")
        #expect(DSLPrinter.print(fromJSON) == dsl, "\(json)")
    }

    /// Two namespaces each with a `RichProperty`: two entities, each also reachable by the
    /// short name in its namespace.
    @Test func theSameNameInTwoNamespacesNamesTwoEntities() throws {
        let output = SchemaGenerator.generate([
            SchemaSource(path: "Indexed.schema", text: Self.richProperty("Indexed", indexed: true)),
            SchemaSource(path: "NotIndexed.schema", text: Self.richProperty("NotIndexed", indexed: false)),
        ])
        #expect(!output.hasErrors, "\(output.diagnostics)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alias-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let usage = directory.appendingPathComponent("Usage.swift")
        try Data("""
        import SchemaRuntime
        public enum Indexed {}
        public enum NotIndexed {}
        extension Indexed {
            static func make() -> RichProperty { RichProperty(id: "i", value: 1) }
        }
        func use() throws {
            var context = Context()
            try Indexed.make().save(to: &context)
            try NotIndexed.RichProperty(id: "n", value: 2).save(to: &context)
            let indexed: [Indexed.RichProperty] = Indexed.RichProperty.filter(\\.value > 0, in: context).resolve()
            let plain: [NotIndexed.RichProperty] = NotIndexed.RichProperty.query(in: context).resolve()
            _ = (indexed, plain)
        }
        """.utf8).write(to: usage)
        guard let checked = try SwiftCompiler.typeCheck(output.files, companions: [usage.path]) else {
            Issue.record("SchemaRuntime module not found next to the tests")
            return
        }
        #expect(checked.succeeded, "\(checked.errors.prefix(5).joined(separator: "\n"))")
    }

    @Test func aliasMistakesAreLocatedErrors() {
        let text = """
        namespace Models
        alias Thing = Missing
        alias Thing = Item
        alias Item = Item

        entity Item {
            let id: String
        }

        """
        let problems = SchemaGenerator.generate([SchemaSource(path: "Models.schema", text: text)]).diagnostics
        #expect(problems.map { "\($0.location.line):\($0.location.column) \($0.message)" } == [
            "2:15 alias 'Thing' names 'Missing', which is not a type of this file",
            "3:7 alias 'Thing' is declared twice",
            "4:7 alias 'Item' is the name of a type of this file, which the namespace already lists under it",
        ])
        let unscoped = SchemaGenerator.generate([SchemaSource(path: "Plain.schema", text: "alias A = B\nentity B {\n    let id: String\n}\n")])
        #expect(unscoped.diagnostics.map(\.message) == ["alias 'A' needs a namespace to be a name in: this file has none"])
        let json = #"{"namespace": "Models", "aliases": {"9A": "B"}, "declarations": [{"entity": "B", "fields": [{"let": "id", "type": "String"}]}]}"#
        #expect(SchemaGenerator.generate([SchemaSource(path: "Bad.schema.json", text: json)]).diagnostics.map(\.message).contains { $0.contains("'9A'") })
    }
}
