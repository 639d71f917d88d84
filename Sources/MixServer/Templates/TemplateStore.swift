import Foundation
import MixIO
import MixRender

/// The server's templates (docs/templates.md): one file a version, `<folder>/<name>/<version>.json`, published once
/// and never changed. Publishing writes the file under a temporary name, syncs it and gives it its name only if that
/// name is free (`link`), so a version is whole or absent, and two servers publishing the same version at once
/// cannot both win. Servers sharing a database share this folder, as they share results.
///
/// The folder is read as untrusted: a file that is not a template of its own name and version is refused, naming the
/// template, never the server's path.
struct TemplateStore: Sendable {
    let folder: String

    /// The largest template taken (a template is a preset, whose sessions may be long).
    static let maximumBytes = 1 << 20

    init(folder: String) {
        self.folder = folder
    }

    /// Publishes `document` as `name` version `version`: true when it is new, false when that version holds the same
    /// template already (publishing is idempotent); a different one there is a conflict (409).
    func publish(name: String, version: Int, document: JSONValue) throws(ServiceError) -> Bool {
        let template = try Self.check(document, name: name, version: version)
        let bytes = Array((template.document.json(.readable) + "\n").utf8)
        let path = self.path(name: name, version: version)
        // Already published (by this request before, another request, another server): the same bytes are no conflict.
        func published() throws(ServiceError) -> Bool {
            guard let existing = try? FileSystem.readDocument(path: path, maximumBytes: Self.maximumBytes, followsLinks: false) else {
                return false
            }
            if existing == bytes { return true }
            throw .conflict("template '\(name)' version \(version) is published and cannot change; publish it as version \(version + 1)")
        }
        if try published() { return false }
        do {
            try FileSystem.makeFolders(folder + "/" + name)
            try FileSystem.publishNew(bytes, to: path)
        } catch let error as AudioIOError where error.cause == .alreadyExists {
            if try published() { return false }
            throw .unavailable("the template cannot be stored now (its file is unreadable); try again", retryAfter: 5)
        } catch {
            throw .unavailable("the template cannot be stored now (\(Self.reason(error))); try again", retryAfter: 5)
        }
        return true
    }

    /// The file of template `name` version `version`, as published.
    func document(name: String, version: Int) throws(ServiceError) -> [UInt8] {
        guard PresetTemplate.isTemplateName(name), version >= 1 else {
            throw .notFound("no template '\(PresetTemplate.shown(name))' version \(version)")
        }
        do {
            return try FileSystem.readDocument(path: path(name: name, version: version), maximumBytes: Self.maximumBytes,
                                               followsLinks: false)
        } catch let error as AudioIOError where error.cause == .noSuchFile {
            throw .notFound("no template '\(name)' version \(version) on this server")
        } catch {
            throw .internalFault("template '\(name)' version \(version) cannot be read (\(Self.reason(error)))")
        }
    }

    /// The template `name` version `version`, read and checked.
    func template(name: String, version: Int) throws(ServiceError) -> PresetTemplate {
        try published(name: name, version: version).template
    }

    /// The template `name` version `version` checked as a render reads it, and its file's bytes as published.
    func published(name: String, version: Int) throws(ServiceError) -> (template: PresetTemplate, bytes: [UInt8]) {
        let bytes = try document(name: name, version: version)
        let document: JSONValue
        do { document = try JSONValue.parse(bytes) } catch {
            throw .internalFault("template '\(name)' version \(version) is not JSON on this server")
        }
        do {
            return (try Self.check(document, name: name, version: version).template, bytes)
        } catch {
            throw .internalFault("template '\(name)' version \(version) on this server is not a valid template: \(error.detail)")
        }
    }

    /// The published versions of `name`, lowest first.
    func versions(of name: String) -> [Int] {
        guard PresetTemplate.isTemplateName(name), let entries = try? FileSystem.folderEntries(folder + "/" + name) else { return [] }
        return entries.compactMap { entry in
            guard entry.hasSuffix(".json") else { return nil }
            return Int(entry.dropLast(5)).flatMap { $0 >= 1 ? $0 : nil }
        }.sorted()
    }

    /// The template names published here.
    func names() -> [String] {
        ((try? FileSystem.folderEntries(folder)) ?? []).filter(PresetTemplate.isTemplateName).sorted()
    }

    private func path(name: String, version: Int) -> String {
        folder + "/\(name)/\(version).json"
    }

    /// `document` read as template `name` version `version`: its errors at `template...` paths; the name and version
    /// it gives itself must be these.
    private static func check(_ document: JSONValue, name: String, version: Int) throws(ServiceError) -> (template: PresetTemplate, document: JSONValue) {
        guard PresetTemplate.isTemplateName(name) else {
            throw .malformed("'\(PresetTemplate.shown(name))' is not a template name: 1 to 64 lowercase letters, digits and '-'")
        }
        let template: PresetTemplate
        do { template = try PresetTemplate(document, file: "") } catch {
            if case .preset(let problem) = error { throw .invalid(jsonPath: problem.jsonPath, reason: problem.message) }
            throw .invalid(jsonPath: "", reason: "\(error)")
        }
        guard template.name == name else {
            throw .invalid(jsonPath: "template", reason: "names '\(template.name)', not '\(name)', the template this URL publishes")
        }
        guard template.version == version else {
            throw .invalid(jsonPath: "version", reason: "is \(template.version), not \(version), the version this URL publishes")
        }
        return (template, document)
    }

    private static func reason(_ error: any Error) -> String { error.fileReason }
}
