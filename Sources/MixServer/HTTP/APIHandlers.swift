import Foundation
import HTTPTypes
import MixRender
import OpenAPIRuntime

/// The API's operations (generated from openapi.yaml as `APIProtocol`), each a translation between the
/// document's types and the service's: the work is `RenderService`'s, `ResultStore`'s and `SoundLibrary`'s.
/// The audio itself (`GET`/`HEAD /v1/renders/{id}/audio`, with ranges) is `AudioRoute`'s: its content type is
/// the file's, which a generated handler cannot set. The waveform is `WaveformRoute`'s: its files are streamed, not
/// decoded and encoded again.
///
/// A handler returns only its success; a refusal is thrown as a `ServiceError`, which `RequestErrorMiddleware` answers
/// through the one mapping (`HTTPProblem.init(_:)`), so no handler chooses a status for an error.
struct APIHandlers: APIProtocol {
    let service: RenderService
    let readiness: Readiness
    let metrics: MetricsEndpoint
    let page: PageFiles

    private var token: String {
        get throws {
            guard let name = RequestToken.name else { throw ServiceError.unauthorized("no token") }
            return name
        }
    }

    // MARK: - Renders

    func createRender(_ input: Operations.createRender.Input) async throws -> Operations.createRender.Output {
        guard case .json(let given) = input.body else { throw ServiceError.malformed("the body must be JSON") }
        let spec = try service.spec(for: given)
        let (view, created, warnings) = try await service.submit(spec, token: try token, webhookURL: given.webhook?.url)
        let render = try await self.render(view, warnings: warnings)
        if created {
            return .accepted(.init(headers: .init(Location: "/v1/renders/\(view.record.id)"), body: .json(render)))
        }
        return .ok(.init(body: .json(render)))
    }

    func getRender(_ input: Operations.getRender.Input) async throws -> Operations.getRender.Output {
        let view = try await service.view(id: input.path.id, token: try token)
        return .ok(.init(body: .json(try await render(view))))
    }

    func cancelRender(_ input: Operations.cancelRender.Input) async throws -> Operations.cancelRender.Output {
        let view = try await service.cancel(id: input.path.id, token: try token)
        return .ok(.init(body: .json(try await render(view))))
    }

    func getRenderEvents(_ input: Operations.getRenderEvents.Input) async throws -> Operations.getRenderEvents.Output {
        let token = try self.token
        let first = try await service.view(id: input.path.id, token: token)
        let events = RenderEvents(first: first, changes: service.live.changes, logger: service.logger) { [service] in try await service.view(id: first.record.id, token: token) } describe: { view in
            try await self.render(view)
        }
        return .ok(.init(body: .text_event_hyphen_stream(HTTPBody(events.stream(), length: .unknown, iterationBehavior: .single))))
    }

    func getRenderAudio(_ input: Operations.getRenderAudio.Input) async throws -> Operations.getRenderAudio.Output {
        // Served by `AudioRoute` (the router never sends this operation here).
        .undocumented(statusCode: 500, .init())
    }

    func headRenderAudio(_ input: Operations.headRenderAudio.Input) async throws -> Operations.headRenderAudio.Output {
        .undocumented(statusCode: 500, .init())
    }

    func getRenderOutput(_ input: Operations.getRenderOutput.Input) async throws -> Operations.getRenderOutput.Output {
        // Served by `AudioRoute` (the router never sends this operation here).
        .undocumented(statusCode: 500, .init())
    }

    func headRenderOutput(_ input: Operations.headRenderOutput.Input) async throws -> Operations.headRenderOutput.Output {
        .undocumented(statusCode: 500, .init())
    }

    func getRenderStream(_ input: Operations.getRenderStream.Input) async throws -> Operations.getRenderStream.Output {
        // Served by `StreamRoute` (the router never sends this operation here).
        .undocumented(statusCode: 500, .init())
    }

    func getSignedStream(_ input: Operations.getSignedStream.Input) async throws -> Operations.getSignedStream.Output {
        // Served by `StreamRoute` (the router never sends this operation here).
        .undocumented(statusCode: 500, .init())
    }

    func getRenderWaveform(_ input: Operations.getRenderWaveform.Input) async throws -> Operations.getRenderWaveform.Output {
        // Served by `WaveformRoute`, which streams the files (the router never sends this operation here).
        .undocumented(statusCode: 500, .init())
    }

    func getRenderTimeline(_ input: Operations.getRenderTimeline.Input) async throws -> Operations.getRenderTimeline.Output {
        let folder = try await finishedFolder(input.path.id)
        return .ok(.init(body: .json(try await Self.object(fromFile: folder + "/timeline.json"))))
    }

    func getRenderReport(_ input: Operations.getRenderReport.Input) async throws -> Operations.getRenderReport.Output {
        let folder = try await finishedFolder(input.path.id)
        return .ok(.init(body: .json(try await Self.object(fromFile: folder + "/report.json"))))
    }

    /// The result folder of render `id` for this token: 404 when the token does not own it, 409 until it succeeded.
    func finishedFolder(_ id: String) async throws -> String {
        try await service.finished(id: id, token: try token).folder
    }

