import SchemaRuntime

extension SQLiteDatabase {
    /// Inserts rows of `width` values each, laid out one after another in `values`, with
    /// `head` (`INSERT INTO "t" (a, b)`): 64 rows per statement while that many are left,
    /// then 8, then one, so three cached statements (under `cacheKey`) serve any count, and
    /// a large write steps a statement per 64 rows instead of one per row. Rows are inserted
    /// in order, as separate statements would.
    func insertRows(_ values: [StoredValue], width: Int, head: String, cacheKey: String) throws {
        precondition(width > 0 && values.count % width == 0, "values must hold whole rows")
        var start = 0
        for rowsPerStatement in [64, 8, 1] {
            let count = width * rowsPerStatement
            guard values.count - start >= count else { continue }
            // The text only when the statement is prepared (once per connection).
            let statement = try self.statement(cacheKey: rowsPerStatement == 1 ? cacheKey : "\(cacheKey) ×\(rowsPerStatement)",
                                               "\(head) VALUES \(Array(repeating: "(" + Self.placeholders(width) + ")", count: rowsPerStatement).joined(separator: ", "))")
            while values.count - start >= count {
                try statement.run(values[start..<start + count])
                start += count
            }
        }
    }

    /// `?, ?, ...`: `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
