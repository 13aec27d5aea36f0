import Foundation

extension ValueComparison {
    /// The compiled expression `MATCHES` applies for a pattern, on every store.
    ///
    /// NSPredicate's `MATCHES` is ICU's whole-input match (`uregex_matches`), which Foundation's
    /// `NSRegularExpression` (ICU on every platform) has no call for. The pattern is therefore wrapped as
    /// `\A(?:pattern)\z`, which gives the same answers: `^` and `$` anchor at the input's start and end (at
    /// lines only with `(?m)`), nothing matches after a final line terminator (`\z`, unlike `$`, does not stop
    /// before one), and `.` matches no line terminator unless `(?s)`. `[c]` is case-insensitive matching, `[d]`
    /// folds diacritics out of the pattern (and `stringOperator` out of the text).
    ///
    /// For example:
    /// ```swift
    /// let regex = try ValueComparison.matchesExpression("a$", [])   // "a" matches, "a\n" does not
    /// ```
    /// - Throws: the `NSRegularExpression` error when the pattern is not a valid ICU expression.
    public static func matchesExpression(_ pattern: String, _ options: PredicateOptions) throws
        -> NSRegularExpression
    {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let folded = options.contains(.diacriticInsensitive) ? fold(pattern, [.diacriticInsensitive]) : pattern
        // The pattern alone decides validity, so that no wrapper makes a broken pattern valid (`a)|(b`). ICU
        // refuses an empty pattern outright; as before, it matches the empty string only.
        if !folded.isEmpty { _ = try NSRegularExpression(pattern: folded, options: regexOptions) }
        // A valid pattern can still swallow the wrapper's closing parenthesis: a `#` comment in free-spacing
        // mode runs to the end of a line, a `\Q` quote to `\E`. Ending the comment or the quote first keeps
        // the group whole; only a pattern that ends inside one compiles with that ending.
        for ending in ["", "\n", "\\E"] {
            if let whole = try? NSRegularExpression(pattern: "\\A(?:" + folded + ending + ")\\z", options: regexOptions)
            {
                return whole
            }
        }
        throw ObjectStackError(
            code: .malformedPredicate, message: "the MATCHES pattern \"\(pattern)\" cannot be matched whole")
    }
}
