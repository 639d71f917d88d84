import RealModule

// Elementary functions come from swift-numerics' RealModule, so this module needs neither
// Foundation nor a C import. Short internal names keep the formulas readable.

@inlinable func _sin(_ x: Double) -> Double { Double.sin(x) }
@inlinable func _cos(_ x: Double) -> Double { Double.cos(x) }
@inlinable func _log10(_ x: Double) -> Double { Double.log10(x) }
@inlinable func _pow(_ x: Double, _ y: Double) -> Double { Double.pow(x, y) }
@inlinable func _exp(_ x: Double) -> Double { Double.exp(x) }
@inlinable func _pow10(_ x: Double) -> Double { Double.exp10(x) }

/// Converts decibels to a linear gain: g = 10^(dB / 20).
@inlinable public func gain(fromDecibels db: Double) -> Double { _pow10(db / 20) }

/// Converts a linear gain to decibels: dB = 20 log10(g); -infinity for 0.
@inlinable public func decibels(fromGain g: Double) -> Double { g > 0 ? 20 * _log10(g) : -Double.infinity }

/// The fraction of a phase in cycles, 0 ..< 1, taken in Double and then to Float (rounding to Float can
/// reach 1.0, which is read as 0): what a generator hands to a `Float` sine.
@inline(__always) func cycleFraction(_ cycles: Double) -> Float {
    let p = Float(cycles - cycles.rounded(.down))
    return p < 1 ? p : 0
}
