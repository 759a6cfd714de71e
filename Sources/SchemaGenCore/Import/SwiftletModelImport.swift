/// What `schemagen convert --from swiftletmodel` makes of a set of Swift files: one schema
/// per input file that declares entities or enums, one Swift file per input file for the
/// code a schema cannot hold, and a diagnostic for everything not translated.
public struct SwiftletModelImport: Sendable {
    /// One converted input file.
    public struct File: Hashable, Sendable {
        /// The input file's path.
        public var sourcePath: String
        /// The schema file's name without `.schema`: the input's (`Models`), or for a further
        /// namespace the input declares models in, `Models+Namespace`.
        public var schemaStem: String
        /// The schema, as a document (located in the Swift source) and as DSL text; nil when
        /// the file declares no entity and no enum.
        public var schema: SchemaDocument?
        public var schemaText: String?
        /// The Swift code kept as written (custom initializers, computed properties, methods,
        /// collision resolvers, value types), with imports adjusted; nil when nothing is kept.
        public var swiftText: String?
    }

    public var files: [File]
    /// Everything not translated, located in the Swift source, plus what validating the
    /// produced schemas together found.
    public var diagnostics: [Diagnostic]

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Options of the conversion.
    public struct Options: Sendable {
        /// Adds `metadata updatedAt` to every entity, as SwiftletModel tracks save times for all.
        public var tracksUpdatedAt = true
        /// Adds `metadata softDelete` to every entity, as SwiftletModel's `delete(from:)` keeps
        /// a `Deleted<T>` archive of everything it deletes.
        public var keepsDeletedArchives = true
        /// The name of the generated type listing the target's entities (`<Target>Schema`),
        /// which a SwiftletModel schema root becomes a document of.
        public var schemaName = SchemaGenerator.defaultSchemaName

        public init(tracksUpdatedAt: Bool = true, keepsDeletedArchives: Bool = true, schemaName: String = SchemaGenerator.defaultSchemaName) {
            self.tracksUpdatedAt = tracksUpdatedAt
            self.keepsDeletedArchives = keepsDeletedArchives
            self.schemaName = schemaName
        }
    }

    /// Converts `sources` (Swift files) together: relations and types may cross files.
    public static func convert(_ sources: [SchemaSource], options: Options = Options()) -> SwiftletModelImport {
        var importer = SwiftletModelImporter(sources: sources, options: options)
        return importer.run()
    }
}
