import DSPTestSupport
import MixDSP
import Testing

/// Speech activity on synthetic "speech": bursts of seeded noise of known places and levels, with silences between.
@Suite struct SpeechActivityTests {
    static let rate = 48000
    static let frame = 960      // 20 ms

    /// `frames` samples of a floor of noise at `floorDb` (or digital silence) with bursts of noise at their levels.
    /// Returns the signal and the RMS of all the burst samples together, in dB.
    static func signal(frames: Int, bursts: [(start: Int, length: Int, db: Double)], floorDb: Double? = nil,
                       seed: UInt64 = 7) -> (samples: [Float], burstDb: Double) {
        var noise = TestSignals.Noise(seed: seed)
        // uniform noise in [−1, 1) has an RMS of 1/√3
        let floorGain = floorDb.map { Float(gain(fromDecibels: $0) * 3.0.squareRoot()) } ?? 0
        var x = (0..<frames).map { _ in floorGain * noise.sample() }
        var energy = 0.0, count = 0
        for burst in bursts {
            let g = Float(gain(fromDecibels: burst.db) * 3.0.squareRoot())
            for i in burst.start..<(burst.start + burst.length) {
                x[i] = g * noise.sample()
                energy += Double(x[i]) * Double(x[i]); count += 1
            }
        }
        return (x, dB((energy / Double(max(count, 1))).squareRoot()))
    }

    @Test func regionsAreWhereTheBurstsAreToWithinAFrame() {
        // Bursts off the frame grid, 0.2 to 1.3 s long, 0.3 to 2 s apart, of different levels, over a floor at −70 dBFS.
        let bursts: [(start: Int, length: Int, db: Double)] = [(12_345, 30_000, -20), (57_001, 9_600, -26), (90_777, 62_400, -18),
                                                                (250_000, 14_111, -30), (280_100, 44_000, -22)]
        let (x, _) = Self.signal(frames: 360_000, bursts: bursts, floorDb: -70)
        let activity = SpeechActivity.analyse(x, sampleRate: Self.rate)
        #expect(activity.regions.count == bursts.count, "\(activity.regions)")
        var worst = 0
        for (region, burst) in zip(activity.regions, bursts) {
            let startError = abs(region.lowerBound - burst.start), endError = abs(region.upperBound - (burst.start + burst.length))
            worst = max(worst, startError, endError)
            #expect(startError <= Self.frame && endError <= Self.frame, "\(region) for \(burst)")
            #expect(region.lowerBound % Self.frame == 0 && region.upperBound % Self.frame == 0)
        }
        print("speech: worst region edge error \(worst) samples")
    }

    @Test func shortPausesAreBridgedAndClicksDropped() {
        // two words 100 ms apart (one region), then a 10 ms click alone (dropped), then a word 200 ms after another (two)
        let bursts: [(start: Int, length: Int, db: Double)] = [(9_600, 19_200, -20), (33_600, 19_200, -20), (100_000, 480, -15),
                                                                (150_000, 19_200, -20), (178_800, 19_200, -20)]
        let (x, _) = Self.signal(frames: 240_000, bursts: bursts)
        let activity = SpeechActivity.analyse(x, sampleRate: Self.rate)
        #expect(activity.regions == [9_600..<52_800, 149_760..<169_920, 178_560..<198_720], "\(activity.regions)")
    }

    @Test func theLevelIsTheSpeechsNotThePauses() {
        // A quiet voice with long pauses and a loud one with none each read as their own speech level.
        var quietBursts: [(start: Int, length: Int, db: Double)] = []
        for k in 0..<8 { quietBursts.append((start: 24_000 + k * 300_000, length: 20_000 + 3_001 * k, db: -35)) }
        let quiet = Self.signal(frames: 2_400_000, bursts: quietBursts, floorDb: -75, seed: 1)
        let loud = Self.signal(frames: 480_000, bursts: [(start: 0, length: 480_000, db: -15)], seed: 2)
        var worst = 0.0
        for (x, truth) in [quiet, loud] {
            let level = SpeechActivity.analyse(x, sampleRate: Self.rate).levelDb
            #expect(level != nil && abs(level! - truth) < 0.5, "\(level ?? -.infinity) dB, bursts \(truth) dB")
            worst = max(worst, abs((level ?? 0) - truth))
        }
        // the whole quiet signal's RMS is far below its speech level: the pauses are not counted
        #expect(dB(rms(quiet.samples)) < quiet.burstDb - 9)      // speech is a tenth of it
        print("speech: worst level error \(worst) dB")
    }

    @Test func aBackgroundFarBelowTheSpeechIsNotSpeech() {
        // Speech at −10 dBFS over a background at −45 dBFS: above the absolute floor, but 35 dB below the speech.
        let (x, truth) = Self.signal(frames: 240_000, bursts: [(start: 48_000, length: 96_000, db: -10)], floorDb: -45)
        let activity = SpeechActivity.analyse(x, sampleRate: Self.rate)
        #expect(activity.regions == [48_000..<144_000])
        #expect(abs(activity.levelDb! - truth) < 0.1)
    }

    @Test func silenceHasNoSpeech() {
        for floor in [nil, -70.0] {
            let (x, _) = Self.signal(frames: 96_000, bursts: [], floorDb: floor)
            #expect(SpeechActivity.analyse(x, sampleRate: Self.rate) == SpeechActivity(levelDb: nil, regions: []))
        }
        #expect(SpeechActivity.analyse([], sampleRate: Self.rate).levelDb == nil)
    }
}
