/// Renders a schema enum: a raw-value enum that is Codable, CaseIterable and Comparable by
/// declaration order (so it can be used in ordered indexes and sorts), and stored as its raw
/// value in a store column.
enum EnumRenderer {
    static func render(_ enumeration: EnumModel, into writer: inout SwiftWriter) {
        let access = enumeration.access
        writer.line("// MARK: - \(enumeration.name)")
        writer.line()
        writer.documentation(enumeration.documentation)
        writer.block("\(access.prefix)enum \(enumeration.name): \(enumeration.rawType), Codable, Sendable, CaseIterable, Comparable, IndexKeyConvertible, StorableValue") { writer in
            for item in enumeration.cases {
                writer.documentation(item.documentation)
                if let raw = item.rawValue {
                    writer.line("case \(SwiftName.escaped(item.name)) = \(raw)")
                } else {
                    writer.line("case \(SwiftName.escaped(item.name))")
                }
            }
            writer.line()
            writer.line("/// Cases are ordered as declared in the schema.")
            writer.block("\(access.prefix)static func < (lhs: \(enumeration.name), rhs: \(enumeration.name)) -> Bool") { writer in
                writer.line("lhs.declarationOrder < rhs.declarationOrder")
            }
            writer.line()
            writer.documentation(["Indexes and sorts order cases as declared."])
            writer.block("\(access.prefix)var indexValue: IndexValue") { writer in
                writer.line(".ordinal(declarationOrder)")
            }
            writer.line()
            writer.block("private var declarationOrder: Int") { writer in
                // Swift style: `case` lines align with their `switch`.
                writer.line("switch self {")
                for (offset, name) in enumeration.caseNames.enumerated() {
                    writer.line("case .\(SwiftName.escaped(name)): \(offset)")
                }
                writer.line("}")
            }
        }
    }
}
