/// Which entities are generated into a Swift file of their own.
///
/// Every entity gets its own file by default. One file per schema file made compile time grow
/// with the square of the entities in it: when a file's entities refer to each other in a
/// cycle (mutual relations always do), LLVM's call graph for coroutine lowering walks the
/// whole cycle of type metadata from every function (200 entities: 84 s in one file, 45 s in
/// 200 files, one core; docs/Performance.md, "Build times").
public enum EntityFiles: Hashable, Sendable {
    /// Every entity: `Chat+Message.generated.swift` for `Message` in `Chat.schema`.
    case all
    /// Only the entities whose file is named here; the others stay in their schema file's
    /// file. Named files that no entity fills are written with a note saying so.
    ///
    /// This is for the build plugin, which names its output files before the generator runs
    /// and which SwiftPM does not run again when only a schema file's content changes: an
    /// entity added since still compiles (in its schema file's file), and the file of an
    /// entity removed since still exists.
    case declared(Set<String>)

    func givesOwnFile(_ name: String) -> Bool {
        switch self {
        case .all: true
        case .declared(let names): names.contains(name)
        }
    }
}
