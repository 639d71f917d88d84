import CFuzzerDriver
import Foundation  // FileManager, Data: replaying inputs from files

/// What a fuzz target tests: one input, as libFuzzer hands it to `LLVMFuzzerTestOneInput`. It returns 0;
/// a finding is a crash (a trap, a failed precondition) or a hang.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// The `main` of every fuzz target.
///
/// Built by scripts/fuzz.sh (`-sanitize=fuzzer -DFUZZING`), it hands the command line to libFuzzer
/// (`LLVMFuzzerRunDriver`), so all of libFuzzer's options work. In an ordinary build (`swift build`), it
/// replays the files named on the command line (a folder: every file in it) through the test, once each,
/// so a reproducer can be run and debugged without the fuzzer: `swift run PresetFuzz crash-1234`.
public enum FuzzMain {
    public static func run(_ test: FuzzTest) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, test))
        #else
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: \(CommandLine.arguments[0]) FILE|FOLDER...  (replays each input once; scripts/fuzz.sh fuzzes)")
            exit(2)
        }
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("\(file): cannot read")
                    exit(1)
                }
                let bytes = [UInt8](data)
                // One byte more than the input, so that even an empty input has a valid pointer (as from libFuzzer).
                let padded = bytes + [0]
                _ = padded.withUnsafeBufferPointer { test($0.baseAddress!, bytes.count) }
                print("\(file): ok (\(bytes.count) bytes)")
            }
        }
        exit(0)
        #endif
    }

    /// `path` itself, or the files in it (sorted) if it is a folder.
    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
