/// Renders an entity: the struct, its `EntityModelProtocol` conformance (relations, merge
/// strategies, normalize, save, delete), Codable, and its stored columns.
struct EntityRenderer {
    let entity: EntityModel

    private var access: AccessLevel { entity.access }
    private var name: String { entity.name }

    func render(into writer: inout SwiftWriter) {
        writer.line("// MARK: - \(name)")
        writer.line()
        renderStruct(into: &writer)
        writer.line()
        renderConformance(into: &writer)
        writer.line()
        renderCodable(into: &writer)
        writer.line()
        PersistenceRenderer(entity: entity).render(into: &writer)
        if entity.isEquatable {
            writer.line()
            writer.line("extension \(name): Equatable {}", origin: swiftOrigin(of: entity.fields.map(\.name)))
        }
    }

    // MARK: Struct

    private func relationType(_ relation: RelationModel) -> String {
        let directionality = relation.inverse == nil ? "OneWay" : "Mutual"
        if relation.isToMany { return "ToMany<\(relation.target), \(directionality)>" }
        return "ToOne<\(relation.target), \(directionality), \(relation.isRequired ? "Required" : "Nullable")>"
    }

    private func relationSummary(_ relation: RelationModel) -> String {
        let cardinality = relation.isToMany ? "To-many" : "To-one"
        let requirement = relation.isToMany ? "" : (relation.isRequired ? ", required" : ", optional")
        let pairing = relation.inverse.map { ", mutual with `\(relation.target).\($0.name)`" } ?? ", one-way"
        let rule = relation.deleteRule == .cascade ? "; deleting this entity deletes the related ones" : ""
        return "\(cardinality)\(requirement)\(pairing)\(rule)."
    }

    private func renderStruct(into writer: inout SwiftWriter) {
        writer.documentation(entity.documentation)
        writer.block("\(access.prefix)struct \(name): Sendable") { writer in
            for field in entity.fields {
                writer.documentation(field.documentation)
                writer.line(FieldRendering.declaration(field, access: access), origin: field.swiftOrigin)
            }
            if !entity.relations.isEmpty { writer.line() }
            for relation in entity.relations {
                writer.documentation(relation.documentation + (relation.documentation.isEmpty ? [] : [""]) + [relationSummary(relation)])
                let wrapped = relation.isToMany ? "[\(relation.target)]?" : "\(relation.target)?"
                writer.line("@\(relationType(relation)) \(access.prefix)var \(SwiftName.escaped(relation.name)): \(wrapped)")
            }
            writer.line()
            let parameters = entity.fields.map(FieldRendering.parameter)
                + entity.relations.map { "\(SwiftName.escaped($0.name)): \(relationType($0)) = .none" }
            let body = entity.fields.map(FieldRendering.assignment)
                + entity.relations.map { "self._\($0.name) = \(SwiftName.escaped($0.name))" }
            FieldRendering.initializer(access: access,
                                       documentation: ["Creates the entity. Relations default to `.none`, which leaves stored links as they are on save."],
                                       parameters: parameters, body: body, origins: entity.fields.map(\.swiftOrigin), into: &writer)
        }
    }

    // MARK: Conformance

    private func descriptor(_ relation: RelationModel) -> String {
        let kind = relation.isToMany ? "ToManyRelationDescriptor" : "ToOneRelationDescriptor"
        var arguments = [SwiftLiteral.string(relation.name), "\\\(name).$\(relation.name)", "column: \(relation.column)"]
        if let inverse = relation.inverse {
            arguments.append("inverse: .\(inverse.isToMany ? "toMany" : "toOne")(\(inverse.column))")
        }
        if relation.deleteRule == .cascade { arguments.append("deleteRule: .cascade") }
        return "\(kind)(\(arguments.joined(separator: ", ")))"
    }

