import MixIO

extension RenderJob {
    /// The cache key of this job, from its inputs' digests, for an output in `format` with the preset's
    /// encoding settings (an output's path takes no part), or the audio key only without one.
    public func cacheKey(inputs: [InputFile], format: OutputFileFormat? = nil, version: String = MixrenderVersion.string) throws -> CacheKey {
        let digests = Dictionary(inputs.map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        return try CacheKey(plan: plan, range: range, digests: digests, output: format.map { outputSettings(format: $0) },
                            chapters: chapters, version: version)
    }
}
