import Foundation
import MixIO
import MixRender

/// Plans a requested render as a render would, within the server's limits, and finds its id (its file cache key):
/// what the service does before it queues a request, and what the runner does again before it renders one.
///
/// Planning runs the library's analysis (`PresetRender.prepare`) with the server's sounds (`SoundLibrary`) as the
/// only files a preset may name, and shares prepared material with the renders (`material`), so a request
/// submitted twice, or rendered after it was planned, says and decodes nothing again.
struct RenderPlanner: Sendable {
    let sounds: SoundLibrary
    let limits: ServiceLimits
    let material: RenderMaterial

    /// A render planned: its id (the file cache key), the library's prepared render, what it warned.
    struct Planned: Sendable {
        var id: String
        var render: PresetRender
        var spec: RenderSpec
        var warnings: [String]
    }

    /// A render's id: the file key of its one output (`mixrender key PRESET --format F`), or for several outputs (or
    /// with a `stream`) the SHA-256 of their file keys in order (and of the stream), so the same outputs of the same
    /// render share one job and a different list is another.
    static func id(fileKeys: [String], stream: Bool = false) -> String {
        guard fileKeys.count > 1 || stream else { return fileKeys[0] }
        let text = "mixrender outputs 1\n" + fileKeys.joined(separator: "\n") + (stream ? "\nstream hls 1" : "")
        return ContentHash.of(text)
    }

    /// Plans `spec` as a render would (its JSON, values, sounds, speech and length checked), within the
    /// server's limits, and finds its id. Every fault is a `ServiceError` naming where in the request.
    func plan(_ spec: RenderSpec) async throws(ServiceError) -> Planned {
        if case .array(let tracks)? = spec.preset["tracks"], tracks.count > limits.maxTracks {
            throw .invalid(jsonPath: "preset.tracks",
                           reason: "has \(tracks.count) tracks; this server renders at most \(limits.maxTracks)")
        }
        let render: PresetRender
        do {
            render = try await withTimeLimit(seconds: limits.prepareSeconds) { [sounds, material] in
                try await PresetRender.prepare(preset: spec.preset, name: spec.name, overrides: spec.overrides,
                                               sources: sounds.resolver, material: material)
            }
        } catch let error as EngineError {
            throw ServiceError(error, nameOf: sounds.name(ofPath:))
        } catch is TimeLimitExceeded {
            throw .invalid(jsonPath: "preset", reason: "took longer than \(Int(limits.prepareSeconds)) s to prepare (its speech and sounds); this server gives a preset at most that")
        } catch {
            throw .internalFault("planning failed: \(error)")
        }
        if render.durationSeconds > limits.maxDurationSeconds {
            let path = spec.overrides.durationSeconds != nil ? "overrides.durationSeconds" : "preset.duration"
            throw .invalid(jsonPath: path, reason: "renders \(TimeParser.string(fromSeconds: render.durationSeconds)); this server renders at most \(TimeParser.string(fromSeconds: limits.maxDurationSeconds))")
        }
        if render.trackCount > limits.maxTracks {
            throw .invalid(jsonPath: "preset.bed", reason: "brings the preset to \(render.trackCount) tracks; this server renders at most \(limits.maxTracks)")
        }
        var warnings = render.warnings
        do {
            for (index, format) in spec.formats.enumerated() {
                let checked: [String]
                do { checked = try render.check(outputFile: "render.\(format.fileExtension)", encoding: spec.encodings[index]) } catch EngineError.output(_, let reason) {
                    // A format that cannot take this render (Opus at 22.05 kHz): the request's choice, not the server's disk.
                    throw ServiceError.invalid(jsonPath: spec.formatPaths[index],
                                   reason: ServiceError.hidingPaths("\(reason)", nameOf: sounds.name(ofPath:)))
                }
                for warning in checked where !warnings.contains(warning) { warnings.append(warning) }
            }
            let id = Self.id(fileKeys: try render.cacheKeys(formats: spec.formats, encodings: spec.encodings), stream: spec.stream)
            return Planned(id: id, render: render, spec: spec, warnings: warnings.map { ServiceError.hidingPaths($0, nameOf: sounds.name(ofPath:)) })
        } catch let error as ServiceError {
            throw error
        } catch let error as EngineError {
            throw ServiceError(error, nameOf: sounds.name(ofPath:))
        } catch {
            throw .internalFault("planning failed: \(error)")
        }
    }
}
