/// Builds Swift source line by line with four-space indentation, so renderers read like the
/// code they produce and output is formatted by construction.
struct SwiftWriter {
    private(set) var text = ""
    private var depth = 0
    /// How `#sourceLocation` directives name schema files.
    var sourcePaths: SourcePathStyle = .fileName

    /// Appends one line at the current indentation (an empty string appends a blank line).
    mutating func line(_ content: String = "") {
        if content.isEmpty {
            text += "\n"
        } else {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }
    }

    /// Appends a line that names Swift only the compiler can check (an `external` type, a
    /// resolver), between `#sourceLocation` directives naming the schema line it came from,
    /// so a compiler error on it points at the schema. Without `origin`, a plain line.
    ///
    /// With `closesMapping` false the mapping goes on to the lines that follow (an empty
    /// `content` writes the directive alone, mapping the next line to `origin`), and the
    /// caller ends it with `#sourceLocation()` (only if a directive was written: see
    /// ``SourcePathStyle/directivePath(_:)``).
    mutating func line(_ content: String, origin: SourceLocation?, closesMapping: Bool = true) {
        guard let origin, let path = sourcePaths.directivePath(origin.path) else {
            line(content)
            return
        }
        line("#sourceLocation(file: \"\(path)\", line: \(origin.line))")
        if !content.isEmpty { line(content) }
        if closesMapping { line("#sourceLocation()") }
    }

    /// Appends `header {`, the body one level deeper, then `}`.
    mutating func block(_ header: String, _ body: (inout SwiftWriter) -> Void) {
        block(opening: header + " {", body)
    }

    /// Appends `opening` as written (e.g. `try context.transaction { context in`), the body one
    /// level deeper, then `closing`.
    mutating func block(opening: String, closing: String = "}", _ body: (inout SwiftWriter) -> Void) {
        line(opening)
        depth += 1
        body(&self)
        depth -= 1
        line(closing)
    }

    /// Appends a multi-line array literal: `header [`, one element per line with a trailing
    /// comma, then `closing` (`],` inside an argument list).
    mutating func list(_ header: String, _ elements: [String], closing: String = "]") {
        block(opening: header + " [", closing: closing) { writer in
            for element in elements { writer.line(element + ",") }
        }
    }

    /// Appends `///` documentation lines. The text comes from schema files, so anything that
    /// could end the comment line (a carriage return, a line separator) is escaped.
    mutating func documentation(_ lines: [String]) {
        for text in lines { line(text.isEmpty ? "///" : "/// " + SwiftText.comment(text)) }
    }

    /// Appends a `//` comment line; the text is escaped like documentation.
    mutating func comment(_ text: String) {
        line("// " + SwiftText.comment(text))
    }
}
