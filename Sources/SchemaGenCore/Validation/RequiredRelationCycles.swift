/// Finds cycles of `required` to-one relations, which no data can satisfy one entity at a time.
///
/// The runtime checks that every stored entity links in each required relation at the end of
/// every write. If `A.b: B` and `B.a: A` are both required and not each other's inverse, the
/// first A can only be saved in the same write as a B that links back to it, and neither can
/// ever be deleted alone: almost always a modelling mistake, so it is an error. A one-to-one
/// pair required on both sides, each the other's inverse, is fine: one save links both, and a
/// cascade on one side deletes both. Several such pairs may chain (A-B, B-C) as long as they
/// close no loop.
///
/// The search is iterative (Tarjan's strongly connected components with an explicit stack),
/// so a schema with a very long chain of relations cannot overflow the stack. O(entities +
/// relations).
struct RequiredRelationCycles {
    /// A required to-one relation whose target is a declared entity.
    struct Edge {
        var from: Int
        var to: Int
        var relation: RelationDeclaration
        var owner: String
    }

    private let names: [String]
    private let edges: [Edge]
    private let outgoing: [[Int]]

    /// `entities` in declaration order; relations to undeclared entities are ignored (they
    /// already have their own error).
    init(entities: [EntityDeclaration]) {
        var index: [String: Int] = [:]
        for entity in entities where index[entity.name.value] == nil { index[entity.name.value] = index.count }
        var names = Array(repeating: "", count: index.count)
        for (name, position) in index { names[position] = name }
        var edges: [Edge] = []
        var seen: Set<String> = []
        // A duplicate declaration has its own error; only the first one's relations count.
        for entity in entities where seen.insert(entity.name.value).inserted {
            guard let from = index[entity.name.value] else { continue }
            for relation in entity.relations where !relation.isToMany && relation.isRequired?.value == true {
                guard let to = index[relation.target.value] else { continue }
                edges.append(Edge(from: from, to: to, relation: relation, owner: entity.name.value))
            }
        }
        var outgoing = Array(repeating: [Int](), count: names.count)
        for (position, edge) in edges.enumerated() { outgoing[edge.from].append(position) }
        self.names = names
        self.edges = edges
        self.outgoing = outgoing
    }

    /// One error per cycle, at the first relation of it in declaration order.
    func diagnostics() -> [Diagnostic] {
        components().compactMap { component -> Diagnostic? in
            let members = Set(component)
            let inside = edges.filter { members.contains($0.from) && members.contains($0.to) }
            guard !inside.isEmpty, !isTreeOfMutualPairs(inside, size: component.count) else { return nil }
            let first = inside[0]
            let path = inside.map { "\($0.owner).\($0.relation.name.value) -> \($0.relation.target.value)" }.joined(separator: ", ")
            return .error(
                "required relations form a cycle: \(path)",
                at: first.relation.name.location,
                hint: "none of these entities can be saved before the others or deleted alone; remove 'required' from one of them "
                    + "(a one-to-one pair required on both sides, each the other's inverse, is fine)")
        }
    }

    /// Whether every edge pairs with its inverse and the pairs link the component's entities
    /// without a loop: then the only cycles are a relation and its own inverse.
    private func isTreeOfMutualPairs(_ inside: [Edge], size: Int) -> Bool {
        guard size > 1 else { return false }
        for edge in inside {
            let paired = inside.contains { other in
                other.from == edge.to && other.to == edge.from
                    && other.relation.name.value == edge.relation.inverse?.value
                    && edge.relation.name.value == other.relation.inverse?.value
            }
            if !paired { return false }
        }
        return inside.count / 2 == size - 1
    }

    /// Strongly connected components, each in discovery order, components in the order their
    /// first entity was declared.
    private func components() -> [[Int]] {
        let count = names.count
        var order = Array(repeating: -1, count: count), low = Array(repeating: 0, count: count)
        var onStack = Array(repeating: false, count: count)
        var stack: [Int] = [], result: [[Int]] = []
        var counter = 0
        for root in 0..<count where order[root] < 0 {
            // Each frame: an entity and how many of its outgoing edges were followed.
            var frames: [(node: Int, next: Int)] = [(root, 0)]
            order[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let frame = frames.last {
                let node = frame.node
                if frame.next < outgoing[node].count {
                    frames[frames.count - 1].next += 1
                    let target = edges[outgoing[node][frame.next]].to
                    if order[target] < 0 {
                        order[target] = counter; low[target] = counter; counter += 1
                        stack.append(target); onStack[target] = true
                        frames.append((target, 0))
                    } else if onStack[target] {
                        low[node] = min(low[node], order[target])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last { low[parent.node] = min(low[parent.node], low[node]) }
                guard low[node] == order[node] else { continue }
                var component: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    component.append(member)
                    if member == node { break }
                }
                result.append(component.sorted())
            }
        }
        return result.sorted { $0[0] < $1[0] }
    }
}
