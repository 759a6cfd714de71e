import Foundation
import SchemaRuntime
import Testing

/// Issue #8: every stored entity holds a link in each `required` to-one relation at the end of
/// every write; a write that would break that throws `RequiredRelationViolation` and changes
/// nothing. Entities from Robustness.schema.
@Suite struct RequiredRelationTests {
    /// A library with book "b" (loan "l" by member "m", copy "c").
    private func library() throws -> Context {
        var context = Context()
        try Member(id: "m", name: "Ann").save(to: &context)
        try Book(id: "b", loans: .relation([Loan(id: "l", borrower: .id("m"))]), copies: .relation([BookCopy(id: "c")])).save(to: &context)
        return context
    }

    /// Everything observable about the library, to check a refused write changed nothing.
    private func state(_ context: Context) -> [String] {
        Book.query(in: context).id(\.$loans).id(\.$copies).resolve().map { "book \($0.id) \($0.$loans.ids!) \($0.$copies.ids!)" }
            + Loan.query(in: context).id(\.$book).id(\.$borrower).resolve().map { "loan \($0.id) \($0.$book.id ?? "-") \($0.$borrower.id ?? "-")" }
            + BookCopy.query(in: context).id(\.$book).resolve().map { "copy \($0.id) \($0.$book.id ?? "-")" }
            + Member.query(in: context).resolve().map { "member \($0.id)" }
            + Person.query(in: context).id(\.$passport).resolve().map { "person \($0.id) \($0.$passport.id ?? "-")" }
            + Passport.query(in: context).id(\.$owner).resolve().map { "passport \($0.id) \($0.$owner.id ?? "-")" }
    }

    private func expectRefused(_ context: inout Context, _ write: (inout Context) throws -> Void,
                               sourceLocation: SourceLocation = #_sourceLocation) -> RequiredRelationViolation? {
        let before = state(context)
        let ids = context.ids(of: Loan.self) + context.ids(of: Book.self)
        let error = #expect(throws: RequiredRelationViolation.self, sourceLocation: sourceLocation) { try write(&context) }
        #expect(state(context) == before, "a refused write changed the context", sourceLocation: sourceLocation)
        #expect(context.ids(of: Loan.self) + context.ids(of: Book.self) == ids, sourceLocation: sourceLocation)
        return error
    }

    @Test func savingANewEntityWithoutTheLinkIsRefused() throws {
        var context = try library()
        let error = expectRefused(&context) { try Loan(id: "l2", borrower: .id("m")).save(to: &$0) }
        #expect(error == RequiredRelationViolation(entityName: "Loan", id: "l2", relationName: "book", targetName: "Book", removedLink: nil))
        #expect(error?.description.hasPrefix("Loan 'l2' was saved without book: 'book' is a required relation") == true)
        _ = expectRefused(&context) { try Loan(id: "l2", book: .id("b")).save(to: &$0) }
        // With both links it is stored; a later save without them keeps them (.none).
        try Loan(id: "l2", book: .id("b"), borrower: .id("m")).save(to: &context)
        try Loan(id: "l2").save(to: &context)
        #expect(Loan.query("l2", in: context).id(\.$book).id(\.$borrower).resolve().map { [$0.$book.id, $0.$borrower.id] } == ["b", "m"])
    }

    @Test func aLinkMayComeLaterInTheSameTransaction() throws {
        var context = try library()
        try context.transaction { context in
            try Loan(id: "l2", borrower: .id("m")).save(to: &context)
            try Book(id: "b", loans: .appending(ids: ["l2"])).save(to: &context)
        }
        #expect(Book.query("b", in: context).id(\.$loans).resolve()?.$loans.ids == ["l", "l2"])
        // The same, embedded: the book's save links the loan it saves.
        try Book(id: "b2", loans: .relation([Loan(id: "l3", borrower: .id("m"))])).save(to: &context)
        #expect(Loan.query("l3", in: context).id(\.$book).resolve()?.$book.id == "b2")
        // Links to ids not saved yet count: the book may arrive later.
        try Loan(id: "l4", book: .id("later"), borrower: .id("m")).save(to: &context)
    }

    @Test func deletingTheTargetIsRefusedUnlessTheInverseCascades() throws {
        var context = try library()
        // Book.loans nullifies: the loan would lose its book, so the book cannot go.
        let error = expectRefused(&context) { try Book(id: "b").delete(from: &$0) }
        #expect(error?.removedLink == .init(id: "b", isStored: false))
        #expect(error?.description.contains("deleting Book 'b' removed the link") == true)
        // Deleting the loans first, or in the same transaction, is fine; copies cascade.
        try context.transaction { context in
            try Loan(id: "l").delete(from: &context)
            try Book(id: "b").delete(from: &context)
        }
        #expect(context.count(of: Book.self) == 0 && context.count(of: BookCopy.self) == 0 && context.count(of: Loan.self) == 0)
    }

