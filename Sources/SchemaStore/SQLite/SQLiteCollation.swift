import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// The `schemagen` collation: text compared in Swift's string order (canonically equivalent
/// strings are equal, others ordered by their Unicode scalars after normalization), so SQL
/// filters and sorts text fields exactly as queries on a resident graph do.
///
/// Registered on every connection the store opens. Another SQLite client reading the file
/// without it can still read every table; it cannot use an index built with it.
enum SQLiteCollation {
    static let name = "schemagen"

    static func register(on handle: OpaquePointer?) {
        sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            SQLiteCollation.compare(UnsafeRawBufferPointer(start: left, count: Int(leftCount)),
                                    UnsafeRawBufferPointer(start: right, count: Int(rightCount)))
        }, nil)
    }

    /// -1, 0 or 1 as `left` sorts before, with or after `right` (UTF-8 text).
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
        // ASCII text is its own normal form: byte order is Swift's order.
        if isASCII(left) && isASCII(right) {
            let common = min(left.count, right.count)
            if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                let result = memcmp(l, r, common)
                if result != 0 { return result < 0 ? -1 : 1 }
            }
            return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
        }
        let lhs = String(decoding: left, as: UTF8.self), rhs = String(decoding: right, as: UTF8.self)
        return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }
}
