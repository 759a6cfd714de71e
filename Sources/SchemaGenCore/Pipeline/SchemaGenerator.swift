import SchemaEvolution

/// The generator pipeline: parse each file (DSL or JSON), validate all of a target's files
/// together, then render Swift: one file per schema file and one per entity.
///
/// Output is produced only when no stage reported an error, so a bad schema never yields a
/// partial or silently wrong file.
public enum SchemaGenerator {
    public struct Output: Sendable {
        /// The generated files, in input order; empty when there are errors.
        public var files: [GeneratedFile]
        /// Every problem found, sorted by location.
        public var diagnostics: [Diagnostic]

        public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
    }

    /// The schema type's name when none is given.
    public static let defaultSchemaName = "StoreSchema"

    /// The schema type name for a target or folder name: `ChatModels` -> `ChatModelsSchema`,
    /// with characters that cannot start or be in a Swift identifier replaced by `_`.
    public static func schemaName(forTarget target: String) -> String {
        var name = String(target.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if name.first?.isNumber ?? true { name = "_" + name }
        return name.prefix(1).uppercased() + name.dropFirst() + "Schema"
    }

    /// Parses one file in the syntax its name says.
    public static func parse(_ source: SchemaSource) -> (SchemaDocument, [Diagnostic]) {
        switch source.syntax {
        case .dsl: DSLParser.parse(text: source.text, path: source.path)
        case .json: JSONSchemaReader.parse(text: source.text, path: source.path)
        }
    }

    /// Parses every file, collecting the syntax errors of all of them.
    private static func parseAll(_ sources: [SchemaSource]) -> ([SchemaDocument], Diagnostics) {
        var diagnostics = Diagnostics()
        var documents: [SchemaDocument] = []
        for source in sources {
            let (document, problems) = parse(source)
            documents.append(document)
            diagnostics.append(contentsOf: problems)
        }
        return (documents, diagnostics)
    }

    /// Parses and validates the schema files of one target and returns the shape a store
    /// keeps of them (what `<Target>Schema.shape` holds), or nil with the errors.
    public static func shape(_ sources: [SchemaSource]) -> (SchemaShape?, [Diagnostic]) {
        var (documents, diagnostics) = parseAll(sources)
        let (model, problems) = SchemaValidator.validate(documents)
        diagnostics.append(contentsOf: problems)
        return (diagnostics.hasErrors ? nil : SchemaShapeBuilder.shape(of: model), diagnostics.sorted)
    }

    /// Runs the whole pipeline over the schema files of one target.
    ///
    /// Syntax errors come first (in file order): they are root causes, and validation only
    /// reports what does not follow from them.
    /// `schemaName` names the type listing the target's entities for a store (the build plugin
    /// passes `<Target>Schema`); it is rendered into `<schemaName>.generated.swift`.
    /// `entityFiles` says which entities get a file of their own (all, unless the build plugin
    /// names the files it declared).
    public static func generate(_ sources: [SchemaSource], sourcePaths: SourcePathStyle = .fileName,
                                schemaName: String = defaultSchemaName, entityFiles: EntityFiles = .all) -> Output {
        let (documents, syntax) = parseAll(sources)
        var semantic = Diagnostics()
        let (model, problems) = SchemaValidator.validate(documents)
        semantic.append(contentsOf: problems)
        semantic.append(contentsOf: SchemaNameCheck.problems(schemaName: schemaName, documents: documents))
        let diagnostics = syntax.sorted + semantic.sorted
        guard !syntax.hasErrors, !semantic.hasErrors else { return Output(files: [], diagnostics: diagnostics) }
        var files = model.files.flatMap { FileRenderer.render($0, sourcePaths: sourcePaths, entityFiles: entityFiles) }
        files.append(GeneratedFile(name: SchemaRenderer.outputName(for: schemaName),
                                   contents: SchemaRenderer.render(model, schemaName: schemaName)))
        if case .declared(let names) = entityFiles {
            let written = Set(files.map(\.name))
            for name in names.sorted() where !written.contains(name) {
                files.append(GeneratedFile(name: name, contents: FileRenderer.placeholder()))
            }
        }
        return Output(files: files, diagnostics: diagnostics)
    }
}
