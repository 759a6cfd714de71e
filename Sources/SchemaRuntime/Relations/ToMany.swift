/// A to-many relation property, declared by generated code as
/// `@ToMany<Message, Mutual> public var messages: [Message]?`.
///
/// Set through the projected value: `.relation([...])`, `.ids([...])`, `.fragment([...])`
/// replace the stored links on save; `.appending(relation:)`, `.appending(ids:)` and
/// `.appending(fragment:)` add to them (a page of a paginated list); `.none` keeps them.
@propertyWrapper
public struct ToMany<Target: EntityModelProtocol, Directionality>: Sendable {
    @usableFromInline
    enum State: Sendable {
        case none
        case ids([Target.ID], appending: Bool)
        case entities([Target], fragment: Bool, appending: Bool)
    }

    @usableFromInline var state: State

    init(state: State) { self.state = state }

    /// A relation with no data: saving it keeps whatever links are stored.
    public init() { state = .none }

    /// The related entities, if this relation holds them. Read-only: links are set through
    /// the projected value (`chat.$users = .relation(users)`), which says how to save them;
    /// assigning here (`chat.users = users`) is a compile error saying so.
    public var wrappedValue: [Target]? {
        get {
            if case .entities(let entities, _, _) = state { return entities }
            return nil
        }
        @available(*, unavailable, message: "set a relation through its projected value: `$name = .relation(entities)`, `.ids(ids)`, `.fragment(entities)` or `.appending(ids: ids)`")
        set { fatalError("unavailable") }
    }

    /// The relation itself: assign to it to change the links.
    public var projectedValue: ToMany {
        get { self }
        set { self = newValue }
    }

    /// The ids of the related entities, when the relation holds ids or entities.
    public var ids: [Target.ID]? {
        switch state {
        case .none: nil
        case .ids(let ids, _): ids
        case .entities(let entities, _, _): entities.map { $0.id }
        }
    }

    /// True when the relation carries no information (`.none`).
    public var isNone: Bool {
        if case .none = state { return true }
        return false
    }

    /// True when saving adds to the stored links instead of replacing them.
    public var isAppending: Bool {
        switch state {
        case .none: false
        case .ids(_, let appending), .entities(_, _, let appending): appending
        }
    }

    /// Replaces the links with `entities`, saving each with its default merge strategy.
    public static func relation(_ entities: [Target]) -> Self { Self(state: .entities(entities, fragment: false, appending: false)) }

    /// Replaces the links with `entities`, saving each with its fragment merge strategy.
    public static func fragment(_ entities: [Target]) -> Self { Self(state: .entities(entities, fragment: true, appending: false)) }

    /// Replaces the links with the entities with these ids.
    public static func ids(_ ids: [Target.ID]) -> Self { Self(state: .ids(ids, appending: false)) }

    /// Adds `entities` to the stored links, saving each with its default merge strategy.
    public static func appending(relation entities: [Target]) -> Self { Self(state: .entities(entities, fragment: false, appending: true)) }

    /// Adds `entities` to the stored links, saving each with its fragment merge strategy.
    public static func appending(fragment entities: [Target]) -> Self { Self(state: .entities(entities, fragment: true, appending: true)) }

    /// Adds the entities with these ids to the stored links.
    public static func appending(ids: [Target.ID]) -> Self { Self(state: .ids(ids, appending: true)) }

    /// No information: saving keeps the stored links as they are.
    public static var none: Self { Self(state: .none) }
}

extension ToMany.State: Equatable where Target: Equatable {}

/// Relations compare by state, including the fragment and appending flags.
extension ToMany: Equatable where Target: Equatable {}
