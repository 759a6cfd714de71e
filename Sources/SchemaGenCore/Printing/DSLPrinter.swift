/// Prints a ``SchemaDocument`` in the DSL syntax (used by `schemagen convert`).
public enum DSLPrinter {
    public static func print(_ document: SchemaDocument) -> String {
        var writer = SwiftWriter()
        if let namespace = document.namespace {
            writer.line("namespace \(namespace.value.joined(separator: "."))")
            for alias in document.aliases { writer.line("alias \(alias.name.value) = \(alias.target.value)") }
            if !document.declarations.isEmpty { writer.line() }
        }
        for (offset, declaration) in document.declarations.enumerated() {
            if offset > 0 { writer.line() }
            switch declaration {
            case .entity(let entity): printEntity(entity, into: &writer)
            case .enumeration(let enumeration): printEnum(enumeration, into: &writer)
            case .structure(let structure):
                writer.documentation(structure.documentation)
                writer.block("\(structure.access.prefix)struct \(structure.name.value)") { writer in
                    structure.fields.forEach { printField($0, into: &writer) }
                }
            case .external(let external):
                let conformances = external.conformances.map(\.value.rawValue)
                writer.line("external \(external.name.value)" + (conformances.isEmpty ? "" : ": " + conformances.joined(separator: ", ")))
            }
        }
        return writer.text
    }

    private static func printField(_ field: FieldDeclaration, into writer: inout SwiftWriter) {
        writer.documentation(field.documentation)
        var text = "\(field.isMutable ? "var" : "let") \(SwiftName.escaped(field.name.value)): \(field.type.value)"
        if let value = field.defaultValue { text += " = \(value.value)" }
        writer.line(text + renamedFrom(field.renamedFrom))
    }

    /// `, renamedFrom: old` or `, renamedFrom: [old, older]`, or nothing.
    private static func renamedFrom(_ names: [Located<String>]) -> String {
        switch names.count {
        case 0: ""
        case 1: ", renamedFrom: \(names[0].value)"
        default: ", renamedFrom: [\(names.map(\.value).joined(separator: ", "))]"
        }
    }

    private static func printEntity(_ entity: EntityDeclaration, into writer: inout SwiftWriter) {
        writer.documentation(entity.documentation)
        writer.block("\(entity.access.prefix)entity \(entity.name.value)\(renamedFrom(entity.renamedFrom))") { writer in
            entity.fields.forEach { printField($0, into: &writer) }
            if !entity.relations.isEmpty { writer.line() }
            for relation in entity.relations {
                writer.documentation(relation.documentation)
                var text = "relation \(SwiftName.escaped(relation.name.value)): " + (relation.isToMany ? "[\(relation.target.value)]" : relation.target.value)
                if relation.isRequired?.value == true { text += ", required" }
                if let inverse = relation.inverse { text += ", inverse: \(inverse.value)" }
                if relation.deleteRule == .cascade { text += ", onDelete: cascade" }
                writer.line(text + renamedFrom(relation.renamedFrom))
            }
            if !entity.indexes.isEmpty { writer.line() }
            for index in entity.indexes {
                var arguments = index.fields.map { $0.name.value + ($0.descending ? " desc" : "") }
                if let collision = index.collision { arguments.append("onCollision: \(collision.value.spelling)") }
                writer.line("index \(index.kind.value.rawValue)(\(arguments.joined(separator: ", ")))")
            }
            if !entity.mergeRules.isEmpty { writer.line() }
            for merge in entity.mergeRules {
                let rules = merge.rules.map { rule in
                    rule.fields.isEmpty ? rule.kind.rawValue : "\(rule.kind.rawValue)(\(rule.fields.map(\.value).joined(separator: ", ")))"
                }
                writer.line("merge \(merge.which.rawValue): \(rules.joined(separator: ", "))")
            }
            let metadata = (entity.tracksUpdatedAt?.value == true ? ["updatedAt"] : []) + (entity.keepsDeletedArchives?.value == true ? ["softDelete"] : [])
            if !metadata.isEmpty {
                writer.line()
                writer.line("metadata \(metadata.joined(separator: ", "))")
            }
        }
    }

    private static func printEnum(_ enumeration: EnumDeclaration, into writer: inout SwiftWriter) {
        writer.documentation(enumeration.documentation)
        writer.block("\(enumeration.access.prefix)enum \(enumeration.name.value): \(enumeration.rawType.value)") { writer in
            for item in enumeration.cases {
                writer.documentation(item.documentation)
                writer.line("case \(SwiftName.escaped(item.name.value))" + (item.rawValue.map { " = \($0.value)" } ?? ""))
            }
        }
    }
}
