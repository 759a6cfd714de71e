import Foundation

/// The entity names a schema file declares, read by the build plugin to name the Swift files
/// it declares to SwiftPM (`Chat+Message.generated.swift`) before `schemagen` runs.
///
/// Plugins cannot import SchemaGenCore, so this is a scan rather than the parser. A wrong
/// answer costs compile speed, not correctness: `schemagen generate --entity-files` puts an
/// entity whose file was not declared into its schema file's file, and writes a note into a
/// declared file no entity fills. `EntityFilesTests.thePluginsEntityScanAgreesWithTheParser`
/// checks the scan against the parser.
enum SchemaEntityNames {
    static func names(in text: String, isJSON: Bool) -> [String] {
        isJSON ? namesInJSON(text) : namesInDSL(text)
    }

    /// The string after each `"entity":` key (only declarations have that key). A scan, not a
    /// JSON parser, so a number Foundation cannot read elsewhere in the file loses nothing.
    /// Names are ASCII identifiers; one written with escapes is left to the fallback.
    private static func namesInJSON(_ text: String) -> [String] {
        var names: [String] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var lastString: String?
        var afterEntityKey = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" {
                var end = index + 1
                while end < scalars.count, scalars[end] != "\"" { end += scalars[end] == "\\" ? 2 : 1 }
                let raw = String(String.UnicodeScalarView(scalars[(index + 1)..<min(end, scalars.count)]))
                if afterEntityKey {
                    if !raw.contains("\\") { names.append(raw) }
                    afterEntityKey = false
                    lastString = nil
                } else {
                    lastString = raw
                }
                index = end + 1
            } else {
                if scalar == ":" {
                    afterEntityKey = lastString == "entity"
                    lastString = nil
                } else if !scalar.properties.isWhitespace {
                    afterEntityKey = false
                    lastString = nil
                }
                index += 1
            }
        }
        return names
    }

    /// The word after each `entity` keyword, skipping comments and string literals. A field
    /// or relation called `entity` is followed by `:`, not by a name.
    private static func namesInDSL(_ text: String) -> [String] {
        var names: [String] = []
        var previousWord: String?
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar == "`" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar == "/", next == "/" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalar == "/", next == "*" {
                var depth = 0
                repeat {
                    if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "*" { depth += 1; index += 2 }
                    else if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" { depth -= 1; index += 2 }
                    else { index += 1 }
                } while depth > 0 && index < scalars.count
            } else if scalar == "\"" {
                index += 1
                while index < scalars.count, scalars[index] != "\"", scalars[index] != "\n" {
                    index += scalars[index] == "\\" ? 2 : 1
                }
                index += 1
                previousWord = nil
            } else if isWordScalar(scalar) {
                let start = index
                while index < scalars.count, isWordScalar(scalars[index]) { index += 1 }
                // `Name` in backticks names Name; `entity` in backticks is a name, not the keyword.
                let quoted = scalars[start] == "`"
                let word = String(String.UnicodeScalarView(scalars[start..<index].filter { $0 != "`" }))
                if previousWord == "entity" { names.append(word) }
                previousWord = quoted ? nil : word
            } else {
                if !scalar.properties.isWhitespace { previousWord = nil }
                index += 1
            }
        }
        return names
    }
}
