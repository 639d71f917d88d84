extension Duration {
    /// The duration in seconds, as a `Double` (for timings and speeds).
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
