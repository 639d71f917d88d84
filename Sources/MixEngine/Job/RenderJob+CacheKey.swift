import MixIO

extension RenderJob {
    /// The cache key of this job, from its inputs' digests, for an output in `format` with the preset's
    /// encoding settings (an output's path takes no part), or the audio key only without one.
    /// `encoding`: the output's own quality or bitrate (one of several outputs), which its file key holds.
    public func cacheKey(inputs: [InputFile], format: OutputFileFormat? = nil, encoding: OutputEncoding? = nil,
                         version: String = MixrenderVersion.string) throws -> CacheKey {
        try cacheKey(inputs: inputs, settings: format.map { outputSettings(format: $0, encoding: encoding) }, version: version)
    }

    /// The cache key of this job for an output written with `settings` (a result's own), or the audio key only.
    public func cacheKey(inputs: [InputFile], settings: OutputSettings?, version: String = MixrenderVersion.string) throws -> CacheKey {
        let digests = Dictionary(inputs.map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        return try CacheKey(plan: plan, range: range, digests: digests, output: settings, chapters: chapters, version: version)
    }
}
