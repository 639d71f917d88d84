import DSPTestSupport
import Foundation
import MixDSP
import MixEngine

/// Runs interleaved frames through a `WaveformRecording` of `plan`, in blocks of 4096 frames, finishes it, and gives
/// the plan's recorder.
public func record(_ data: [Float], plan: WaveformPlan) throws -> WaveformRecorder {
    let recording = WaveformRecording(plan: plan)
    try forEachBlock(of: data, channels: plan.channelCount) { try recording.write(interleaved: $0, frames: $1) }
    try recording.finish()
    return recording.recorders[0]
}

/// The columns of a store, copied out.
public func storedColumns(_ store: WaveformColumnStore) throws -> [(levels: [ChannelLevels], bands: BandLevels)] {
    var out: [(levels: [ChannelLevels], bands: BandLevels)] = []
    try store.forEach { c in
        out.append(((0..<store.channelCount).map { ChannelLevels(min: c.min($0), max: c.max($0), rms: c.rms($0)) },
                    BandLevels(low: c.low, mid: c.mid, high: c.high, centroidHz: c.centroidHz)))
    }
    return out
}

/// Reads a JSON object from a file.
public func readJSONObject(_ path: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
}

/// A JSON array of numbers as integers ([] for anything else).
public func ints(_ value: Any?) -> [Int] { (value as? [Any])?.map { ($0 as! NSNumber).intValue } ?? [] }
