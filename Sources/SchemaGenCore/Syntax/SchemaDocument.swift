/// One parsed schema file, in either syntax. Both parsers produce this; validation turns the
/// documents of a target into a ``SchemaModel``.
public struct SchemaDocument: Hashable, Sendable {
    /// The file's path as given to the tool (used in diagnostics).
    public var path: String
    public var declarations: [Declaration]
    /// Declarations this file makes that could not be read in full because of a syntax error
    /// (already reported). Validation stays quiet about what follows from the gap: an unknown
    /// type of that name, a missing member or inverse inside it.
    public var incompleteNames: Set<String> = []
    /// `namespace Models.V1`: the enum (declared in Swift) whose members the file's types are
    /// also reachable as (`Models.V1.User`); nil for none.
    public var namespace: Located<[String]>? = nil
    /// `alias RichProperty = IndexedRichProperty`: more names the namespace gives the file's
    /// types, for types whose own name another namespace of the target also uses.
    public var aliases: [NamespaceAlias] = []

    public init(path: String, declarations: [Declaration], incompleteNames: Set<String> = [], namespace: Located<[String]>? = nil) {
        self.path = path
        self.declarations = declarations
        self.incompleteNames = incompleteNames
        self.namespace = namespace
    }
}

/// `alias RichProperty = IndexedRichProperty`: in the file's namespace, `RichProperty` names
/// the file's type `IndexedRichProperty` (so `Indexed.RichProperty` and
/// `NotIndexed.RichProperty` can be two entities, each with a name of its own at the top level).
public struct NamespaceAlias: Hashable, Sendable {
    public var name: Located<String>
    public var target: Located<String>

    public init(name: Located<String>, target: Located<String>) {
        self.name = name
        self.target = target
    }
}

/// Who can see a generated declaration.
public enum AccessLevel: String, Hashable, Sendable, CaseIterable {
    case `internal`, `package`, `public`

    /// The keyword with a trailing space, or nothing for internal.
    var prefix: String { self == .internal ? "" : "\(rawValue) " }
}

extension AccessLevel: Comparable {
    /// Less visible first: internal < package < public.
    public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A top-level declaration.
public enum Declaration: Hashable, Sendable {
    case entity(EntityDeclaration)
    case enumeration(EnumDeclaration)
    case structure(StructDeclaration)
    case external(ExternalDeclaration)

    public var name: Located<String> {
        switch self {
        case .entity(let d): d.name
        case .enumeration(let d): d.name
        case .structure(let d): d.name
        case .external(let d): d.name
        }
    }
}

/// `entity User { ... }`
public struct EntityDeclaration: Hashable, Sendable {
    public var name: Located<String>
    public var access: AccessLevel = .internal
    public var documentation: [String] = []
    public var fields: [FieldDeclaration] = []
    public var relations: [RelationDeclaration] = []
    public var indexes: [IndexDeclaration] = []
    public var mergeRules: [MergeDeclaration] = []
    /// `metadata updatedAt`: the runtime records when each entity was last saved.
    public var tracksUpdatedAt: Located<Bool>? = nil
    /// `metadata softDelete`: deleting an entity keeps a `Deleted<Entity>` archive of it.
    public var keepsDeletedArchives: Located<Bool>? = nil
    /// `entity Message, renamedFrom: Post`: names the entity had before, so a store keeps its rows.
    public var renamedFrom: [Located<String>] = []
    public var location: SourceLocation

    public init(name: Located<String>, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}

/// `var name: String = "Anonymous"`
public struct FieldDeclaration: Hashable, Sendable {
    public var name: Located<String>
    public var type: Located<TypeReference>
    public var isMutable: Bool
    public var defaultValue: Located<DefaultValue>? = nil
    public var documentation: [String] = []
    /// `var text: String, renamedFrom: body`: names the field had before (entity fields only).
    public var renamedFrom: [Located<String>] = []
}

/// `relation chat: Chat, required, inverse: messages, onDelete: cascade`
public struct RelationDeclaration: Hashable, Sendable {
    public enum DeleteRule: String, Hashable, Sendable { case nullify, cascade }

    public var name: Located<String>
    public var target: Located<String>
    public var isToMany: Bool
    public var isRequired: Located<Bool>? = nil
    public var inverse: Located<String>? = nil
    public var deleteRule: DeleteRule = .nullify
    public var documentation: [String] = []
    /// `relation members: [User], renamedFrom: users`: names the relation had before.
    public var renamedFrom: [Located<String>] = []
}

/// `index ordered(lastName, firstName desc)`, `index unique(email, onCollision: upsert)`
public struct IndexDeclaration: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable { case ordered, hash, unique, fulltext }

    public struct Field: Hashable, Sendable {
        public var name: Located<String>
        public var descending: Bool = false
    }

    /// What a unique index does when a save would store a second entity with the same key.
    public enum Collision: Hashable, Sendable {
        case `throw`
        case upsert
        /// A `CollisionResolver` static member written in Swift, e.g. `updateCurrentUser`.
        case resolver(String)

        var spelling: String {
            switch self {
            case .throw: "throw"
            case .upsert: "upsert"
            case .resolver(let name): name
            }
        }
    }

    public var kind: Located<Kind>
    public var fields: [Field]
    public var collision: Located<Collision>? = nil
    public var location: SourceLocation
}

/// `merge fragment: patch(profile), append(tags)`
public struct MergeDeclaration: Hashable, Sendable {
    public enum Which: String, Hashable, Sendable { case `default`, fragment }

    public struct Rule: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable, CaseIterable { case replace, patch, append, lastWriteWins }
        public var kind: Kind
        /// For `patch` with no fields: every optional `var` field.
        public var fields: [Located<String>]
        public var location: SourceLocation
    }

    public var which: Which
    public var rules: [Rule]
    public var location: SourceLocation
}

/// `enum Status: String { case active, away = "away" }`
public struct EnumDeclaration: Hashable, Sendable {
    public struct Case: Hashable, Sendable {
        public var name: Located<String>
        public var rawValue: Located<DefaultValue>? = nil
        public var documentation: [String] = []
    }

    public var name: Located<String>
    public var access: AccessLevel = .internal
    public var rawType: Located<String>
    public var cases: [Case] = []
    public var documentation: [String] = []
}

/// `struct Avatar { var url: URL }`
public struct StructDeclaration: Hashable, Sendable {
    public var name: Located<String>
    public var access: AccessLevel = .internal
    public var fields: [FieldDeclaration] = []
    public var documentation: [String] = []
}

/// `external Profile: Hashable`: a Swift type declared elsewhere in the target.
public struct ExternalDeclaration: Hashable, Sendable {
    /// Protocols the type is known to conform to, beyond `Codable & Sendable`.
    public enum Conformance: String, Hashable, Sendable, CaseIterable { case Equatable, Hashable, Comparable }

    public var name: Located<String>
    public var conformances: [Located<Conformance>] = []
}
