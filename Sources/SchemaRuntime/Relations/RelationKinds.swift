/// Phantom types that make relation misuse a compile-time error.
///
/// A relation's *directionality* says whether the other side links back
/// (``Mutual``) or not (``OneWay``); its *constraint* says whether a to-one link may be
/// explicitly nullified (``Nullable``) or not (``Required``).

/// The relation has an inverse on the target entity, kept symmetric by the runtime.
public enum Mutual: Sendable {}

/// The relation has no inverse: only the source knows about the link.
public enum OneWay: Sendable {}

/// A to-one relation that may be set to `.null` to remove the link on save.
public enum Nullable: Sendable {}

/// A to-one relation that cannot be explicitly nullified (it can still be missing).
public enum Required: Sendable {}

/// What happens to related entities when the source entity is deleted.
public enum DeleteRule: Sendable, Hashable {
    /// Remove the links only (the default).
    case nullify
    /// Delete the related entities too, running their own delete rules.
    case cascade
}
