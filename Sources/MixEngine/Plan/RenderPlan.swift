import MixDSP
import MixIO

/// What plays when, in frames: the preset resolved against its source files and the output rate.
///
/// A plan is plain data (a value, `Sendable`). It knows every position and gain as integers and envelopes,
/// but holds no decoded audio: its events name the material they need (`MaterialRequest`), which a
/// `PreparedMaterial` makes before rendering, and the `Renderer` turns each event into a source when it starts.
/// It allocates only its arrays and dictionary when made (and `materialRequests` a new array per call);
/// safe to share between threads.
public struct RenderPlan: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Length of the render in frames (a loopable render's includes the crossfade planned past its end:
    /// see `loop` and `outputFrameCount`).
    public var frameCount: Int64
    public var resampler: ResamplerChoice
    public var tracks: [PlannedTrack]
    /// Master gain, fade-in and the sleep-timer fade-out.
    public var master: GainStack
    public var limiter: LimiterSpec
    /// Normalisation to a loudness (`RenderJob` finds the gain by measuring passes); nil: none.
    public var loudness: LoudnessSpec?
    /// Whether a track's kind needs the channels kept apart by the encoder (binaural beats), so that the output
    /// refuses settings that merge them (`OutputPlan`).
    public var needsSeparateChannels = false
    /// The tracks whose gain is set from their measured loudness, as the planner recorded them (with the named
    /// tracks they may refer to); the job measures them and sets the gains (`LoudnessMeasuring.applyTrackLoudness`),
    /// which empties this. Empty when no track gives a `loudness`.
    public var trackLoudness: [TrackLoudnessRequest] = []
    /// Things the planner had to adjust (a crossfade longer than half a loop, say), one line each,
    /// with the JSON path they concern. The render goes ahead; the CLI prints them on stderr.
    public var warnings: [String] = []
    /// What each source file is (rate, channels, length), as the planner read it.
    public var sourceFiles: [String: AudioFileInfo] = [:]
    /// What happens when: a session's sections and event, the ducking, the ending, the tracks' schedules.
    public var timeline: Timeline
    /// How much speech was synthesised for the plan, and how long that took.
    public var synthesis = SynthesisStats()

    /// A loopable render: its file is `loop.length` frames whose start has the mix that follows its end
    /// crossfaded in, so it plays on repeat without a seam; nil for an ordinary render.
    public var loop: LoopOutput?

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    /// Frames of the file a full render writes: `frameCount`, less a loopable render's crossfade.
    public var outputFrameCount: Int64 { loop?.length ?? frameCount }

    /// The format events render in.
    public var renderFormat: RenderFormat {
        RenderFormat(sampleRate: sampleRate, channelCount: channelCount, resampler: resampler)
    }

    /// The material the plan's events need prepared, once each (by key), in plan order.
    public var materialRequests: [any MaterialRequest] {
        var seen = Set<MaterialKey>()
        var requests: [any MaterialRequest] = []
        for track in tracks {
            for event in track.events {
                if let request = event.material.preparation, seen.insert(request.key).inserted { requests.append(request) }
            }
        }
        return requests
    }
}

/// How a loopable render wraps around: the file is frames `[0, length)` of the mix, except that over its first
/// `crossfadeFrames` the mix that follows its end (`[length, length + crossfadeFrames)`) fades out while the
/// start fades in. The file's last frame is then followed, on repeat, by what followed it in the mix.
/// A value of two integers and a curve; allocates nothing. `Sendable`.
public struct LoopOutput: Sendable, Equatable {
    public var length: Int64
    public var crossfadeFrames: Int64
    public var curve: Curve
    public init(length: Int64, crossfadeFrames: Int64, curve: Curve) {
        self.length = length; self.crossfadeFrames = crossfadeFrames; self.curve = curve
    }
}

/// A track whose gain is set from its measured loudness, as the planner recorded it (`RenderPlan.trackLoudness`), for `LoudnessMeasuring.applyTrackLoudness`: its index in the plan,
/// the track as it was planned (measured alone, its own gains at unity), its spec (`loudness`, `name`,
/// `gainDb`) and its JSON path. Tracks that only have a name are recorded too: another's `loudness` may be
/// relative to theirs. A value (`Sendable`); allocates what the track holds.
public struct TrackLoudnessRequest: Sendable {
    public var track: Int
    public var solo: PlannedTrack
    public var spec: TrackSpec
    public var jsonPath: String
}

/// One track: its events summed, then its own gains and balance applied.
/// A value: a name, a span, an array of events, a `GainStack` and a balance array; allocates only
/// those when made. `Sendable`, safe to share.
public struct PlannedTrack: Sendable {
    public var name: String
    /// The span `[start, end)` in which the track can sound.
    public var start: Int64
    public var end: Int64
    public var events: [PlannedEvent]
    /// gainDb, the envelope, fade-in and fade-out.
    public var gains: GainStack
    /// Per-output-channel balance gains.
    public var balance: [Float]
}

/// Balance law: the centre leaves both sides at unity; towards one side the other side falls
/// along a quarter cosine and is silent at the end:
///   g_L = cos(max(pan, 0) * pi/2),  g_R = cos(max(-pan, 0) * pi/2)
/// (cos(x pi/2) is the equal-power curve's shape at 1 - x).
public func balanceGains(pan: Double, channelCount: Int) -> [Float] {
    guard channelCount == 2 else { return [1] }
    return [Float(Curve.equalPower.shape(1 - max(pan, 0))), Float(Curve.equalPower.shape(1 - max(-pan, 0)))]
}
