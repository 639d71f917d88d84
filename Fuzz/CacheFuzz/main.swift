import FuzzSupport
import Glibc
import MixDSP
import MixEngine
import MixIO

/// Fuzz target: a `--cache-dir` entry. Each input is put where the entry of a looped source should be, and the
/// plan is rendered through a `MaterialStore` in that folder; the render must be the clean one (rendered once,
/// with no store, when the process starts), sample for sample.
///
/// The first byte picks how the rest becomes the entry:
/// - 0: the bytes are the entry (anything at all, from nothing to foreign files);
/// - 1: the real entry's header (so its magic and key are right), then the input as audio and checksum;
/// - 2: the real entry with the input's bytes XORed in at positions the input picks (pairs of a 2-byte
///   position, scaled over the file, and a byte), so mutations land in the header, the audio and the checksum;
/// - 3: like 2 in the header only, then the checksum made to match (a writer who knows the format): what
///   passes must still hold the right channels, a frame count within the key's bounds and finite samples.
///
/// Finding: a crash or a hang; a render that differs from the clean one (modes 0-2, where only a SHA-256
/// collision could make a wrong entry pass); in mode 3, an entry taken with the wrong channel count, a frame
/// count outside the key's bounds, or a render that is not finite; an error from preparing or rendering
/// (a bad entry must be made again from the healthy source, never reported as the source's fault).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let fixture = Fixture.shared
    let mode = data[0] % 4
    var entry: [UInt8]
    switch mode {
    case 0:
        entry = input
    case 1:
        entry = Array(fixture.entry.prefix(64)) + input   // the header: magic, three Int64s, the key
    default:
        entry = fixture.entry
        let span = mode == 3 ? 64 : entry.count
        var i = 0
        while i + 3 <= input.count {
            let position = (Int(input[i]) << 8 | Int(input[i + 1])) * span / 65536
            entry[position] ^= input[i + 2]
            i += 3
        }
        if mode == 3 {
            var hash = ContentHash()
            entry.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<(entry.count - 32)])) }
            entry.replaceSubrange((entry.count - 32)..., with: hash.digest)
        }
    }
    Scratch.write(fixture.entryPath, entry)

    let material = PreparedMaterial(store: fixture.store)
    let capture = Capture(channelCount: fixture.plan.channelCount)
    let report: PreparedMaterial.Outcome
    do {
        report = try material.prepare(for: fixture.plan)
        _ = try Renderer(plan: fixture.plan).render(to: capture, material: material)
    } catch {
        preconditionFailure("a cache entry made the render fail: \(error)")
    }
    if mode == 3 && entry != fixture.entry && report.fromStore == 1 {
        // A forged entry that passed: its channels and frame count were the key's (else the read refuses it
        // before allocating), its samples finite; the render must be finite too.
        precondition(capture.samples.allSatisfy(\.isFinite), "a forged entry rendered non-finite samples")
        return 0
    }
    precondition(capture.samples.count == fixture.clean.count, "the render has \(capture.samples.count) samples, not \(fixture.clean.count)")
    precondition(capture.samples == fixture.clean, "a cache entry changed the render (mode \(mode))")
    return 0
}

/// The source, plan, store and clean render, made once per process.
final class Fixture: @unchecked Sendable {
    static let shared = Fixture()
    let plan: RenderPlan
    let store: MaterialStore
    let entryPath: String
    /// The good entry's bytes, and the render without a store.
    let entry: [UInt8]
    let clean: [Float]

    private init() {
        do {
            // 0.1 s of stereo at 44.1 kHz, looped at 48 kHz (so it is resampled, circularly), in a 0.25 s render.
            let source = Scratch.folder + "/loop.wav"
            let frames = 4410
            let writer = try SoundFileWriter(path: source, settings: OutputSettings(format: .wav, sampleRate: 44100, channelCount: 2,
                                                                                   sampleFormat: .float32))
            var samples = [Float](repeating: 0, count: frames * 2)
            for i in 0..<frames {
                for c in 0..<2 {
                    let unit: Double = SeededRandom.unit(seed: 3, stream: UInt64(c), index: UInt64(i))
                    samples[i * 2 + c] = Float(unit * 2 - 1) * 0.5
                }
            }
            try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
            try writer.finish()
            let preset = #"{"duration": 0.25, "output": {"sampleRate": 48000, "bitDepth": "float"}, "tracks": [{"file": "\#(source)", "loop": {"crossfade": 0.02}}]}"#
            let loaded = try PresetLoader.parse(Array(preset.utf8), file: "fuzz.json", baseDirectory: "")
            plan = try Planner(presetFile: Scratch.folder + "/fuzz.json").plan(loaded, analysis: Analyzer().analyse(loaded))
            let request = plan.materialRequests[0]
            let capture = Capture(channelCount: plan.channelCount)
            _ = try Renderer(plan: plan).render(to: capture, material: PreparedMaterial())
            clean = capture.samples
            store = try MaterialStore(folder: Scratch.folder + "/cache")
            entryPath = store.path(for: try request.storeDescription(plan.renderFormat)!)
            try PreparedMaterial(store: store).prepare(for: plan)
            let fd = open(entryPath, O_RDONLY)
            precondition(fd >= 0, "no entry at \(entryPath)")
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, 65536) }
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            close(fd)
            entry = bytes
        } catch {
            fatalError("cannot set up the cache fuzz target: \(error)")
        }
    }
}

/// An `AudioEncoder` keeping the interleaved samples.
final class Capture: AudioEncoder {
    let sampleRate = 48000
    let channelCount: Int
    var samples: [Float] = []
    init(channelCount: Int) { self.channelCount = channelCount }
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        samples.append(contentsOf: UnsafeBufferPointer(start: interleaved, count: frames * channelCount))
    }
    func finish() throws {}
}

/// A folder of its own per process under `$TMPDIR` (or /tmp), and writing an input into it.
enum Scratch {
    static let folder: String = {
        let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((parent + "/mixrender-fuzz-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("cannot make a folder in \(parent)") }
        return String(cString: made)
    }()

    static func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
        close(fd)
    }
}

FuzzMain.run(fuzz)
