/// A to-one relation property, declared by generated code as
/// `@ToOne<User, OneWay, Required> public var author: User?`.
///
/// The wrapped value is the related entity when the relation holds one (for example after a
/// nested query). The projected value (`message.$author`) is the relation itself and is how
/// links are set: `.relation(user)`, `.id("1")`, `.fragment(user)`, `.null` (nullable only) and
/// `.none`, which leaves the stored link untouched on save.
@propertyWrapper
public struct ToOne<Target: EntityModelProtocol, Directionality, Constraint>: Sendable {
    @usableFromInline
    indirect enum State: Sendable {
        case none
        case null
        case id(Target.ID)
        case entity(Target, fragment: Bool)
    }

    @usableFromInline var state: State

    init(state: State) { self.state = state }

    /// A relation with no data: saving it keeps whatever link is stored.
    public init() { state = .none }

    /// The related entity, if this relation holds one. Read-only: links are set through the
    /// projected value (`message.$author = .relation(user)`), which says how to save them;
    /// assigning here (`message.author = user`) is a compile error saying so.
    public var wrappedValue: Target? {
        get {
            if case .entity(let entity, _) = state { return entity }
            return nil
        }
        @available(*, unavailable, message: "set a relation through its projected value: `$name = .relation(entity)`, `.id(id)`, `.fragment(entity)` or `.null`")
        set { fatalError("unavailable") }
    }

    /// The relation itself: assign to it to change the link.
    public var projectedValue: ToOne {
        get { self }
        set { self = newValue }
    }

    /// The id of the related entity, when the relation holds an id or an entity.
    public var id: Target.ID? {
        switch state {
        case .id(let id): id
        case .entity(let entity, _): entity.id
        case .none, .null: nil
        }
    }

    /// True when the relation carries no information (`.none`).
    public var isNone: Bool {
        if case .none = state { return true }
        return false
    }

    /// True when the relation is an explicit nil that removes the link on save.
    public var isNull: Bool {
        if case .null = state { return true }
        return false
    }

    /// Links to `entity` and saves it with its default merge strategy.
    public static func relation(_ entity: Target) -> Self { Self(state: .entity(entity, fragment: false)) }

    /// Links to `entity` and saves it with its fragment merge strategy.
    public static func fragment(_ entity: Target) -> Self { Self(state: .entity(entity, fragment: true)) }

    /// Links to the entity with this id; the entity itself is saved elsewhere.
    public static func id(_ id: Target.ID) -> Self { Self(state: .id(id)) }

    /// No information: saving keeps the stored link as it is.
    public static var none: Self { Self(state: .none) }
}

extension ToOne where Constraint == Nullable {
    /// An explicit nil: saving removes the stored link (the related entity is not deleted).
    public static var null: Self { Self(state: .null) }
}

extension ToOne.State: Equatable where Target: Equatable {}

/// Relations compare by state: `.id("1")` differs from `.relation(user)` even when the user's
/// id is "1", because saving them does different things.
extension ToOne: Equatable where Target: Equatable {}
