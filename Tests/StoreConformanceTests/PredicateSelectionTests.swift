import Foundation
import ObjectStack
import Testing

/// Which objects each predicate selects from one fixed library, on every store and through the context.
///
/// Every case names the exact set it must select (by each object's unique title or name), and the library
/// is built so that a plausible mistake (case-sensitive `[c]`, a locale-aware string order, `nil` matching an
/// ordering comparison, `ALL` false on an empty collection, an unanchored `MATCHES`…) selects another set.
/// The same table runs on saved data (the store evaluates) and on unsaved data (the context evaluates).
@Suite("Predicate selection")
struct PredicateSelectionTests {
    @Test(
        "each predicate selects exactly its objects from a saved library",
        arguments: StoreType.allCases, PredicateCase.all)
    func savedSelection(kind: StoreType, testCase: PredicateCase) throws {
        let stack = try PredicateFixture.savedStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try Self.check(testCase, in: context)
        }
    }

    @Test(
        "each predicate selects the same objects from unsaved inserts",
        arguments: StoreType.allCases, PredicateCase.all)
    func unsavedSelection(kind: StoreType, testCase: PredicateCase) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try PredicateFixture.insert(into: context)
            var storeOnly = FetchRequest<ManagedObject>(entityName: testCase.entity)
            storeOnly.includesPendingChanges = false
            #expect(try context.fetch(storeOnly).isEmpty, "nothing is saved: the context evaluates every case")
            try Self.check(testCase, in: context)
        }
    }

    @Test(
        "a saved object changed in memory routes fetches through the context, on its unsaved values",
        arguments: StoreType.allCases)
    func changedInMemory(kind: StoreType) throws {
        let stack = try PredicateFixture.savedStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let zebra = try #require(try context.all(Book.self, "Book", where: "title == 'Zebra'").first)
            // An attribute no case reads: every Book case now runs on the context's objects, faulted from the store.
            try zebra.setValue(2.5, forKey: "weight")
            #expect(zebra.isUpdated)
            for testCase in PredicateCase.all where testCase.entity == "Book" {
                try Self.check(testCase, in: context)
            }

            let classic = try #require(try context.all(Tag.self, "Tag", where: "name == 'classic'").first)
            let bob = try #require(try context.all(Author.self, "Author", where: "name == 'Bob'").first)
            zebra.pages = 500
            zebra.tags = [classic]
            zebra.author = bob
            zebra.subtitle = "Stripes"
            #expect(try Self.select(Self.query("Book", "pages > 400"), in: context) == ["Zebra", "dune"])
            #expect(
                try Self.select(Self.query("Book", "pages > 400"), in: context, includesPendingChanges: false)
                    == ["dune"])
            #expect(
                try Self.select(Self.query("Book", "ANY tags.name == 'classic'"), in: context)
                    == ["Emile", "The Hobbit", "Zebra", "dune"])
            #expect(try Self.select(Self.query("Book", "author.name == 'Bob'"), in: context) == ["Emile", "Zebra"])
            #expect(
                try Self.select(Self.query("Book", "subtitle == nil"), in: context)
                    == ["apple pie", "dune", "Émile", "émile", "日本語"])
            #expect(
                try Self.select(Self.query("Book", "NOT (ALL tags.name == 'French')"), in: context)
                    == PredicateFixture.allBooks.subtracting(["Émile", "émile", "日本語"]))
            #expect(try Self.select(Self.query("Author", "books.@count > 1"), in: context) == ["Alice", "Bob", "Dana"])
            #expect(try Self.select(Self.query("Author", "books.@max.pages > 450"), in: context) == ["Bob"])
            #expect(try Self.select(Self.query("Tag", "books.@count > 3"), in: context) == ["classic"])
        }
    }

    @Test(
        "a predicate with sort keys, limit and offset returns the expected prefix",
        arguments: StoreType.allCases, [false, true])
    func sortedPrefix(kind: StoreType, unsaved: Bool) throws {
        let stack = try unsaved ? TestStack(kind) : PredicateFixture.savedStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            if unsaved { try PredicateFixture.insert(into: context) }
            var request = FetchRequest<Book>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "inPrint == YES")
            request.sortDescriptors = [SortKey("pages", ascending: false)]
            request.fetchLimit = 3
            #expect(try context.fetch(request).map(\.title) == ["dune", "The Hobbit", "日本語"])
            #expect(try context.count(for: request) == 3)

            request.predicate = try FetchPredicate(format: "title BEGINSWITH[cd] %@", "e")
            request.sortDescriptors = [SortKey("title")]
            request.fetchOffset = 1
            request.fetchLimit = 2
            #expect(try context.fetch(request).map(\.title) == ["Émile", "émile"], "code-point order: E < É < é")

            request.predicate = try FetchPredicate(format: "ANY tags.name IN %@", ["French", "food"])
            request.sortDescriptors = [SortKey("author.name"), SortKey("pages", ascending: false)]
            request.fetchOffset = 0
            request.fetchLimit = 4
            #expect(
                try context.fetch(request).map(\.title) == ["Émile", "Emile", "Noir Café", "apple pie"],
                "no author (nil) first, then Bob, then Dana's books by pages descending")
            request.fetchLimit = 2
            #expect(try context.fetch(request).map(\.title) == ["Émile", "Emile"])
        }
    }

    @Test(
        "LIKE matches a literal * or ? escaped with a backslash, in the format or in an argument",
        arguments: StoreType.allCases, [false, true])
    func likeEscapes(kind: StoreType, unsaved: Bool) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for name in ["a*b", "axb", "a?b", "a\\b", "ab"] {
                let publisher = Publisher(context: context)
                publisher.name = name
            }
            if !unsaved { try context.save() }
            func names(_ format: String, _ arguments: Any...) throws -> Set<String> {
                var request = FetchRequest<ManagedObject>(entityName: "Publisher")
                request.predicate = try FetchPredicate(format: format, argumentArray: arguments)
                return Set(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String })
            }
            #expect(try names("name LIKE 'a*b'") == ["a*b", "axb", "a?b", "a\\b", "ab"])
            // A backslash in the format (written twice in Swift) escapes the star, with or without doubling.
            #expect(try names("name LIKE 'a\\*b'") == ["a*b"])
            #expect(try names("name LIKE 'a\\\\*b'") == ["a*b"])
            #expect(try names("name LIKE %@", "a\\*b") == ["a*b"])
            #expect(try names("name LIKE %@", "a\\?b") == ["a?b"])
            #expect(try names("name LIKE 'a?b'") == ["a*b", "axb", "a?b", "a\\b"])
            #expect(try names("name LIKE[c] %@", "A\\**") == ["a*b"])
            #expect(try names("name LIKE %@", "a\\\\b") == ["a\\b"])
            #expect(try names("name LIKE %@", "a\\x*") == ["axb"], "an escaped ordinary character is itself")
            #expect(try names("name LIKE %@", "ab\\") == [], "a trailing backslash is a literal backslash")
        }
    }

    @Test(
        "arithmetic on a collection, or on strings, is a type error naming the expression",
        arguments: StoreType.allCases)
    func arithmeticTypeErrors(kind: StoreType) throws {
        let stack = try PredicateFixture.savedStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for (format, culprit) in [
                ("ANY tags.name + 1 == 2", "'tags.name' is a collection"),
                ("chapters.number * 2 > 1", "'chapters.number' is a collection"),
                ("pages + title > 1", "'title' is a string"),
                ("title < 5", "cannot compare a string with a number"),
                ("tags[FIRST] + 1 > 1", "'tags[FIRST]' is an object"),
            ] {
                var request = FetchRequest<Book>(entityName: "Book")
                request.predicate = try FetchPredicate(format: format)
                let error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
                #expect(error.code == .typeMismatch && error.message.contains(culprit), "\(format): \(error.message)")
            }
            var request = FetchRequest<Book>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "title[FIRST] == nil")
            let error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
            #expect(error.code == .unknownKeyPath && error.message.contains("needs a to-many relationship"))
        }
    }

    // MARK: - Helpers

    /// Checks one case in a context.
    private static func check(_ testCase: PredicateCase, in context: ManagedObjectContext) throws {
        let selected = try fetchNames(testCase, in: context, includesPendingChanges: true)
        #expect(Set(selected) == testCase.expected, "\(testCase.entity): \(testCase.format)")
        #expect(selected.count == Set(selected).count, "each object is selected once: \(selected)")
    }

    /// A query without arguments, for the ad-hoc checks.
    private static func query(_ entity: String, _ format: String) -> PredicateCase {
        PredicateCase(entity: entity, format: format, arguments: [], expected: [])
    }

    /// The unique names of the objects a case's predicate selects, as a set.
    private static func select(
        _ testCase: PredicateCase, in context: ManagedObjectContext, includesPendingChanges: Bool = true
    ) throws -> Set<String> {
        Set(try fetchNames(testCase, in: context, includesPendingChanges: includesPendingChanges))
    }

    /// The unique names of the objects a case's predicate selects, in fetch order.
    private static func fetchNames(
        _ testCase: PredicateCase, in context: ManagedObjectContext, includesPendingChanges: Bool
    ) throws -> [String] {
        let arguments = try testCase.arguments.map { try $0.resolved(in: context) }
        var request = FetchRequest<ManagedObject>(entityName: testCase.entity)
        request.predicate = try FetchPredicate(format: testCase.format, argumentArray: arguments)
        request.includesPendingChanges = includesPendingChanges
        return try context.fetch(request).map(PredicateFixture.name(of:))
    }
}

