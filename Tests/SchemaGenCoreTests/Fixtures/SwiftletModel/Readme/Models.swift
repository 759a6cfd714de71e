// The chat domain of SwiftletModel's README, as a SwiftletModel user writes it.
import Foundation
import SwiftletModel

/// A message posted in a chat.
@EntityModel
struct Message: Codable, Sendable {
    let id: String
    let text: String

    @Relationship(.required)
    var author: User?

    @Relationship(.required, inverse: \.messages)
    var chat: Chat?

    @Relationship(inverse: \.message)
    var attachment: Attachment?

    @Relationship(inverse: \.replyTo)
    var replies: [Message]?

    @Relationship(inverse: \.replies)
    var replyTo: Message?

    @Relationship
    var viewedBy: [User]? = nil
}

@EntityModel
struct Attachment: Codable, Sendable {
    let id: String
    var kind: Kind
    var url: URL?

    @Relationship(inverse: \.attachment)
    var message: Message?

    enum Kind: String, Codable, Sendable {
        case image
        case video
        case file
    }
}

@EntityModel
struct Chat: Codable, Sendable {
    let id: String
    var title: String? = nil

    @Relationship(inverse: \.chats)
    var users: [User]?

    @Relationship(deleteRule: .cascade, inverse: \.chat)
    var messages: [Message]?

    @Relationship(inverse: \.adminOf)
    var admins: [User]?
}

@EntityModel
struct User: Codable, Sendable {
    @Index<Self>(\.age) private static var ageIndex
    @Index<Self>(\.lastName, \.firstName) private static var nameIndex
    @Index<Self>(\.status) private static var statusIndex

    @Unique<Self>(\.username, collisions: .upsert)
    private static var uniqueUsername

    @Unique<Self>(\.email, collisions: .throw)
    private static var uniqueEmail

    @Unique<Self>(\.isCurrent, collisions: .updateCurrentUser)
    private static var currentUserIndex

    @FullTextIndex<Self>(\.firstName, \.lastName) private static var nameSearch

    let id: String
    private(set) var firstName: String
    private(set) var lastName: String
    var username: String
    var email: String
    var age: Int = 0
    var status: UserStatus = .active
    var isCurrent: Bool? = nil
    private(set) var avatar: Avatar?
    private(set) var profile: Profile?

    @Relationship(inverse: \.users)
    var chats: [Chat]?

    @Relationship(inverse: \.admins)
    var adminOf: [Chat]?

    /// Computed properties move to an extension.
    var fullName: String { "\(firstName) \(lastName)" }

    static var fragmentMergeStrategy: MergeStrategy<Self> {
        MergeStrategy(
            .patch(\.avatar),
            .patch(\.profile)
        )
    }
}

enum UserStatus: String, Codable, Sendable {
    case active
    case away = "away"
    case banned
}

struct Avatar: Codable, Hashable, Sendable {
    let small: URL?
    let large: URL?
}

extension User {
    /// Something heavy the backend does not send with every response.
    struct Profile: Codable, Sendable {
        let bio: String?
    }
}

extension CollisionResolver where Entity == User {
    static var updateCurrentUser: Self {
        CollisionResolver { existingId, _, _, context in
            guard var user = Query<Entity>(context: context, id: existingId).resolve(),
                  user.isCurrent == true
            else {
                return
            }
            user.isCurrent = nil
            try user.save(to: &context)
        }
    }
}
