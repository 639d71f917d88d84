import DSPTestSupport
import MixEngine

/// What loading, analysing and planning the preset `json` (written into a temporary folder) throws, as its message,
/// or "no error": the kinds' tests compare messages that name JSON paths.
public func jobError(_ json: String) -> String {
    do {
        let folder = try TemporaryFolder()
        _ = try RenderJob(presetPath: try folder.preset(json))
        return "no error"
    } catch { return "\(error)" }
}
