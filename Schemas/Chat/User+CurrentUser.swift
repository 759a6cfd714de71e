import SchemaRuntime

extension CollisionResolver where Entity == User {
    /// Named in User.schema: `index unique(isCurrent, onCollision: updateCurrentUser)`.
    /// When a user is saved as current while another one is, the other one stops being current.
    public static var updateCurrentUser: Self {
        CollisionResolver { existingID, _, context in
            guard var previous = context.find(User.self, id: existingID), previous.isCurrent == true else { return }
            previous.isCurrent = nil
            try previous.save(to: &context)
        }
    }
}
