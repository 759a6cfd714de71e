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
        "self.\(field.name) = \(SwiftName.escaped(field.name))"
    }

    /// Decodes a field; a missing key takes the schema default, so partial payloads decode.
    static func decode(_ field: FieldModel) -> String {
        let key = "forKey: .\(SwiftName.escaped(field.name))"
        let target = "self.\(field.name)"
        if let value = field.defaultValue {
            return "\(target) = try container.decodeIfPresent(\(field.type.unwrapped).self, \(key)) ?? \(value)"
        }
        if field.type.isOptional {
            return "\(target) = try container.decodeIfPresent(\(field.type.unwrapped).self, \(key))"
        }
        return "\(target) = try container.decode(\(field.type).self, \(key))"
    }

    static func encode(_ field: FieldModel) -> String {
        let method = field.type.isOptional ? "encodeIfPresent" : "encode"
        return "try container.\(method)(\(SwiftName.escaped(field.name)), forKey: .\(SwiftName.escaped(field.name)))"
    }

    /// `init(...)` with one parameter per line.
    static func initializer(access: AccessLevel, parameters: [String], body: [String], into writer: inout SwiftWriter) {
        if parameters.isEmpty {
            writer.block("\(access.prefix)init()") { writer in body.forEach { writer.line($0) } }
            return
        }
        writer.line("\(access.prefix)init(")
        for (offset, parameter) in parameters.enumerated() {
            writer.line("    " + parameter + (offset == parameters.count - 1 ? "" : ","))
        }
        writer.block(")") { writer in body.forEach { writer.line($0) } }
    }

    static func codingKeys(_ names: [String], into writer: inout SwiftWriter) {
        writer.block("private enum CodingKeys: String, CodingKey") { writer in
            for name in names { writer.line("case \(SwiftName.escaped(name))") }
        }
    }
}
