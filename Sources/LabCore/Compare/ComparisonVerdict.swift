/// What a comparison concludes about one metric of one matrix cell.
public enum ComparisonVerdict: String, Sendable, CaseIterable {
    /// Better by at least the threshold, and the test says the difference is real.
    case improved
    /// The medians differ by less than the threshold.
    case unchanged
    /// Worse by at least the threshold, and the test says the difference is real.
    case regressed
    /// The medians differ by the threshold or more, but the repetitions are too few or too noisy to say.
    case inconclusive
    /// A count or setting with no better direction (`MetricPolarity.neutral`) differs for real.
    case changed
}
