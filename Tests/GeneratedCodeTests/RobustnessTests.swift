import Foundation
import SchemaRuntime
import Testing

/// Issue #8: runtime operations over long relation chains run without recursion.
@Suite(.serialized) struct RobustnessTests {
    /// Long enough that a recursive cascade overflows the stack in debug and release builds
    /// (it crashed at about 5,000 links in debug, 100,000 in release).
    static let chainLength = 1_000_000

    @Test func cascadeDeleteAlongAMillionLinkChain() throws {
        var context = Context()
        let nodes = (0..<Self.chainLength).map { ChainNode(id: $0, next: $0 + 1 < Self.chainLength ? .id($0 + 1) : .none) }
        try nodes.save(to: &context)
        #expect(context.count(of: ChainNode.self) == Self.chainLength)
        // Cut the chain in the middle so the tail survives.
        let middle = Self.chainLength / 2
        try ChainNode(id: middle - 1, next: .null).save(to: &context)
        try ChainNode(id: 0).delete(from: &context)
        #expect(context.count(of: ChainNode.self) == Self.chainLength - middle)
        #expect(context.find(ChainNode.self, id: middle - 1) == nil)
        #expect(context.find(ChainNode.self, id: middle) != nil)
        try ChainNode(id: middle).delete(from: &context)
        #expect(context.count(of: ChainNode.self) == 0)
    }

    /// Cascades run depth first in relation and link order, each entity's own delete first.
    @Test func cascadeOrderIsDepthFirst() throws {
        var context = Context()
        let tree = TreeNode(id: "root", children: .relation([
            TreeNode(id: "a", children: .relation([TreeNode(id: "a1"), TreeNode(id: "a2")])),
            TreeNode(id: "b", children: .relation([TreeNode(id: "b1")])),
        ]))
        try tree.save(to: &context)
        TreeNode.deleted.withLock { $0 = [] }
        try TreeNode(id: "root").delete(from: &context)
        #expect(TreeNode.deleted.withLock { $0 } == ["root", "a", "a1", "a2", "b", "b1"])
        #expect(context.count(of: TreeNode.self) == 0)
    }

    /// A hook that throws deep in a cascade leaves the context exactly as it was.
    @Test func aThrowingHookDeepInACascadeRollsBackEverything() throws {
        var context = Context()
        let tree = TreeNode(id: "root", children: .relation([
            TreeNode(id: "a", children: .relation([TreeNode(id: "a1"), TreeNode(id: "refuse")])),
        ]))
        try tree.save(to: &context)
        let before = context
        #expect(throws: TreeNode.Refused.self) { try TreeNode(id: "root").delete(from: &context) }
        #expect(context.count(of: TreeNode.self) == 4)
        #expect(TreeNode.query(in: context).with(\.$children).resolve().map { $0.children?.map(\.id) ?? [] }
            == TreeNode.query(in: before).with(\.$children).resolve().map { $0.children?.map(\.id) ?? [] })
    }
}

extension TreeNode {
    struct Refused: Error {}

    /// Ids in the order `willDelete` saw them (the suite is serialized).
    static let deleted = LockedValue<[String]>([])

    func willDelete(from context: inout Context) throws {
        if id == "refuse" { throw Refused() }
        TreeNode.deleted.withLock { $0.append(id) }
    }
}

/// A value behind a lock, for hooks that record what they saw.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