/// A format argument of a case: a plain value, or fixture objects named by their unique title or name and
/// looked up in the context the case runs in (so that one table serves saved and unsaved data).
enum CaseArgument: Sendable {
    case value(any Sendable)
    case object(entity: String, name: String)
    case objects(entity: String, names: [String])

    static func book(_ title: String) -> CaseArgument { .object(entity: "Book", name: title) }
    static func books(_ titles: [String]) -> CaseArgument { .objects(entity: "Book", names: titles) }
    static func author(_ name: String) -> CaseArgument { .object(entity: "Author", name: name) }
    static func authors(_ names: [String]) -> CaseArgument { .objects(entity: "Author", names: names) }
    static func tag(_ name: String) -> CaseArgument { .object(entity: "Tag", name: name) }
    static func animal(_ name: String) -> CaseArgument { .object(entity: "Animal", name: name) }
    static func year(_ year: Int) -> CaseArgument { .value(PredicateFixture.date(year)) }
    static func years(_ first: Int, _ second: Int) -> CaseArgument {
        .value([PredicateFixture.date(first), PredicateFixture.date(second)])
    }
    static func decimal(_ text: String) -> CaseArgument { .value(PredicateFixture.decimal(text)) }

    /// The value to pass to `FetchPredicate(format:argumentArray:)`.
    func resolved(in context: ManagedObjectContext) throws -> Any {
        switch self {
        case .value(let value): return value
        case .object(let entity, let name): return try PredicateFixture.lookUp(entity, name, in: context)
        case .objects(let entity, let names):
            return try names.map { try PredicateFixture.lookUp(entity, $0, in: context) }
        }
    }
}