    @Test func relinkingThroughTheInverseIsRefusedWhenItLeavesAnEntityOut() throws {
        var context = try library()
        // Replacing the book's loans would leave "l" without a book.
        let error = expectRefused(&context) { try Book(id: "b", loans: .ids([])).save(to: &$0) }
        #expect(error?.removedLink == .init(id: "b", isStored: true))
        _ = expectRefused(&context) { try Book(id: "b").detach(\.$loans, in: &$0) }
        // Moving the loan to another book is fine: it is relinked in the same write.
        try Book(id: "b2", loans: .ids(["l"])).save(to: &context)
        #expect(Loan.query("l", in: context).id(\.$book).resolve()?.$book.id == "b2")
        #expect(Book.query("b", in: context).id(\.$loans).resolve()?.$loans.ids == [])
    }

    /// #27: an entity saved with its link and unlinked by a later save of the same write is
    /// reported as unlinked by that save, not as "saved without" its link.
    @Test func theErrorNamesTheSaveThatRemovedTheLink() throws {
        var context = try library()
        let error = expectRefused(&context) { context in
            try context.transaction { context in
                try Book(id: "b2", loans: .relation([Loan(id: "l2", borrower: .id("m"))])).save(to: &context)
                try Book(id: "b2", loans: .relation([Loan(id: "l3", borrower: .id("m"))])).save(to: &context)
            }
        }
        #expect(error?.id == "l2" && error?.removedLink == .init(id: "b2", isStored: true))
        #expect(error?.description.hasPrefix("Loan 'l2' would have no book: Book 'b2' no longer links to it") == true)
        // Saved without the link at all: still said so.
        let unlinked = expectRefused(&context) { try Loan(id: "l4", borrower: .id("m")).save(to: &$0) }
        #expect(unlinked?.removedLink == nil)
    }

    @Test func oneToOneRequiredBothWays() throws {
        var context = Context()
        try Person(id: "p", passport: .relation(Passport(id: "x"))).save(to: &context)
        // A passport cannot move to another person: "p" would lose it.
        _ = expectRefused(&context) { try Person(id: "q", passport: .id("x")).save(to: &$0) }
        // Nor be deleted alone (Passport.owner nullifies); deleting the person cascades.
        _ = expectRefused(&context) { try Passport(id: "x").delete(from: &$0) }
        try Person(id: "p").delete(from: &context)
        #expect(context.count(of: Person.self) == 0 && context.count(of: Passport.self) == 0)
    }

    @Test func aOneWayRequiredLinkIsAnIdThatOutlivesItsTarget() throws {
        var context = try library()
        try Member(id: "m").delete(from: &context)
        // Queries show links to stored entities only, so the borrower reads as missing...
        #expect(Loan.query("l", in: context).id(\.$borrower).resolve()?.$borrower.id == nil)
        #expect(context.count(of: Loan.self) == 1)
        // ...until a member with that id is saved again.
        try Member(id: "m", name: "Back").save(to: &context)
        #expect(Loan.query("l", in: context).with(\.$borrower).resolve()?.borrower?.name == "Back")
    }

    @Test func anInnerFailureIsJudgedAtTheEndOfTheOutermostTransaction() throws {
        var context = try library()
        // The inner transaction leaves "l2" without a book; the outer one fixes it before it ends.
        try context.transaction { context in
            try context.transaction { context in try Loan(id: "l2", borrower: .id("m")).save(to: &context) }
            try Loan(id: "l2", book: .id("b")).save(to: &context)
        }
        #expect(context.count(of: Loan.self) == 2)
        // A violation swallowed inside still fails the outer transaction, undoing all of it.
        _ = expectRefused(&context) { context in
            try context.transaction { context in
                try Member(id: "m2").save(to: &context)
                try? Loan(id: "l3", borrower: .id("m")).save(to: &context)
            }
        }
        #expect(context.find(Member.self, id: "m2") == nil)
    }

    @Test func decodingNullForARequiredRelationFails() throws {
        let explicitNull = #"{"id": "l9", "book": {"null": true}, "borrower": {"id": "m"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Loan.self, from: Data(explicitNull.utf8)) }
        // Plain null means "no data" (how `.none` encodes): fine for a stored loan, refused for a new one.
        let plainNull = #"{"id": "l", "book": null, "borrower": {"id": "m"}}"#
        var context = try library()
        try JSONDecoder().decode(Loan.self, from: Data(plainNull.utf8)).save(to: &context)
        #expect(Loan.query("l", in: context).id(\.$book).resolve()?.$book.id == "b")
        let newLoan = try JSONDecoder().decode(Loan.self, from: Data(plainNull.replacingOccurrences(of: "\"l\"", with: "\"l9\"").utf8))
        _ = expectRefused(&context) { try newLoan.save(to: &$0) }
    }
}
