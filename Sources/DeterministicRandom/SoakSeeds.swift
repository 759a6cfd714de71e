import Foundation

/// The seeds a randomized suite runs: its own few, which CI runs every time, and with
/// `SCHEMAGEN_SOAK_SEEDS=N` in the environment N more (from 1,000 on, or from
/// `SCHEMAGEN_SOAK_FROM`), for a longer hunt on a developer's machine
/// (`SCHEMAGEN_SOAK_SEEDS=50 swift test --filter ModelBased`; a later hunt goes on where the
/// last one stopped with `SCHEMAGEN_SOAK_FROM=1050`). A failing soak seed is then added to
/// the suite's own, so that CI keeps it.
public enum SoakSeeds {
    /// How many more seeds the environment asks for (0 without `SCHEMAGEN_SOAK_SEEDS`).
    public static var extra: Int {
        max(0, Int(ProcessInfo.processInfo.environment["SCHEMAGEN_SOAK_SEEDS"] ?? "") ?? 0)
    }

    /// The first extra seed: `SCHEMAGEN_SOAK_FROM`, else 1,000.
    public static var first: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["SCHEMAGEN_SOAK_FROM"] ?? "") ?? 1_000
    }

    /// `seeds`, then the extra ones.
    public static func seeds(_ seeds: [UInt64]) -> [UInt64] {
        seeds + (0..<UInt64(extra)).map { first + $0 }.filter { !seeds.contains($0) }
    }

    /// `cases`, then each extra seed with each of `variants` (a residency, say).
    public static func cases<Variant>(_ cases: [(UInt64, Variant)], variants: [Variant]) -> [(UInt64, Variant)] {
        cases + seeds([]).flatMap { seed in variants.map { (seed, $0) } }
    }
}
