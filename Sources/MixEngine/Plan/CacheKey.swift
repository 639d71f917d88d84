import Dispatch
import Foundation  // NSLock
import MixDSP
import MixIO

/// A source file as the render report gives it: the planner's header and the content's size and SHA-256.
/// A value: a header and a string; allocates only those. `Sendable`, safe to share.
public struct InputFile: Sendable, Equatable {
    public var info: AudioFileInfo
    public var bytes: Int64
    public var sha256: String

    /// Hashes every source file of `plan` (each once, several at a time, each in 1 MiB chunks so memory
    /// stays flat), in path order. An unreadable file is an error naming it.
    public static func hashAll(_ plan: RenderPlan) throws -> [InputFile] {
        let files = plan.sourceFiles.sorted { $0.key < $1.key }.map(\.value)
        return try Parallel.map(files.count) { k in
            let (bytes, sha) = try ContentHash.file(path: files[k].path)
            return InputFile(info: files[k], bytes: bytes, sha256: sha)
        }
    }
}

/// The key a back end can file a render under: equal keys, equal renders (`audio`), and equal files
/// (`file`, with the encoding). It is the SHA-256 of a canonical text of the *resolved plan* (see
/// `CacheKeyWriter`), so it does not depend on how the preset is spelled (key order, `"90s"` or `90`,
/// defaults written out or left out), on where its files are, or on the output's path. docs/report.md
/// lists what enters it.
///
/// A value of three strings. `Sendable`, safe to share.
public struct CacheKey: Sendable, Equatable {
    /// The audio: the same for every output format (`mixrender key PRESET`).
    public var audio: String
    /// The file: the audio key and the encoding (format, sample format or quality, tags, chapters); nil
    /// when no output format is known.
    public var file: String?
    public var version: String

    /// The key of rendering `range` of `plan`, with these input digests (path -> SHA-256), written with
    /// `output` settings (nil: the audio key only), converted from the mix by `conversion`, and these chapter marks, by
    /// mixrender `version`.
    public init(plan: RenderPlan, range: Range<Int64>, digests: [String: String], output: OutputSettings?,
                conversion: OutputConversion? = nil, chapters: [ChapterMark] = [], version: String = MixrenderVersion.string) throws {
        let audioText = try Self.audioText(plan: plan, range: range, digests: digests, version: version)
        audio = ContentHash.of(audioText)
        self.version = version
        file = output.map { ContentHash.of("audio=\(audio)\n" + Self.encodingText($0, chapters: chapters, conversion: conversion)) }
    }

    /// The canonical text of the audio key: the version, the format of the mix, the range, every track
    /// and voice, the master bus, the limiter and the loudness target.
    public static func audioText(plan: RenderPlan, range: Range<Int64>, digests: [String: String],
                                 version: String = MixrenderVersion.string) throws -> String {
        var w = CacheKeyWriter(digests: digests)
        w.field("mixrender", version)
        w.field("sampleRate", plan.sampleRate)
        w.field("channels", plan.channelCount)
        w.field("frames", plan.frameCount)
        w.field("renderedStart", range.lowerBound)
        w.field("renderedEnd", range.upperBound)
        w.field("resampler", plan.resampler.rawValue)
        if let loop = plan.loop {
            w.group("loop") { w in
                w.field("length", loop.length)
                w.field("crossfade", loop.crossfadeFrames)
                w.field("curve", loop.curve.rawValue)
            }
        }
        for track in plan.tracks {
            w.group("track") { w in
                w.field("start", track.start)
                w.field("end", track.end)
                w.gains("gains", track.gains)
                for (k, b) in track.balance.enumerated() { w.field("balance\(k)", b) }
                for event in track.events {
                    w.group("voice") { w in
                        w.field("start", event.start)
                        w.field("end", event.end)
                        w.field("sourceOffset", event.sourceOffset)
                        w.gains("gains", event.gains)
                        event.material.describe(into: &w)
                    }
                }
            }
        }
        w.gains("master", plan.master)
        w.group("limiter") { w in
            w.field("ceilingDb", plan.limiter.ceilingDb)
            w.field("detection", plan.limiter.detection.rawValue)
            w.field("lookaheadMs", plan.limiter.lookaheadMs)
            w.field("releaseMs", plan.limiter.releaseMs)
        }
        if let loudness = plan.loudness {
            w.group("loudness") { w in
                w.field("targetLUFS", loudness.targetLUFS)
                w.field("truePeakDb", loudness.truePeakDb)
                w.field("maximumGainDb", loudness.maximumGainDb)
            }
        }
        if let path = w.unhashed.first {
            throw EngineError.output(path: path, reason: "a source file with no content hash; the cache key cannot be made")
        }
        return w.text
    }

    /// The canonical text of what the encoding adds: what changes the file's bytes beyond the audio.
    public static func encodingText(_ settings: OutputSettings, chapters: [ChapterMark], conversion: OutputConversion?) -> String {
        var w = CacheKeyWriter(digests: [:])
        w.field("format", settings.format.fileExtension)
        // A file at its own rate, channels or loudness, converted from the mix (`OutputConversion`); none before there
        // were any.
        if let conversion, !conversion.isIdentity {
            w.group("conversion") { w in
                w.field("sampleRate", conversion.outputRate)
                w.field("channels", conversion.outputChannels)
                w.field("resampler", ResamplerChoice.soxrVHQ.rawValue)
                if conversion.gainDb != 0 { w.field("gainDb", conversion.gainDb) }
            }
        }
        if settings.format.isPCM {
            w.field("sampleFormat", settings.sampleFormat.rawValue)
        } else if let kbps = settings.bitrateKbps {
            w.field("bitrate", kbps)
        } else {
            w.field("quality", settings.vorbisQuality)
        }
        w.field("title", settings.title ?? "")
        w.field("artist", settings.artist ?? "")
        w.field("comment", settings.comment ?? "")
        // The other tags (none before there were any: earlier keys are unchanged).
        for field in settings.tagFields.fields where !["TITLE", "ARTIST", "COMMENT"].contains(field.key) {
            w.group("tag") { w in w.field("key", field.key); for value in field.values { w.field("value", value) } }
        }
        if FileTags.carriesChapters(settings.format) {
            for mark in chapters { w.group("chapter") { w in w.field("name", mark.name); w.field("frame", mark.frame) } }
        }
        return w.text
    }
}
