// swift-tools-version:6.0
import Foundation
import PackageDescription

// Each kind of source keeps its doc section (README.md) in its folder beside its code; they are
// documentation, not resources.
let engineFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources/MixEngine")
let engineDocs = (FileManager.default.enumerator(atPath: engineFolder.path)?.allObjects as? [String] ?? [])
    .filter { $0.hasSuffix(".md") }.sorted()

// Direction of dependencies: mixrender (CLI) -> MixEngine -> (MixIO, MixDSP); MixIO -> MixDSP.
// MixDSP is pure Swift (no C module, no Foundation); MixIO is the only target that imports C (and the
// C face of the TagLib shim).

let package = Package(
    name: "mixrender",
    platforms: [.macOS(.v13)],
    products: [
        // The engine for other Swift programs (docs/library.md): a small public API over MixEngine.
        .library(name: "MixRender", targets: ["MixRender"]),
        .executable(name: "mixrender", targets: ["mixrender"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // SHA-256 of source and output files and of the render report's cache key.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `mixrender serve` (docs/serve.md): the HTTP server, its API generated from Sources/MixServer/openapi.yaml,
        // start and graceful shutdown, logs and Prometheus metrics, jobs in SQLite or PostgreSQL.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // The render service's webhooks: an HTTP client over SwiftNIO (Foundation's URLSession would link libcurl's
        // libraries into every mixrender process).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The render service's responses gzip-compressed for clients that accept it (zlib, streamed over NIO buffers).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CSndFile", path: "Sources/CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", path: "Sources/CSampleRate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        // libsoxr: the faster resampler choices (`soxr-hq`, `soxr-vhq`), beside libsamplerate's.
        .systemLibrary(name: "CSoxr", path: "Sources/CSoxr", pkgConfig: "soxr",
                       providers: [.apt(["libsoxr-dev"])]),
        // libsndfile reads MP3 through libmpg123 but trusts the header's length and lets the library print
        // on stderr; MixIO calls libmpg123 itself for exact lengths and silence.
        .systemLibrary(name: "CMPG123", path: "Sources/CMPG123", pkgConfig: "libmpg123",
                       providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CEBUR128", path: "Sources/CEBUR128", pkgConfig: "libebur128",
                       providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3f",
                       providers: [.apt(["libfftw3-dev"])]),
        // libogg reads Ogg pages and packets for the Vorbis files mixrender decodes whole (libsndfile links it too).
        .systemLibrary(name: "COgg", path: "Sources/COgg", pkgConfig: "ogg",
                       providers: [.apt(["libogg-dev"])]),
        // glibc's <malloc.h> (in libc itself; the Glibc module leaves it out): malloc_trim.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // espeak-ng's headers only: its library is opened when a process first speaks (shim.h), not linked.
        // Debian's libespeak-ng-dev puts the headers on the default include path; espeak-ng-data holds the voices.
        .systemLibrary(name: "CEspeakNG", path: "Sources/CEspeakNG",
                       providers: [.apt(["libespeak-ng-dev", "espeak-ng-data"])]),
        // FFmpeg's headers only: its libraries are opened when a file first needs them (shim.h), not linked.
        // Debian's libavformat-dev, libavcodec-dev and libavutil-dev put the headers on the default include path.
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg"),
        // TagLib is C++ and its C binding cannot write arbitrary comments: a small C++ shim with a C face.
        // Its headers include one another with quotes, so <taglib/...> needs no include flags.
        .target(name: "CTagLibShim", path: "Sources/CTagLibShim",
                linkerSettings: [.linkedLibrary("tag"), .linkedLibrary("stdc++")]),

        .target(name: "MixDSP",
                dependencies: [.product(name: "RealModule", package: "swift-numerics")],
                // No unsafeFlags (a package with them cannot be depended on by version): SIMD kernels run 1000x
                // slower unoptimised, so scripts/test.sh builds the tests optimised (docs/library.md).
                linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "MixIO",
                dependencies: ["MixDSP", "CSndFile", "CMPG123", "CEBUR128", "CSampleRate", "CSoxr", "CFFTW", "CPNG", "CEspeakNG", "CTagLibShim",
                               "CFFmpeg", "COgg", "CMalloc", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "MixEngine",
                dependencies: ["MixDSP", "MixIO", .product(name: "OrderedCollections", package: "swift-collections")],
                exclude: engineDocs),
        // The library product: the public API other programs use, and (at `package` access) what the CLI needs
        // besides (docs/library.md).
        .target(name: "MixRender", dependencies: ["MixEngine", "MixIO", "MixDSP"]),
        // The render service (`mixrender serve`, docs/serve.md): a library over MixRender, its HTTP API generated
        // from openapi.yaml (the server's side; the tests generate a client from the same document).
        .target(name: "MixServer",
                dependencies: ["MixRender", "MixIO",
                               .product(name: "Hummingbird", package: "hummingbird"),
                               .product(name: "HummingbirdCore", package: "hummingbird"),
                               .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                               .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                               .product(name: "Logging", package: "swift-log"),
                               .product(name: "Metrics", package: "swift-metrics"),
                               .product(name: "Prometheus", package: "swift-prometheus"),
                               .product(name: "GRDB", package: "GRDB.swift"),
                               .product(name: "PostgresNIO", package: "postgres-nio"),
                               .product(name: "AsyncHTTPClient", package: "async-http-client"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "NIOPosix", package: "swift-nio"),
                               .product(name: "NIOHTTP1", package: "swift-nio"),
                               .product(name: "NIOSSL", package: "swift-nio-ssl"),
                               .product(name: "Crypto", package: "swift-crypto"),
                               .product(name: "CompressNIO", package: "compress-nio")],
                resources: [.copy("Page")],
                // The generated code imports at `package` level; imports elsewhere in the target are internal.
                swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")],
                plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        // The CLI imports only the libraries (and the argument parser).
        // Its release build is linked with lld and packed relative relocations (RELR, read by glibc 2.36 and later):
        // the 2 MB table of the dynamic linker's relocations becomes 17 KB, and every process holds 1.5 MB less
        // (docs/performance.md). The flags are the executable's alone: the MixRender library carries none.
        .executableTarget(name: "mixrender",
                          dependencies: ["MixRender", "MixServer",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                                                        .when(platforms: [.linux], configuration: .release))]),
        // The bench's "before" rows run DSPTestSupport's reference kernels: the code the tests check the new kernels against.
        .executableTarget(name: "bench", dependencies: ["MixEngine", "MixDSP", "MixIO", "DSPTestSupport"], path: "bench",
                          exclude: ["peers", "speech-quality", "batch.sh"]),

        // Helpers shared by the tests: regular targets (under Tests/Support), so that test targets and the bench can use them.
        // DSPTestSupport needs MixDSP only, so MixDSPTests still builds without a C library; TestSupport adds what
        // needs MixIO and MixEngine (WAV files, renders into memory, waveform recorders, the CLI runner).
        .target(name: "DSPTestSupport", dependencies: ["MixDSP"], path: "Tests/Support/DSPTestSupport"),
        .target(name: "TestSupport", dependencies: ["DSPTestSupport", "MixDSP", "MixIO", "MixEngine"],
                path: "Tests/Support/TestSupport"),

        // Fuzz targets (docs/fuzzing.md). scripts/fuzz.sh builds them with libFuzzer (`-sanitize=fuzzer -DFUZZING`,
        // in .build-fuzz); an ordinary build makes replayers that run the inputs named on the command line once.
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", "MixEngine", "MixIO"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "PresetFuzz", dependencies: ["MixEngine", "MixIO", "FuzzSupport"], path: "Fuzz/PresetFuzz"),
        .executableTarget(name: "TimeFuzz", dependencies: ["MixEngine", "FuzzSupport"], path: "Fuzz/TimeFuzz"),
        .executableTarget(name: "AudioFileFuzz", dependencies: ["MixEngine", "MixIO", "FuzzSupport"], path: "Fuzz/AudioFileFuzz"),
        .executableTarget(name: "JobListFuzz", dependencies: ["MixEngine", "MixIO", "FuzzSupport"], path: "Fuzz/JobListFuzz"),
        .executableTarget(name: "CacheFuzz", dependencies: ["MixEngine", "MixIO", "MixDSP", "FuzzSupport"], path: "Fuzz/CacheFuzz"),

        .testTarget(name: "MixDSPTests", dependencies: ["MixDSP", "DSPTestSupport"]),
        .testTarget(name: "MixIOTests", dependencies: ["MixIO", "MixDSP", "DSPTestSupport", "TestSupport"]),
        .testTarget(name: "MixEngineTests", dependencies: ["MixEngine", "MixIO", "MixDSP", "DSPTestSupport", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["MixEngine", "MixIO", "MixDSP", "mixrender", "DSPTestSupport", "TestSupport"]),
        // The library used as a program uses it: MixRender only.
        .testTarget(name: "MixRenderTests", dependencies: ["MixRender"]),
        // The render service's parts (tokens, webhooks, sounds, ranges, the result store, the job stores).
        // The service's parts, and its routes in process (HummingbirdTesting's router client over `buildApplication`).
        .testTarget(name: "MixServerTests", dependencies: ["MixServer", .product(name: "Crypto", package: "swift-crypto"),
                                                           .product(name: "Hummingbird", package: "hummingbird"),
                                                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                           .product(name: "NIOCore", package: "swift-nio"),
                                                           .product(name: "NIOEmbedded", package: "swift-nio"),
                                                           .product(name: "NIOHTTP1", package: "swift-nio"),
                                                           .product(name: "Logging", package: "swift-log"),
                                                           .product(name: "PostgresNIO", package: "postgres-nio")]),
        // The render service end to end: the real `mixrender serve` on a loopback port, called by a client generated
        // from the same OpenAPI document (over URLSession) and by plain HTTP requests.
        .testTarget(name: "ServerTests",
                    dependencies: ["mixrender", "DSPTestSupport", "TestSupport",
                                   .product(name: "Hummingbird", package: "hummingbird"),
                                   .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                                   .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                                   .product(name: "Crypto", package: "swift-crypto")],
                    swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")],
                    plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        .testTarget(name: "GoldenTests", dependencies: ["MixEngine", "MixIO", "MixDSP", "DSPTestSupport", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// The tests' build (scripts/test.sh, scripts/tsan.sh): the project's own Swift modules optimised (`-O`: the tests
// render minutes of audio, which unoptimised DSP code renders many times slower), the dependencies (SwiftNIO,
// Hummingbird, swift-crypto, the OpenAPI generator, ...) not: the build takes 805 s rather than 1311 (CI,
// docs/library.md). The test targets are not optimised either: they call the engine rather than compute, and
// compiled with -O they took 138 s of the build against 62, for a run about 5 % shorter (the signals the tests make and
// measure are DSPTestSupport's and TestSupport's, which are optimised). Set only by those scripts, so that a package
// depending on this one sees no unsafe flag (SwiftPM refuses them in dependencies).
let environment = ProcessInfo.processInfo.environment
let ownTargets = package.targets.filter { $0.type != .system && $0.type != .plugin }
if environment["MIXRENDER_OPTIMIZE_OWN_MODULES"] == "1" {
    for target in ownTargets where target.type != .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"])]
    }
}

// The instrumented builds (scripts/tsan.sh: thread; scripts/fuzz.sh: fuzzer,address): the project's own modules
// compiled with the sanitizers named, every program and test bundle linked with their runtimes, and the dependencies
// compiled exactly as in the tests' build. Sharing the tests' scratch folder (.build, as CI does), such a build
// compiles only the project's modules again, not SwiftNIO, BoringSSL, GRDB and the rest (docs/testing.md, "CI").
// What the sanitizers watch is the project's code; the dependencies' own races or overflows are theirs to find.
if let sanitizers = environment["MIXRENDER_SANITIZE"], !sanitizers.isEmpty {
    let names = sanitizers.split(separator: ",")
    // clang's name for coverage without libFuzzer's main, for C code linked into a fuzzer.
    let cSanitizers = names.map { $0 == "fuzzer" ? "fuzzer-no-link" : String($0) }.joined(separator: ",")
    // With libFuzzer, FUZZING gives each fuzz target libFuzzer's driver as its main (Fuzz/FuzzSupport).
    let fuzzing: [SwiftSetting] = names.contains("fuzzer") ? [.define("FUZZING")] : []
    for target in ownTargets {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizers)"])] + fuzzing
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=\(cSanitizers)"])]
        target.cxxSettings = (target.cxxSettings ?? []) + [.unsafeFlags(["-fsanitize=\(cSanitizers)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizers)"])]
    }
}