    private func mergeExpression(_ rules: [MergeRuleModel]) -> String {
        let parts: [String] = rules.flatMap { rule -> [String] in
            switch rule.kind {
            case .replace: [".replace"]
            case .patch: rule.fields.isEmpty ? ["patch"] : rule.fields.map { ".patch(\\.\(SwiftName.escaped($0)))" }
            case .append: rule.fields.map { ".append(\\.\(SwiftName.escaped($0)))" }
            case .lastWriteWins: [".lastWriteWins(\\.\(SwiftName.escaped(rule.fields[0])))"]
            }
        }
        // `patch` alone names the entity's own static `patch` strategy.
        if parts.count == 1, parts[0] == ".replace" || parts[0] == "patch" { return parts[0] }
        return "MergeStrategy(" + parts.joined(separator: ", ") + ")"
    }

    private func renderConformance(into writer: inout SwiftWriter) {
        writer.block("extension \(name): EntityModelProtocol") { writer in
            writer.line("\(access.prefix)static let entityName = \(SwiftLiteral.string(name))")
            if !entity.relations.isEmpty {
                writer.line()
                writer.documentation(["Where each relation's links are stored, and how mutual relations pair up."])
                writer.block("\(access.prefix)enum Relations") { writer in
                    for relation in entity.relations {
                        writer.line("\(access.prefix)static let \(SwiftName.escaped(relation.name)) = \(descriptor(relation))")
                    }
                }
            }
            writer.line()
            if entity.relations.isEmpty {
                writer.line("\(access.prefix)static let relations: [AnyRelation<\(name)>] = []")
            } else {
                writer.list("\(access.prefix)static let relations: [AnyRelation<\(name)>] =",
                            entity.relations.map { "Relations.\(SwiftName.escaped($0.name)).erased" })
            }

            renderIndexes(into: &writer)
            if entity.tracksUpdatedAt {
                writer.line()
                writer.documentation(["`metadata updatedAt`: the context records when each entity was last saved",
                                      "(`context.updatedAt(of:id:)`, `query.updated(since:)`)."])
                writer.line("\(access.prefix)static let tracksUpdatedAt = true")
            }
            if entity.keepsDeletedArchives {
                writer.line()
                writer.documentation(["`metadata softDelete`: deleting an entity (cascades included) keeps a `Deleted<\(name)>` archive of it",
                                      "(`Deleted<\(name)>.query(in:)`, `restore(in:)`)."])
                writer.line("\(access.prefix)static let keepsDeletedArchives = true")
            }

            writer.line()
            writer.documentation(["Used by `save(to:)`."])
            writer.line("\(access.prefix)static let defaultMergeStrategy: MergeStrategy<\(name)> = \(mergeExpression(entity.defaultMerge))",
                        origin: swiftOrigin(of: entity.defaultMerge.flatMap(\.fields)))
            writer.documentation(["Used by `save(to:options: .fragment)` and `.fragment(...)` relations."])
            writer.line("\(access.prefix)static let fragmentMergeStrategy: MergeStrategy<\(name)> = \(mergeExpression(entity.fragmentMerge))",
                        origin: swiftOrigin(of: entity.fragmentMerge.flatMap(\.fields)))
            if entity.patchFields.isEmpty {
                writer.documentation(["`\(name)` has no optional `var` fields, so patching stores the new value as it is."])
                writer.line("\(access.prefix)static let patch: MergeStrategy<\(name)> = .replace")
            } else {
                let fields = entity.patchFields.map { "`\($0)`" }.joined(separator: ", ")
                writer.documentation(["Keeps the stored \(fields) when the new value leaves \(entity.patchFields.count == 1 ? "it" : "them") nil."])
                writer.line("\(access.prefix)static let patch = MergeStrategy<\(name)>(" + entity.patchFields.map { ".patch(\\.\(SwiftName.escaped($0)))" }.joined(separator: ", ") + ")",
                            origin: swiftOrigin(of: entity.patchFields))
            }

            writer.line()
            writer.block("\(access.prefix)mutating func normalize()") { writer in
                for relation in entity.relations { writer.line("$\(relation.name) = .none") }
            }

            writer.line()
            writer.block("\(access.prefix)func save(to context: inout Context, options: MergeStrategy<\(name)>) throws") { writer in
                writer.block(opening: "try context.transaction { context in") { writer in
                    writer.line("var entity = self")
                    writer.line("try entity.willSave(to: &context)")
                    writer.line("\(entity.relations.isEmpty ? "_" : "let key") = try context.upsert(entity, options: options)")
                    for relation in entity.relations {
                        writer.line("try context.saveRelation(entity.$\(relation.name), of: key, Relations.\(SwiftName.escaped(relation.name)))")
                    }
                    writer.line("try entity.didSave(to: &context)")
                }
            }

            writer.line()
            writer.documentation(["Deletes this entity alone; `delete(from:)` runs it and the deletes it queues in `cascade`."])
            writer.block("\(access.prefix)func delete(from context: inout Context, cascade: inout CascadeDeletes) throws") { writer in
                writer.line("guard let key = context.storedKey(of: id, \(name).self) else { return }")
                writer.line("try willDelete(from: &context)")
                writer.line("context.removeRow(key)")
                for relation in entity.relations {
                    writer.line("try context.applyDeleteRule(Relations.\(SwiftName.escaped(relation.name)), of: key, cascade: &cascade)")
                }
                writer.line("try didDelete(from: &context)")
            }
        }
    }

