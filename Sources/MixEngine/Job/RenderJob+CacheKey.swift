import MixIO

extension RenderJob {
    /// The cache key of this job, from its inputs' digests, for an output in `format` with the preset's
    /// encoding settings (an output's path takes no part), or the audio key only without one.
    /// `encoding`: the output's own quality or bitrate (one of several outputs), which its file key holds.
    public func cacheKey(inputs: [InputFile], format: OutputFileFormat? = nil, encoding: OutputEncoding? = nil,
                         version: String = MixrenderVersion.string) throws -> CacheKey {
        let source = outputSource.encoded(encoding)
        return try cacheKey(inputs: inputs, settings: format.map { source.settings(format: $0) }, conversion: source.conversion,
                            version: version)
    }

    /// The cache key of this job for an output written with `settings` and `conversion` (a result's own), or the audio
    /// key only.
    public func cacheKey(inputs: [InputFile], settings: OutputSettings?, conversion: OutputConversion? = nil,
                         version: String = MixrenderVersion.string) throws -> CacheKey {
        let digests = Dictionary(inputs.map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        return try CacheKey(plan: plan, range: range, digests: digests, output: settings, conversion: conversion, chapters: chapters,
                            version: version)
    }
}
