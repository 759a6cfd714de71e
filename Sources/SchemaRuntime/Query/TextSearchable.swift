/// The field types text conditions read: `String` and `String?`.
///
/// Text conditions over several fields take any mix of them
/// (`.string(\.name, \.username, matches: "ada")`); a field of another type does not compile
/// ("requires that 'Int' conform to 'TextSearchable'"), where it would otherwise only fail
/// when the query runs.
public protocol TextSearchable {}

extension String: TextSearchable {}
extension Optional: TextSearchable where Wrapped == String {}
