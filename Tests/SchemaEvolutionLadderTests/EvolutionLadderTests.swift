import Foundation
import LadderV1
import LadderV2
import LadderV3
import LadderV4
import LadderV5
import LadderV6
import PostgresTestSupport
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres
import Testing

/// One store file, created with schema v1 and opened with every later version in turn
/// (Tests/EvolutionLadder/V1...V6), every row and link checked after each step; then the
/// changes that cannot be inferred, failures in the middle of a migration, a file newer than
/// the code, and the policies.
@Suite struct EvolutionLadderTests {
    /// v5's migrations: `born` changed type, `language` is new and required with no default.
    static let v5Migrations: [Migration] = [
        .field("born", of: LadderV5.Writer.self) { row in try row.value("born", as: Int?.self).map(String.init) },
        .field("language", of: LadderV5.Book.self) { row in try row.value("title", as: String.self) == "Poems" ? "fr" : "en" },
    ]

    struct Unparsable: Error {}

    /// v5's migrations, the second failing on the second book, after the writers and a first
    /// book were migrated.
    static let failingV5Migrations: [Migration] = [
        v5Migrations[0],
        .field("language", of: LadderV5.Book.self) { row in
            if try row.value("title", as: String.self) == "Engines" { throw Unparsable() }
            return "en"
        },
    ]

    static func seedV1(_ url: URL) throws {
        try seedV1(.file(url))
    }

