extension ToMany: Encodable where Target: Encodable, Target.ID: Encodable {
    public func encode(to encoder: any Encoder) throws {
        let strategy = encoder.relationEncodingStrategy
        let swiftletModel = encoder.entityEncodingStyle == .swiftletModel
        switch state {
        case .none:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .ids(let ids, let appending):
            if strategy == .plain {
                var container = encoder.unkeyedContainer()
                for id in ids {
                    var element = container.nestedContainer(keyedBy: RelationCodingKey.self)
                    try element.encode(id, forKey: .id)
                }
            } else {
                let slice = appending && strategy == .explicitKeyedContainer
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encode(ids, forKey: slice && swiftletModel ? .sliceIDs : .ids)
                if slice, !swiftletModel { try container.encode(true, forKey: .appending) }
            }
        case .entities(let entities, let fragment, let appending):
            switch strategy {
            case .plain:
                try entities.encode(to: encoder)
            case .keyedContainer:
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                try container.encode(entities, forKey: swiftletModel ? .objects : .entities)
            case .explicitKeyedContainer:
                var container = encoder.container(keyedBy: RelationCodingKey.self)
                if swiftletModel {
                    try container.encode(entities, forKey: appending ? .slice : .objects)
                } else {
                    try container.encode(entities, forKey: fragment ? .fragments : .entities)
                    if appending { try container.encode(true, forKey: .appending) }
                }
            }
        }
    }
}

extension ToMany: Decodable where Target: Decodable, Target.ID: Decodable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self.init(state: .none)
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            // Plain: an array of entities, or of {"id": x} objects.
            var ids: [Target.ID] = []
            var idOnly = true
            var probe = list
            while !probe.isAtEnd {
                let element = try probe.nestedContainer(keyedBy: RelationCodingKey.self)
                guard element.allKeys.count == 1, element.contains(.id) else { idOnly = false; break }
                ids.append(try element.decode(Target.ID.self, forKey: .id))
            }
            if idOnly {
                self.init(state: .ids(ids, appending: false))
            } else {
                var entities: [Target] = []
                while !list.isAtEnd { entities.append(try list.decode(Target.self)) }
                self.init(state: .entities(entities, fragment: false, appending: false))
            }
            return
        }
        let container = try decoder.container(keyedBy: RelationCodingKey.self)
        let appending = try container.decodeIfPresent(Bool.self, forKey: .appending) ?? false
        if let key = [RelationCodingKey.sliceIDs, .chunkIDs].first(where: container.contains) {
            self.init(state: .ids(try container.decode([Target.ID].self, forKey: key), appending: true))
        } else if let key = [RelationCodingKey.slice, .chunk].first(where: container.contains) {
            self.init(state: .entities(try container.decode([Target].self, forKey: key), fragment: false, appending: true))
        } else if container.contains(.ids) {
            self.init(state: .ids(try container.decode([Target.ID].self, forKey: .ids), appending: appending))
        } else if container.contains(.fragments) {
            self.init(state: .entities(try container.decode([Target].self, forKey: .fragments), fragment: true, appending: appending))
        } else if container.contains(.objects) {
            self.init(state: .entities(try container.decode([Target].self, forKey: .objects), fragment: false, appending: appending))
        } else {
            self.init(state: .entities(try container.decode([Target].self, forKey: .entities), fragment: false, appending: appending))
        }
    }
}
