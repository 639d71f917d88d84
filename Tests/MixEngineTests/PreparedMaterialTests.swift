import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// Prepared material is a value renders share: made once, keyed by what it is.
@Suite struct PreparedMaterialTests {
    /// A preset looping `file` with a seam of `seam` seconds, and playing it as a looped playlist.
    static func preset(_ file: String, seam: Double, rate: Int = 48000) -> String {
        """
        { "duration": 3, "output": { "sampleRate": \(rate), "bitDepth": "float" },
          "tracks": [ { "file": "\(file)", "loop": { "crossfade": \(seam) } },
                      { "playlist": { "files": ["\(file)"], "crossfade": 0.1 }, "loop": true, "gainDb": -6 } ] }
        """
    }

    @Test func aSecondRenderPreparesNothingAndSoundsTheSame() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("loop.wav", rate: 44100, channels: 2, frames: 44100) { i, c in Float(sin(Double(i) * 0.01 * Double(c + 1))) * 0.2 }
        let plan = try RenderJob(presetPath: try folder.preset(Self.preset(wav, seam: 0.25))).plan
        #expect(plan.materialRequests.count == 2)   // the loop with its seam, the playlist item held once

        let material = PreparedMaterial()
        let first = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2), second = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2), alone = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2)
        let one = try Renderer(plan: plan).render(to: first, material: material)
        let two = try Renderer(plan: plan).render(to: second, material: material)
        _ = try Renderer(plan: plan).render(to: alone)
        #expect(one.materialMade == 2 && one.materialReused == 0)
        #expect(two.materialMade == 0 && two.materialReused == 2)
        #expect(first.channels == second.channels)
        #expect(first.channels == alone.channels)
        #expect(material.keys.count == 2)
    }

    /// A single render releases its material before its finishing steps when none can write the file again (no
    /// loudness target: a lossy file's measuring decode then does not stand on top of the loops), and keeps it when
    /// the encoded file may be written again to meet a loudness target; a shared material is never released.
    @Test func aRenderReleasesItsOwnMaterialWhenItsFileCannotBeWrittenAgain() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("loop.wav", rate: 44100, channels: 2, frames: 44100) { i, c in Float(sin(Double(i) * 0.01 * Double(c + 1))) * 0.2 }
        func render(loudness: String, releases: Bool) throws -> PreparedMaterial {
            let json = """
                { "duration": 3, "output": { "sampleRate": 48000\(loudness) },
                  "tracks": [ { "file": "\(wav)", "loop": { "crossfade": 0.25 } } ] }
                """
            let job = try RenderJob(presetPath: try folder.preset(json))
            let material = PreparedMaterial()
            _ = try job.render(try job.outputPlan(to: .file(path: folder.path("out.ogg"))), material: material, releasesMaterial: releases)
            return material
        }
        #expect(try render(loudness: "", releases: true).keys.isEmpty)
        #expect(try render(loudness: "", releases: false).keys.count == 1)
        #expect(try render(loudness: #", "loudness": { "target": -20 }"#, releases: true).keys.count == 1)
    }

    @Test func materialIsKeyedByWhatItIs() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("loop.wav", rate: 44100, channels: 1, frames: 22050) { i, _ in Float(i % 100) / 100 }
        let material = PreparedMaterial()
        func prepare(_ json: String, name: String) throws -> PreparedMaterial.Outcome {
            try material.prepare(for: try RenderJob(presetPath: try folder.preset(json, name: name)).plan)
        }
        #expect(try prepare(Self.preset(wav, seam: 0.25), name: "a.json").made == 2)
        // Another preset with the same file and seam shares both entries.
        #expect(try prepare(Self.preset(wav, seam: 0.25), name: "b.json").made == 0)
        // Another seam is other audio (the seam is baked into the loop); the held playlist item is shared.
        #expect(try prepare(Self.preset(wav, seam: 0.1), name: "c.json").made == 1)
        // Another output rate is other audio throughout.
        #expect(try prepare(Self.preset(wav, seam: 0.25, rate: 44100), name: "d.json").made == 2)
        #expect(material.keys.count == 5)
        let keys = material.keys.map(\.description)
        #expect(keys.contains { $0.contains("loop.wav") && $0.contains("loop, 12000-frame equalPower seam") && $0.contains("48000 Hz") })
    }

    @Test func oneFileByTwoPathsIsOneEntryAndARewrittenFileIsAnother() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("loop.wav", rate: 48000, channels: 1, frames: 24000) { i, _ in Float(i % 50) / 50 }
        try FileManager.default.createSymbolicLink(atPath: folder.path("link.wav"), withDestinationPath: wav)
        let material = PreparedMaterial()
        func prepare(_ file: String, _ name: String) throws -> PreparedMaterial.Outcome {
            try material.prepare(for: try RenderJob(presetPath: try folder.preset(Self.preset(file, seam: 0.1), name: name)).plan)
        }
        #expect(try prepare(wav, "a.json").made == 2)
        #expect(try prepare(folder.path("link.wav"), "b.json").made == 0)
        // The same name, rewritten with other samples (same length, same header): other audio.
        Thread.sleep(forTimeInterval: 0.01)
        _ = try folder.wav("loop.wav", rate: 48000, channels: 1, frames: 24000) { i, _ in -Float(i % 50) / 50 }
        #expect(try prepare(wav, "c.json").made == 2)
    }
}
