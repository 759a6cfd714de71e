/// Computes the ``MigrationPlan`` from the shape a store was written with to the code's.
///
/// Entities, fields and relations are matched by name, or by a name they list in
/// `renamedFrom`; an exact name wins over a former one. What matches nothing in the old shape
/// is added, what nothing matches in the new one is removed (and listed: its data is
/// deleted). A change that cannot be inferred (a type change, a required field with no
/// default, a changed id type) is a problem unless `migratedFields` says a migration closure
/// computes that field.
public enum MigrationPlanner {
    public static func plan(from old: SchemaShape, to new: SchemaShape, migratedFields: Set<MigrationPlan.FieldPath> = []) -> MigrationPlan {
        var plan = MigrationPlan(old: old, new: new)
        let entityMatches = match(new.entities, in: old.entities, name: \.name, formerNames: \.renamedFrom)
        for (offset, entity) in new.entities.enumerated() {
            guard let source = entityMatches.matches[offset] else {
                plan.steps.append(.addEntity(entity.name))
                continue
            }
            plan.entitySources[entity.name] = source.name
            if source.name != entity.name { plan.steps.append(.renameEntity(from: source.name, to: entity.name)) }
            planFields(of: entity, from: source, migratedFields: migratedFields, into: &plan)
            if entity.tracksUpdatedAt != source.tracksUpdatedAt {
                plan.steps.append(entity.tracksUpdatedAt ? .startTrackingUpdatedAt(entity: entity.name) : .stopTrackingUpdatedAt(entity: entity.name))
            }
        }
        for conflict in entityMatches.conflicts {
            plan.problems.append(MigrationProblem(entity: conflict.claimants.joined(separator: ", "), member: nil,
                                                  message: "several entities claim the stored entity \(conflict.old)",
                                                  hint: "keep \(conflict.old) in one entity's name or renamedFrom"))
        }
        for removed in entityMatches.unmatched { plan.steps.append(.removeEntity(removed.name)) }
        // Relations after every entity is matched: a relation's target is compared through the matches.
        for entity in new.entities {
            guard let sourceName = plan.entitySources[entity.name], let source = old.entity(sourceName) else { continue }
            planRelations(of: entity, from: source, into: &plan)
        }
        // A new relation whose inverse existed shares the inverse's links (known once every relation is matched).
        plan.steps = plan.steps.map { step in
            guard case let .addRelation(entityName, relationName) = step,
                  let relation = new.entity(entityName)?.relation(relationName), let inverse = relation.inverse,
                  plan.relationSources[.init(relation.target, inverse)] != nil else { return step }
            return .addRelationFromInverse(entity: entityName, relation: relationName, inverse: "\(relation.target).\(inverse)")
        }
        return plan
    }

    // MARK: Fields

    private static func planFields(of entity: EntityShape, from source: EntityShape, migratedFields: Set<MigrationPlan.FieldPath>,
                                   into plan: inout MigrationPlan) {
        let matches = match(entity.fields, in: source.fields, name: \.name, formerNames: \.renamedFrom)
        var sources: [String: MigrationPlan.ColumnSource] = [:]
        for (offset, field) in entity.fields.enumerated() {
            let path = MigrationPlan.FieldPath(entity.name, field.name)
            let hasMigration = migratedFields.contains(path)
            guard let old = matches.matches[offset] else {
                if hasMigration {
                    sources[field.name] = .migration
                    plan.steps.append(.addField(entity: entity.name, field: field.name, type: field.type, fill: .migration))
                } else if field.isNullable {
                    sources[field.name] = .null
                    plan.steps.append(.addField(entity: entity.name, field: field.name, type: field.type, fill: .null))
                } else if let value = field.defaultValue {
                    sources[field.name] = .defaultValue
                    plan.steps.append(.addField(entity: entity.name, field: field.name, type: field.type, fill: .defaultValue(value)))
                } else {
                    plan.problems.append(MigrationProblem(
                        entity: entity.name, member: field.name,
                        message: "new required field \(field.type) has no default for the rows already stored",
                        hint: "give it a default ('= value'), make it optional, or register a migration for \(path)"))
                }
                continue
            }
            if old.name != field.name { plan.steps.append(.renameField(entity: entity.name, from: old.name, to: field.name)) }
            if offset == 0 {
                // The id: links refer to it, so its values cannot be transformed.
                if !field.storesSameValues(as: old) {
                    plan.problems.append(MigrationProblem(
                        entity: entity.name, member: field.name, message: "the id type changed from \(old.type) to \(field.type)",
                        hint: "changing an id type is not supported; add a new entity and copy the data in code"))
                }
                sources[field.name] = .copy(from: old.name)
                continue
            }
            if !field.storesSameValues(as: old) {
                if hasMigration {
                    sources[field.name] = .migration
                    plan.steps.append(.convertField(entity: entity.name, field: field.name, from: old.type, to: field.type))
                } else {
                    plan.problems.append(MigrationProblem(
                        entity: entity.name, member: field.name, message: "type changed from \(old.type) to \(field.type)",
                        hint: "register a migration for \(path) that computes the new value from the old row"))
                }
            } else if old.isNullable && !field.isNullable {
                if hasMigration {
                    sources[field.name] = .migration
                    plan.steps.append(.makeRequired(entity: entity.name, field: field.name, fill: .migration))
                } else if let value = field.defaultValue {
                    sources[field.name] = .copyReplacingNil(from: old.name)
                    plan.steps.append(.makeRequired(entity: entity.name, field: field.name, fill: .defaultValue(value)))
                } else {
                    plan.problems.append(MigrationProblem(
                        entity: entity.name, member: field.name, message: "became required (\(old.type) -> \(field.type)) with no default for stored nil values",
                        hint: "give it a default ('= value') or register a migration for \(path)"))
                }
            } else {
                sources[field.name] = .copy(from: old.name)
                if !old.isNullable && field.isNullable { plan.steps.append(.makeOptional(entity: entity.name, field: field.name)) }
            }
        }
        for removed in matches.unmatched { plan.steps.append(.removeField(entity: entity.name, field: removed.name)) }
        for conflict in matches.conflicts {
            plan.problems.append(MigrationProblem(entity: entity.name, member: conflict.claimants.joined(separator: ", "),
                                                  message: "several fields claim the stored field \(conflict.old)",
                                                  hint: "keep \(conflict.old) in one field's name or renamedFrom"))
        }
        plan.columnSources[entity.name] = sources
    }

