/// How `#sourceLocation` directives in generated code name schema files.
public enum SourcePathStyle: Sendable {
    /// The file name only (`User.schema`): output does not depend on where it is generated,
    /// so committed files and `schemagen check` agree on every machine. The default.
    case fileName
    /// The path as given to the generator. The build plugin passes absolute paths, so
    /// compiler errors link to the schema file in Xcode and other editors.
    case asGiven

    /// The text to name `path` by, or nil when the compiler could not read it back: directive
    /// file names are taken verbatim (escapes are not processed), so a path with a quote, a
    /// backslash or an invisible character gets no directive at all.
    func directivePath(_ path: String) -> String? {
        let text = self == .fileName ? String(path.split(separator: "/").last ?? Substring(path)) : path
        let unreadable = text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || SwiftText.needsEscape($0) || $0.value < 0x20 }
        return text.isEmpty || unreadable ? nil : text
    }
}
