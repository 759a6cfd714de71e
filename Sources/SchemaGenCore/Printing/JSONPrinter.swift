/// Prints a ``SchemaDocument`` in the JSON syntax (used by `schemagen convert`).
/// Output is stable: keys in a fixed order, two-space indentation.
public enum JSONPrinter {
    /// A JSON value under construction; objects keep insertion order.
    private indirect enum Node {
        case object([(String, Node)])
        case array([Node])
        case string(String)
        case raw(String)
    }

    public static func print(_ document: SchemaDocument, schemaURL: String = "../docs/schemagen-format.json") -> String {
        var members: [(String, Node)] = [("$schema", .string(schemaURL))]
        if let namespace = document.namespace { members.append(("namespace", .string(namespace.value.joined(separator: ".")))) }
        if !document.aliases.isEmpty {
            members.append(("aliases", .object(document.aliases.map { ($0.name.value, .string($0.target.value)) })))
        }
        members.append(("declarations", .array(document.declarations.map(declaration))))
        let root = Node.object(members)
        var text = ""
        write(root, indent: 0, into: &text)
        return text + "\n"
    }

    private static func docs(_ lines: [String]) -> [(String, Node)] {
        lines.isEmpty ? [] : [("doc", .array(lines.map(Node.string)))]
    }

    private static func access(_ level: AccessLevel) -> [(String, Node)] {
        level == .internal ? [] : [("access", .string(level.rawValue))]
    }

    /// One former name as a string, several as an array (the reader takes both).
    private static func renamedFrom(_ names: [Located<String>]) -> [(String, Node)] {
        switch names.count {
        case 0: []
        case 1: [("renamedFrom", .string(names[0].value))]
        default: [("renamedFrom", .array(names.map { .string($0.value) }))]
        }
    }

    private static func value(_ value: DefaultValue) -> Node {
        switch value {
        case .string(let text): .string(text)
        case .integer(let text), .float(let text): .raw(text)
        case .bool(let flag): .raw(flag ? "true" : "false")
        case .nil: .raw("null")
        case .member(let name): .object([("case", .string(name))])
        case .array(let elements): .array(elements.map(Self.value))
        case .emptyDictionary: .object([])
        }
    }

    private static func field(_ field: FieldDeclaration) -> Node {
        var members: [(String, Node)] = [(field.isMutable ? "var" : "let", .string(field.name.value)), ("type", .string(field.type.value.description))]
        if let defaultValue = field.defaultValue { members.append(("default", value(defaultValue.value))) }
        return .object(members + renamedFrom(field.renamedFrom) + docs(field.documentation))
    }

    private static func declaration(_ declaration: Declaration) -> Node {
        switch declaration {
        case .entity(let entity):
            var members: [(String, Node)] = [("entity", .string(entity.name.value))] + access(entity.access) + renamedFrom(entity.renamedFrom)
                + docs(entity.documentation)
            members.append(("fields", .array(entity.fields.map(field))))
            if !entity.relations.isEmpty {
                members.append(("relations", .array(entity.relations.map { relation in
                    var spec: [(String, Node)] = [("relation", .string(relation.name.value)), ("target", .string(relation.target.value))]
                    if relation.isToMany { spec.append(("toMany", .raw("true"))) }
                    if relation.isRequired?.value == true { spec.append(("required", .raw("true"))) }
                    if let inverse = relation.inverse { spec.append(("inverse", .string(inverse.value))) }
                    if relation.deleteRule == .cascade { spec.append(("onDelete", .string("cascade"))) }
                    return .object(spec + renamedFrom(relation.renamedFrom) + docs(relation.documentation))
                })))
            }
            if !entity.indexes.isEmpty {
                members.append(("indexes", .array(entity.indexes.map { index in
                    var spec: [(String, Node)] = [("kind", .string(index.kind.value.rawValue))]
                    spec.append(("fields", .array(index.fields.map { field in
                        field.descending ? .object([("name", .string(field.name.value)), ("descending", .raw("true"))]) : .string(field.name.value)
                    })))
                    if let collision = index.collision { spec.append(("onCollision", .string(collision.value.spelling))) }
                    return .object(spec)
                })))
            }
            if !entity.mergeRules.isEmpty {
                members.append(("merge", .object(entity.mergeRules.map { merge in
                    (merge.which.rawValue, .array(merge.rules.map { rule in
                        rule.fields.isEmpty ? .string(rule.kind.rawValue) : .object([(rule.kind.rawValue, .array(rule.fields.map { .string($0.value) }))])
                    }))
                })))
            }
            let metadata = (entity.tracksUpdatedAt?.value == true ? ["updatedAt"] : []) + (entity.keepsDeletedArchives?.value == true ? ["softDelete"] : [])
            if !metadata.isEmpty { members.append(("metadata", .array(metadata.map { .string($0) }))) }
            return .object(members)
        case .enumeration(let enumeration):
            return .object([("enum", .string(enumeration.name.value))] + access(enumeration.access) + docs(enumeration.documentation) + [
                ("rawType", .string(enumeration.rawType.value)),
                ("cases", .array(enumeration.cases.map { item in
                    if item.rawValue == nil, item.documentation.isEmpty { return .string(item.name.value) }
                    var spec: [(String, Node)] = [("name", .string(item.name.value))]
                    if let raw = item.rawValue { spec.append(("rawValue", value(raw.value))) }
                    return .object(spec + docs(item.documentation))
                })),
            ])
        case .structure(let structure):
            return .object([("struct", .string(structure.name.value))] + access(structure.access) + docs(structure.documentation)
                + [("fields", .array(structure.fields.map(field)))])
        case .external(let external):
            var members: [(String, Node)] = [("external", .string(external.name.value))]
            if !external.conformances.isEmpty { members.append(("conformances", .array(external.conformances.map { .string($0.value.rawValue) }))) }
            return .object(members)
        }
    }

    private static func write(_ node: Node, indent: Int, into text: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch node {
        case .string(let value): text += jsonString(value)
        case .raw(let value): text += value
        case .array(let elements):
            if elements.isEmpty { text += "[]"; return }
            let simple = elements.allSatisfy { if case .object = $0 { return false } else if case .array = $0 { return false } else { return true } }
            if simple {
                text += "["
                for (offset, element) in elements.enumerated() {
                    if offset > 0 { text += ", " }
                    write(element, indent: indent + 1, into: &text)
                }
                text += "]"
                return
            }
            text += "[\n"
            for (offset, element) in elements.enumerated() {
                text += pad
                write(element, indent: indent + 1, into: &text)
                text += offset == elements.count - 1 ? "\n" : ",\n"
            }
            text += closePad + "]"
        case .object(let members):
            if members.isEmpty { text += "{}"; return }
            text += "{\n"
            for (offset, (key, value)) in members.enumerated() {
                text += pad + jsonString(key) + ": "
                write(value, indent: indent + 1, into: &text)
                text += offset == members.count - 1 ? "\n" : ",\n"
            }
            text += closePad + "}"
        }
    }

    private static func jsonString(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
