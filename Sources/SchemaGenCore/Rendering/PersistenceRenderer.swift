/// Renders an entity's `PersistentEntity` conformance: the column of every field and the
/// initializer that reads a stored row back. A store (SchemaStore) uses them instead of
/// reflection or per-row JSON; relations are not columns (the store keeps them in link tables).
struct PersistenceRenderer {
    let entity: EntityModel

    func render(into writer: inout SwiftWriter) {
        let access = entity.access
        writer.block("extension \(entity.name): PersistentEntity") { writer in
            writer.documentation(["The columns of the `\(entity.name)` table in a store, one per field, `id` first."])
            renderStoredFields(access: access, into: &writer)
            writer.line()
            writer.documentation(["Reads an entity back from its stored row; relations are `.none`."])
            writer.block("\(access.prefix)init(storedRow row: StoredRow) throws") { writer in
                for (column, field) in entity.fields.enumerated() {
                    writer.line("self.\(SwiftName.escaped(field.name)) = try \(read(field, column: column))", origin: field.swiftOrigin)
                }
                for relation in entity.relations {
                    writer.line("self._\(relation.name) = .none")
                }
            }
        }
    }

    /// A list literal; built statement by statement when a field names an `external` type,
    /// so its line can carry a `#sourceLocation` (directives cannot stand inside a literal).
    private func renderStoredFields(access: AccessLevel, into writer: inout SwiftWriter) {
        let header = "\(access.prefix)static let storedFields: [StoredField<\(entity.name)>] ="
        guard entity.fields.contains(where: { $0.swiftOrigin != nil }) else {
            writer.list(header, entity.fields.map(column))
            return
        }
        writer.block(opening: header + " {", closing: "}()") { writer in
            writer.line("var fields: [StoredField<\(entity.name)>] = []")
            for field in entity.fields {
                writer.line("fields.append(\(column(field)))", origin: field.swiftOrigin)
            }
            writer.line("return fields")
        }
    }

    private func column(_ field: FieldModel) -> String {
        let name = SwiftLiteral.string(field.name)
        let keyPath = "\\.\(SwiftName.escaped(field.name))"
        // The default as stored is what a migration gives rows stored before the field existed.
        let defaultValue = field.defaultValue.flatMap { $0 == .nil ? nil : ", default: \($0)" } ?? ""
        return switch field.storage {
        case .column: ".column(\(name), \(keyPath)\(defaultValue))"
        case .json: ".json(\(name), \(keyPath)\(defaultValue))"
        case .nullableJSON: ".nullableJSON(\(name), \(keyPath)\(defaultValue))"
        }
    }

    /// The typed read of one column; the type is spelled out, which keeps type checking cheap.
    private func read(_ field: FieldModel, column: Int) -> String {
        switch field.storage {
        case .column: "row.value(at: \(column), as: \(field.type).self)"
        case .json: "row.json(at: \(column), as: \(field.type).self)"
        case .nullableJSON: "row.nullableJSON(at: \(column), as: \(field.type.unwrapped).self)"
        }
    }
}
