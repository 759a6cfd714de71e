import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// A related list sorted by an optional field of an ordered index, read on demand from
/// SQLite: oldest first, nil comes first, which a walk down a range of the index would skip,
/// so such a list is read through its links; newest first, nil comes last, and it is walked.
@Suite struct RelatedListNilSortTests {
    /// Sensor "s" has 700 readings (more links than are read at once), one in seven without
    /// a time; sensor "other" 3,000 readings, so that the table is larger than a walk.
    static func seed(_ store: Store) throws {
        try store.write { context in
            for (sensor, count) in [("s", 700), ("other", 3_000)] {
                let readings = (0..<count).map { n in
                    Reading(id: "\(sensor) \(n)", takenAt: n % 7 == 3 ? nil : (sensor == "s" ? n * 5 : n * 2))
                }
                try Sensor(id: sensor, readings: .relation(readings)).save(to: &context)
            }
        }
    }

    @Test func listsSortedByAnOptionalFieldAnswerAsResidentInBothDirections() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nil-sort-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        // Written on demand, so that the file has the SQL indexes a walk needs.
        let writer = try Store(.file(url), schema: GeneratedCodeTestsSchema.self, options: .init(residency: .onDemand))
        try Self.seed(writer)
        writer.close()
        let resident = try Store(.file(url), schema: GeneratedCodeTestsSchema.self, options: .init(readOnly: true, residency: .resident))
        defer { resident.close() }
        let store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        defer { store.close() }
        for sensor in ["s", "other"] {
            for descending in [false, true] {
                for (limit, offset) in [(20, 0), (5, 40), (50, 0)] {
                    let ids: @Sendable (Context) -> [String] = { context in
                        let readings = Sensor.query(sensor, in: context).related(\.$readings)
                        return (descending ? readings.sorted(by: \.takenAt.desc) : readings.sorted(by: \.takenAt))
                            .limit(limit, offset: offset).resolve().map(\.id)
                    }
                    let answer = try store.read(ids)
                    #expect(answer == ids(resident.context), "sensor \(sensor), \(descending ? "newest" : "oldest") first, limit \(limit), offset \(offset)")
                    // Oldest first, the first readings have no time.
                    if !descending, offset == 0 { #expect(answer.first == "\(sensor) 3") }
                }
            }
            // Only newest first is read in steps (what `explainSQL` shows is then the walk,
            // which reads to the 1,000th row of the index).
            let newest = Sensor.query(sensor, in: store.context).related(\.$readings).sorted(by: \.takenAt.desc).limit(20)
            let oldest = Sensor.query(sensor, in: store.context).related(\.$readings).sorted(by: \.takenAt).limit(20)
            #expect(try #require(store.explainSQL(newest)).sql.contains("OFFSET 999"))
            #expect(try !#require(store.explainSQL(oldest)).sql.contains("OFFSET 999"))
        }
    }
}
