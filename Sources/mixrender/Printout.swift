import Foundation
import MixRender

/// Text the CLI prints: summaries and file descriptions.
enum Printout {
    /// Prints each planner warning as one line on stderr.
    static func warn(_ warnings: [String]) {
        for w in warnings { FileHandle.standardError.write("warning: \(w)\n".data(using: .utf8)!) }
    }

    /// The level in dB of a linear gain; -inf for silence.
    static func decibels(fromGain gain: Double) -> Double { gain > 0 ? 20 * log10(gain) : -.infinity }

    /// One more file of the same render (`-o` given again): its path, size and what it holds, one line.
    static func outputLine(_ result: RenderResult) -> String {
        let l = result.outputLoudness
        var line = "also      \(result.outputPath): \(result.outputBytes.map(bytes) ?? "streamed"), \(lufs(l.integrated)) LUFS, "
            + "true peak \(db(l.truePeak)) dBTP" + (result.fileLoudness != nil ? " (decoded)" : "")
        if let n = result.normalisation, n.rewrites > 0 { line += ", written again \(n.rewrites == 1 ? "once" : "\(n.rewrites) times") for its loudness" }
        return line
    }

    static func summary(_ result: RenderResult, job: RenderJob? = nil) -> String {
        let s = result.summary
        let speed = s.timings.wall > 0 ? s.durationSeconds / s.timings.wall : 0
        var lines = [
            "wrote     \(result.outputPath)",
            "duration  \(clock(s.durationSeconds)) (\(s.frameCount) frames at \(s.sampleRate) Hz)",
            "size      \(result.outputBytes.map(bytes) ?? "streamed")",
            "peak      \(db(s.peakDb)) dBFS, RMS \(db(s.rmsDb)) dBFS",
        ]
        // What the file holds first: a lossy file decoded; then what the encoder was given, when that differs.
        let heard = result.outputLoudness
        func levels(_ l: LoudnessMeasurement) -> String {
            "\(lufs(l.integrated)) LUFS integrated, range \(db(l.range)) LU, true peak \(db(l.truePeak)) dBTP"
        }
        if result.fileLoudness != nil {
            lines.append("loudness  \(levels(heard)) (the file, decoded)")
            lines.append("          \(levels(s.loudness)) (the render, before encoding)")
        } else {
            lines.append("loudness  \(levels(heard))" + (result.isStream && !result.output.settings.format.isPCM ? " (before encoding)" : ""))
        }
        if let n = result.normalisation {
            var line = "normalise target \(lufs(n.targetLUFS)) LUFS under \(db(n.truePeakDb)) dBTP: the mix measured \(lufs(n.measuredLUFS)) LUFS, "
                + "gain \(String(format: "%+.1f", n.gainDb)) dB"
            if n.limiterLossLU > 0.05 {
                line += "; the limiter took \(String(format: "%.1f", n.limiterLossLU)) LU, made up by \(n.measuringPasses - 2) more pass\(n.measuringPasses == 3 ? "" : "es")"
            }
            let passes = "\(n.measuringPasses) measuring pass\(n.measuringPasses == 1 ? "" : "es")"
            switch n.reusedFrom {
            case nil: line += " (\(passes), \(String(format: "%.2f", n.seconds)) s)"
            case .process?: line += " (measured before by this process: \(passes))"
            case .cacheFolder?: line += " (measured before, read from the cache folder: \(passes))"
            }
            if n.rewrites > 0, let encoded = n.encodedLUFS, let peak = n.encodedTruePeakDb {
                var what: [String] = []
                if n.encoderCorrectionDb != 0 { what.append("its loudness by \(String(format: "%+.1f", -n.encoderCorrectionDb)) LU") }
                if n.encoderCeilingCorrectionDb > 0 || n.encoderTurnDownDb > 0 { what.append("its true peak over the ceiling") }
                line += "; the encoder moved \(what.joined(separator: " and ")), so it was written again \(n.rewrites == 1 ? "once" : "\(n.rewrites) times")"
                    + " (limiter ceiling \(db(n.limiterCeilingDb ?? n.truePeakDb)) dBTP"
                    + (n.encoderTurnDownDb > 0 ? ", then turned down \(String(format: "%.1f", n.encoderTurnDownDb)) dB as its peaks kept over it" : "")
                    + "): \(lufs(encoded)) LUFS, \(db(peak)) dBTP decoded"
            }
            lines.append(line)
        }
        if s.maxGainReductionDb > 0.005 {
            lines.append("limiter   mix peaked at \(db(s.mixPeakDb)) dBFS; reduced up to \(String(format: "%.1f", s.maxGainReductionDb)) dB for \(String(format: "%.2f", s.limitedSeconds)) s")
        } else {
            lines.append("limiter   idle (mix peak \(db(s.mixPeakDb)) dBFS)")
        }
        if s.clippedSamples > 0 {
            lines.append("clipped   \(s.clippedSamples) sample\(s.clippedSamples == 1 ? "" : "s") cut to the ceiling (a peak outran the look-ahead)")
        }
        if let job, !job.chapters.isEmpty, OutputFileFormat.from(path: result.outputPath).map(FileTags.carriesChapters) == true {
            lines.append("chapters  \(job.chapters.count) (" + job.chapters.map { PrintableText.escaped($0.name) }.joined(separator: ", ") + ")")
        }
        if let job, job.plan.synthesis.speechSeconds > 0 {
            let synthesis = job.plan.synthesis
            lines.append("speech    \(clock(synthesis.speechSeconds)) synthesised in \(String(format: "%.2f", synthesis.wallSeconds)) s")
        }
        lines.append("speed     \(String(format: "%.0f", speed))x realtime (\(String(format: "%.2f", s.timings.wall)) s)")
        return lines.joined(separator: "\n")
    }

