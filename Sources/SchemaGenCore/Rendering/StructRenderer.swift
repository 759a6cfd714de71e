/// Renders a schema value struct: Codable, Sendable, and Equatable/Hashable when its fields are.
enum StructRenderer {
    static func render(_ structure: StructModel, into writer: inout SwiftWriter) {
        let access = structure.access
        var conformances = ["Codable", "Sendable"]
        if structure.isHashable { conformances.append("Hashable") } else if structure.isEquatable { conformances.append("Equatable") }
        writer.line("// MARK: - \(structure.name)")
        writer.line()
        writer.documentation(structure.documentation)
        writer.block("\(access.prefix)struct \(structure.name): \(conformances.joined(separator: ", "))") { writer in
            for field in structure.fields {
                writer.documentation(field.documentation)
                writer.line(FieldRendering.declaration(field, access: access), origin: field.swiftOrigin)
            }
            writer.line()
            FieldRendering.initializer(access: access, parameters: structure.fields.map(FieldRendering.parameter),
                                       body: structure.fields.map(FieldRendering.assignment),
                                       origins: structure.fields.map(\.swiftOrigin), into: &writer)
            writer.line()
            writer.block("\(access.prefix)init(from decoder: any Decoder) throws") { writer in
                writer.line(FieldRendering.decodingContainer)
                structure.fields.forEach { writer.line(FieldRendering.decode($0), origin: $0.swiftOrigin) }
            }
            writer.line()
            writer.block("\(access.prefix)func encode(to encoder: any Encoder) throws") { writer in
                writer.line(FieldRendering.encodingContainer)
                if let line = FieldRendering.omitsNil(structure.fields) { writer.line(line) }
                structure.fields.forEach { writer.line(FieldRendering.encode($0), origin: $0.swiftOrigin) }
            }
        }
    }
}
