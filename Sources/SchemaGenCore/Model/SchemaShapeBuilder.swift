import SchemaEvolution

/// Translates a validated schema into the ``SchemaShape`` a store records: the one
/// translation both the generated `<Target>Schema.shape` and `schemagen migrate-plan` use,
/// so the plan the CLI shows is the plan a store applies.
public enum SchemaShapeBuilder {
    public static func shape(of model: SchemaModel) -> SchemaShape {
        let declarations = model.files.sorted { $0.outputName < $1.outputName }.flatMap(\.declarations)
        var enumRawTypes: [String: String] = [:]
        var entities: [EntityModel] = []
        for declaration in declarations {
            switch declaration {
            case .entity(let entity): entities.append(entity)
            case .enumeration(let enumeration): enumRawTypes[enumeration.name] = enumeration.rawType
            case .structure: break
            }
        }
        return SchemaShape(entities: entities.map { entity in
            EntityShape(
                entity.name, renamedFrom: entity.formerNames,
                fields: entity.fields.map { field(of: $0, enumRawTypes: enumRawTypes) },
                relations: entity.relations.map { relation in
                    RelationShape(relation.name, to: relation.target, toMany: relation.isToMany, inverse: relation.inverse?.name,
                                  renamedFrom: relation.formerNames)
                },
                tracksUpdatedAt: entity.tracksUpdatedAt)
        })
    }

    private static func field(of field: FieldModel, enumRawTypes: [String: String]) -> FieldShape {
        let defaultValue = field.defaultValue.flatMap { $0 == .nil ? nil : $0.description }
        let column: StoredType = field.storage == .column ? columnType(of: field.type.unwrapped, enumRawTypes: enumRawTypes) : .text
        return FieldShape(field.name, field.type.description, column: column, isJSON: field.storage != .column,
                          defaultValue: defaultValue, renamedFrom: field.formerNames)
    }

    /// The column type of a type stored in a typed column (a built-in or an enum), matching
    /// the runtime's `StorableValue.storedType` for it.
    static func columnType(of type: TypeReference, enumRawTypes: [String: String]) -> StoredType {
        guard case .named(let name) = type else { return .text }
        if let rawType = enumRawTypes[name] { return columnType(of: .named(rawType), enumRawTypes: [:]) }
        switch name {
        case "Bool": return .integer
        case _ where TypeCatalog.integerTypes.contains(name): return .integer
        case "Double", "Float", "Date": return .real
        case "Data": return .blob
        default: return .text // String, URL, UUID, Decimal
        }
    }
}
