/// Where each channel of a file plays, when the file says nothing of it: the one rule mixrender's downmix
/// (`ChannelMap`) and both loudness meters (`GatedLoudness`, MixIO's `LoudnessMeter`) follow, so a file is
/// measured as it is folded.
///
/// By channel count, in WAV (WAVEFORMATEXTENSIBLE) order, the layouts FFmpeg takes for a file of unknown layout:
///
/// | channels | layout | order |
/// |---|---|---|
/// | 1 | mono | C |
/// | 2 | stereo | L R |
/// | 3 | 3.0 | L R C |
/// | 4 | quad | L R Ls Rs |
/// | 5 | 5.0 | L R C Ls Rs |
/// | 6 | 5.1 | L R C LFE Ls Rs |
/// | 7 | 6.1 | L R C LFE Cs Ls Rs |
/// | 8 | 7.1 | L R C LFE Lb Rb Ls Rs |
///
/// Surrounds (Ls, Rs) stand at ±110°, back channels (Lb, Rb) at ±150°, the back centre (Cs) at 180°. Past eight
/// channels, the extra ones are taken as further surrounds, alternately left and right. A file's own channel mask
/// is not read (libsndfile and the decoders here do not give it for every format): a file laid out otherwise is
/// measured and folded by this rule.
///
/// BS.1770-4 (table 4) weighs a channel by where it stands: 1.41 (+1.5 dB) from 60° to 120° off centre, 1
/// elsewhere, 0 for the LFE. So the surrounds of 5.1 and 7.1 weigh 1.41, and 7.1's back channels 1 (FFmpeg's
/// ebur128 weighs every back channel 1.41; libebur128 follows the table, as this does).
public enum ChannelLayout {
    /// One loudspeaker: its angle off centre in degrees (positive to the left; 180 behind), or the LFE.
    public struct Speaker: Sendable, Equatable {
        public var azimuth: Double
        public var isLFE: Bool
        public static let centre = Speaker(azimuth: 0, isLFE: false)
        public static let left = Speaker(azimuth: 30, isLFE: false), right = Speaker(azimuth: -30, isLFE: false)
        public static let leftSurround = Speaker(azimuth: 110, isLFE: false), rightSurround = Speaker(azimuth: -110, isLFE: false)
        public static let leftBack = Speaker(azimuth: 150, isLFE: false), rightBack = Speaker(azimuth: -150, isLFE: false)
        public static let backCentre = Speaker(azimuth: 180, isLFE: false)
        public static let lfe = Speaker(azimuth: 0, isLFE: true)

        /// BS.1770-4's weight for a channel here: 0 for the LFE, 1.41 from 60° to 120° off centre, else 1.
        public var loudnessWeight: Double {
            if isLFE { return 0 }
            return (60...120).contains(abs(azimuth)) ? 1.41 : 1
        }
    }

    /// The speakers of a file of `channelCount` channels, in order (see the type's table).
    public static func speakers(channelCount: Int) -> [Speaker] {
        precondition(channelCount > 0)
        let known: [Speaker]
        switch channelCount {
        case 1: known = [.centre]
        case 2: known = [.left, .right]
        case 3: known = [.left, .right, .centre]
        case 4: known = [.left, .right, .leftSurround, .rightSurround]
        case 5: known = [.left, .right, .centre, .leftSurround, .rightSurround]
        case 6: known = [.left, .right, .centre, .lfe, .leftSurround, .rightSurround]
        case 7: known = [.left, .right, .centre, .lfe, .backCentre, .leftSurround, .rightSurround]
        default: known = [.left, .right, .centre, .lfe, .leftBack, .rightBack, .leftSurround, .rightSurround]
        }
        guard channelCount > known.count else { return known }
        return known + (known.count..<channelCount).map { ($0 - known.count) % 2 == 0 ? .leftSurround : .rightSurround }
    }

    /// The loudness weight of each channel of a file of `channelCount` channels. A mono file is one channel played
    /// from one loudspeaker, weight 1.
    public static func loudnessWeights(channelCount: Int) -> [Double] {
        speakers(channelCount: channelCount).map(\.loudnessWeight)
    }
}
