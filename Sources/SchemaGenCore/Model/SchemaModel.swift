/// The validated, resolved form of a target's schema files: what the renderer turns into
/// Swift. Everything here is already checked; names are final and link columns assigned.
public struct SchemaModel: Hashable, Sendable {
    public var files: [FileModel]
}

/// The declarations of one schema file, rendered into one Swift file.
public struct FileModel: Hashable, Sendable {
    /// The schema file's name, named in the generated header (`Chat.schema`).
    public var sourceName: String
    /// The generated file's name (`Chat.generated.swift`).
    public var outputName: String
    public var declarations: [DeclarationModel]
    /// The `external` types this file declares, checked where the schema declares them.
    public var externals: [ExternalModel] = []
    /// `namespace Models.V1`: the enum the file's types are also reachable in; empty for none.
    public var namespace: [String] = []
    /// `alias RichProperty = IndexedRichProperty`: further names in the namespace, each for a
    /// type of this file.
    public var aliases: [AliasModel] = []

    /// The file an entity of this schema file is generated into when it has one of its own:
    /// `Chat+Message.generated.swift` for `Message` in `Chat.schema`, and the schema file's
    /// own `Chat.generated.swift` for the entity named like the file, `Chat`.
    public func entityOutputName(_ entity: String) -> String {
        Self.entityOutputName(entity, schemaOutput: outputName)
    }

    /// `entityOutputName(_:)` from the schema file's output name.
    public static func entityOutputName(_ entity: String, schemaOutput: String) -> String {
        let suffix = ".generated.swift"
        let base = schemaOutput.hasSuffix(suffix) ? String(schemaOutput.dropLast(suffix.count)) : schemaOutput
        return base == entity ? schemaOutput : base + "+" + entity + suffix
    }
}

/// `alias RichProperty = IndexedRichProperty` in a namespaced file.
public struct AliasModel: Hashable, Sendable {
    /// The name in the namespace.
    public var name: String
    /// The file's type it names.
    public var target: String
}

/// An `external` declaration: a Swift type the user writes, which only the compiler can check.
public struct ExternalModel: Hashable, Sendable {
    public var name: String
    /// Whether the schema declares it `Hashable` (generated code then relies on it).
    public var isHashable: Bool
    /// Where the schema declares it: compiler errors about the type point here.
    public var origin: SourceLocation
}

public enum DeclarationModel: Hashable, Sendable {
    case entity(EntityModel)
    case enumeration(EnumModel)
    case structure(StructModel)
}

public struct EntityModel: Hashable, Sendable {
    public var name: String
    public var access: AccessLevel
    public var documentation: [String]
    /// Names the entity had before (`renamedFrom:`), for stores written with them.
    public var formerNames: [String]
    /// Every field, `id` first.
    public var fields: [FieldModel]
    public var relations: [RelationModel]
    public var indexes: [IndexModel]
    public var defaultMerge: [MergeRuleModel]
    public var fragmentMerge: [MergeRuleModel]
    /// Optional `var` fields that `patch` keeps when the new value is nil.
    public var patchFields: [String]
    public var tracksUpdatedAt: Bool
    /// `metadata softDelete`: deleting keeps a `Deleted<Entity>` archive.
    public var keepsDeletedArchives: Bool = false
    /// Whether the generated struct can conform to Equatable (every field and related entity can).
    public var isEquatable: Bool

    public var idType: TypeReference { fields[0].type }
}

public struct FieldModel: Hashable, Sendable {
    public var name: String
    public var type: TypeReference
    public var isMutable: Bool
    public var defaultValue: DefaultValue?
    public var documentation: [String]
    /// Names the field had before (`renamedFrom:`; entity fields only).
    public var formerNames: [String] = []
    /// The field's schema line, when its type or default names Swift that only the compiler
    /// can check (an `external` type or a static member of one): generated lines naming it
    /// carry a `#sourceLocation` directive, so compiler errors point at the schema.
    public var swiftOrigin: SourceLocation? = nil
    /// How a store keeps the field (entity fields only).
    public var storage: FieldStorage = .column
}

public struct RelationModel: Hashable, Sendable {
    public var name: String
    public var target: String
    public var isToMany: Bool
    public var isRequired: Bool
    /// The inverse relation on the target, for mutual relations.
    public var inverse: InverseModel?
    public var deleteRule: RelationDeclaration.DeleteRule
    /// This relation's column among the entity's to-one or to-many relations.
    public var column: Int
    public var documentation: [String]
    /// Names the relation had before (`renamedFrom:`).
    public var formerNames: [String] = []

    public struct InverseModel: Hashable, Sendable {
        public var name: String
        public var isToMany: Bool
        public var column: Int
    }
}

public struct IndexModel: Hashable, Sendable {
    public var kind: IndexDeclaration.Kind
    public var fields: [(name: String, descending: Bool)] { zip(fieldNames, descending).map { ($0, $1) } }
    public var fieldNames: [String]
    public var descending: [Bool]
    /// Field types, in field order.
    public var fieldTypes: [TypeReference]
    public var collision: IndexDeclaration.Collision
    /// The generated static name, e.g. `lastNameFirstNameOrdered`.
    public var name: String
    /// Where the schema names a resolver (`onCollision: resolverName`), which only the
    /// compiler can check: the descriptor's line carries a `#sourceLocation` directive.
    public var swiftOrigin: SourceLocation? = nil
}

public struct MergeRuleModel: Hashable, Sendable {
    public var kind: MergeDeclaration.Rule.Kind
    public var fields: [String]
}

public struct EnumModel: Hashable, Sendable {
    public var name: String
    public var access: AccessLevel
    public var documentation: [String]
    public var rawType: String
    public var cases: [(name: String, rawValue: DefaultValue?, documentation: [String])] {
        zip(caseNames, zip(rawValues, caseDocumentation)).map { ($0, $1.0, $1.1) }
    }
    public var caseNames: [String]
    public var rawValues: [DefaultValue?]
    public var caseDocumentation: [[String]]
}

public struct StructModel: Hashable, Sendable {
    public var name: String
    public var access: AccessLevel
    public var documentation: [String]
    public var fields: [FieldModel]
    public var isHashable: Bool
    public var isEquatable: Bool
}
