import ArgumentParser
import Foundation
import MixRender

/// `--progress` (render, waveform, batch): progress as a bar on stderr, which a terminal gets anyway, or with
/// `--progress json` as JSON lines on stderr, one object a line, for a back end that relays it.
///
/// ArgumentParser has no option whose value may be left out, so `--progress json` (and `--progress=json`) is
/// spelt `--progress-json` before parsing (`normalised`); `--progress` alone stays the flag it always was.
struct ProgressOptions: ParsableArguments {
    @Flag(name: .customLong("progress"),
          help: "Show progress even when stderr is not a terminal; '--progress json' writes it as JSON lines on stderr instead, for a program to relay (docs/report.md).")
    var forced = false

    @Flag(name: .customLong("progress-json"), help: .hidden)
    var json = false

    /// How progress is shown: a bar, JSON lines, or not at all (`--quiet`, or stderr not a terminal).
    enum Style { case bar, json }

    /// JSON lines when asked for, even with `--quiet` (a program asked for them); else the bar, unless quiet, when
    /// asked for or stderr is a terminal.
    func style(quiet: Bool) -> Style? {
        if json { return .json }
        return !quiet && (forced || Terminal.isTerminal(Terminal.standardError)) ? .bar : nil
    }

    /// Writes one progress line as JSON (`--progress json`): `members` as a compact object, on stderr.
    static func writeJSONLine(_ members: [JSONValue.Member]) {
        FileHandle.standardError.write((JSONValue.object(JSONObject(members)).json(.compact) + "\n").data(using: .utf8)!)
    }

    /// The command line with `--progress json` and `--progress=json` as `--progress-json` (and `--progress bar` as
    /// `--progress`), up to a `--` that ends the options.
    static func normalised(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return out + arguments[index...] }
            if word == "--progress=json" || (word == "--progress" && index + 1 < arguments.count && arguments[index + 1] == "json") {
                out.append("--progress-json")
                index += word == "--progress" ? 2 : 1
            } else if word == "--progress=bar" || (word == "--progress" && index + 1 < arguments.count && arguments[index + 1] == "bar") {
                out.append("--progress")
                index += word == "--progress" ? 2 : 1
            } else {
                out.append(word)
                index += 1
            }
        }
        return out
    }
}