    // MARK: - Sounds

    func listSounds(_ input: Operations.listSounds.Input) async throws -> Operations.listSounds.Output {
        _ = try token
        let sounds = service.sounds
        return .ok(.init(body: .json(.init(sounds: try await ResultFiles.run { sounds.list() }))))
    }

    func getSound(_ input: Operations.getSound.Input) async throws -> Operations.getSound.Output {
        _ = try token
        let hash = input.path.sha256
        guard SoundLibrary.isSHA256(hash) else { throw Self.notAHash(hash) }
        guard let sound = try await SoundDescription.of(hash: hash, in: service.sounds) else {
            throw ServiceError.notFound("no sound sha256:\(hash) has been uploaded")
        }
        return .ok(.init(body: .json(sound)))
    }

    func uploadSound(_ input: Operations.uploadSound.Input) async throws -> Operations.uploadSound.Output {
        _ = try token
        try RequestToken.refuseIfLimited("uploading a sound")
        let hash = input.path.sha256
        guard SoundLibrary.isSHA256(hash) else { throw Self.notAHash(hash) }
        guard case .binary(let body) = input.body else {
            throw ServiceError.malformed("the body must be the sound's bytes (application/octet-stream)")
        }
        if let fault = service.storage.fault() { throw service.storage.problem(fault) }
        let created = try await service.sounds.upload(sha256: hash, body: body, maximumBytes: service.limits.maxUploadBytes)
        guard let sound = try await SoundDescription.of(hash: hash, in: service.sounds) else {
            throw ServiceError.internalFault("the sound was stored but cannot be read back")
        }
        return created ? .created(.init(body: .json(sound))) : .ok(.init(body: .json(sound)))
    }

    /// A path's `{sha256}` that is not one.
    private static func notAHash(_ hash: String) -> ServiceError {
        .malformed(jsonPath: "sha256", reason: "'\(hash)' is not a SHA-256 (64 lowercase hexadecimal digits)")
    }

    // MARK: - Templates

    func publishTemplate(_ input: Operations.publishTemplate.Input) async throws -> Operations.publishTemplate.Output {
        _ = try token
        try RequestToken.refuseIfLimited("publishing a template")
        guard case .json(let body) = input.body else { throw ServiceError.malformed("the body must be JSON") }
        let document = try RenderSpec.jsonValue(body, jsonPath: "")
        if let fault = service.storage.fault() { throw service.storage.problem(fault) }
        let templates = service.templates, name = input.path.name, version = input.path.version
        let created = try await ResultFiles.run { () throws(ServiceError) -> Bool in
            try templates.publish(name: name, version: version, document: document)
        }
        let published = try templates.template(name: name, version: version)
        let answer = Components.Schemas.TemplateVersion(name: name, version: version, variables: published.variables.map(\.name))
        service.logger.info("template published", metadata: ["template": "\(name)", "version": "\(version)", "new": "\(created)"])
        return created ? .created(.init(body: .json(answer))) : .ok(.init(body: .json(answer)))
    }

