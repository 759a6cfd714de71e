import Foundation

/// Schema files must be UTF-8 text. A file that is not gets a located error at its first
/// invalid byte, as every other schema problem does, instead of being decoded with
/// replacement characters (which would report confusing problems, or none).
public enum SchemaEncodingCheck {
    /// Schema files that are not UTF-8 text, each with the located error of its first
    /// invalid byte.
    public struct Failure: Error, CustomStringConvertible {
        public var diagnostics: [Diagnostic]
        public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// The text of `data`, or the diagnostic at its first byte that is not UTF-8.
    /// Columns count Unicode scalars, as ``SourceLocation`` does. O(bytes).
    public static func decode(_ data: Data, path: String) -> Result<String, Diagnostic> {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0, line = 1, column = 1
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let encoded):
                offset += encoded.count
                if encoded.count == 1, encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .error:
                let byte = data[data.startIndex + offset]
                return .failure(.error("the file is not UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) cannot be read as a character",
                                       at: SourceLocation(path: path, line: line, column: column),
                                       hint: "save the file as UTF-8 (schema files are UTF-8 text, like Swift sources)"))
            case .emptyInput:
                return .success(String(decoding: data, as: UTF8.self))
            }
        }
    }
}
