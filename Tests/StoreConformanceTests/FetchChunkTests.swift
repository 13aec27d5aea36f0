import Foundation
import ObjectStack
import Testing

/// Fetches of more rows than a store hands over at once (`StoreRowStreaming.rowChunkSize`): every row arrives,
/// in order, with every value as it was saved, whatever the chunk boundaries, and objects the context had
/// already registered keep their identity and unsaved changes.
@Suite("Fetch in chunks")
struct FetchChunkTests {
    /// Row counts around the chunk size: none, one, a chunk less one, a chunk, a chunk and one, several chunks.
    static let sizes = [0, 1, 255, 256, 257, 600]

    /// Every attribute kind of a book, a function of its number, with nils, empty and non-ASCII strings.
    struct Expected: Equatable {
        var title, subtitle: String?
        var pages, rank, sales: Int64?
        var price: Decimal?
        var weight, score: Double?
        var inPrint: Bool?
        var published: Date?
        var cover: Data?
        var isbn: UUID?
        var site: URL?
        var author: String?

        init(_ number: Int) {
            title = number % 7 == 0 ? "" : "Book \(number) — \(String(repeating: "é", count: number % 40))"
            subtitle = number % 3 == 0 ? nil : String(repeating: "s", count: number % 200)
            pages = Int64(number)
            rank = number % 5 == 0 ? nil : Int64(number % 300)
            sales = number % 2 == 0 ? -Int64(number) * 1_000_003 : Int64.max - Int64(number)
            price = number % 4 == 0 ? nil : Decimal(string: "\(number).25")
            weight = Double(number) / 2
            score = number % 6 == 0 ? nil : Double(number) * 0.001
            inPrint = number % 2 == 0
            published = number % 8 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(number) * 86_400.5)
            cover = number % 9 == 0 ? nil : Data((0..<(number % 50)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            isbn = number % 10 == 0 ? nil : UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))
            site = number % 11 == 0 ? nil : URL(string: "https://example.com/books/\(number)?q=%20")
            author = number % 3 == 1 ? "author \(number % 5)" : nil
        }

        init(reading book: Book) {
            title = book.value(forKey: "title") as? String
            subtitle = book.value(forKey: "subtitle") as? String
            pages = (book.value(forKey: "pages") as? NSNumber)?.int64Value
            rank = (book.value(forKey: "rank") as? NSNumber)?.int64Value
            sales = (book.value(forKey: "sales") as? NSNumber)?.int64Value
            price = book.value(forKey: "price") as? Decimal
            weight = (book.value(forKey: "weight") as? NSNumber)?.doubleValue
            score = (book.value(forKey: "score") as? NSNumber)?.doubleValue
            inPrint = book.value(forKey: "inPrint") as? Bool
            published = book.value(forKey: "published") as? Date
            cover = book.value(forKey: "cover") as? Data
            isbn = book.value(forKey: "isbn") as? UUID
            site = book.value(forKey: "site") as? URL
            author = book.author?.name
        }
    }

    /// Saves `count` books (numbers 0..<count) and returns a separate stack on the same store, whose fetches
    /// read the rows from the store rather than from the saving coordinator's cache.
    static func seeded(_ kind: StoreType, count: Int) throws -> TestStack {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let authors = (0..<5).map { number -> Author in
                let author = Author(context: context)
                author.name = "author \(number)"
                return author
            }
            for number in 0..<count {
                let expected = Expected(number)
                let book = Book(context: context)
                try book.setValue(expected.title, forKey: "title")
                try book.setValue(expected.subtitle, forKey: "subtitle")
                try book.setValue(expected.pages.map { Int($0) }, forKey: "pages")
                try book.setValue(expected.rank.map { Int($0) }, forKey: "rank")
                try book.setValue(expected.sales.map { Int($0) }, forKey: "sales")
                try book.setValue(expected.price, forKey: "price")
                try book.setValue(expected.weight, forKey: "weight")
                try book.setValue(expected.score, forKey: "score")
                try book.setValue(expected.inPrint, forKey: "inPrint")
                try book.setValue(expected.published, forKey: "published")
                try book.setValue(expected.cover, forKey: "cover")
                try book.setValue(expected.isbn, forKey: "isbn")
                try book.setValue(expected.site, forKey: "site")
                if expected.author != nil { book.author = authors[number % 5] }
            }
            try context.save()
        }
        return kind == .inMemory ? stack : try stack.separateStack()
    }

    @Test(
        "every row of a fetch arrives in order with every value as saved, across chunk boundaries",
        arguments: StoreType.allCases, sizes)
    func everyRowEveryValue(kind: StoreType, count: Int) throws {
        let stack = try Self.seeded(kind, count: count)
        let context = stack.newContext()
        try context.performAndWait {
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("pages")]
            let books = try context.fetch(request)
            #expect(books.count == count)
            #expect(Set(books.map(ObjectIdentifier.init)).count == count, "one object per row")
            for (number, book) in books.enumerated() {
                #expect(book.isFault, "fetched as a fault (returnsObjectsAsFaults)")
                let read = Expected(reading: book)
                #expect(read == Expected(number), "book \(number)")
                if read != Expected(number) { break }
            }
        }
    }

    @Test(
        "offset and limit cut the same window whatever the chunk boundaries",
        arguments: StoreType.allCases, [(0, 256), (255, 2), (256, 0), (100, 300), (599, 10)])
    func window(kind: StoreType, window: (offset: Int, limit: Int)) throws {
        let stack = try Self.seeded(kind, count: 600)
        let context = stack.newContext()
        try context.performAndWait {
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("pages", ascending: false)]
            request.fetchOffset = window.offset
            request.fetchLimit = window.limit
            let pages = try context.fetch(request).map(\.pages)
            let all = Array((0..<600).reversed()).dropFirst(window.offset)
            #expect(pages == Array(window.limit > 0 ? all.prefix(window.limit) : all))
        }
    }

    @Test(
        "objects registered before the fetch keep their identity and unsaved changes; others get their values",
        arguments: StoreType.allCases)
    func registeredObjectsKept(kind: StoreType) throws {
        let stack = try Self.seeded(kind, count: 600)
        let context = stack.newContext()
        try context.performAndWait {
            // Objects from the second and third chunks, one changed, registered before the fetch.
            var early = FetchRequest<Book>(entityName: "Book")
            early.predicate = try FetchPredicate(format: "pages IN %@", argumentArray: [[300, 520]])
            early.sortDescriptors = [SortKey("pages")]
            let registered = try context.fetch(early)
            registered[0].title = "changed"
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("pages")]
            request.returnsObjectsAsFaults = false
            let books = try context.fetch(request)
            #expect(books.count == 600)
            #expect(books[300] === registered[0] && books[520] === registered[1])
            #expect(books[300].title == "changed" && books[300].hasChanges)
            #expect(books[520].title == Expected(520).title)
            #expect(books.allSatisfy { !$0.isFault }, "returnsObjectsAsFaults = false gives every object its values")
            #expect(context.registeredObjects.count == 600)
        }
    }
}
