import SchemaRuntime

extension CollisionResolver where Entity == Account {
    /// SwiftletModel's resolver, as written for it: un-mark the previous current account;
    /// any number of accounts share `false`.
    static var updateCurrentAccount: Self {
        CollisionResolver { existingId, _, _, context in
            guard var account = Entity.query(existingId).resolve(in: context), account.isCurrent else { return }
            account.isCurrent = false
            try account.save(to: &context)
        }
    }
}