/// One row of the table: a predicate on an entity and the exact objects it selects.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    let entity: String
    let format: String
    let arguments: [CaseArgument]
    /// The unique titles (books) or names (everything else) of the objects selected.
    let expected: Set<String>

    var testDescription: String { "\(entity): \(format)" }

    private static func book(
        _ format: String, _ arguments: CaseArgument..., selects expected: Set<String>
    ) -> PredicateCase {
        PredicateCase(entity: "Book", format: format, arguments: arguments, expected: expected)
    }

    private static func author(
        _ format: String, _ arguments: CaseArgument..., selects expected: Set<String>
    ) -> PredicateCase {
        PredicateCase(
            entity: "Author", format: format, arguments: arguments, expected: expected)
    }

    private static func tag(
        _ format: String, _ arguments: CaseArgument..., selects expected: Set<String>
    ) -> PredicateCase {
        PredicateCase(entity: "Tag", format: format, arguments: arguments, expected: expected)
    }

    private static func on(
        _ entity: String, _ format: String, _ arguments: CaseArgument..., selects expected: Set<String>
    ) -> PredicateCase {
        PredicateCase(entity: entity, format: format, arguments: arguments, expected: expected)
    }

    /// Every book but the given ones.
    private static func booksExcept(_ titles: Set<String>) -> Set<String> {
        PredicateFixture.allBooks.subtracting(titles)
    }

    /// The whole table.
    static let all: [PredicateCase] =
        comparisons + nils + membership + strings + compounds + placeholders
        + keyPaths + toMany + authors + tags + animals + unlikeKinds + arithmetic + subscripts

    /// `== != < <= > >=` on strings, integers, doubles, decimals, booleans and dates.
    static let comparisons: [PredicateCase] = [
        book("title == 'Emile'", selects: ["Emile"]),
        book("title != 'Emile'", selects: booksExcept(["Emile"])),
        // Code-point order: every uppercase ASCII letter sorts before 'a', accented letters after 'z'.
        book("title < 'a'", selects: ["Dune Messiah", "Emile", "Noir Café", "The Hobbit", "Zebra"]),
        book("title > 'z'", selects: ["Émile", "émile", "日本語"]),
        book("title >= 'dune'", selects: ["dune", "Émile", "émile", "日本語"]),
        book("title <= 'Emile'", selects: ["Dune Messiah", "Emile"]),
        book("title ==[c] 'emile'", selects: ["Emile"]),
        book("title ==[d] 'emile'", selects: ["émile"]),
        book("title ==[cd] 'EMILE'", selects: ["Emile", "Émile", "émile"]),
        book("title <[c] 'b'", selects: ["apple pie"]),
        book("pages == 100", selects: ["Emile", "Émile"]),
        book("pages != 100", selects: booksExcept(["Emile", "Émile"])),
        book("pages < 99", selects: ["Zebra", "apple pie"]),
        book("pages <= 99", selects: ["Zebra", "apple pie", "émile"]),
        book("pages > 300", selects: ["The Hobbit", "dune"]),
        book("pages >= 300", selects: ["The Hobbit", "dune", "日本語"]),
        // An integer attribute against a double constant: by value, neither truncated nor rounded.
        book("pages == 100.0", selects: ["Emile", "Émile"]),
        book("pages > 99.5", selects: booksExcept(["Zebra", "apple pie", "émile"])),
        book("pages < 99.5", selects: ["Zebra", "apple pie", "émile"]),
        book("score == 3", selects: ["Emile", "Émile"]),
        book("score >= 4.5", selects: ["The Hobbit", "dune", "日本語"]),
        book("score < 2.5", selects: ["Zebra", "émile"]),
        book("price > 10", selects: ["Dune Messiah", "The Hobbit", "Émile", "émile", "日本語"]),
        book("price == %@", .decimal("9.99"), selects: ["Emile", "dune"]),
        book("price <= 7.25", selects: ["Noir Café", "Zebra", "apple pie"]),
        book("price >= %@", .value(15.0), selects: ["The Hobbit", "Émile", "日本語"]),
        book("inPrint == YES", selects: booksExcept(["Emile", "Zebra", "émile"])),
        book("inPrint == NO", selects: ["Emile", "Zebra", "émile"]),
        book("inPrint != %@", .value(true), selects: ["Emile", "Zebra", "émile"]),
        book("inPrint == 1 AND pages < 100", selects: ["apple pie"]),
        book("published < %@", .year(1900), selects: ["Emile", "Émile"]),
        book("published >= %@", .year(2001), selects: ["Noir Café", "apple pie", "日本語"]),
        book("published == %@", .year(1965), selects: ["dune"]),
    ]

    /// `nil` equals only `nil`; ordering comparisons with `nil` are false.
    static let nils: [PredicateCase] = [
        book("rank == nil", selects: ["Emile", "Zebra", "Émile"]),
        book("rank != nil", selects: booksExcept(["Emile", "Zebra", "Émile"])),
        book("rank < 3", selects: ["Dune Messiah", "The Hobbit"]),
        book("rank != 3", selects: booksExcept(["dune", "日本語"])),
        book("NOT (rank >= 3)", selects: ["Dune Messiah", "The Hobbit", "Emile", "Zebra", "Émile"]),
        book("rank >= nil", selects: []),
        // An ordering with nil under OR, NOT and BETWEEN: false where the value is nil, so its negation holds there.
        book("rank > 4 OR pages < 50", selects: ["Noir Café", "apple pie", "Zebra"]),
        book("NOT (rank > 2 OR pages > 300)", selects: ["Dune Messiah", "Emile", "Zebra", "Émile"]),
        book("rank BETWEEN {2, 4}", selects: ["The Hobbit", "dune", "émile", "日本語"]),
        book(
            "NOT (rank BETWEEN {2, 4})", selects: ["Dune Messiah", "Emile", "Noir Café", "Zebra", "apple pie", "Émile"]),
        book("NOT (rank < 3) AND pages >= 100", selects: ["Emile", "Noir Café", "dune", "Émile", "日本語"]),
        book("published == nil", selects: ["Zebra"]),
        book("subtitle == nil", selects: ["Zebra", "apple pie", "dune", "Émile", "émile", "日本語"]),
        book("subtitle == ''", selects: ["Noir Café"]),
        book("subtitle CONTAINS[c] 'on'", selects: ["Dune Messiah", "Emile"]),
        book("author == nil", selects: ["Zebra", "Émile", "émile", "日本語"]),
        book("author != nil", selects: ["Dune Messiah", "Emile", "Noir Café", "The Hobbit", "apple pie", "dune"]),
        book("author.name == nil", selects: ["Zebra", "Émile", "émile", "日本語"]),
        book("publisher == nil", selects: booksExcept(["Dune Messiah", "dune", "日本語"])),
    ]

    /// `IN` (a list literal, an array argument, a string) and `BETWEEN`.
    static let membership: [PredicateCase] = [
        book("title IN {'dune', 'Zebra', 'Nothing'}", selects: ["dune", "Zebra"]),
        book("title IN[c] {'DUNE', 'zebra'}", selects: ["dune", "Zebra"]),
        book("title IN %@", .value(["Emile", "émile", "nope"]), selects: ["Emile", "émile"]),
        book("pages IN {42, 412, 7}", selects: ["Zebra", "dune"]),
        book("rank IN %@", .value([1, 2]), selects: ["Dune Messiah", "The Hobbit"]),
        book("rank IN {5, nil}", selects: ["Noir Café", "Emile", "Zebra", "Émile"]),
        // With a string on the right, IN is "is a substring of".
        book("title IN 'the dune saga'", selects: ["dune"]),
        book("title IN[c] 'THE HOBBIT AND DUNE'", selects: ["The Hobbit", "dune"]),
        book("pages BETWEEN {99, 180}", selects: ["Emile", "Noir Café", "Émile", "émile"]),
        book("rank BETWEEN {2, 4}", selects: ["The Hobbit", "dune", "émile", "日本語"]),
        book("title BETWEEN {'E', 'Z'}", selects: ["Emile", "Noir Café", "The Hobbit"]),
        book(
            "price BETWEEN %@", .value([PredicateFixture.decimal("9.99"), PredicateFixture.decimal("12.5")]),
            selects: ["Emile", "Dune Messiah", "dune", "émile"]),
        book("published BETWEEN %@", .years(1930, 1970), selects: ["Dune Messiah", "The Hobbit", "dune"]),
    ]

    /// `BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES`, each plain and with `[c]`, `[d]`, `[cd]`.
    static let strings: [PredicateCase] = [
        book("title BEGINSWITH 'D'", selects: ["Dune Messiah"]),
        book("title BEGINSWITH[c] 'd'", selects: ["Dune Messiah", "dune"]),
        book("title BEGINSWITH[d] 'E'", selects: ["Emile", "Émile"]),
        book("title BEGINSWITH[cd] 'É'", selects: ["Emile", "Émile", "émile"]),
        book("title ENDSWITH 'ile'", selects: ["Emile", "Émile", "émile"]),
        book("title ENDSWITH 'Cafe'", selects: []),
        book("title ENDSWITH[c] 'CAFÉ'", selects: ["Noir Café"]),
        book("title ENDSWITH[d] 'Cafe'", selects: ["Noir Café"]),
        book("title ENDSWITH[cd] 'CAFE'", selects: ["Noir Café"]),
        book("title CONTAINS 'un'", selects: ["Dune Messiah", "dune"]),
        book("title CONTAINS 'é'", selects: ["Noir Café", "émile"]),
        book("title CONTAINS[c] 'HOB'", selects: ["The Hobbit"]),
        book("title CONTAINS[c] 'É'", selects: ["Noir Café", "Émile", "émile"]),
        book("title CONTAINS[d] 'fe'", selects: ["Noir Café"]),
        book("title CONTAINS[cd] 'EMI'", selects: ["Emile", "Émile", "émile"]),
        book("title CONTAINS '本'", selects: ["日本語"]),
        book("title LIKE '?une'", selects: ["dune"]),
        book("title LIKE 'E*'", selects: ["Emile"]),
        book("title LIKE '*'", selects: PredicateFixture.allBooks),
        book("title LIKE '日?語'", selects: ["日本語"]),
        book("title LIKE[c] '*UNE*'", selects: ["Dune Messiah", "dune"]),
        book("title LIKE[d] 'E*e'", selects: ["Emile", "Émile"]),
        book("title LIKE[cd] '?MIL?'", selects: ["Emile", "Émile", "émile"]),
        book("title MATCHES '[A-Z].*'", selects: ["Dune Messiah", "Emile", "Noir Café", "The Hobbit", "Zebra"]),
        // Anchored: '.une' must match the whole title, so "Dune Messiah" is out.
        book("title MATCHES '.une'", selects: ["dune"]),
        book("title MATCHES[c] 'é.*'", selects: ["Émile", "émile"]),
        book("title MATCHES[d] 'E.*'", selects: ["Emile", "Émile"]),
        book("title MATCHES[cd] 'emile'", selects: ["Emile", "Émile", "émile"]),
    ]

    /// `AND OR NOT`, nesting, `TRUEPREDICATE`, `FALSEPREDICATE`.
    static let compounds: [PredicateCase] = [
        book("pages >= 100 AND inPrint == NO", selects: ["Emile"]),
        book("pages < 50 OR pages > 400", selects: ["Zebra", "dune"]),
        book("NOT (title BEGINSWITH[c] 'd')", selects: booksExcept(["Dune Messiah", "dune"])),
        book(
            "(inPrint == YES AND price < 10) OR (rank == nil AND pages < 100)",
            selects: ["Noir Café", "apple pie", "dune", "Zebra"]),
        book(
            "NOT (pages > 50 AND (score < 3 OR rank == nil))",
            selects: ["Dune Messiah", "The Hobbit", "Zebra", "apple pie", "dune", "日本語"]),
        book(
            "inPrint == YES AND NOT (ANY tags.name == 'classic') AND author != nil",
            selects: ["Dune Messiah", "Noir Café", "apple pie"]),
        book("NOT NOT pages == 42", selects: ["Zebra"]),
        book("TRUEPREDICATE", selects: PredicateFixture.allBooks),
        book("FALSEPREDICATE", selects: []),
        book("FALSEPREDICATE OR title == 'dune'", selects: ["dune"]),
        book("TRUEPREDICATE AND NOT FALSEPREDICATE AND pages == 42", selects: ["Zebra"]),
    ]

    /// `%@ %d %f %K`.
    static let placeholders: [PredicateCase] = [
        book("pages > %d", .value(300), selects: ["The Hobbit", "dune"]),
        book("score >= %f", .value(4.2), selects: ["Dune Messiah", "The Hobbit", "dune", "日本語"]),
        book("%K == %@", .value("title"), .value("Zebra"), selects: ["Zebra"]),
        book("%K.name == %@", .value("author"), .value("Dana"), selects: ["Noir Café", "apple pie"]),
        book("%K > %d", .value("rank"), .value(4), selects: ["Noir Café", "apple pie"]),
        book("title BEGINSWITH[cd] %@ AND pages < %d", .value("E"), .value(100), selects: ["émile"]),
        book("SELF == %@", .book("Zebra"), selects: ["Zebra"]),
        book("SELF IN %@", .books(["dune", "日本語"]), selects: ["dune", "日本語"]),
        book("NOT (SELF IN %@)", .books(["dune", "日本語"]), selects: booksExcept(["dune", "日本語"])),
        book("author == %@", .author("Dana"), selects: ["Noir Café", "apple pie"]),
        book(
            "author != %@", .author("Alice"),
            selects: booksExcept(["Dune Messiah", "The Hobbit", "dune"])),
    ]

    /// Key paths through to-one relationships, and through a to-one then a to-many.
    static let keyPaths: [PredicateCase] = [
        book("author.name == 'Alice'", selects: ["Dune Messiah", "The Hobbit", "dune"]),
        book("author.name BEGINSWITH[c] 'b'", selects: ["Emile"]),
        book("author.rating >= 2", selects: ["Dune Messiah", "The Hobbit", "dune", "Noir Café", "apple pie"]),
        book("author.born < %@", .year(1950), selects: ["Dune Messiah", "The Hobbit", "dune"]),
        book("publisher.name == 'Orbit'", selects: ["Dune Messiah", "dune", "日本語"]),
        book("ANY author.books.pages > 400", selects: ["Dune Messiah", "The Hobbit", "dune"]),
        book("author.books.@count >= 2", selects: ["Dune Messiah", "The Hobbit", "dune", "Noir Café", "apple pie"]),
        book("ANY author.books.tags.name == 'food'", selects: ["Noir Café", "apple pie"]),
    ]

    /// `ANY ALL NONE` over to-many relationships, aggregates, `SUBQUERY` and membership of objects.
    static let toMany: [PredicateCase] = [
        book("ANY tags.name == 'classic'", selects: ["Emile", "The Hobbit", "dune"]),
        book("SOME tags.name == 'scifi'", selects: ["Dune Messiah", "dune"]),
        book("ANY tags.name ==[c] 'french'", selects: ["Emile", "Noir Café", "Émile"]),
        book("ANY tags.name BEGINSWITH 'f'", selects: ["Noir Café", "The Hobbit", "apple pie"]),
        // ALL is true, NONE is true, on a book without tags.
        book("ALL tags.name == 'French'", selects: ["Émile", "Zebra", "émile", "日本語"]),
        book("NONE tags.name == 'classic'", selects: booksExcept(["Emile", "The Hobbit", "dune"])),
        book(
            "NONE tags.name IN {'scifi', 'food'}",
            selects: ["Emile", "The Hobbit", "Zebra", "Émile", "émile", "日本語"]),
        book("NOT (ANY tags.name == 'French')", selects: booksExcept(["Emile", "Noir Café", "Émile"])),
        book("tags.@count == 0", selects: ["Zebra", "émile", "日本語"]),
        book("tags.@count >= 2", selects: ["Emile", "Noir Café", "The Hobbit", "dune"]),
        book("tags CONTAINS %@", .tag("scifi"), selects: ["Dune Messiah", "dune"]),
        book("%@ IN tags", .tag("food"), selects: ["Noir Café", "apple pie"]),
        book("ANY chapters.number > 10", selects: ["The Hobbit"]),
        book("ALL chapters.number < 4", selects: booksExcept(["The Hobbit", "Zebra"])),
        book("NONE chapters.number == 1", selects: booksExcept(["Dune Messiah", "The Hobbit", "dune"])),
        book("chapters.@count == 3", selects: ["Dune Messiah", "The Hobbit"]),
        book("chapters.@sum.number == 6", selects: ["Dune Messiah"]),
        book("chapters.@sum.number == 0", selects: booksExcept(["Dune Messiah", "The Hobbit", "Zebra", "dune"])),
        book("chapters.@max.number > 4", selects: ["The Hobbit", "Zebra"]),
        book("chapters.@min.number == 1", selects: ["Dune Messiah", "The Hobbit", "dune"]),
        // 22 / 3 = 7.33: an integer average (7) would select nothing.
        book("chapters.@avg.number > 7.2", selects: ["The Hobbit"]),
        book(
            "SUBQUERY(chapters, $c, $c.number > 2 AND $c.number < 10).@count > 0", selects: ["Dune Messiah", "Zebra"]),
        book("SUBQUERY(tags, $t, $t.name BEGINSWITH[c] 'f').@count >= 2", selects: ["Noir Café"]),
        book(
            "SUBQUERY(tags, $t, $t.name == 'classic').@count == 0",
            selects: booksExcept(["Emile", "The Hobbit", "dune"])),
        // Inside a SUBQUERY a key path without the variable is the evaluated object's (the book's rank), as in
        // NSPredicate; nil ranks compare false.
        book("SUBQUERY(chapters, $c, $c.number > rank).@count > 0", selects: ["Dune Messiah", "The Hobbit"]),
    ]

    /// Authors: none, one and several books.
    static let authors: [PredicateCase] = [
        author("books.@count == 0", selects: ["Chloé"]),
        author("books.@count == 1", selects: ["Bob"]),
        author("books.@count > 1", selects: ["Alice", "Dana"]),
        author("ANY books.title CONTAINS[c] 'une'", selects: ["Alice"]),
        author("ALL books.inPrint == YES", selects: ["Alice", "Chloé", "Dana"]),
        author("NONE books.pages < 100", selects: ["Alice", "Bob", "Chloé"]),
        author("books.@sum.pages > 500", selects: ["Alice"]),
        author("books.@avg.price < 10", selects: ["Bob", "Dana"]),
        author("books.@max.published > %@", .year(2010), selects: ["Dana"]),
        author("books.@min.title == 'Dune Messiah'", selects: ["Alice"]),
        author("books.@min.pages < 100", selects: ["Dana"]),
        author("name ==[cd] 'chloe'", selects: ["Chloé"]),
        author("name > 'C'", selects: ["Chloé", "Dana"]),
        author("born == nil", selects: ["Bob"]),
        author("born BETWEEN %@", .years(1900, 1977), selects: ["Alice", "Dana"]),
        author("rating == 1.5", selects: ["Bob"]),
        author("agent.name == 'Max'", selects: ["Alice"]),
        author("agent == nil", selects: ["Bob", "Chloé", "Dana"]),
        author("SUBQUERY(books, $b, $b.inPrint == YES AND $b.pages > 200).@count >= 2", selects: ["Alice"]),
        author("SUBQUERY(books, $b, ANY $b.tags.name == 'French').@count > 0", selects: ["Bob", "Dana"]),
        author("SUBQUERY(books, $b, $b.pages < 100).@count == 0", selects: ["Alice", "Bob", "Chloé"]),
        author("SUBQUERY(books, $b, $b.pages > rating * 100).@count > 0", selects: ["Alice"]),
        author("SUBQUERY(books, $b, $b.author.name == 'Alice').@count == 3", selects: ["Alice"]),
        author("ANY books.tags.name == 'food'", selects: ["Dana"]),
        author("books CONTAINS %@", .book("Emile"), selects: ["Bob"]),
        author("SELF == %@", .author("Chloé"), selects: ["Chloé"]),
        author("SELF IN %@", .authors(["Alice", "Chloé"]), selects: ["Alice", "Chloé"]),
    ]

    /// Tags: a many-to-many relationship seen from the other side.
    static let tags: [PredicateCase] = [
        tag("books.@count == 0", selects: ["unused"]),
        tag("books.@count > 2", selects: ["classic", "French"]),
        tag("ANY books.title ==[c] 'DUNE'", selects: ["scifi", "classic"]),
        tag("ALL books.inPrint == YES", selects: ["scifi", "food", "fantasy", "unused"]),
        tag("NONE books.pages > 300", selects: ["French", "food", "unused"]),
        tag("ANY books.author.name == 'Dana'", selects: ["food", "French"]),
        tag("books.@sum.pages > 800", selects: ["classic"]),
        tag("name MATCHES 'f.*'", selects: ["food", "fantasy"]),
        tag("name MATCHES[c] 'f.*'", selects: ["food", "fantasy", "French"]),
        tag("name < 'a'", selects: ["French"]),
    ]

    /// `==`, `!=` and `IN` between a string and a number: unequal, as NSPredicate's isEqual: makes them.
    static let unlikeKinds: [PredicateCase] = [
        book("title == 5", selects: []),
        book("title != 5", selects: PredicateFixture.allBooks),
        book("pages == 'many'", selects: []),
        book("pages != 'many' AND pages > 300", selects: ["The Hobbit", "dune"]),
        book("subtitle != %@", .value(3), selects: PredicateFixture.allBooks),
        book("rank == %@", .value("3"), selects: []),
        book("title IN {1, 'dune', 2.5}", selects: ["dune"]),
        book("pages IN %@", .value(["42", 100] as [any Sendable]), selects: ["Emile", "Émile"]),
        book("title == %@", .value("dune"), .value("surplus"), .value(3), selects: ["dune"]),
    ]

    /// `+ - * /` with NSPredicate's precedence; integers divide as integers, nil and division by zero give nil.
    static let arithmetic: [PredicateCase] = [
        book("pages * 2 > 600", selects: ["The Hobbit", "dune"]),
        book("600 < 2 * pages", selects: ["The Hobbit", "dune"]),
        // Integer division truncates: 180 / 100 is 1. Floating point would select only the two Emiles.
        book("pages / 100 == 1", selects: ["Emile", "Noir Café", "Émile"]),
        book("pages / 100.0 == 1", selects: ["Emile", "Émile"]),
        book("pages / %@ == 1", .value(100.0), selects: ["Emile", "Émile"]),
        book("10 < pages / %d", .value(10), selects: ["Dune Messiah", "Noir Café", "The Hobbit", "dune", "日本語"]),
        // * before -: pages - 200 < 0, not (pages - 100) * 2 < 0.
        book("pages - 100 * 2 < 0", selects: ["Emile", "Noir Café", "Zebra", "apple pie", "Émile", "émile"]),
        book("(pages - 100) * 2 < 0", selects: ["Zebra", "apple pie", "émile"]),
        book("-pages < -400", selects: ["dune"]),
        book("pages + rank == 103", selects: ["émile"]),
        book("pages + rank == nil", selects: ["Emile", "Zebra", "Émile"]),
        book("pages / 0 == nil AND score / 0 == nil", selects: PredicateFixture.allBooks),
        book("pages / 0 >= 0", selects: []),
        book("price * 2 > 30", selects: ["Émile", "日本語"]),
        book("score * pages > 1000", selects: ["Dune Messiah", "The Hobbit", "dune", "日本語"]),
        book("score - 0.5 == 2", selects: ["Noir Café"]),
        book("inPrint + 1 == 2", selects: booksExcept(["Emile", "Zebra", "émile"])),
        book("author.rating * 2 >= 8", selects: ["Dune Messiah", "The Hobbit", "dune"]),
        // The sum of integers is an integer, so / 4 truncates: 6 / 4 and 5 / 4 are 1, 22 / 4 is 5.
        book("chapters.@sum.number / 4 == 1", selects: ["Dune Messiah", "Zebra"]),
        book("chapters.@count * 10 + tags.@count == 32", selects: ["The Hobbit"]),
        // 19 > 310 / 20 (15) and 5 > 42 / 20 (2).
        book("ANY chapters.number > pages / 20", selects: ["The Hobbit", "Zebra"]),
        book("SUBQUERY(chapters, $c, $c.number * 2 == 4).@count > 0", selects: ["Dune Messiah", "The Hobbit"]),
        author("books.@max.pages - books.@min.pages > 100", selects: ["Alice", "Dana"]),
    ]

    /// `[SIZE]`, `[FIRST]`, `[LAST]`, `[n]` on to-many relationships: members in primary-key order, which is
    /// insertion order here (tags: classic, scifi, French, food, fantasy, unused).
    static let subscripts: [PredicateCase] = [
        book("tags[SIZE] >= 2", selects: ["Emile", "Noir Café", "The Hobbit", "dune"]),
        book("tags[SIZE] == 0", selects: ["Zebra", "émile", "日本語"]),
        book("tags[SIZE] * 2 == 4", selects: ["Emile", "Noir Café", "The Hobbit", "dune"]),
        // dune was given [scifi, classic]; classic has the smaller key, so it is dune's first tag.
        book("tags[FIRST].name == 'classic'", selects: ["Emile", "The Hobbit", "dune"]),
        book("tags[LAST].name == 'scifi'", selects: ["Dune Messiah", "dune"]),
        book("tags[LAST].name == 'French'", selects: ["Emile", "Émile"]),
        book("tags[1].name == 'French'", selects: ["Emile"]),
        book("tags[1] == nil", selects: ["Dune Messiah", "Zebra", "apple pie", "Émile", "émile", "日本語"]),
        book("tags[%d].name == 'food'", .value(1), selects: ["Noir Café"]),
        book("tags[FIRST] == %@", .tag("food"), selects: ["apple pie"]),
        book("tags[0].name BEGINSWITH[c] 'f'", selects: ["Noir Café", "apple pie", "Émile"]),
        book("chapters[LAST].number > 10", selects: ["The Hobbit"]),
        book("chapters[FIRST].number == 1", selects: ["Dune Messiah", "The Hobbit", "dune"]),
        book("chapters[2].number == 3", selects: ["Dune Messiah"]),
        book("chapters[9].number == nil", selects: PredicateFixture.allBooks),
        book("author.books[LAST].title == 'apple pie'", selects: ["Noir Café", "apple pie"]),
        book("SUBQUERY(tags, $t, $t.name BEGINSWITH[c] 'f')[SIZE] >= 2", selects: ["Noir Café"]),
        author("books[SIZE] == 3", selects: ["Alice"]),
        author("books[FIRST].title == 'Dune Messiah' AND books[LAST].title == 'dune'", selects: ["Alice"]),
        author("books[LAST].tags[FIRST].name == 'food'", selects: ["Dana"]),
        author("SUBQUERY(books, $b, $b.tags[FIRST].name == 'classic')[SIZE] > 0", selects: ["Alice", "Bob"]),
        tag("ANY books.chapters[LAST].number == 19", selects: ["classic", "fantasy"]),
        // classic's first book is Emile (100 pages), not The Hobbit or dune.
        tag("books[FIRST].pages > 300", selects: ["fantasy"]),
    ]

    /// The abstract `Animal` and its sub-entities.
    static let animals: [PredicateCase] = [
        on("Animal", "TRUEPREDICATE", selects: ["Rex", "Fido", "Tom", "Felix"]),
        on("Animal", "name BEGINSWITH 'F'", selects: ["Fido", "Felix"]),
        on("Animal", "name IN %@", .value(["Rex", "Tom", "Garfield"]), selects: ["Rex", "Tom"]),
        on("Animal", "name LIKE '?e*'", selects: ["Rex", "Felix"]),
        on("Animal", "NOT (name ENDSWITH 'x')", selects: ["Fido", "Tom"]),
        on("Animal", "SELF == %@", .animal("Tom"), selects: ["Tom"]),
        on("Cat", "lives < 9", selects: ["Felix"]),
        on("Cat", "name == 'Rex'", selects: []),
        on("Dog", "breed == nil", selects: ["Fido"]),
        on("Dog", "name BEGINSWITH 'F' AND breed == nil", selects: ["Fido"]),
    ]
}

