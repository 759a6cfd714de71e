/// The declared type of a stored column: the storage classes SQLite has, and that most
/// databases map directly.
public enum StoredType: String, Sendable, Hashable, Codable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"
}
