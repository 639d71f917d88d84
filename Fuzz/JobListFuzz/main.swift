import FuzzSupport
import Glibc
import MixEngine
import MixIO

/// Fuzz target: the bytes as a batch's job list or as a shard's results file, read as `mixrender batch` and
/// `mixrender merge-results` read them. The first byte picks which (even: a job list, read by `BatchJobList.read`
/// and then checked by `BatchJobList.checkFiles`, which loads each job's preset; odd: a results file, merged by
/// `BatchResults.merge` against a list of its second byte's jobs); the rest is the file, written to a scratch
/// folder of the process's own (`$TMPDIR/mixrender-fuzz-jobs-<pid>`). Nothing is rendered, and nothing but that
/// scratch file is written.
///
/// Finding: a crash or a hang; also an error that is not one of the engine's or MixIO's, or is not one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let mode = data[0], count = Int(data[1])
    let body = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    do {
        if mode % 2 == 0 {
            try FileSystem.writeFile(path: listPath, bytes: body)
            let jobs = try BatchJobList.read(path: listPath)
            precondition(!jobs.isEmpty && jobs.count <= BatchJobList.maximumJobs, "\(jobs.count) jobs")
            try BatchJobList.checkFiles(jobs, jobList: listPath, results: scratch + "/results.jsonl", resultsRole: "the results file")
        } else {
            try FileSystem.writeFile(path: resultsPath, bytes: body)
            let merged = try BatchResults.merge(files: [resultsPath], jobCount: count == 0 ? nil : count)
            precondition(merged.failed <= merged.lines.count, "\(merged.failed) failed of \(merged.lines.count)")
            if count > 0 { precondition(merged.lines.count + merged.missing.count == count, "lines and missing do not add up") }
        }
    } catch {
        expectWordedError(error)
    }
    return 0
}

let scratch: String = {
    let folder = FileSystem.temporaryFolder + "/mixrender-fuzz-jobs-\(CurrentProcess.id)"
    try! FileSystem.makeFolders(folder)
    return folder
}()
let listPath = scratch + "/jobs.jsonl"
let resultsPath = scratch + "/part.results.jsonl"

FuzzMain.run(fuzz)
