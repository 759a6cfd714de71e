import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
@_spi(SchemaStore) import SchemaRuntime

/// The `schemagen_text(operation, caseSensitive, query, field...)` SQL function: whether a
/// text condition holds for the fields (NULL fields left out), decided by the runtime's own
/// definition (``PredicateStructure/textHolds(_:query:caseSensitive:texts:)``), so SQL keeps
/// exactly the rows a query on a resident graph keeps. Registered on every connection.
enum SQLiteTextFunction {
    static let name = "schemagen_text"

    /// The operation codes the function takes as its first argument.
    static func code(_ operation: PredicateStructure.TextOperation) -> Int64? {
        switch operation {
        case .contains: 0
        case .hasPrefix: 1
        case .hasSuffix: 2
        case .matches: 3
        case .fuzzy: 4
        case .regex: nil
        }
    }

    private static let operations: [PredicateStructure.TextOperation] = [.contains, .hasPrefix, .hasSuffix, .matches, .fuzzy]

    static func register(on handle: OpaquePointer?) {
        sqlite3_create_function_v2(handle, name, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, count, arguments in
            guard count >= 3, let arguments else { return sqlite3_result_error(context, "schemagen_text needs 3 arguments or more", -1) }
            let code = Int(sqlite3_value_int64(arguments[0]))
            guard SQLiteTextFunction.operations.indices.contains(code) else {
                return sqlite3_result_error(context, "schemagen_text: unknown operation", -1)
            }
            var texts: [String] = []
            for index in 3..<Int(count) {
                if let text = SQLiteTextFunction.text(arguments[index]) { texts.append(text) }
            }
            let holds = PredicateStructure.textHolds(SQLiteTextFunction.operations[code], query: SQLiteTextFunction.text(arguments[2]) ?? "",
                                                     caseSensitive: sqlite3_value_int64(arguments[1]) != 0, texts: texts) ?? false
            sqlite3_result_int(context, holds ? 1 : 0)
        }, nil, nil, nil)
    }

    private static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        // By length: text may hold NUL characters.
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }
}
