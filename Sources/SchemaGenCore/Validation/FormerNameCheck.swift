/// Checks the `renamedFrom:` annotations: a store matches stored data to the code's schema
/// by them, so each former name must lead to exactly one place.
///
/// Within a scope (the entities of a target; the fields, or the relations, of one entity):
/// a former name must differ from the element's own name, from every current name (an exact
/// name always wins, so the annotation would never apply), and from the former names of the
/// other elements. Struct fields cannot be renamed this way: a struct is stored as JSON inside
/// its entity's column, and its keys follow Codable.
enum FormerNameCheck {
    static func problems(entities: [EntityDeclaration], structs: [StructDeclaration]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        check(entities.map { ($0.name, $0.renamedFrom) }, kind: "entity", scope: "this target", into: &problems)
        for entity in entities {
            check(entity.fields.map { ($0.name, $0.renamedFrom) }, kind: "field", scope: "entity '\(entity.name.value)'", into: &problems)
            check(entity.relations.map { ($0.name, $0.renamedFrom) }, kind: "relation", scope: "entity '\(entity.name.value)'", into: &problems)
        }
        for structure in structs {
            for field in structure.fields {
                for former in field.renamedFrom {
                    problems.append(.error(
                        "'renamedFrom' applies to entities, entity fields and relations, not to fields of struct '\(structure.name.value)'",
                        at: former.location,
                        hint: "a struct is stored as JSON in its entity's column; keep the old key readable with an optional field or a default"))
                }
            }
        }
        return problems
    }

    private static func check(_ elements: [(name: Located<String>, former: [Located<String>])], kind: String, scope: String,
                              into problems: inout [Diagnostic]) {
        let current = Dictionary(elements.map { ($0.name.value, $0.name) }, uniquingKeysWith: { first, _ in first })
        var claimed: [String: Located<String>] = [:]
        for (name, formerNames) in elements {
            for former in formerNames {
                if former.value == name.value {
                    problems.append(.error("\(kind) '\(name.value)' is renamed from its own name", at: former.location,
                                           hint: "remove it from 'renamedFrom'"))
                } else if let other = current[former.value] {
                    problems.append(.error(
                        "'\(former.value)' still names a \(kind) of \(scope) (at \(other.location.line):\(other.location.column)), so stored data under it stays there",
                        at: former.location,
                        hint: "rename that \(kind) too, or remove '\(former.value)' from the 'renamedFrom' of '\(name.value)'"))
                } else if let first = claimed[former.value] {
                    problems.append(.error(
                        "'\(former.value)' is already a former name of \(kind) '\(first.value)' in \(scope)",
                        at: former.location,
                        hint: "stored data under one name can follow one \(kind) only; keep '\(former.value)' on one of them"))
                } else {
                    claimed[former.value] = name
                }
            }
        }
    }
}
