extension ToOne: Encodable where Target: Encodable, Target.ID: Encodable {
    public func encode(to encoder: any Encoder) throws {
        let strategy = encoder.relationEncodingStrategy
        let swiftletModel = encoder.entityEncodingStyle == .swiftletModel
        switch state {
        case .none:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .null:
            if strategy == .plain {
                var container = encoder.singleValueContainer()
                try container.encodeNil()
            } else if swiftletModel {
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encodeNil(forKey: .id)
            } else {
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encode(true, forKey: .null)
            }
        case .id(let id):
            var container = encoder.container(keyedBy: RelationCodingKey.self)
            try container.encode(id, forKey: .id)
        case .entity(let entity, let fragment):
            switch strategy {
            case .plain:
                try entity.encode(to: encoder)
            case .keyedContainer:
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encode(entity, forKey: swiftletModel ? .object : .entity)
            case .explicitKeyedContainer:
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encode(entity, forKey: swiftletModel ? .object : fragment ? .fragment : .entity)
            }
        }
    }
}

extension ToOne: Decodable where Target: Decodable, Target.ID: Decodable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self.init(state: .none)
            return
        }
        let container = try decoder.container(keyedBy: RelationCodingKey.self)
        // `{"null": true}`, or SwiftletModel's `{"id": null}`.
        let isNull = try container.contains(.null)
            || container.allKeys.count == 1 && container.contains(.id) && container.decodeNil(forKey: .id)
        if isNull {
            // `.null` does not exist for a required relation: decoding one would silently
            // drop the instruction, or (on a new entity) store it without the link.
            guard Constraint.self == Nullable.self else {
                throw DecodingError.dataCorruptedError(
                    forKey: container.contains(.null) ? .null : .id, in: container,
                    debugDescription: "a required relation to \(Target.entityName) cannot be null; omit it (or write null) to keep the stored link")
            }
            self.init(state: .null)
        } else if container.contains(.entity) {
            self.init(state: .entity(try container.decode(Target.self, forKey: .entity), fragment: false))
        } else if container.allKeys.count == 1, container.contains(.object) {
            self.init(state: .entity(try container.decode(Target.self, forKey: .object), fragment: false))
        } else if container.contains(.fragment) {
            self.init(state: .entity(try container.decode(Target.self, forKey: .fragment), fragment: true))
        } else if container.allKeys.count == 1, container.contains(.id) {
            self.init(state: .id(try container.decode(Target.ID.self, forKey: .id)))
        } else {
            self.init(state: .entity(try Target(from: decoder), fragment: false))
        }
    }
}
