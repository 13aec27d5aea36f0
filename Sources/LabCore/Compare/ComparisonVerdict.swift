/// What a comparison concludes about one metric of one matrix cell, from the confidence interval of the ratio
/// current/base (`RatioComparison`) and a threshold band of ±threshold around no change.
public enum ComparisonVerdict: String, Sendable, CaseIterable {
    /// Better by more than the threshold: the whole interval lies beyond the band on the better side. Better is the
    /// metric's declared direction, so more throughput is faster, and so is less memory.
    case faster
    /// Worse by more than the threshold: the whole interval lies beyond the band on the worse side.
    case slower
    /// The same within the threshold: the whole interval lies inside the band (equivalence is a finding).
    case same
    /// The interval straddles an edge of the band, or the repetitions are too few for an interval: more runs
    /// would tell (`RatioComparison.repetitionsNeeded` says how many would likely do).
    case unresolved
    /// A count or setting with no better direction (`MetricPolarity.neutral`) whose interval lies beyond the band.
    case changed
}
