/// Field spelling shared by entities and value structs: declarations, initializer
/// parameters and Codable members.
enum FieldRendering {
    static func declaration(_ field: FieldModel, access: AccessLevel) -> String {
        "\(access.prefix)\(field.isMutable ? "var" : "let") \(SwiftName.escaped(field.name)): \(field.type)"
    }

    /// `name: Type = default`; optional `var`s default to nil, as in Swift's memberwise init.
    static func parameter(_ field: FieldModel) -> String {
        var text = "\(SwiftName.escaped(field.name)): \(field.type)"
        if let value = field.defaultValue {
            text += " = \(value)"
        } else if field.isMutable, field.type.isOptional {
            text += " = nil"
        }
        return text
    }

    static func assignment(_ field: FieldModel) -> String {
        "self.\(SwiftName.escaped(field.name)) = \(SwiftName.escaped(field.name))"
    }

    /// Decodes a field; a missing key takes the schema default, so partial payloads decode.
    /// For an optional field with a default other than nil, an explicit `null` is nil.
    static func decode(_ field: FieldModel) -> String {
        let key = "forKey: \(codingKey(field.name))"
        let target = "self.\(SwiftName.escaped(field.name))"
        if let value = field.defaultValue, field.type.isOptional, value != .nil {
            return "\(target) = container.contains(\(codingKey(field.name))) ? try container.decodeIfPresent(\(field.type.unwrapped).self, \(key)) : \(value)"
        }
        if let value = field.defaultValue, value != .nil {
            return "\(target) = try container.decode(\(field.type.unwrapped).self, \(key), default: \(value))"
        }
        if field.type.isOptional {
            return "\(target) = try container.decodeIfPresent(\(field.type.unwrapped).self, \(key))"
        }
        return "\(target) = try container.decode(\(field.type).self, \(key))"
    }

    /// Encodes a field. nil is written as an explicit `null` unless the encoder asks for
    /// SwiftletModel's shape (``omitsNil``): a missing key decodes as the schema default, and
    /// an embedded entity whose only key is `id` would read back as an id reference.
    static func encode(_ field: FieldModel) -> String {
        let value = "self.\(SwiftName.escaped(field.name))"
        if field.type.isOptional {
            return "try container.encode(\(value), forKey: \(codingKey(field.name)), omittingNil: omitsNil)"
        }
        return "try container.encode(\(value), forKey: \(codingKey(field.name)))"
    }

    /// The line before the fields' `encode` lines when one of `fields` is optional: whether
    /// the encoder leaves nil fields out (`EntityEncodingStyle.swiftletModel`).
    static func omitsNil(_ fields: [FieldModel]) -> String? {
        fields.contains { $0.type.isOptional } ? "let omitsNil = encoder.omitsNilFields" : nil
    }

    /// `init(...)` with one parameter per line.
    ///
    /// `origins[i]` is the schema line of parameter `i` when it names Swift only the compiler
    /// can check. Swift allows no directive inside a parameter list, so one before `init(`
    /// numbers the lines from there on: it is chosen so the first such parameter's line is its
    /// field's schema line, and the body's first line ends the mapping.
    static func initializer(access: AccessLevel, documentation: [String] = [], parameters: [String], body: [String],
                            origins: [SourceLocation?] = [], into writer: inout SwiftWriter) {
        if parameters.isEmpty {
            writer.documentation(documentation)
            writer.block("\(access.prefix)init()") { writer in body.forEach { writer.line($0) } }
            return
        }
        // The directive goes before the documentation, which must stay attached to `init`.
        let lead = 1 + documentation.count
        var anchor: SourceLocation?
        if let (offset, origin) = origins.enumerated().first(where: { $0.element != nil }), let origin,
           origin.line - lead - offset >= 1, writer.sourcePaths.directivePath(origin.path) != nil {
            anchor = SourceLocation(path: origin.path, line: origin.line - lead - offset, column: 1)
        }
        if let anchor { writer.line("", origin: anchor, closesMapping: false) }
        writer.documentation(documentation)
        writer.line("\(access.prefix)init(")
        for (offset, parameter) in parameters.enumerated() {
            writer.line("    " + parameter + (offset == parameters.count - 1 ? "" : ","))
        }
        writer.block(")") { writer in
            if anchor != nil { writer.line("#sourceLocation()") }
            body.forEach { writer.line($0) }
        }
    }

    /// The `FieldCodingKey` literal for a field or relation: its schema name, unescaped.
    static func codingKey(_ name: String) -> String {
        SwiftLiteral.string(name)
    }

    /// `let container = ...` / `var container = ...` keyed by `FieldCodingKey`.
    static let decodingContainer = "let container = try decoder.container(keyedBy: FieldCodingKey.self)"
    static let encodingContainer = "var container = encoder.container(keyedBy: FieldCodingKey.self)"
}
