import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Templates on the command line (issue 56): `--var NAME=VALUE` for render, validate and key; refusals name the
/// variable; the same choices give the same key.
@Suite struct TemplateCLITests {
    static let template = """
        {"template": "waves", "version": 1,
         "variables": {"who": {"type": "text", "maxLength": 20, "characters": "name", "default": "you"},
                       "colour": {"type": "choice", "values": ["brown", "pink"], "default": "pink"},
                       "minutes": {"type": "number", "minimum": 0.05, "maximum": 1, "default": 0.05}},
         "preset": {"name": "Waves for {{who}}", "duration": "{{minutes}}m", "output": {"sampleRate": 22050},
                    "tracks": [{"generator": {"type": "{{colour}}", "seed": 3}, "gainDb": -12}]}}
        """

    @Test func aTemplateRendersValidatesAndKeysWithItsVariables() throws {
        let s = try TemporaryFolder()
        let path = try s.write("waves.json", Self.template)
        let rendered = try CLI.run(["render", path, "-o", s.path("w.wav"), "--var", "who=Ann", "--var", "minutes=0.1", "--quiet"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(try AudioFile.open(path: s.path("w.wav")).info.frameCount == 22050 * 6)
        let validated = try CLI.run(["validate", path, "--var", "colour=brown"])
        #expect(validated.status == 0 && validated.stdout.contains("duration  0:03.000"), "\(validated.stdout)\(validated.stderr)")
        // The key is the filled preset's: the same choices give the same key, choices that change the sound another (a
        // name alone changes no sample, as a preset's name does not).
        let key = { (vars: [String]) throws -> String in
            try CLI.run(["key", path] + vars.flatMap { ["--var", $0] }).stdout
        }
        #expect(try key(["who=Ann"]) == key(["who=Ann"]))
        #expect(try key(["colour=brown"]) != key(["colour=pink"]))
        #expect(try key(["minutes=0.1"]) != key(["minutes=0.2"]))
        #expect(try key(["who=Ann", "colour=pink"]) == key(["who=Ann"]))   // a default given is the default
    }

    @Test(arguments: [
        (["--var", "who=R2D2"], "waves.json: variables.who: holds '2' (U+0032), which a name cannot hold"),
        (["--var", "colour=white"], "waves.json: variables.colour: must be one of 'brown', 'pink'"),
        (["--var", "minutes=2"], "waves.json: variables.minutes: must be a number from 0.05 to 1"),
        (["--var", "colr=pink"], "waves.json: variables.colr: is not a variable of template 'waves' version 1 (did you mean 'colour'?)"),
        (["--var", "who"], "--var 'who': expected NAME=VALUE"),
        (["--var", "who=a", "--var", "who=b"], "--var: 'who' is given twice"),
    ])
    func badVariablesAreOneLineErrorsNamingTheVariable(_ arguments: [String], _ message: String) throws {
        let s = try TemporaryFolder()
        let path = try s.write("waves.json", Self.template)
        let run = try CLI.run(["validate", path] + arguments)
        #expect(run.status != 0)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test func aPresetGivenVariablesIsRefused() throws {
        let s = try TemporaryFolder()
        let path = try s.write("mix.json", #"{"duration": "1s", "tracks": [{"generator": {"type": "pink"}}]}"#)
        let run = try CLI.run(["validate", path, "--var", "who=Ann"])
        #expect(run.status != 0 && run.stderr.contains("mix.json: is a preset, not a template: it has no variables to fill (given: who)"), "\(run.stderr)")
    }
}
