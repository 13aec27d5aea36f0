import Foundation
import ObjectStack
import Testing

/// Bad input to a batch request is refused before any row is written, naming the object's index and the key.
@Suite("Batch requests: bad input")
struct BatchBadInputTests {
    /// Each case: a second object that is wrong in one way, after a good first one.
    static var badObjects: [(what: String, object: [String: Any], code: ObjectStackError.Code, key: String)] {
        [
            ("missing required", ["pages": 3], .validationFailed, "title"),
            ("wrong type", ["title": "b", "pages": "many"], .typeMismatch, "pages"),
            ("too wide for integer16", ["title": "b", "rank": 70_000], .typeMismatch, "rank"),
            ("unknown key", ["title": "b", "pagez": 3], .unknownKey, "pagez"),
            ("relationship", ["title": "b", "author": NSNull()], .invalidArgument, "author"),
            ("to-many relationship", ["title": "b", "tags": [Any]()], .invalidArgument, "tags"),
            ("transient", ["title": "b", "scratch": "x"], .invalidArgument, "scratch"),
            ("nil for required", ["title": NSNull()], .validationFailed, "title"),
            ("string for a UUID", ["title": "b", "isbn": "not a uuid"], .typeMismatch, "isbn"),
        ]
    }

    @Test(
        "a bad object is refused, naming its index and key, and nothing is written",
        arguments: StoreType.allCases, 0..<badObjects.count)
    func refusesInsert(kind: StoreType, number: Int) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let bad = Self.badObjects[number]
        try context.performAndWait { () throws in
            let request = BatchInsertRequest(entityName: "Book", objects: [["title": "a"], bad.object])
            let error = try #require(throws: ObjectStackError.self, "\(bad.what)") { try context.execute(request) }
            #expect(error.code == bad.code, "\(bad.what): \(error)")
            #expect(error.objectIndex == 1 && error.key == bad.key, "\(bad.what): \(error)")
            #expect(error.message.contains("objects[1]") && error.message.contains(bad.key))
            #expect(try context.count("Book") == 0, "\(bad.what): nothing written")
        }
    }

    @Test("a managed-object handler's object that sets a relationship is refused", arguments: StoreType.allCases)
    func refusesHandlerRelationship(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "Frank"
            try context.save()
            var calls = 0
            let request = BatchInsertRequest(
                entityName: "Book",
                managedObjectHandler: { object in
                    calls += 1
                    guard calls <= 2, let book = object as? Book else { return true }
                    book.title = "t\(calls)"
                    if calls == 2 { book.author = author }
                    return false
                })
            let error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.objectIndex == 1 && error.key == "author" && error.code == .invalidArgument)
            #expect(try context.count("Book") == 0)
        }
    }

    @Test("entities a batch insert cannot fill are refused", arguments: StoreType.allCases)
    func refusesEntity(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchInsertRequest(entityName: "Bok", objects: [["title": "a"]]))
            }
            #expect(error.code == .unknownEntity && error.message.contains("Bok"))
            error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchInsertRequest(entityName: "Animal", objects: [["name": "a"]]))
            }
            #expect(error.code == .invalidArgument && error.message.contains("abstract"))
            error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchInsertRequest(entityName: "Author", objects: [["name": "a", "bookCount": 3]]))
            }
            #expect(error.key == "bookCount" && error.message.contains("derived"))
        }
    }

    @Test("a batch update's bad value is refused naming the key, and nothing is written", arguments: StoreType.allCases)
    func refusesUpdate(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "a", "pages": 1]]))
            let cases: [(key: String, value: Any, code: ObjectStackError.Code)] = [
                ("pagez", 2, .unknownKey), ("pages", "two", .typeMismatch), ("author", NSNull(), .invalidArgument),
                ("title", NSNull(), .validationFailed), ("scratch", "x", .invalidArgument),
            ]
            for (key, value, code) in cases {
                var request = BatchUpdateRequest(entityName: "Book")
                var values: [String: Any] = ["subtitle": "changed"]
                values[key] = value
                request.propertiesToUpdate = values
                let error = try #require(throws: ObjectStackError.self, "\(key)") { try context.execute(request) }
                #expect(error.code == code && error.key == key && error.message.contains(key), "\(key): \(error)")
            }
            let empty = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchUpdateRequest(entityName: "Book"))
            }
            #expect(empty.code == .invalidArgument && empty.message.contains("no property"))
            #expect(try context.all(Book.self, "Book").map(\.subtitle) == [nil], "nothing written")
        }
    }
}