    static func validation(_ job: RenderJob) -> String {
        let plan = job.plan
        let e = PrintableText.escaped
        var lines = ["\(e(job.presetPath)): OK",
                     "duration  \(clock(Double(plan.outputFrameCount) / Double(plan.sampleRate))), \(plan.sampleRate) Hz, \(plan.channelCount == 1 ? "mono" : "stereo")"
                     + (plan.loop.map { ", loopable (\(clock(Double($0.crossfadeFrames) / Double(plan.sampleRate))) crossfade into the start)" } ?? "")]
        let time = { (frame: Int64) in clock(Double(frame) / Double(plan.sampleRate)) }
        let timeline = plan.timeline
        for (i, section) in timeline.sections.enumerated() {
            let segments = timeline.segments.filter { $0.section == i }.count
            var line = "section   \(e(section.name)): \(time(section.start))-\(time(section.end)), \(segments) segment\(segments == 1 ? "" : "s")"
            if section.addedFrames > 0 { line += ", stretched by \(time(section.addedFrames))" }
            lines.append(line)
            // Where a stretched section's voice falls: the pause after each segment (the last to the section's end).
            let members = timeline.segments.filter { $0.section == i }
            if section.addedFrames > 0, !members.isEmpty {
                let pauses = members.indices.map { k in
                    time(max(0, (k + 1 < members.count ? members[k + 1].start : section.end) - members[k].end))
                }
                lines.append("pauses    \(section.name): " + pauses.joined(separator: ", "))
            }
        }
        if let ending = timeline.ending {
            lines.append("ending    \(ending.kind): \(time(ending.start))-\(time(ending.end))")
        }
        for track in plan.tracks {
            let span = "\(time(track.start))-\(time(track.end))"
            lines.append("track     \(e(track.name)): \(span), \(track.events.count) event\(track.events.count == 1 ? "" : "s")")
        }
        return lines.joined(separator: "\n")
    }

