import SchemaRuntime

extension CollisionResolver where Entity == Document {
    /// Named in AllConstructs.schema: `index unique(size, onCollision: keepNewest)`.
    /// The newer document wins; saving an older one leaves the collision, so that save throws.
    static var keepNewest: Self {
        CollisionResolver { existingID, new, context in
            guard let existing = context.find(Document.self, id: existingID), existing.createdAt <= new.createdAt else { return }
            try existing.delete(from: &context)
        }
    }
}