    // MARK: Relations

    private static func planRelations(of entity: EntityShape, from source: EntityShape, into plan: inout MigrationPlan) {
        let matches = match(entity.relations, in: source.relations, name: \.name, formerNames: \.renamedFrom)
        for (offset, relation) in entity.relations.enumerated() {
            // A relation whose target is not the old target's successor is a new relation.
            guard let old = matches.matches[offset], plan.entitySources[relation.target] == old.target else {
                if let old = matches.matches[offset] { plan.steps.append(.removeRelation(entity: entity.name, relation: old.name)) }
                plan.steps.append(.addRelation(entity: entity.name, relation: relation.name))
                continue
            }
            plan.relationSources[.init(entity.name, relation.name)] = .init(source.name, old.name)
            if old.name != relation.name { plan.steps.append(.renameRelation(entity: entity.name, from: old.name, to: relation.name)) }
            if old.isToMany != relation.isToMany {
                plan.steps.append(.changeCardinality(entity: entity.name, relation: relation.name, toMany: relation.isToMany))
            }
            // The inverse compared by its name in the new schema: a renamed inverse is no change.
            let oldInverse = old.inverse.flatMap { name in
                plan.new.entity(relation.target)?.relations.first { $0.name == name || $0.renamedFrom.contains(name) }?.name ?? "\(name) (removed)"
            }
            if oldInverse != relation.inverse {
                plan.steps.append(.changeInverse(entity: entity.name, relation: relation.name, from: old.inverse, to: relation.inverse))
            }
        }
        for removed in matches.unmatched { plan.steps.append(.removeRelation(entity: entity.name, relation: removed.name)) }
        for conflict in matches.conflicts {
            plan.problems.append(MigrationProblem(entity: entity.name, member: conflict.claimants.joined(separator: ", "),
                                                  message: "several relations claim the stored relation \(conflict.old)",
                                                  hint: "keep \(conflict.old) in one relation's name or renamedFrom"))
        }
    }

    // MARK: Matching

    private struct Matches<Element> {
        /// For each new element, by offset: the old element it continues.
        var matches: [Element?]
        /// Old elements nothing continues.
        var unmatched: [Element]
        /// Old elements several new ones claim.
        var conflicts: [(old: String, claimants: [String])]
    }

    /// Matches by exact name first, then by former names in order; each old element continues
    /// at most one new element.
    private static func match<Element>(_ new: [Element], in old: [Element], name: KeyPath<Element, String>,
                                       formerNames: KeyPath<Element, [String]>) -> Matches<Element> {
        var oldByName: [String: Int] = [:]
        for (offset, element) in old.enumerated() { oldByName[element[keyPath: name]] = offset }
        var claimedBy: [Int: [String]] = [:]
        var matches: [Element?] = Array(repeating: nil, count: new.count)
        for (offset, element) in new.enumerated() {
            if let exact = oldByName[element[keyPath: name]] { claimedBy[exact, default: []].append(element[keyPath: name]) ; matches[offset] = old[exact] }
        }
        for (offset, element) in new.enumerated() where matches[offset] == nil {
            for former in element[keyPath: formerNames] {
                if let index = oldByName[former] {
                    claimedBy[index, default: []].append(element[keyPath: name])
                    matches[offset] = old[index]
                    break
                }
            }
        }
        let unmatched = old.indices.filter { claimedBy[$0] == nil }.map { old[$0] }
        let conflicts = claimedBy.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { (old[$0.key][keyPath: name], $0.value) }
        return Matches(matches: matches, unmatched: unmatched, conflicts: conflicts)
    }
}
