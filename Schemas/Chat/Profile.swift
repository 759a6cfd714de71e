import Foundation

/// A user's profile: a plain Swift type the schema declares as `external Profile: Hashable`.
/// External types must be Codable and Sendable.
public struct Profile: Codable, Sendable, Hashable {
    public var bio: String
    public var location: String?

    public init(bio: String, location: String? = nil) {
        self.bio = bio
        self.location = location
    }
}
