import Foundation

/// How values are spelled in the text PostgreSQL reads them from, as bytes: shared by the
/// array literals of many rows (``ServerArrayLiteral``) and the rows of a COPY
/// (``ServerCopyRows``), which spell numbers and bytes alike.
enum ServerLiteralBytes {
    /// `integer` in decimal digits, without making a `String` (a big write spells millions).
    static func append(_ integer: Int64, to bytes: inout [UInt8]) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as UInt64: Int64.min has none as Int64.
        var magnitude = integer.magnitude
        guard magnitude >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        var start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        // Reversed in place: `bytes[start...].reverse()` copies the slice out and back,
        // which cost more than the digits themselves.
        var end = bytes.count - 1
        while start < end {
            bytes.swapAt(start, end)
            start += 1
            end -= 1
        }
    }

    /// `real` in its shortest spelling that reads back as the same double (PostgreSQL reads
    /// it correctly rounded), or `Infinity`, `-Infinity`, `NaN`.
    static func append(_ real: Double, to bytes: inout [UInt8]) {
        bytes += (real.isNaN ? "NaN" : real.isInfinite ? (real < 0 ? "-Infinity" : "Infinity") : "\(real)").utf8
    }

    /// `data` as hex digits (after the `\x` of a `bytea`, which the caller spells as its
    /// format escapes it).
    static func appendHex(_ data: Data, to bytes: inout [UInt8]) {
        for byte in data {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0xF)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
