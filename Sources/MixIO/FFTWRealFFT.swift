import CFFTW
import MixDSP
import Foundation  // NSLock

/// A real-to-complex forward FFT of a fixed size, using one FFTW single-precision plan.
/// One instance is not safe to use from two threads at once (it owns its buffers); make one per thread.
///
/// Layout: an `fftwf_plan` and two `fftwf_malloc` buffers (`size` `Float`s in, `size / 2 + 1` complex
/// bins out). Allocates and plans in `init`; `forward` allocates nothing. FFTW's planner is
/// process-wide and not thread-safe, so `init` and `deinit` take a process-wide lock; `forward`
/// (`fftwf_execute`) needs none, so instances on different threads run at once.
public final class FFTWRealFFT: RealFFT {
    public let size: Int
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    /// Allocates aligned buffers with `fftwf_malloc` and plans with `fftwf_plan_dft_r2c_1d` and
    /// `FFTW_ESTIMATE` (deterministic), under `FFTWPlanner.lock`.
    public init(size: Int) {
        precondition(size > 0 && size <= Int(Int32.max), "FFT size must be positive")
        self.size = size
        let bins = size / 2 + 1
        (input, output, plan) = FFTWPlanner.withLock {
            let input = fftwf_malloc(size * MemoryLayout<Float>.stride)!
                .bindMemory(to: Float.self, capacity: size)
            let output = fftwf_malloc(bins * MemoryLayout<fftwf_complex>.stride)!
                .bindMemory(to: fftwf_complex.self, capacity: bins)
            input.initialize(repeating: 0, count: size)
            guard let plan = fftwf_plan_dft_r2c_1d(Int32(size), input, output, FFTW_ESTIMATE) else {
                fatalError("fftwf_plan_dft_r2c_1d failed for size \(size)")
            }
            return (input, output, plan)
        }
    }

    /// Calls `fftwf_destroy_plan` and `fftwf_free`, under `FFTWPlanner.lock`.
    deinit {
        FFTWPlanner.withLock {
            fftwf_destroy_plan(plan)
            fftwf_free(input)
            fftwf_free(output)
        }
    }

    /// Copies `size` samples in, calls `fftwf_execute`, and copies the `size / 2 + 1` bins out.
    public func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>,
                        imaginary: UnsafeMutablePointer<Float>) {
        self.input.update(from: input, count: size)
        fftwf_execute(plan)
        for bin in 0...(size / 2) {
            real[bin] = output[bin].0
            imaginary[bin] = output[bin].1
        }
    }
}

/// FFTW's planner is not thread-safe: every plan creation and destruction in the process takes this lock.
enum FFTWPlanner {
    private static let lock = NSLock()

    static func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
