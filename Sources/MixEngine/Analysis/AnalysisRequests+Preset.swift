import MixIO

/// A preset's requests: the analysis phase asks each kind for its own (`SourceKind.analysisRequests`), and the
/// session's segments for theirs.
extension AnalysisRequests {
    /// Everything `preset` needs: its session's segments first (they are laid out first), then each track's.
    static func of(_ preset: Preset) -> AnalysisRequests {
        var requests = AnalysisRequests(format: RenderFormat(sampleRate: preset.output.sampleRate,
                                                             channelCount: preset.output.channelCount,
                                                             resampler: preset.output.resampler))
        for section in preset.session?.sections ?? [] {
            for segment in section.segments {
                switch segment.source {
                case .file(let path): requests.recording(RecordingRequest(path: path, transcript: segment.transcript))
                case .text(let text, let ssml, let settings): requests.speech(text: text, ssml: ssml, settings: settings)
                }
            }
        }
        for track in preset.tracks { track.source.kind.analysisRequests(&requests, loop: track.loop) }
        return requests
    }
}