/// The fixed library the cases select from, and how to insert it, save it and find its objects again.
///
/// Books (titles sort by code point as listed in the comments of `allBooks`):
///
/// | title        | pages | price | score | rank | inPrint | published | author | tags            | chapters |
/// |--------------|-------|-------|-------|------|---------|-----------|--------|-----------------|----------|
/// | Dune Messiah | 256   | 12.5  | 4.2   | 1    | yes     | 1969      | Alice  | scifi           | 1 2 3    |
/// | Emile        | 100   | 9.99  | 3.0   | nil  | no      | 1762      | Bob    | classic French  |          |
/// | Noir Café    | 180   | 7.25  | 2.5   | 5    | yes     | 2001      | Dana   | food French     |          |
/// | The Hobbit   | 310   | 15    | 4.8   | 2    | yes     | 1937      | Alice  | classic fantasy | 1 2 19   |
/// | Zebra        | 42    | 3.5   | 1.0   | nil  | no      | nil       | nil    |                 | 5        |
/// | apple pie    | 64    | 0.99  | 3.9   | 7    | yes     | 2015      | Dana   | food            |          |
/// | dune         | 412   | 9.99  | 4.5   | 3    | yes     | 1965      | Alice  | scifi classic   | 1        |
/// | Émile        | 100   | 20    | 3.0   | nil  | yes     | 1850      | nil    | French          |          |
/// | émile        | 99    | 11    | 2.0   | 4    | no      | 1900      | nil    |                 |          |
/// | 日本語        | 300   | 25.5  | 5.0   | 3    | yes     | 2010      | nil    |                 |          |
///
/// Subtitles: "Dune Chronicles", "On Education", "" (Noir Café), "There and Back Again", nil for the rest.
/// Publisher Orbit: Dune Messiah, dune, 日本語. Authors: Alice (born 1920, rating 4, agent Max), Bob (born nil,
/// rating 1.5), Chloé (1980, 3, no books), Dana (1975, 2). Tag "unused" has no books. Animals: dogs Rex
/// (Collie) and Fido (no breed), cats Tom (9 lives) and Felix (3).
enum PredicateFixture {
    /// One book of the library.
    struct BookSeed: Sendable {
        let title: String
        let subtitle: String?
        let pages: Int
        let price: String
        let score: Double
        let rank: Int?
        let inPrint: Bool
        let published: Int?
        let author: String?
        let tags: [String]
        let chapters: [Int16]
        let publisher: String?
    }

