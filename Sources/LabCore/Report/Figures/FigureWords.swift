/// The words of a figure marker: split on spaces, a double-quoted word kept whole (`"label=longest stall"`).
enum FigureWords {
    /// The words of `text`.
    /// - Throws: `LabError.invalidResults` for a quote left open.
    static func split(_ text: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
            } else if character.isWhitespace, !quoted {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        guard !quoted else { throw LabError(.invalidResults, "figure '\(text)': a quote is left open") }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// `key=value` as its two sides; nil for a word without `=`.
    static func pair(_ word: String) -> (String, String)? {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return nil }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