    func getTemplate(_ input: Operations.getTemplate.Input) async throws -> Operations.getTemplate.Output {
        _ = try token
        let name = input.path.name, version = input.path.version
        if let limit = RequestToken.templates, !limit.allows(name) { throw ServiceError.notFound("no template '\(name)' version \(version) for this token") }
        // Checked as a render would read it, then given as it was published.
        let bytes = try service.templates.published(name: name, version: version).bytes
        return .ok(.init(body: .json(try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(bytes)))))
    }

    func listTemplates(_ input: Operations.listTemplates.Input) async throws -> Operations.listTemplates.Output {
        _ = try token
        let templates = service.templates
        let names = templates.names().filter { RequestToken.templates?.allows($0) ?? true }
        return .ok(.init(body: .json(.init(templates: names.map { .init(name: $0, versions: templates.versions(of: $0)) }))))
    }

    // MARK: - Presets

    func validatePreset(_ input: Operations.validatePreset.Input) async throws -> Operations.validatePreset.Output {
        guard case .json(let given) = input.body else { throw ServiceError.malformed("the body must be JSON") }
        _ = try token
        do {
            let spec = try service.spec(for: given)
            let planned = try await service.plan(spec)
            return .ok(.init(body: .json(.init(valid: true, warnings: planned.warnings, durationSeconds: planned.render.durationSeconds,
                                               sampleRate: planned.render.sampleRate, channels: planned.render.channelCount))))
        } catch {
            // An invalid preset is this operation's answer, not its failure (both throw only a ServiceError).
            guard case .invalid = error else { throw error }
            return .ok(.init(body: .json(.init(valid: false, error: Self.problem(HTTPProblem(error)), warnings: []))))
        }
    }

    func getPresetSchema(_ input: Operations.getPresetSchema.Input) async throws -> Operations.getPresetSchema.Output {
        .ok(.init(body: .application_schema_plus_json(try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(try page.bytes(of: "preset.schema.json"))))))
    }

    // MARK: - Operations

    func getHealth(_ input: Operations.getHealth.Input) async throws -> Operations.getHealth.Output {
        .ok(.init(body: .plainText("ok\n")))
    }

    func getReadiness(_ input: Operations.getReadiness.Input) async throws -> Operations.getReadiness.Output {
        if let reason = await readiness.notReadyReason() { return .serviceUnavailable(.init(body: .plainText(HTTPBody(reason + "\n")))) }
        return .ok(.init(body: .plainText("ready\n")))
    }

    func getMetrics(_ input: Operations.getMetrics.Input) async throws -> Operations.getMetrics.Output {
        .ok(.init(body: .plainText(HTTPBody(await metrics.text()))))
    }

    func getOpenAPIDocument(_ input: Operations.getOpenAPIDocument.Input) async throws -> Operations.getOpenAPIDocument.Output {
        .ok(.init(body: .yaml(HTTPBody(try page.bytes(of: "openapi.yaml")))))
    }

    func getPage(_ input: Operations.getPage.Input) async throws -> Operations.getPage.Output {
        .ok(.init(body: .html(HTTPBody(try page.bytes(of: "index.html")))))
    }

    func getPageScript(_ input: Operations.getPageScript.Input) async throws -> Operations.getPageScript.Output {
        .ok(.init(body: .text_javascript(HTTPBody(try page.bytes(of: "page.js")))))
    }

    func getPageStyle(_ input: Operations.getPageStyle.Input) async throws -> Operations.getPageStyle.Output {
        .ok(.init(body: .text_css(HTTPBody(try page.bytes(of: "page.css")))))
    }

    // MARK: - Translation

    /// A job as the API's `Render`, with its result's chapters and warnings.
    func render(_ view: JobView, warnings: [String]? = nil) async throws -> Components.Schemas.Render {
        let record = view.record
        var render = Components.Schemas.Render(
            id: record.id, state: Components.Schemas.State(rawValue: view.state.rawValue) ?? .queued,
            format: Components.Schemas.Format(rawValue: record.format) ?? .m4a, name: record.name, createdAt: record.createdAt,
            startedAt: record.startedAt, finishedAt: view.state.isFinal ? (record.finishedAt ?? Date()) : nil,
            durationSeconds: record.durationSeconds,
            links: RenderLinks(id: record.id, streams: service.parts.streams(record)).schema)
        if view.state != .failed && view.state != .cancelled, render.links.stream != nil {
            render.streamURL = service.signedStreamURL(id: record.id)
        }
        switch view.state {
        case .rendering:
            if let progress = record.progress {
                render.progress = .init(fraction: progress.fraction, speed: progress.speed, secondsLeft: progress.secondsLeft)
            } else {
                render.progress = .init(fraction: 0)
            }
        case .queued:
            render.progress = .init(fraction: 0)
        case .succeeded:
            render.progress = .init(fraction: 1, secondsLeft: 0)
            if let document = service.parts.result(record) {
                render.result = .init(bytes: document.bytes, sha256: document.sha256, contentType: document.contentType,
                                      integratedLoudness: document.integratedLoudness, truePeakDb: document.truePeakDb,
                                      outputs: document.outputs?.map { output in
                                          .init(format: Components.Schemas.Format(rawValue: output.format) ?? .m4a, id: output.id,
                                                bytes: output.bytes, sha256: output.sha256, contentType: output.contentType,
                                                integratedLoudness: output.integratedLoudness, truePeakDb: output.truePeakDb, url: output.url,
                                                quality: output.quality, bitrateKbps: output.bitrateKbps,
                                                sampleRate: output.sampleRate, channels: output.channels)
                                      })
                render.chapters = document.chapters.map { .init(name: $0.name, startSeconds: $0.startSeconds) }
                render.warnings = document.warnings
                render.voices = document.voices?.map {
                    .init(id: $0.id, languages: $0.languages, quality: .init(rawValue: $0.quality) ?? .draft, licence: $0.licence,
                          attribution: $0.attribution, origin: $0.origin)
                }
            }
        case .failed:
            if let text = record.problem, let problem = try? JSONDecoder().decode(Components.Schemas.Problem.self, from: Data(text.utf8)) {
                render.error = problem
            }
        case .cancelled:
            break
        }
        if let warnings { render.warnings = warnings }
        if !view.uploads.isEmpty {
            render.deliveries = view.uploads.map { upload in
                .init(output: Components.Schemas.Format(rawValue: upload.destination.output) ?? .m4a,
                      url: upload.destination.shownURL, method: upload.destination.method,
                      state: Components.Schemas.DeliveryStatus.statePayload(rawValue: upload.state.rawValue) ?? .pending,
                      attempts: upload.attempts, status: upload.lastStatus, error: upload.lastError,
                      nextAttemptAt: upload.state == .pending ? upload.nextAttemptAt : nil, finishedAt: upload.finishedAt)
            }
        }
        return render
    }

    static func problem(_ problem: HTTPProblem) -> Components.Schemas.Problem {
        .init(_type: "about:blank", title: problem.title, status: problem.status, detail: problem.detail,
              jsonPath: problem.jsonPath, reason: problem.reason)
    }

    static func object(fromFile path: String) async throws -> OpenAPIObjectContainer {
        try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(try await ResultFiles.read(path)))
    }
}
