/// A problem found in a schema, reported as `path:line:column: error: message` and, where
/// one helps, a `note:` line with a hint at the same place.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible, Error {
    public enum Severity: String, Hashable, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    public var location: SourceLocation
    /// How to fix it, printed as a `note:`.
    public var hint: String?

    public static func error(_ message: String, at location: SourceLocation, hint: String? = nil) -> Diagnostic {
        Diagnostic(severity: .error, message: message, location: location, hint: hint)
    }

    public static func warning(_ message: String, at location: SourceLocation, hint: String? = nil) -> Diagnostic {
        Diagnostic(severity: .warning, message: message, location: location, hint: hint)
    }

    /// The compiler-style text: the diagnostic line, then the hint as a note.
    public var description: String {
        var text = "\(location): \(severity.rawValue): \(message)"
        if let hint { text += "\n\(location): note: \(hint)" }
        return text
    }
}

/// Collects diagnostics from every stage so one run reports every problem.
public struct Diagnostics: Sendable {
    public private(set) var all: [Diagnostic] = []

    public init() {}

    public var hasErrors: Bool { all.contains { $0.severity == .error } }

    public mutating func append(_ diagnostic: Diagnostic) { all.append(diagnostic) }

    public mutating func append(contentsOf diagnostics: [Diagnostic]) { all.append(contentsOf: diagnostics) }

    public mutating func error(_ message: String, at location: SourceLocation, hint: String? = nil) {
        all.append(.error(message, at: location, hint: hint))
    }

    /// Diagnostics in file, line, column order, as a compiler would print them.
    public var sorted: [Diagnostic] {
        all.enumerated().sorted { a, b in
            a.element.location == b.element.location ? a.offset < b.offset : a.element.location < b.element.location
        }.map(\.element)
    }
}
