/// What `mixrender validate --json` prints, for back ends: the preset checked (it is only printed when everything
/// passed; a failure is the usual one-line error and a failed exit), its length, rate and channels, each track's
/// span and events, the formats checked with `--format`, the warnings, and the timeline (`TimelineJSON`: sections,
/// spoken segments, ducking, schedules, breathing phases). Times are given in seconds and in frames.
package enum ValidationJSON {
    package static func document(_ job: RenderJob, formats: [String], warnings: [String]) -> String {
        let plan = job.plan
        let times = TimelineJSON.Times(sampleRate: plan.sampleRate)
        let tracks: [JSONValue] = plan.tracks.map { track in
            .object([JSONValue.Member("name", .string(track.name))] + times.span(track.start, track.end)
                    + [JSONValue.Member("events", .integer(Int64(track.events.count)))])
        }
        let value = JSONValue.object([
            JSONValue.Member("preset", .string(job.presetPath)),
            JSONValue.Member("ok", .bool(true)),
            JSONValue.Member("duration", times.time(plan.outputFrameCount)),
            JSONValue.Member("sampleRate", .integer(Int64(plan.sampleRate))),
            JSONValue.Member("channels", .integer(Int64(plan.channelCount))),
            JSONValue.Member("loopCrossfade", plan.loop.map { times.time($0.crossfadeFrames) } ?? .null),
            JSONValue.Member("tracks", .array(tracks)),
            JSONValue.Member("formats", .array(formats.map { .string($0) })),
            JSONValue.Member("warnings", .array(warnings.map { .string($0) })),
            JSONValue.Member("timeline", TimelineJSON.value(plan.timeline, range: job.range)),
        ])
        return value.document(.readable)
    }
}
