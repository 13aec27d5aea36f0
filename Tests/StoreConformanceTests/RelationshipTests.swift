import Foundation
import ObjectStack
import Testing

/// Inverses kept consistent on both sides, delete rules, and what a save then stores.
@Suite("Relationships and delete rules")
struct RelationshipTests {
    @Test(
        "a to-one and its to-many inverse stay consistent both ways, in memory and in the store",
        arguments: StoreType.allCases)
    func oneToMany(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let first = Author(context: context)
            first.name = "First"
            let second = Author(context: context)
            second.name = "Second"
            let book = Book(context: context)
            book.title = "Moving"
            book.author = first
            #expect(first.books == [book])
            second.books = [book]
            #expect(book.author === second && first.books.isEmpty && second.books == [book])
            first.addObject(book, toRelationship: "books")
            #expect(book.author === first && second.books.isEmpty)
            try context.save()
            first.removeObject(book, fromRelationship: "books")
            #expect(book.author == nil)
            book.author = second
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let second = try #require(try reader.all(Author.self, "Author", where: "name == 'Second'").first)
            let first = try #require(try reader.all(Author.self, "Author", where: "name == 'First'").first)
            #expect(second.books.map(\.title) == ["Moving"])
            #expect(first.books.isEmpty)
        }
    }

    @Test("a many-to-many relationship is kept on both sides and stored", arguments: StoreType.allCases)
    func manyToMany(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let scifi = Tag(context: context)
            scifi.name = "scifi"
            let classic = Tag(context: context)
            classic.name = "classic"
            let dune = Book(context: context)
            dune.title = "Dune"
            let solaris = Book(context: context)
            solaris.title = "Solaris"
            dune.tags = [scifi, classic]
            scifi.books.insert(solaris)
            #expect(scifi.books == [dune, solaris])
            #expect(solaris.tags == [scifi])
            try context.save()
            dune.removeObject(classic, fromRelationship: "tags")
            #expect(classic.books.isEmpty)
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let scifi = try #require(try reader.all(Tag.self, "Tag", where: "name == 'scifi'").first)
            #expect(Set(scifi.books.map(\.title)) == ["Dune", "Solaris"])
            let classic = try #require(try reader.all(Tag.self, "Tag", where: "name == 'classic'").first)
            #expect(classic.books.isEmpty)
            let dune = try #require(try reader.all(Book.self, "Book", where: "title == 'Dune'").first)
            #expect(dune.tags.map(\.name) == ["scifi"])
        }
    }

    @Test("a one-to-one takes its new partner from the old one", arguments: StoreType.allCases)
    func oneToOne(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let a = Author(context: context)
            a.name = "A"
            let b = Author(context: context)
            b.name = "B"
            let agent = Agent(context: context)
            agent.name = "Ag"
            a.agent = agent
            #expect(agent.client === a)
            b.agent = agent
            #expect(agent.client === b && a.agent == nil)
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let agent = try #require(try reader.all(Agent.self, "Agent").first)
            #expect(agent.client?.name == "B")
        }
    }

    @Test(
        "cascade deletes the destinations; nullify removes the deleted object from inverses",
        arguments: StoreType.allCases)
    func cascadeAndNullify(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "Cascading"
            let tag = Tag(context: context)
            tag.name = "t"
            for index in 0..<2 {
                let book = Book(context: context)
                book.title = "Book \(index)"
                book.author = author
                book.tags = [tag]
                let chapter = Chapter(context: context)
                chapter.title = "Ch"
                chapter.book = book
            }
            try context.save()
            context.delete(author)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 5, "author, two books, two chapters")
            #expect(tag.books.isEmpty, "nullify: the tag no longer holds the deleted books")
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.count("Author") == 0)
            #expect(try reader.count("Book") == 0)
            #expect(try reader.count("Chapter") == 0)
            let tag = try #require(try reader.all(Tag.self, "Tag").first)
            #expect(tag.books.isEmpty)
        }
    }

    @Test("nullify clears a to-one pointing at a deleted object", arguments: StoreType.allCases)
    func nullifyToOne(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let publisher = Publisher(context: context)
            publisher.name = "P"
            let book = Book(context: context)
            book.title = "B"
            let author = Author(context: context)
            author.name = "A"
            book.author = author
            try context.save()
            context.delete(book)
            try context.save()
            #expect(author.books.isEmpty)
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let author = try #require(try reader.all(Author.self, "Author").first)
            #expect(author.books.isEmpty)
        }
    }

    @Test(
        "deny refuses to delete while the relationship holds objects; nothing is written", arguments: StoreType.allCases
    )
    func deny(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let publisher = Publisher(context: context)
            publisher.name = "Denying"
            let book = Book(context: context)
            book.title = "Held"
            book.publisher = publisher
            try context.save()
            context.delete(publisher)
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.code == .validationFailed)
            #expect(error.validationFailures.map(\.reason) == [.deleteDenied(count: 1)])
            #expect(error.validationFailures.first?.key == "books")
            context.rollback()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in #expect(try reader.count("Publisher") == 1) }
        try context.performAndWait { () throws in
            let publisher = try #require(try context.all(Publisher.self, "Publisher").first)
            for book in publisher.books { context.delete(book) }
            context.delete(publisher)
            try context.save()
            #expect(try context.count("Publisher") == 0)
        }
    }

    @Test("no action leaves the destination pointing at the deleted object", arguments: StoreType.allCases)
    func noAction(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "Client"
            let agent = Agent(context: context)
            agent.name = "Agent"
            agent.client = author
            try context.save()
            context.delete(agent)
            context.processPendingChanges()
            #expect(author.agent === agent, "no action: the author still refers to the deleted agent")
            #expect(!author.hasChanges)
        }
    }
}
