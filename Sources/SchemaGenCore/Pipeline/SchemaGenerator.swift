/// The generator pipeline: parse each file (DSL or JSON), validate all of a target's files
/// together, then render one Swift file per schema file.
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

    /// Parses one file in the syntax its name says.
    public static func parse(_ source: SchemaSource) -> (SchemaDocument, [Diagnostic]) {
        switch source.syntax {
        case .dsl: DSLParser.parse(text: source.text, path: source.path)
        case .json: JSONSchemaReader.parse(text: source.text, path: source.path)
        }
    }

    /// Runs the whole pipeline over the schema files of one target.
    ///
    /// Syntax errors come first (in file order): they are root causes, and validation only
    /// reports what does not follow from them.
    public static func generate(_ sources: [SchemaSource], sourcePaths: SourcePathStyle = .fileName) -> Output {
        var syntax = Diagnostics()
        var documents: [SchemaDocument] = []
        for source in sources {
            let (document, problems) = parse(source)
            documents.append(document)
            syntax.append(contentsOf: problems)
        }
        var semantic = Diagnostics()
        let (model, problems) = SchemaValidator.validate(documents)
        semantic.append(contentsOf: problems)
        let diagnostics = syntax.sorted + semantic.sorted
        guard !syntax.hasErrors, !semantic.hasErrors else { return Output(files: [], diagnostics: diagnostics) }
        let files = model.files.map { GeneratedFile(name: $0.outputName, contents: FileRenderer.render($0, sourcePaths: sourcePaths)) }
        return Output(files: files, diagnostics: diagnostics)
    }
}
