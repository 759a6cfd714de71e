import Foundation
import LadderV1
import LadderV2
import LadderV3
import LadderV4
import LadderV5
import LadderV6
import SchemaRuntime

/// Every row and link of a library graph as sorted lines, one per entity, written out field
/// by field with each version's own types: what the ladder compares after every migration.
enum LibraryDump {
    static func ids(_ values: [String]?) -> String { "[" + (values ?? []).joined(separator: ",") + "]" }
    static func text(_ value: String?) -> String { value ?? "nil" }
    static func text(_ value: Int?) -> String { value.map { "\($0)" } ?? "nil" }

    static func v1(_ context: Context) -> [String] {
        var lines: [String] = []
        for author in LadderV1.Author.query(in: context).with(\.$books).resolve() {
            lines.append("Author \(author.id) name=\(author.name) born=\(text(author.born)) books=\(ids(author.books?.map(\.id)))")
        }
        for book in LadderV1.Book.query(in: context).with(\.$author).with(\.$tags).with(\.$editor).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) legacyCode=\(text(book.legacyCode))"
            let links = "author=\(text(book.author?.id)) tags=\(ids(book.tags?.map(\.id))) editor=\(text(book.editor?.id))"
            lines.append("Book \(book.id) \(fields) \(links)")
        }
        for tag in LadderV1.Tag.query(in: context).resolve() { lines.append("Tag \(tag.id) label=\(tag.label)") }
        for draft in LadderV1.Draft.query(in: context).resolve() { lines.append("Draft \(draft.id) text=\(draft.text)") }
        return lines.sorted()
    }

    static func v2(_ context: Context) -> [String] {
        var lines: [String] = []
        for author in LadderV2.Author.query(in: context).with(\.$books).resolve() {
            lines.append("Author \(author.id) name=\(author.name) born=\(text(author.born)) books=\(ids(author.books?.map(\.id)))")
        }
        for book in LadderV2.Book.query(in: context).with(\.$author).with(\.$tags).with(\.$editor).with(\.$reviews).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) legacyCode=\(text(book.legacyCode)) isbn=\(text(book.isbn)) rating=\(book.rating)"
            let links = "author=\(text(book.author?.id)) tags=\(ids(book.tags?.map(\.id))) editor=\(text(book.editor?.id)) reviews=\(ids(book.reviews?.map(\.id)))"
            lines.append("Book \(book.id) \(fields) \(links)")
        }
        for tag in LadderV2.Tag.query(in: context).resolve() { lines.append("Tag \(tag.id) label=\(tag.label)") }
        for draft in LadderV2.Draft.query(in: context).resolve() { lines.append("Draft \(draft.id) text=\(draft.text)") }
        for review in LadderV2.Review.query(in: context).with(\.$book).resolve() {
            lines.append("Review \(review.id) stars=\(review.stars) book=\(text(review.book?.id))")
        }
        return lines.sorted()
    }

    static func v3(_ context: Context) -> [String] {
        var lines: [String] = []
        for writer in LadderV3.Writer.query(in: context).with(\.$works).resolve() {
            lines.append("Writer \(writer.id) fullName=\(writer.fullName) born=\(text(writer.born)) works=\(ids(writer.works?.map(\.id)))")
        }
        for book in LadderV3.Book.query(in: context).with(\.$writer).with(\.$tags).with(\.$editor).with(\.$reviews).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) isbn=\(text(book.isbn)) rating=\(book.rating)"
            let links = "writer=\(text(book.writer?.id)) tags=\(ids(book.tags?.map(\.id))) editor=\(text(book.editor?.id)) reviews=\(ids(book.reviews?.map(\.id)))"
            lines.append("Book \(book.id) \(fields) \(links)")
        }
        for tag in LadderV3.Tag.query(in: context).resolve() { lines.append("Tag \(tag.id) name=\(tag.name)") }
        for review in LadderV3.Review.query(in: context).with(\.$book).resolve() {
            lines.append("Review \(review.id) stars=\(review.stars) book=\(text(review.book?.id))")
        }
        return lines.sorted()
    }

    static func v4(_ context: Context) -> [String] {
        var lines: [String] = []
        for writer in LadderV4.Writer.query(in: context).with(\.$works).resolve() {
            lines.append("Writer \(writer.id) fullName=\(writer.fullName) born=\(text(writer.born)) works=\(ids(writer.works?.map(\.id)))")
        }
        for book in LadderV4.Book.query(in: context).with(\.$writer).with(\.$tags).with(\.$editors).with(\.$reviews).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) isbn=\(book.isbn) rating=\(book.rating)"
            let links = "writer=\(text(book.writer?.id)) tags=\(ids(book.tags?.map(\.id))) editors=\(ids(book.editors?.map(\.id))) reviews=\(ids(book.reviews?.map(\.id)))"
            let saved = context.updatedAt(of: LadderV4.Book.self, id: book.id) != nil
            lines.append("Book \(book.id) \(fields) \(links) saved=\(saved)")
        }
        for tag in LadderV4.Tag.query(in: context).with(\.$books).resolve() {
            lines.append("Tag \(tag.id) name=\(tag.name) books=\(ids(tag.books?.map(\.id)))")
        }
        for review in LadderV4.Review.query(in: context).with(\.$book).resolve() {
            lines.append("Review \(review.id) stars=\(review.stars) book=\(text(review.book?.id))")
        }
        return lines.sorted()
    }

    static func v5(_ context: Context) -> [String] {
        var lines: [String] = []
        for writer in LadderV5.Writer.query(in: context).with(\.$works).resolve() {
            lines.append("Writer \(writer.id) fullName=\(writer.fullName) born=\(text(writer.born)) works=\(ids(writer.works?.map(\.id)))")
        }
        for book in LadderV5.Book.query(in: context).with(\.$writer).with(\.$tags).with(\.$editors).with(\.$reviews).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) isbn=\(book.isbn) rating=\(book.rating) language=\(book.language)"
            let links = "writer=\(text(book.writer?.id)) tags=\(ids(book.tags?.map(\.id))) editors=\(ids(book.editors?.map(\.id))) reviews=\(ids(book.reviews?.map(\.id)))"
            let saved = context.updatedAt(of: LadderV5.Book.self, id: book.id) != nil
            lines.append("Book \(book.id) \(fields) \(links) saved=\(saved)")
        }
        for tag in LadderV5.Tag.query(in: context).with(\.$books).resolve() {
            lines.append("Tag \(tag.id) name=\(tag.name) books=\(ids(tag.books?.map(\.id)))")
        }
        for review in LadderV5.Review.query(in: context).with(\.$book).resolve() {
            lines.append("Review \(review.id) stars=\(review.stars) book=\(text(review.book?.id))")
        }
        return lines.sorted()
    }

    static func v6(_ context: Context) -> [String] {
        var lines: [String] = []
        for writer in LadderV6.Writer.query(in: context).with(\.$works).resolve() {
            lines.append("Writer \(writer.id) fullName=\(writer.fullName) born=\(text(writer.born)) works=\(ids(writer.works?.map(\.id)))")
        }
        for book in LadderV6.Book.query(in: context).with(\.$writer).with(\.$tags).with(\.$editor).with(\.$critiques).resolve() {
            let fields = "title=\(book.title) pages=\(book.pages) isbn=\(book.isbn) rating=\(book.rating) language=\(book.language)"
            let links = "writer=\(text(book.writer?.id)) tags=\(ids(book.tags?.map(\.id))) editor=\(text(book.editor?.id)) critiques=\(ids(book.critiques?.map(\.id)))"
            let saved = context.updatedAt(of: LadderV6.Book.self, id: book.id) != nil
            lines.append("Book \(book.id) \(fields) \(links) saved=\(saved)")
        }
        for tag in LadderV6.Tag.query(in: context).resolve() { lines.append("Tag \(tag.id) name=\(tag.name)") }
        for critique in LadderV6.Critique.query(in: context).with(\.$book).resolve() {
            lines.append("Critique \(critique.id) stars=\(critique.stars) book=\(text(critique.book?.id))")
        }
        return lines.sorted()
    }
}
