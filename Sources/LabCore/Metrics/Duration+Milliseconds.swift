extension Duration {
    // Only the clocks and the launch children read `Duration`; the lab works in milliseconds.
    /// The duration in milliseconds.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1_000 + Double(parts.attoseconds) / 1e15
    }
}