    static func seedV1(_ location: Store.Location) throws {
        let store = try Store(location, schema: LadderV1Schema.self)
        try store.write { context in
            try LadderV1.Author(id: "a1", name: "Ada", born: 1815).save(to: &context)
            try LadderV1.Author(id: "a2", name: "Bob").save(to: &context)
            try LadderV1.Author(id: "a3", name: "Cy", born: 1990).save(to: &context)
            try LadderV1.Tag(id: "t1", label: "math").save(to: &context)
            try LadderV1.Tag(id: "t2", label: "history").save(to: &context)
            try LadderV1.Book(id: "b1", title: "Notes", pages: 100, legacyCode: "L1", author: .id("a1"), tags: .ids(["t1", "t2"]), editor: .id("a2")).save(to: &context)
            try LadderV1.Book(id: "b2", title: "Engines", author: .id("a1"), tags: .ids(["t2"])).save(to: &context)
            try LadderV1.Book(id: "b3", title: "Poems", pages: 50, author: .id("a3"), editor: .id("a1")).save(to: &context)
            try LadderV1.Draft(id: "d1", text: "an idea").save(to: &context)
        }
        #expect(LibraryDump.v1(store.context) == [
            "Author a1 name=Ada born=1815 books=[b1,b2]",
            "Author a2 name=Bob born=nil books=[]",
            "Author a3 name=Cy born=1990 books=[b3]",
            "Book b1 title=Notes pages=100 legacyCode=L1 author=a1 tags=[t1,t2] editor=a2",
            "Book b2 title=Engines pages=0 legacyCode=nil author=a1 tags=[t2] editor=nil",
            "Book b3 title=Poems pages=50 legacyCode=nil author=a3 tags=[] editor=a1",
            "Draft d1 text=an idea",
            "Tag t1 label=math",
            "Tag t2 label=history",
        ])
    }

    /// An old version of the app keeps the file open while a new one migrates it: the old
    /// store keeps its last graph, refuses writes with a typed error, and never reads the new
    /// tables with its old layout.
    ///
    /// Reading on demand, the old store has no graph to keep: a context taken before still
    /// reads its snapshot, later ones are empty (never the new tables read with the old layout).
    ///
    /// On a server, an on-demand write checks the schema in the round trip of its first read
    /// (the check fails the pipeline, so no read of the new tables runs): the error must
    /// still be this one, for a write that reads and for one that only adds rows.
    @Test(arguments: [LadderPlace.Kind.file, .postgres], [Store.Residency.resident, .onDemand])
    func aStoreOpenWhileAnotherMigratesTheFileStopsWriting(kind: LadderPlace.Kind, residency: Store.Residency) throws {
        guard let place = try LadderPlace(kind) else { return }
        let location = place.location
        try Self.seedV1(location)
        let old = try Store(location, schema: LadderV1Schema.self, options: .init(residency: residency))
        var held = old.context
        let before = LibraryDump.v1(held)
        if kind == .postgres, residency == .onDemand {
            // A server's snapshot is a transaction holding its tables: the migration waits
            // for it, and fails typed after the lock timeout, changing nothing. Once the
            // context is gone, it goes through.
            #expect(throws: StoreError.locked(path: Self.path(of: location))) {
                try Store(location, schema: LadderV2Schema.self, options: .init(lockTimeout: 0.5))
            }
            #expect(LibraryDump.v1(held) == before)
            held = Context()
        }
        let new = try Store(location, schema: LadderV2Schema.self)
        try new.write { try LadderV2.Review(id: "r1", stars: 4, book: .id("b1")).save(to: &$0) }
        let changed = StoreError.schemaChangedElsewhere(path: Self.path(of: location))
        #expect(throws: changed) {
            try old.write { try LadderV1.Tag(id: "t3", label: "new").save(to: &$0) }
        }
        #expect(throws: changed) {
            try old.write { try LadderV1.Book(id: "b4", title: "Maps", author: .id("a2")).save(to: &$0) }
        }
        if kind == .file || residency == .resident { #expect(LibraryDump.v1(held) == before) }
        #expect(LibraryDump.v1(old.context) == (residency == .resident ? before : []))
        // The new version's data is intact, and the old version now opens it read-only only.
        #expect(LadderV2.Review.query(in: new.context).count() == 1 && LadderV2.Tag.query(in: new.context).count() == 2)
        #expect(LadderV2.Book.query(in: new.context).count() == 3)
        #expect(throws: StoreError.self) { try Store(location, schema: LadderV1Schema.self) }
        old.close()
        new.close()
    }

    /// How errors name `location`: a file's path, a server's URL without its password.
    static func path(of location: Store.Location) -> String {
        switch location {
        case .file(let url): url.path
        case .server(let server): server.description
        default: ""
        }
    }

    /// The same steps on a file and on a PostgreSQL database (the migrator is shared; each
    /// database spells tables, placeholders and storage order its own way).
    @Test(arguments: [LadderPlace.Kind.file, .postgres])
    func aV1StoreFollowsEveryVersionAndKeepsEveryRowAndLink(kind: LadderPlace.Kind) throws {
        guard let place = try LadderPlace(kind) else { return }
        let location = place.location
        try Self.seedV1(location)

        let v2 = try Store(location, schema: LadderV2Schema.self)
        #expect(v2.appliedMigration?.deletesData == false)
        #expect(LibraryDump.v2(v2.context) == [
            "Author a1 name=Ada born=1815 books=[b1,b2]",
            "Author a2 name=Bob born=nil books=[]",
            "Author a3 name=Cy born=1990 books=[b3]",
            "Book b1 title=Notes pages=100 legacyCode=L1 isbn=nil rating=2.5 author=a1 tags=[t1,t2] editor=a2 reviews=[]",
            "Book b2 title=Engines pages=0 legacyCode=nil isbn=nil rating=2.5 author=a1 tags=[t2] editor=nil reviews=[]",
            "Book b3 title=Poems pages=50 legacyCode=nil isbn=nil rating=2.5 author=a3 tags=[] editor=a1 reviews=[]",
            "Draft d1 text=an idea",
            "Tag t1 label=math",
            "Tag t2 label=history",
        ])
        // The index v2 added is built on open.
        #expect(LadderV2.Author.query(in: v2.context).sorted(by: \.name).resolve().map(\.id) == ["a1", "a2", "a3"])
        try v2.write { context in
            try LadderV2.Review(id: "r1", stars: 4, book: .id("b1")).save(to: &context)
            try LadderV2.Review(id: "r2", stars: 5, book: .id("b1")).save(to: &context)
            var engines = try #require(LadderV2.Book.query("b2", in: context).resolve())
            engines.isbn = "978-2"
            try engines.save(to: &context)
        }
        v2.close()

        let v3 = try Store(location, schema: LadderV3Schema.self)
        #expect(Set(v3.appliedMigration?.deletions ?? []) == [.removeEntity("Draft"), .removeField(entity: "Book", field: "legacyCode")])
        #expect(v3.appliedMigration?.steps.contains(.renameEntity(from: "Author", to: "Writer")) == true)
        let afterV3 = [
            "Book b1 title=Notes pages=100 isbn=nil rating=2.5 writer=a1 tags=[t1,t2] editor=a2 reviews=[r1,r2]",
            "Book b2 title=Engines pages=0 isbn=978-2 rating=2.5 writer=a1 tags=[t2] editor=nil reviews=[]",
            "Book b3 title=Poems pages=50 isbn=nil rating=2.5 writer=a3 tags=[] editor=a1 reviews=[]",
            "Review r1 stars=4 book=b1",
            "Review r2 stars=5 book=b1",
            "Tag t1 name=math",
            "Tag t2 name=history",
            "Writer a1 fullName=Ada born=1815 works=[b1,b2]",
            "Writer a2 fullName=Bob born=nil works=[]",
            "Writer a3 fullName=Cy born=1990 works=[b3]",
        ]
        #expect(LibraryDump.v3(v3.context) == afterV3)
        v3.close()
        // Reopening with the same version migrates nothing and reads the same.
        let v3Again = try Store(location, schema: LadderV3Schema.self)
        #expect(v3Again.appliedMigration == nil)
        #expect(LibraryDump.v3(v3Again.context) == afterV3)
        v3Again.close()

        let v4 = try Store(location, schema: LadderV4Schema.self)
        #expect(LibraryDump.v4(v4.context) == [
            "Book b1 title=Notes pages=100 isbn=unknown rating=2.5 writer=a1 tags=[t1,t2] editors=[a2] reviews=[r1,r2] saved=false",
            "Book b2 title=Engines pages=0 isbn=978-2 rating=2.5 writer=a1 tags=[t2] editors=[] reviews=[] saved=false",
            "Book b3 title=Poems pages=50 isbn=unknown rating=2.5 writer=a3 tags=[] editors=[a1] reviews=[] saved=false",
            "Review r1 stars=4 book=b1",
            "Review r2 stars=5 book=b1",
            "Tag t1 name=math books=[b1]",
            "Tag t2 name=history books=[b1,b2]",
            "Writer a1 fullName=Ada born=1815 works=[b1,b2]",
            "Writer a2 fullName=Bob born=nil works=[]",
            "Writer a3 fullName=Cy born=1990 works=[b3]",
        ])
        try v4.write { context in
            var engines = try #require(LadderV4.Book.query("b2", in: context).resolve())
            engines.$editors = .ids(["a3"])
            try engines.save(to: &context)
        }
        v4.close()

        let v5 = try Store(location, schema: LadderV5Schema.self, migrations: Self.v5Migrations)
        #expect(LibraryDump.v5(v5.context) == [
            "Book b1 title=Notes pages=100 isbn=unknown rating=2.5 language=en writer=a1 tags=[t1,t2] editors=[a2] reviews=[r1,r2] saved=false",
            "Book b2 title=Engines pages=0 isbn=978-2 rating=2.5 language=en writer=a1 tags=[t2] editors=[a3] reviews=[] saved=true",
            "Book b3 title=Poems pages=50 isbn=unknown rating=2.5 language=fr writer=a3 tags=[] editors=[a1] reviews=[] saved=false",
            "Review r1 stars=4 book=b1",
            "Review r2 stars=5 book=b1",
            "Tag t1 name=math books=[b1]",
            "Tag t2 name=history books=[b1,b2]",
            "Writer a1 fullName=Ada born=1815 works=[b1,b2]",
            "Writer a2 fullName=Bob born=nil works=[]",
            "Writer a3 fullName=Cy born=1990 works=[b3]",
        ])
        v5.close()

        let v6 = try Store(location, schema: LadderV6Schema.self)
        let expected = Self.expectedV6(b2Editor: "a3", b2ISBN: "978-2", reviews: "[r1,r2]", b2Saved: true)
            + ["Critique r1 stars=4 book=b1", "Critique r2 stars=5 book=b1"]
        #expect(LibraryDump.v6(v6.context) == expected.sorted())
        // The file keeps working: a write, a reopen.
        try v6.write { try LadderV6.Tag(id: "t3", name: "poetry").save(to: &$0) }
        v6.close()
        #expect(LibraryDump.v6(try Store(location, schema: LadderV6Schema.self).context).contains("Tag t3 name=poetry"))
    }

    static func expectedV6(b2Editor: String, b2ISBN: String, reviews: String, b2Saved: Bool) -> [String] {
        [
            "Book b1 title=Notes pages=100 isbn=unknown rating=2.5 language=en writer=a1 tags=[t1,t2] editor=a2 critiques=\(reviews) saved=false",
            "Book b2 title=Engines pages=0 isbn=\(b2ISBN) rating=2.5 language=en writer=a1 tags=[t2] editor=\(b2Editor) critiques=[] saved=\(b2Saved)",
            "Book b3 title=Poems pages=50 isbn=unknown rating=2.5 language=fr writer=a3 tags=[] editor=a1 critiques=[] saved=false",
            "Tag t1 name=math",
            "Tag t2 name=history",
            "Writer a1 fullName=Ada born=1815 works=[b1,b2]",
            "Writer a2 fullName=Bob born=nil works=[]",
            "Writer a3 fullName=Cy born=1990 works=[b3]",
        ].sorted()
    }

    @Test func aV1StoreOpensWithV6Directly() throws {
        let folder = try TemporaryFolder()
        try Self.seedV1(folder.file())
        let migrations: [Migration] = [
            .field("born", of: LadderV6.Writer.self) { row in try row.value("born", as: Int?.self).map(String.init) },
            .field("language", of: LadderV6.Book.self) { row in try row.value("title", as: String.self) == "Poems" ? "fr" : "en" },
        ]
        let store = try Store(.file(folder.file()), schema: LadderV6Schema.self, migrations: migrations)
        #expect(LibraryDump.v6(store.context) == Self.expectedV6(b2Editor: "nil", b2ISBN: "unknown", reviews: "[]", b2Saved: false))
    }

    /// On PostgreSQL: a migration that throws halfway changes nothing; a store still open
    /// with the old schema stops writing once another migrated the database, and the old
    /// schema no longer opens it.
    @Test func onPostgreSQLAFailedMigrationChangesNothingAndOldCodeStopsWriting() throws {
        guard let place = try LadderPlace(.postgres) else { return }
        let location = place.location
        try Self.seedV1(location)
        try Store(location, schema: LadderV4Schema.self).close()
        let before = LibraryDump.v4(try Store(location, schema: LadderV4Schema.self).context)
        #expect {
            _ = try Store(location, schema: LadderV5Schema.self, migrations: Self.failingV5Migrations)
        } throws: { error in
            guard case StoreError.migrationFailed(_, let reason) = error else { return false }
            return reason.contains("Book.language") && reason.contains("\"b2\"") && reason.contains("Unparsable")
        }
        // Opened right after a migration, before any write: the log holds no commit of its
        // own, which the next migration must not make look unchanged.
        let old = try Store(location, schema: LadderV4Schema.self)
        #expect(LibraryDump.v4(old.context) == before)

        let new = try Store(location, schema: LadderV5Schema.self, migrations: Self.v5Migrations)
        #expect(new.appliedMigration != nil)
        #expect(LadderV5.Tag.query(in: new.context).count() == 2)
        #expect(throws: StoreError.self) { try old.write { try LadderV4.Tag(id: "t4", name: "lost").save(to: &$0) } }
        #expect(LadderV5.Tag.query("t4", in: try Store(location, schema: LadderV5Schema.self, migrations: Self.v5Migrations).context).resolve() == nil)
        // The old schema is refused from then on (v5 changed a type v4 reads).
        #expect { _ = try Store(location, schema: LadderV4Schema.self) } throws: { error in
            guard case StoreError.newerSchema = error else { return false }
            return true
        }
        old.close()
        new.close()
    }

    // MARK: Changes that cannot be inferred

    /// A v4 file, closed, and its bytes.
    private func v4File(in folder: TemporaryFolder, b1Editors: [String] = ["a2"]) throws -> (URL, Data) {
        let url = folder.file()
        try Self.seedV1(url)
        let store = try Store(.file(url), schema: LadderV4Schema.self)
        try store.write { context in
            var notes = try #require(LadderV4.Book.query("b1", in: context).resolve())
            notes.$editors = .ids(b1Editors)
            try notes.save(to: &context)
        }
        store.close()
        return (url, try Data(contentsOf: url))
    }

    @Test func changesThatCannotBeInferredAreListedAndTheFileIsUntouched() throws {
        let folder = try TemporaryFolder()
        let (url, bytes) = try v4File(in: folder)
        do {
            _ = try Store(.file(url), schema: LadderV5Schema.self)
            Issue.record("opened without the migrations v5 needs")
        } catch let StoreError.migrationNeeded(path, problems, _) {
            #expect(path == url.path)
            #expect(problems == [
                "Writer.born: type changed from Int? to String? (register a migration for Writer.born that computes the new value from the old row)",
                "Book.language: new required field String has no default for the rows already stored "
                    + "(give it a default ('= value'), make it optional, or register a migration for Book.language)",
            ])
        }
        #expect(try Data(contentsOf: url) == bytes)
        // The error text names the file and each problem.
        let error = StoreError.migrationNeeded(path: "x.sqlite", problems: ["Writer.born: type changed"], plan: "")
        #expect(error.description.contains("x.sqlite") && error.description.contains("error: Writer.born: type changed"))
    }

    @Test func aMigrationThatThrowsHalfwayLeavesTheFileByteIdentical() throws {
        let folder = try TemporaryFolder()
        let (url, bytes) = try v4File(in: folder)
        let before = LibraryDump.v4(try Store(.file(url), schema: LadderV4Schema.self, options: .init(readOnly: true)).context)
        #expect {
            _ = try Store(.file(url), schema: LadderV5Schema.self, migrations: Self.failingV5Migrations)
        } throws: { error in
            guard case StoreError.migrationFailed(_, let reason) = error else { return false }
            return reason.contains("Book.language") && reason.contains("\"b2\"") && reason.contains("Unparsable")
        }
        #expect(try Data(contentsOf: url) == bytes)
        // The same file still opens with the schema it was written with.
        #expect(LibraryDump.v4(try Store(.file(url), schema: LadderV4Schema.self).context) == before)
    }

    @Test func toManyBecomingToOneFailsNamingAnEntityWithSeveralLinks() throws {
        let folder = try TemporaryFolder()
        let (url, _) = try v4File(in: folder, b1Editors: ["a2", "a3"])
        let v5 = try Store(.file(url), schema: LadderV5Schema.self, migrations: Self.v5Migrations)
        v5.close()
        let bytes = try Data(contentsOf: url)
        #expect {
            _ = try Store(.file(url), schema: LadderV6Schema.self)
        } throws: { error in
            guard case StoreError.migrationFailed(_, let reason) = error else { return false }
            return reason == "Book.editor is to-one now, but Book \"b1\" has 2 links; remove the extra links with the old schema first"
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aMigrationOfTheWrongTypeIsRefusedBeforeTheFileIsRead() {
        #expect(throws: StoreError.invalidMigration(reason: "Writer.born is String?, but its migration returns a INTEGER value")) {
            _ = try Store(.memory, schema: LadderV5Schema.self, migrations: [.field("born", of: LadderV5.Writer.self) { _ in 1 }])
        }
        #expect(throws: StoreError.self) {
            _ = try Store(.memory, schema: LadderV5Schema.self, migrations: [.field("bornIn", of: LadderV5.Writer.self) { _ in "x" }])
        }
    }

    // MARK: Newer files, policies, plans

    @Test func aFileFromANewerSchemaOpensReadOnlyButNotForWriting() throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        try Self.seedV1(url)
        let v2 = try Store(.file(url), schema: LadderV2Schema.self)
        try v2.write { try LadderV2.Review(id: "r1", stars: 3, book: .id("b1")).save(to: &$0) }
        v2.close()
        let bytes = try Data(contentsOf: url)
        #expect {
            _ = try Store(.file(url), schema: LadderV1Schema.self)
        } throws: { error in
            guard case StoreError.newerSchema(_, let unknown) = error else { return false }
            return unknown.contains("- entity Review: removed; its rows and links are deleted") && unknown.contains("- Book.isbn: removed; its values are deleted")
        }
        let readOnly = try Store(.file(url), schema: LadderV1Schema.self, options: .init(readOnly: true))
        #expect(readOnly.isReadOnly)
        #expect(LibraryDump.v1(readOnly.context).contains("Book b1 title=Notes pages=100 legacyCode=L1 author=a1 tags=[t1,t2] editor=a2"))
        #expect(throws: StoreError.readOnly(path: url.path)) {
            try readOnly.write { try LadderV1.Tag(id: "t9", label: "x").save(to: &$0) }
        }
        readOnly.close()
        #expect(try Data(contentsOf: url) == bytes)
        // A file that needs a migration does not open read-only: nothing may be written.
        #expect(throws: StoreError.self) { _ = try Store(.file(url), schema: LadderV3Schema.self, options: .init(readOnly: true)) }
    }

    /// Both residencies: a store opening on demand creates SQL indexes, never on a file it
    /// refuses to migrate.
    @Test(arguments: [Store.Residency.resident, .onDemand])
    func keepEverythingRefusesAPlanThatDeletesAndShowsIt(residency: Store.Residency) throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        try Self.seedV1(url)
        let bytes = try Data(contentsOf: url)
        #expect {
            _ = try Store(.file(url), schema: LadderV3Schema.self, options: .init(migration: .keepEverything, residency: residency))
        } throws: { error in
            guard case StoreError.migrationRefused(_, let reason, let plan) = error else { return false }
            return reason.contains("it would delete data") && plan.contains("- entity Draft: removed; its rows and links are deleted")
                && plan.contains("- Book.legacyCode: removed; its values are deleted")
        }
        #expect(throws: StoreError.self) { _ = try Store(.file(url), schema: LadderV2Schema.self, options: .init(migration: .never, residency: residency)) }
        #expect(try Data(contentsOf: url) == bytes)
        // An additive change passes keepEverything.
        #expect(try Store(.file(url), schema: LadderV2Schema.self, options: .init(migration: .keepEverything)).appliedMigration != nil)
    }

    @Test func thePlanCanBeReadWithoutOpeningTheStore() throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        try Self.seedV1(url)
        let bytes = try Data(contentsOf: url)
        let plan = try #require(try Store.migrationPlan(at: url, schema: LadderV4Schema.self))
        #expect(plan.description.components(separatedBy: "\n") == [
            "~ entity Author renamed to Writer",
            "~ Writer.name renamed to fullName",
            "+ Book.isbn: String, new; existing rows get the default \"unknown\"",
            "+ Book.rating: Double, new; existing rows get the default 2.5",
            "- Book.legacyCode: removed; its values are deleted",
            "+ Book: records save times (existing rows have none)",
            "~ Tag.label renamed to name",
            "+ entity Review: new, empty table",
            "- entity Draft: removed; its rows and links are deleted",
            "~ Writer.books renamed to works",
            "~ Book.author renamed to writer",
            "~ Book.tags: inverse none -> books, links kept",
            "~ Book.editor renamed to editors",
            "~ Book.editors: to-one -> to-many, each link kept",
            "+ Book.reviews: new relation",
            "+ Tag.books: new relation, links read from its inverse Book.tags",
        ])
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try Store.migrationPlan(at: url, schema: LadderV1Schema.self) == nil)
    }
}

/// A folder removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-ladder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "library.sqlite") -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Where a ladder test keeps its store: a file in a temporary folder, or a new database on a
/// throwaway PostgreSQL cluster (nil, after saying why, on a machine without one; CI must have one).
final class LadderPlace {
    enum Kind: Sendable { case file, postgres }

    let location: Store.Location
    private let folder: TemporaryFolder?
    private let cluster: TemporaryPostgresCluster?

    init?(_ kind: Kind) throws {
        switch kind {
        case .file:
            let folder = try TemporaryFolder()
            self.folder = folder
            cluster = nil
            location = .file(folder.file())
        case .postgres:
            guard let cluster = try TemporaryPostgresCluster.start() else {
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record("CI must run the PostgreSQL tests. \(TemporaryPostgresCluster.missingServer)")
                } else {
                    print(TemporaryPostgresCluster.missingServer)
                }
                return nil
            }
            self.cluster = cluster
            folder = nil
            location = .postgres(try cluster.createDatabase("ladder"))
        }
    }

    deinit { cluster?.stop() }
}
