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

    /// An embedded `.relation` chain saves without recursion past 64 levels (the recursive save
    /// overflowed the stack at about 5,000 levels in debug, 50,000 in release). 10,000 levels
    /// is about as deep as a debug build can release a nested Swift value at all: Swift frees
    /// it recursively, before and after any save.
    @Test func savingAnEmbeddedChainTenThousandDeep() throws {
        let depth = 10_000
        var node = ChainNode(id: depth - 1)
        for id in stride(from: depth - 2, through: 0, by: -1) { node = ChainNode(id: id, next: .relation(node)) }
        var context = Context()
        try node.save(to: &context)
        #expect(context.ids(of: ChainNode.self) == Array(0..<depth))
        let links = ChainNode.query(in: context).id(\.$next).resolve().map(\.$next.id)
        #expect(links == (1..<depth).map(Optional.init) + [nil])
        try ChainNode(id: 0).delete(from: &context)
        #expect(context.count(of: ChainNode.self) == 0)
    }

    /// Past the recursion limit, embedded saves run in the same order as above it: each
    /// entity's `willSave`, then its embedded entities completely, in order, then `didSave`.
    @Test func embeddedSavesKeepTheirOrderAtAnyDepth() throws {
        // A spine 100 deep; each spine node holds a leaf, then the next spine node.
        var spine = TreeNode(id: "s99")
        for level in stride(from: 98, through: 0, by: -1) {
            spine = TreeNode(id: "s\(level)", children: .relation([TreeNode(id: "leaf\(level)"), spine]))
        }
        func expected(_ node: TreeNode) -> [String] {
            ["will \(node.id)"] + (node.children ?? []).flatMap(expected) + ["did \(node.id)"]
        }
        var context = Context()
        TreeNode.saved.withLock { $0 = [] }
        try spine.save(to: &context)
        #expect(TreeNode.saved.withLock { $0 } == expected(spine))
        #expect(TreeNode.query("s98", in: context).id(\.$children).id(\.$parent).resolve().map { $0.$children.ids! + [$0.$parent.id!] }
            == ["leaf98", "s99", "s97"])
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

    /// `willSave` and `didSave`, in the order they ran.
    static let saved = LockedValue<[String]>([])

    mutating func willSave(to context: inout Context) throws {
        TreeNode.saved.withLock { $0.append("will \(id)") }
    }

    func didSave(to context: inout Context) throws {
        TreeNode.saved.withLock { $0.append("did \(id)") }
    }

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

/// Issue #8: every literal kind a schema allows compiles (this file would not build
/// otherwise) and keeps its value.
@Suite struct LiteralEdgeTests {
    @Test func literalsKeepTheirValues() throws {
        let edges = LiteralEdges()
        #expect(edges.int8Low == .min && edges.int8High == .max && edges.uint64High == .max && edges.intLow == .min)
        #expect(edges.hex == 255 && edges.binary == 170 && edges.octal == 511 && edges.grouped == 1_000_000)
        #expect(edges.exponent == 1500 && edges.negativeExponent == -0.0025 && edges.floatMax == 3.4028234e38)
        #expect(edges.exactDouble == 9007199254740992)
        #expect(edges.escapes == "tab\tquote\"backslash\\nul\0apostrophe'emoji😀cr\rnl\n")
        #expect(edges.invisible.unicodeScalars.map(\.value).contains(0x202E))
        #expect(edges.invisible.unicodeScalars.map(\.value).contains(0x2028))
        #expect(edges.deep.first?.first?.first?.first?.first?.first?.first == [1, 2])
        let json = try JSONEncoder().encode(edges)
        #expect(try JSONDecoder().decode(LiteralEdges.self, from: json).escapes == edges.escapes)
    }

    @Test func keywordNamedMembersWork() throws {
        var context = Context()
        var entity = KeywordNames(id: "k")
        entity.return = 3
        entity.for = 4
        try entity.save(to: &context)
        #expect(KeywordNames.filter(\.return == 3, in: context).resolve().map(\.id) == ["k"])
        let data = try JSONEncoder().encode(entity)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"return\":3") && text.contains("\"container\":0"))
    }
}
