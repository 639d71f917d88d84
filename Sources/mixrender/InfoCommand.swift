import ArgumentParser
import MixIO

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print the format, rate, channels and duration of audio files.")

    @Argument(help: "Audio files.")
    var files: [String]

    func run() throws {
        for (i, file) in files.enumerated() {
            let info = try AudioFileInfo.read(path: file)
            if i > 0 { print("") }
            print(Report.info(info))
        }
    }
}
