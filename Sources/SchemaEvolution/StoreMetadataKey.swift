/// The `schemagen:meta` table of a store file: what it records about the schema it was
/// written with. Named here so every reader of store files (the store, `schemagen
/// migrate-plan`) agrees on it.
public enum StoreMetadataKey {
    /// The table (key TEXT PRIMARY KEY, value TEXT).
    public static let table = "schemagen:meta"
    /// The store format number.
    public static let format = "format"
    /// The fingerprint of the schema the file was last written with.
    public static let fingerprint = "fingerprint"
    /// A readable description of the tables.
    public static let layout = "layout"
    /// The ``SchemaShape`` the file was last written with, as JSON.
    public static let shape = "shape"
    /// Every fingerprint the file went through, oldest first, as a JSON array.
    public static let history = "history"
}
