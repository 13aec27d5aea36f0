import Foundation
import ObjectStack
import Testing

/// `BatchUpdateRequest` values that are expressions (`PropertyExpression`): each row's own value, NSExpression's
/// functions, the same result on every store (SQLite computes them in its `UPDATE`, the others row by row), and
/// errors before anything is written.
@Suite("Batch update expressions")
struct BatchUpdateExpressionTests {
    @Test(
        "a batch update `pages + 1` gives every matched row its own value, with updatedObjectIDs",
        arguments: StoreType.allCases)
    func ownValue(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["a", "b", "c", "d"])
        try context.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.predicate = try FetchPredicate(format: "pages >= 10")
            request.propertiesToUpdate = ["pages": try PropertyExpression(format: "pages + 1")]
            request.resultType = .updatedObjectIDs
            let result = try context.execute(request)
            #expect(result.objectIDs == Array(ids[1...]))
            #expect(try ids.map { try context.storedValues($0, ["pages"])["pages"] as? Int } == [0, 11, 21, 31])
            // Arguments, and a second request on the values the first wrote.
            request.propertiesToUpdate = ["pages": try PropertyExpression(format: "%K * %d", "pages", 2)]
            request.resultType = .updatedObjectsCount
            #expect(try context.execute(request).count == 3)
            #expect(try ids.map { try context.storedValues($0, ["pages"])["pages"] as? Int } == [0, 22, 42, 62])
        }
    }

    @Test(
        "NSExpression's functions compute the same values on every store, each from the row as it was",
        arguments: StoreType.allCases)
    func functions(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["Élan Vital", "straße", "b"])
        let before = Date()
        try context.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = [
                // Each reads the row before the request: the subtitle is the old title, upper-cased.
                "title": try PropertyExpression(format: "lowercase:(title)"),
                "subtitle": try PropertyExpression(format: "uppercase:(title)"),
                "published": try PropertyExpression(format: "now()"),
                "score": try PropertyExpression(format: "pages / 4.0 + sqrt:(pages)"),
                "sales": try PropertyExpression(format: "abs:(from:subtract:(pages, 15)) + modulus:by:(pages, 7)"),
                "rank": try PropertyExpression(format: "max:({pages, 12}) - trunc:(2.9)"),
                "price": try PropertyExpression(format: "pages * 1.5"),
                "weight": try PropertyExpression(format: "count:({pages, title, subtitle})"),
            ]
            try context.execute(request)
        }
        let after = Date()
        try context.performAndWait { () throws in
            let keys = ["title", "subtitle", "published", "score", "sales", "rank", "price", "weight"]
            let rows = try ids.map { try context.storedValues($0, keys) }
            #expect(rows.map { $0["title"] as? String } == ["élan vital", "straße", "b"])
            #expect(rows.map { $0["subtitle"] as? String } == ["ÉLAN VITAL", "STRASSE", "B"])
            let dates = rows.compactMap { $0["published"] as? Date }
            #expect(dates.count == 3 && Set(dates).count == 1, "one now() for the whole request")
            #expect(dates.allSatisfy { $0 >= before.addingTimeInterval(-1) && $0 <= after.addingTimeInterval(1) })
            #expect(rows.map { $0["score"] as? Double } == [0, 2.5 + 10.0.squareRoot(), 5 + 20.0.squareRoot()])
            #expect(rows.map { ($0["sales"] as? NSNumber)?.int64Value } == [15, 8, 11])
            #expect(rows.map { ($0["rank"] as? NSNumber)?.intValue } == [10, 10, 18])
            #expect(rows.map { $0["price"] as? Decimal } == [0, 15, 30])
            #expect(rows.map { ($0["weight"] as? NSNumber)?.intValue } == [3, 3, 3])
        }
    }

    @Test(
        "an expression that does not bind, reads past the row or yields the wrong type is refused; nothing written",
        arguments: StoreType.allCases)
    func refusedBeforeWriting(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["a", "b"])
        let cases: [(key: String, format: String, code: ObjectStackError.Code, says: String)] = [
            ("subtitle", "lowercase:(pages)", .typeMismatch, "'pages' in 'lowercase:(pages)' is an Integer 32"),
            ("title", "pages + 1", .typeMismatch, "yields number, which Book.title, String, cannot hold"),
            ("pages", "now() + 1", .typeMismatch, "'now()' in 'now() + 1' is a Date"),
            ("subtitle", "author.name", .invalidArgument, "reads 'author.name', which is not an attribute of the row"),
            ("pages", "shout:(pages)", .invalidArgument, "unknown function 'shout:'"),
            ("pages", "add:to:(pages)", .invalidArgument, "add:to: takes 2 arguments, not 1"),
            ("pages", "pagez + 1", .unknownKeyPath, "pagez"),
            ("pages", "mode:({pages, 1})", .invalidArgument, "mode:"),
        ]
        try context.performAndWait { () throws in
            for (key, format, code, says) in cases {
                var request = BatchUpdateRequest(entityName: "Book")
                // A well-formed expression beside the bad one: it is not written either.
                request.propertiesToUpdate = [
                    "score": try PropertyExpression(format: "pages + 100"), key: try PropertyExpression(format: format),
                ]
                let error = try #require(throws: ObjectStackError.self, "\(format)") { try context.execute(request) }
                #expect(error.code == code, "\(format): \(error.message)")
                #expect(error.message.contains(says), "\(format): \(error.message)")
                #expect(error.key == key, "\(format)")
            }
            let rows = try ids.map { try context.storedValues($0, ["pages", "score"]) }
            #expect(rows.map { $0["pages"] as? Int } == [0, 10] && rows.allSatisfy { $0["score"] == nil })
        }
    }

    @Test(
        "a computed value the attribute cannot hold fails the request naming the row; nothing written",
        arguments: StoreType.allCases)
    func refusedWhileWriting(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["a", "b", "c", "d", "e"])
        try context.performAndWait { () throws in
            // A fraction for an integer: the first row computes 0.5.
            var request = BatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = ["pages": try PropertyExpression(format: "pages + 0.5")]
            var error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.code == .typeMismatch && error.key == "pages", "\(error.message)")
            #expect(error.message.contains("which Integer 32 cannot hold"), "\(error.message)")
            // Out of Integer 16's range only on the last row (40 * 1000): the rows before it are not kept either.
            request.propertiesToUpdate = ["rank": try PropertyExpression(format: "pages * 1000")]
            error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.code == .typeMismatch && error.message.contains(ids[4].description), "\(error.message)")
            // Nil for a required attribute.
            request.propertiesToUpdate = ["title": try PropertyExpression(format: "subtitle")]
            error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.code == .validationFailed && error.key == "title", "\(error.message)")
            let rows = try ids.map { try context.storedValues($0, ["pages", "rank", "title"]) }
            #expect(rows.map { $0["pages"] as? Int } == [0, 10, 20, 30, 40])
            #expect(rows.allSatisfy { $0["rank"] == nil })
            #expect(rows.map { $0["title"] as? String } == ["a", "b", "c", "d", "e"])
        }
    }

    @Test("a constant written as an expression is checked and stored as a constant is", arguments: StoreType.allCases)
    func constantExpression(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["a"])
        try context.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = ["subtitle": try PropertyExpression(forConstantValue: "fixed")]
            try context.execute(request)
            #expect(try context.storedValues(ids[0], ["subtitle"])["subtitle"] as? String == "fixed")
            request.propertiesToUpdate = ["pages": try PropertyExpression(forConstantValue: "many")]
            let error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.key == "pages")
        }
    }
}
