/// A SQL text as a dictionary key, hashed by its length and three samples of its bytes
/// (its first, middle and last ``sampleLength``) rather than by every byte.
///
/// A store looks its statements' texts up on every write: the fused texts by their parts
/// (``StatementFusion``), the prepared names by text (a driver's). A fused text runs to a
/// kilobyte or more, and hashing every byte of it, and of its parts, was about 4% of a
/// single write's instructions on the client. Equality still compares the whole text, so
/// two texts whose samples agree only cost each other a comparison; two equal texts
/// sharing their storage, which is how a store sends the same text again, compare at once.
@_spi(StoreServer)
public struct SQLTextKey: Hashable, Sendable {
    /// The text.
    public let text: String

    /// How many bytes each sample holds.
    static let sampleLength = 16

    public init(_ text: String) { self.text = text }

    public static func == (lhs: SQLTextKey, rhs: SQLTextKey) -> Bool { lhs.text == rhs.text }

    /// O(1) for a native string (three samples of at most ``sampleLength`` bytes); O(n) for
    /// one bridged from elsewhere, whose bytes are first made contiguous.
    public func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { bytes in
            hasher.combine(bytes.count)
            let length = Self.sampleLength
            guard bytes.count > 3 * length else {
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
                return
            }
            func sample(from start: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<(start + length)])) }
            hasher.combine(bytes: sample(from: 0))
            hasher.combine(bytes: sample(from: (bytes.count - length) / 2))
            hasher.combine(bytes: sample(from: bytes.count - length))
        }
    }
}
