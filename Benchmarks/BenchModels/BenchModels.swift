// The benchmark's entities are generated from Bench.schema by SchemaGenPlugin.
// This file exists so the target has a hand-written source, as SwiftPM expects.
extension Message {
    /// Words of `text`, as the benchmark generates them.
    public var wordCount: Int { text.split(separator: " ").count }
}