    /// One author of the library.
    struct AuthorSeed: Sendable {
        let name: String
        let born: Int?
        let rating: Double?
        let agent: String?
    }

    static let books: [BookSeed] = [
        BookSeed(
            title: "Dune Messiah", subtitle: "Dune Chronicles", pages: 256, price: "12.5", score: 4.2, rank: 1,
            inPrint: true, published: 1969, author: "Alice", tags: ["scifi"], chapters: [1, 2, 3],
            publisher: "Orbit"),
        BookSeed(
            title: "Emile", subtitle: "On Education", pages: 100, price: "9.99", score: 3.0, rank: nil,
            inPrint: false, published: 1762, author: "Bob", tags: ["classic", "French"], chapters: [],
            publisher: nil),
        BookSeed(
            title: "Noir Café", subtitle: "", pages: 180, price: "7.25", score: 2.5, rank: 5,
            inPrint: true, published: 2001, author: "Dana", tags: ["food", "French"], chapters: [],
            publisher: nil),
        BookSeed(
            title: "The Hobbit", subtitle: "There and Back Again", pages: 310, price: "15", score: 4.8, rank: 2,
            inPrint: true, published: 1937, author: "Alice", tags: ["classic", "fantasy"], chapters: [1, 2, 19],
            publisher: nil),
        BookSeed(
            title: "Zebra", subtitle: nil, pages: 42, price: "3.5", score: 1.0, rank: nil,
            inPrint: false, published: nil, author: nil, tags: [], chapters: [5],
            publisher: nil),
        BookSeed(
            title: "apple pie", subtitle: nil, pages: 64, price: "0.99", score: 3.9, rank: 7,
            inPrint: true, published: 2015, author: "Dana", tags: ["food"], chapters: [],
            publisher: nil),
        BookSeed(
            title: "dune", subtitle: nil, pages: 412, price: "9.99", score: 4.5, rank: 3,
            inPrint: true, published: 1965, author: "Alice", tags: ["scifi", "classic"], chapters: [1],
            publisher: "Orbit"),
        BookSeed(
            title: "Émile", subtitle: nil, pages: 100, price: "20", score: 3.0, rank: nil,
            inPrint: true, published: 1850, author: nil, tags: ["French"], chapters: [],
            publisher: nil),
        BookSeed(
            title: "émile", subtitle: nil, pages: 99, price: "11", score: 2.0, rank: 4,
            inPrint: false, published: 1900, author: nil, tags: [], chapters: [],
            publisher: nil),
        BookSeed(
            title: "日本語", subtitle: nil, pages: 300, price: "25.5", score: 5.0, rank: 3,
            inPrint: true, published: 2010, author: nil, tags: [], chapters: [],
            publisher: "Orbit"),
    ]

