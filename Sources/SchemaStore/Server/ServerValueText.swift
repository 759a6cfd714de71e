import Foundation
import SchemaRuntime

/// A ``StoredValue`` of any kind as text, for the columns of a server database that hold
/// values of several types (ids in the commit log, archives and overlay records: an entity's
/// id may be an integer or text). SQLite keeps such columns untyped; a server needs one type.
/// The kind comes first, so decoding gives back exactly the value encoded (reals by bit
/// pattern).
enum ServerValueText {
    static func encode(_ value: StoredValue) -> String {
        switch value {
        case .null: "n"
        case .integer(let integer): "i:\(integer)"
        case .real(let real): "r:" + String(real.bitPattern, radix: 16)
        case .text(let text): "t:" + text
        case .blob(let data): "b:" + data.base64EncodedString()
        }
    }

    /// The value `text` encodes; nil for text ``encode(_:)`` never writes.
    static func decode(_ text: String) -> StoredValue? {
        if text == "n" { return .null }
        guard text.count >= 2, text.dropFirst().first == ":" else { return nil }
        let body = String(text.dropFirst(2))
        switch text.first {
        case "i": return Int64(body).map(StoredValue.integer)
        case "r": return UInt64(body, radix: 16).map { .real(Double(bitPattern: $0)) }
        case "t": return .text(body)
        case "b": return Data(base64Encoded: body).map(StoredValue.blob)
        default: return nil
        }
    }
}
