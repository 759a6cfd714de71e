/// The source line under a diagnostic, with a caret at its column, for terminals:
///
/// ```
///   3 |     var title: Strng
///     |                ^
/// ```
///
/// Tools that parse `path:line:column:` lines (SwiftPM, Xcode) ignore these lines.
public enum CodeFrame {
    /// The frame for `location` in `text`, or nil when the line does not exist.
    public static func render(at location: SourceLocation, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        var line = Substring(lines[location.line - 1])
        if line.hasSuffix("\r") { line = line.dropLast() }
        if location.line == 1, line.unicodeScalars.first == "\u{FEFF}" { line = line.dropFirst() }
        // Columns count UTF-8 bytes; the caret goes under the character that starts there.
        let bytes = Array(line.utf8)
        let prefixBytes = min(max(0, location.column - 1), bytes.count)
        let prefix = String(decoding: bytes[..<prefixBytes], as: UTF8.self)
        let padding = String(prefix.map { $0 == "\t" ? "\t" : " " })
        let number = String(location.line)
        let gutter = String(repeating: " ", count: number.count)
        return "\(number) | \(SwiftText.comment(String(line)))\n\(gutter) | \(padding)^"
    }
}
