import Foundation
import ObjectStack
import Testing

/// `FetchExpression(format:)`: NSExpression's format for key paths and function calls, and its errors.
@Suite("Fetch expressions")
struct FetchExpressionTests {
    @Test(
        "key paths and function calls parse as NSExpression's format writes them",
        arguments: [
            ("pages", FetchExpression.keyPath("pages")),
            ("author.name", .keyPath("author.name")),
            ("sum:(pages)", .sum("pages")),
            (" count: ( author.name ) ", .count("author.name")),
            ("average:(rating)", .average("rating")),
            ("max:(published)", .max("published")),
            ("min:(title)", .min("title")),
            ("median:(pages)", .function("median:", [.keyPath("pages")])),
            ("from:subtract:(a, b)", .function("from:subtract:", [.keyPath("a"), .keyPath("b")])),
            ("now()", .function("now", [])),
        ])
    func parses(format: String, expected: FetchExpression) throws {
        #expect(try FetchExpression(format: format) == expected)
    }

    @Test("descriptions print the format back")
    func descriptions() throws {
        #expect(FetchExpression.sum("pages").description == "sum:(pages)")
        #expect(try FetchExpression(format: "count:( a.b )").description == "count:(a.b)")
        let description = ExpressionDescription(name: "n", expression: .count("x"), expressionResultType: .integer32)
        #expect(description.description == "n = count:(x) as integer32")
    }

    @Test(
        "malformed formats are refused with the position and what was expected",
        arguments: [
            ("", 0, "expected a key path"),
            ("sum:", 4, "expected '(' after the function name 'sum:'"),
            ("sum:(pages", 10, "expected ')' to close 'sum:('"),
            ("sum:(pages; x)", 10, "expected ',' or ')'"),
            ("pages pages", 6, "unexpected text"),
        ])
    func malformed(format: String, position: Int, reason: String) {
        do {
            _ = try FetchExpression(format: format)
            Issue.record("'\(format)' parsed")
        } catch let error as ObjectStackError {
            #expect(error.code == .malformedPredicate)
            let syntax = error.cause as? PredicateSyntaxError
            #expect(syntax?.position == position, "\(error)")
            #expect(syntax?.reason.contains(reason) == true, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("fetch properties take key paths, expression descriptions and property descriptions by name")
    func properties() {
        let attribute = AttributeDescription(name: "pages", type: .integer32)
        let relationship = RelationshipDescription(name: "author", destination: "Author")
        let description = ExpressionDescription(name: "total", expression: .sum("pages"))
        let properties: [any FetchPropertyConvertible] = ["title", attribute, relationship, description]
        #expect(properties.map(\.fetchProperty.name) == ["title", "pages", "author", "total"])
        #expect(properties[3].fetchProperty == .expression(description))
    }
}