    /// Everything taken from the file (its name, tag keys and values, chapter names, warnings) goes through
    /// `PrintableText.escaped`: a newline in a tag value cannot forge a line, an escape sequence cannot reach the
    /// terminal.
    static func info(_ info: AudioFileInfo, comments rawComments: [(key: String, value: String)] = [], chapters: [ChapterMark] = []) -> String {
        let e = PrintableText.escaped
        let comments = rawComments.map { (key: e($0.key), value: e($0.value)) }
        var lines = [
            "file      \(e(info.path))",
            "format    \(info.formatName)",
            "rate      \(info.sampleRate) Hz",
            "channels  \(info.channelCount)",
            "duration  \(clock(info.durationSeconds)) (\(info.frameCount) frames)",
        ]
        // Known tags as `title     Sleep hypnosis`, in TagFields.knownKeys's order; the others as `tag       MOOD=calm`
        // (not chapter marks, ReplayGain or a WAV's RIFF INFO copies, shown below or not at all); chapters one line each.
        for known in TagFields.knownKeys {
            for (key, value) in comments where key.uppercased() == known {
                // The label's column is 10 wide, as the lines above; a longer label (tracknumber) keeps a space.
                let label = known.lowercased()
                lines.append(label.padding(toLength: max(10, label.count + 1), withPad: " ", startingAt: 0) + value)
            }
        }
        let shownElsewhere = ["REPLAYGAIN_", "R128_", "INFO:"]
        for (key, value) in comments where !TagFields.knownKeys.contains(key.uppercased())
            && !shownElsewhere.contains(where: { key.uppercased().hasPrefix($0) })
            && !ChapterMark.isCommentKey(key) {
            lines.append("tag       \(key.uppercased())=\(value)")
        }
        let replayGain = Dictionary(comments.map { ($0.key.uppercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        if let q78 = replayGain["R128_TRACK_GAIN"].flatMap(Double.init) {
            lines.append("r128 gain \(String(format: "%+.2f", q78 / 256)) dB to -23 LUFS (R128_TRACK_GAIN \(Int(q78)))")
        }
        if let gain = replayGain["REPLAYGAIN_TRACK_GAIN"] {
            lines.append("replaygain \(gain)" + (replayGain["REPLAYGAIN_TRACK_PEAK"].map { ", peak \($0)" } ?? ""))
        }
        for mark in Chapters.marks(inComments: rawComments) { lines.append("chapter   \(mark.timestamp)  \(e(mark.name))") }
        // ID3v2 chapters: start, end and name (`CHAP` frames, in the table of contents' order).
        for chapter in chapters {   // in table-of-contents order (`FileTags.contents`)
            lines.append("chapter   \(chapter.timestamp)  \(e(chapter.name))  (to \(chapter.timestamp(chapter.end ?? chapter.frame)))")
        }
        for warning in info.warnings { lines.append("warning   \(e(warning))") }
        return lines.joined(separator: "\n")
    }

    static func lufs(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "-inf" }

    static func db(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "-inf"
    }

    /// h:mm:ss.mmm, or m:ss.mmm under an hour.
    static func clock(_ seconds: Double) -> String { TimeParser.clock(seconds) }

    /// `joined 4 parts into out.flac: 1920000 frames, 0:40 at 48000 Hz, 2 channels, 16-bit, 5.1 MiB`.
    static func join(_ r: JoinResult) -> String {
        let depth = r.sampleFormat == .pcm16 ? "16-bit" : r.sampleFormat == .pcm24 ? "24-bit" : "32-bit float"
        return "joined \(r.partCount) part\(r.partCount == 1 ? "" : "s") into \(r.outputPath): \(r.frameCount) frames, "
            + "\(clock(r.durationSeconds)) at \(r.sampleRate) Hz, \(r.channelCount) channel\(r.channelCount == 1 ? "" : "s"), \(depth)"
            + (r.outputBytes.map { ", \(bytes($0))" } ?? "")
    }

    static func bytes(_ n: Int64) -> String {
        let d = Double(n)
        if d >= 1_073_741_824 { return String(format: "%.2f GiB", d / 1_073_741_824) }
        if d >= 1_048_576 { return String(format: "%.1f MiB", d / 1_048_576) }
        if d >= 1024 { return String(format: "%.1f KiB", d / 1024) }
        return "\(n) bytes"
    }
}
