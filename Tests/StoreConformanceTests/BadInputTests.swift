import Foundation
import ObjectStack
import Testing

/// Bad input throws an error that names the culprit; nothing crashes.
@Suite("Bad input")
struct BadInputTests {
    @Test("a malformed predicate gives its position and reason")
    func malformedPredicate() throws {
        let error = try #require(throws: ObjectStackError.self) { try FetchPredicate(format: "title == ") }
        #expect(error.code == .malformedPredicate)
        let syntax = try #require(error.cause as? PredicateSyntaxError)
        #expect(syntax.position == 9)
        #expect(error.message.contains("position 9"))
    }

    @Test("unknown key paths, sort keys, entities and mismatched types name the culprit", arguments: StoreType.allCases)
    func fetchErrors(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "author.nmae == 'x'")
            var error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
            #expect(
                error.code == .unknownKeyPath && error.message.contains("author.nmae") && error.message.contains("nmae")
            )
            request.predicate = nil
            request.sortDescriptors = [SortKey("titel")]
            error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
            #expect(error.code == .unknownKeyPath && error.message.contains("titel"))
            request.sortDescriptors = [SortKey("tags.name")]
            error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
            #expect(error.message.contains("to-many"))
            error = try #require(throws: ObjectStackError.self) {
                try context.fetch(FetchRequest<Book>(entityName: "Boook"))
            }
            #expect(error.code == .unknownEntity && error.message.contains("Boook"))
            var mismatch = FetchRequest<Book>(entityName: "Book")
            mismatch.predicate = try FetchPredicate(format: "pages < 'many'")
            error = try #require(throws: ObjectStackError.self) { try context.fetch(mismatch) }
            #expect(error.code == .typeMismatch && error.message.contains("pages"))
            mismatch.predicate = try FetchPredicate(format: "tags.name == 'x'")
            error = try #require(throws: ObjectStackError.self) { try context.fetch(mismatch) }
            #expect(error.message.contains("ANY"))
            mismatch.predicate = try FetchPredicate(format: "pages BEGINSWITH '1'")
            #expect(throws: ObjectStackError.self) { try context.fetch(mismatch) }
            mismatch.predicate = try FetchPredicate(format: "title MATCHES '(['")
            error = try #require(throws: ObjectStackError.self) { try context.fetch(mismatch) }
            #expect(error.message.contains("regular expression"))
            // A fetch includes pending inserts: a Book asked for as an Author is refused, naming both classes.
            _ = Book(context: context)
            error = try #require(throws: ObjectStackError.self) {
                try context.fetch(FetchRequest<Author>(entityName: "Book"))
            }
            #expect(error.code == .typeMismatch && error.message.contains("Book") && error.message.contains("Author"))
            #expect(try context.fetch(FetchRequest<Book>(entityName: "Book")).count == 1)
            var negative = FetchRequest<Book>(entityName: "Book")
            negative.fetchLimit = -1
            #expect(throws: ObjectStackError.self) { try context.fetch(negative) }
        }
    }

    @Test("a wrong value type or unknown key throws naming the entity and key", arguments: StoreType.allCases)
    func valueErrors(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let book = Book(context: context)
            var error = try #require(throws: ObjectStackError.self) { try book.setValue("many", forKey: "pages") }
            #expect(
                error.code == .typeMismatch && error.message.contains("Book.pages")
                    && error.message.contains("integer32"))
            error = try #require(throws: ObjectStackError.self) { try book.setValue(70_000, forKey: "rank") }
            #expect(error.code == .typeMismatch && error.message.contains("Book.rank"))
            error = try #require(throws: ObjectStackError.self) { try book.setValue(1, forKey: "colour") }
            #expect(error.code == .unknownKey && error.message.contains("colour"))
            let tag = Tag(context: context)
            error = try #require(throws: ObjectStackError.self) { try book.setValue(tag, forKey: "author") }
            #expect(error.code == .typeMismatch && error.message.contains("Book.author"))
            error = try #require(throws: ObjectStackError.self) { try book.setValue(42, forKey: "tags") }
            #expect(error.message.contains("Book.tags"))
            ValueTransformerRegistry.register(JSONDictionaryTransformer(), forName: "JSONDictionaryTransformer")
            error = try #require(throws: ObjectStackError.self) { try book.setValue(42, forKey: "metadata") }
            #expect(error.message.contains("metadata"))
            #expect(book.value(forKey: "pages") as? Int == 0, "a rejected value leaves the old one")
        }
    }

    @Test("an inconsistent model is refused with the culprit named")
    func invalidModels() throws {
        func failure(_ entities: [EntityDescription]) throws -> String {
            try #require(throws: ObjectStackError.self) { try ManagedObjectModel(entities: entities) }.message
        }
        #expect(
            try failure([
                EntityDescription(name: "A", relationships: [RelationshipDescription(name: "b", destination: "Nope")])
            ])
            .contains("Nope"))
        #expect(
            try failure([
                EntityDescription(
                    name: "A", relationships: [RelationshipDescription(name: "b", destination: "B", inverse: "a")]),
                EntityDescription(
                    name: "B", relationships: [RelationshipDescription(name: "a", destination: "A", inverse: "other")]),
            ]).contains("A.b"))
        #expect(try failure([EntityDescription(name: "A", uniquenessConstraints: [["missing"]])]).contains("missing"))
        #expect(try failure([EntityDescription(name: "A", parent: "Ghost")]).contains("Ghost"))
        #expect(
            try failure([
                EntityDescription(
                    name: "A",
                    attributes: [AttributeDescription(name: "n", type: .integer16, defaultValue: .string("x"))])
            ]).contains("A.n"))
        #expect(
            try failure([
                EntityDescription(
                    name: "A",
                    attributes: [AttributeDescription(name: "d", type: .integer64, derivationExpression: "nope.@count")]
                )
            ]).contains("A.d"))
    }

    @Test("version hashes are stable and change with the stored shape")
    func versionHashes() throws {
        func hash(_ type: AttributeType, optional: Bool = true) throws -> String {
            let model = try ManagedObjectModel(entities: [
                EntityDescription(
                    name: "E", attributes: [AttributeDescription(name: "a", type: type, isOptional: optional)])
            ])
            return model.entitiesByName["E"]!.versionHash
        }
        #expect(try hash(.string) == hash(.string))
        #expect(try hash(.string) != hash(.integer64))
        #expect(try hash(.string) != hash(.string, optional: false))
        let model = try LibraryModel.make()
        let dog = try #require(model.entitiesByName["Dog"])
        let animal = try #require(model.entitiesByName["Animal"])
        #expect(dog.attributesByName["name"]?.index == animal.attributesByName["name"]?.index)
        #expect(dog.superentity === animal && animal.subentities.map(\.name) == ["Dog", "Cat"])
    }
}

@Suite("Bad input: SUBQUERY scope")
struct SubqueryScopeTests {
    @Test(
        "inside a SUBQUERY a bare key path belongs to the evaluated object, so a member-only key is unknown",
        arguments: StoreType.allCases)
    func outerScope(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Author>(entityName: "Author")
            request.predicate = try FetchPredicate(format: "SUBQUERY(books, $b, pages > 1).@count > 0")
            let error = try #require(throws: ObjectStackError.self) { try context.fetch(request) }
            #expect(error.code == .unknownKeyPath && error.message.contains("Author has no property 'pages'"))
            request.predicate = try FetchPredicate(format: "SUBQUERY(books, $b, name == 'x').@count > 0")
            #expect(try context.fetch(request).isEmpty, "the author's name: a key of the evaluated object")
        }
    }
}