    // MARK: Indexes

    private func indexDeclaration(_ index: IndexModel) -> String {
        let descriptor = "IndexDescriptor<\(name)>"
        let fields = index.fields.map { field in
            index.kind == .fulltext ? ".text(\\.\(SwiftName.escaped(field.name)))" : ".field(\\.\(SwiftName.escaped(field.name))\(field.descending ? ", descending: true" : ""))"
        }.joined(separator: ", ")
        switch index.kind {
        case .ordered: return "\(descriptor).ordered(\(SwiftLiteral.string(index.name)), \(fields))"
        case .hash: return "\(descriptor).hash(\(SwiftLiteral.string(index.name)), \(fields))"
        case .fulltext: return "\(descriptor).fullText(\(SwiftLiteral.string(index.name)), \(fields))"
        case .unique:
            let policy = switch index.collision {
            case .throw: ".throw"
            case .upsert: ".upsert"
            case .resolver(let resolver): ".resolver(.\(SwiftName.escaped(resolver)))"
            }
            return "\(descriptor).unique(\(SwiftLiteral.string(index.name)), \(fields), onCollision: \(policy))"
        }
    }

    private func renderIndexes(into writer: inout SwiftWriter) {
        guard !entity.indexes.isEmpty else { return }
        writer.line()
        writer.documentation(["Indexes declared in the schema; the runtime keeps them up to date on every save and delete",
                              "and the query planner picks among them (`query.explain()` shows which)."])
        writer.block("\(access.prefix)enum Indexes") { writer in
            for index in entity.indexes {
                writer.line("\(access.prefix)static let \(index.name) = \(indexDeclaration(index))", origin: index.swiftOrigin)
            }
        }
        writer.line()
        writer.list("\(access.prefix)static let indexes: [IndexDescriptor<\(name)>] =", entity.indexes.map { "Indexes.\($0.name)" })
    }

    /// The schema line of the first of `fields` that names Swift only the compiler can check,
    /// for a generated line that uses them all.
    private func swiftOrigin(of fields: [String]) -> SourceLocation? {
        entity.fields.first { fields.contains($0.name) && $0.swiftOrigin != nil }?.swiftOrigin
    }

    // MARK: Codable

    private func renderCodable(into writer: inout SwiftWriter) {
        writer.block("extension \(name): Codable") { writer in
            writer.block("\(access.prefix)init(from decoder: any Decoder) throws") { writer in
                writer.line(FieldRendering.decodingContainer)
                entity.fields.forEach { writer.line(FieldRendering.decode($0), origin: $0.swiftOrigin) }
                for relation in entity.relations {
                    writer.line("self._\(relation.name) = try container.decodeRelation(\(relationType(relation)).self, forKey: \(FieldRendering.codingKey(relation.name)))")
                }
            }
            writer.line()
            writer.block("\(access.prefix)func encode(to encoder: any Encoder) throws") { writer in
                writer.line(FieldRendering.encodingContainer)
                if let line = FieldRendering.omitsNil(entity.fields) { writer.line(line) }
                entity.fields.forEach { writer.line(FieldRendering.encode($0), origin: $0.swiftOrigin) }
                for relation in entity.relations {
                    writer.line("try container.encode($\(relation.name), forKey: \(FieldRendering.codingKey(relation.name)))")
                }
            }
        }
    }
}