    static let authors: [AuthorSeed] = [
        AuthorSeed(name: "Alice", born: 1920, rating: 4.0, agent: "Max"),
        AuthorSeed(name: "Bob", born: nil, rating: nil, agent: nil),  // rating stays 1.5 from awakeFromInsert
        AuthorSeed(name: "Chloé", born: 1980, rating: 3.0, agent: nil),
        AuthorSeed(name: "Dana", born: 1975, rating: 2.0, agent: nil),
    ]

    static let tagNames = ["classic", "scifi", "French", "food", "fantasy", "unused"]

    /// Every title; in code-point order: Dune Messiah, Emile, Noir Café, The Hobbit, Zebra, apple pie, dune,
    /// Émile, émile, 日本語.
    static let allBooks = Set(books.map(\.title))

    /// Inserts the library into a context without saving it.
    static func insert(into context: ManagedObjectContext) throws {
        var authorsByName: [String: Author] = [:]
        for seed in authors {
            let author = Author(context: context)
            author.name = seed.name
            author.born = seed.born.map(date)
            if let rating = seed.rating { author.rating = rating }
            if let agentName = seed.agent {
                let agent = Agent(context: context)
                agent.name = agentName
                author.agent = agent
            }
            authorsByName[seed.name] = author
        }
        var tagsByName: [String: Tag] = [:]
        for name in tagNames {
            let tag = Tag(context: context)
            tag.name = name
            tagsByName[name] = tag
        }
        let orbit = Publisher(context: context)
        orbit.name = "Orbit"
        for seed in books {
            let book = Book(context: context)
            book.title = seed.title
            book.subtitle = seed.subtitle
            book.pages = seed.pages
            book.inPrint = seed.inPrint
            try book.setValue(decimal(seed.price), forKey: "price")
            try book.setValue(seed.score, forKey: "score")
            try book.setValue(seed.rank, forKey: "rank")
            try book.setValue(seed.published.map(date), forKey: "published")
            book.author = seed.author.flatMap { authorsByName[$0] }
            book.publisher = seed.publisher == nil ? nil : orbit
            book.tags = Set(seed.tags.compactMap { tagsByName[$0] })
            for number in seed.chapters {
                let chapter = Chapter(context: context)
                chapter.title = "\(seed.title) \(number)"
                chapter.number = number
                chapter.book = book
            }
        }
        let rex = Dog(context: context)
        rex.name = "Rex"
        rex.breed = "Collie"
        let fido = Dog(context: context)
        fido.name = "Fido"
        let tom = Cat(context: context)
        tom.name = "Tom"
        let felix = Cat(context: context)
        felix.name = "Felix"
        felix.lives = 3
    }

    /// A stack with the library saved; fetch from a new context of it.
    static func savedStack(_ kind: StoreType) throws -> TestStack {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try insert(into: context)
            try context.save()
        }
        return stack
    }

    /// The attribute that names an entity's objects uniquely in the library.
    static func nameKey(of entity: String) -> String {
        entity == "Book" ? "title" : "name"
    }

    /// The unique title or name of a fetched object.
    static func name(of object: ManagedObject) -> String {
        object.value(forKey: nameKey(of: object.entity.name)) as? String ?? "<unnamed \(object.entity.name)>"
    }

    /// The object of an entity with a title or name, fetched from a context.
    static func lookUp(_ entity: String, _ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = try FetchPredicate(format: "%K == %@", nameKey(of: entity), name)
        let found = try context.fetch(request)
        guard found.count == 1, let object = found.first else {
            throw FixtureError(message: "expected one \(entity) named '\(name)', found \(found.count)")
        }
        return object
    }

    /// Noon UTC on 1 June of a year.
    static func date(_ year: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar.date(from: DateComponents(year: year, month: 6, day: 1, hour: 12))!
    }

    /// A decimal written in base 10, exactly.
    static func decimal(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
    }

    /// A fixture object that is not where it should be.
    struct FixtureError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
