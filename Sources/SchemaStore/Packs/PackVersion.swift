/// A pack's version: dotted non-negative integers (`"1"`, `"1.2"`, `"2.0.3"`), compared
/// number by number, missing numbers counting as 0 (`"1.2" == "1.2.0"`). Encoded and
/// described as its author wrote it (`"1.0"` stays `"1.0"`).
public struct PackVersion: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The numbers, trailing zeros dropped: what comparisons use.
    public let components: [Int]
    /// The version as written.
    public let text: String

    /// Parses `"1.2.3"`; nil for anything else (empty parts, signs, letters).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        while numbers.count > 1, numbers.last == 0 { numbers.removeLast() }
        components = numbers
        self.text = text
    }

    public init(stringLiteral value: String) {
        guard let version = PackVersion(value) else { preconditionFailure("\"\(value)\" is not a version (dotted numbers, like \"1.2.0\")") }
        self = version
    }

    public var description: String { text }

    public static func == (lhs: PackVersion, rhs: PackVersion) -> Bool { lhs.components == rhs.components }
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }

    public static func < (lhs: PackVersion, rhs: PackVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = PackVersion(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "\"\(text)\" is not a version (dotted numbers, like \"1.2.0\")"))
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
