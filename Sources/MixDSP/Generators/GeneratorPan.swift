import RealModule

/// Where a procedural generator places one of its events (a crackle, a swell, a chirp) in the stereo image.
/// Their random draws come from `SeededRandom`.
///
/// A namespace of one pure function; allocates nothing; safe from any thread.
public enum GeneratorPan {
    /// Equal-power gains of a pan in [-1, 1] for channel `c` of `channelCount`: mono takes 1, and the
    /// channels of a wider layout alternate left, right. Scaled by √2 so that the centre is unity.
    @inline(__always)
    public static func gain(_ pan: Double, channel c: Int, of channelCount: Int) -> Double {
        guard channelCount > 1 else { return 1 }
        // equal power: left = cos(π/4 (1 + p)), right = sin(π/4 (1 + p)), both √½ at the centre
        let angle = Double.pi / 4 * (1 + pan)
        return (c % 2 == 0 ? Double.cos(angle) : Double.sin(angle)) * 2.0.squareRoot()
    }
}
