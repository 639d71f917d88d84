// swift-tools-version:6.0
import Foundation
import PackageDescription

// Each kind of source keeps its doc section (README.md) in its folder beside its code; they are
// documentation, not resources.
let engineFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources/MixEngine")
let engineDocs = (FileManager.default.enumerator(atPath: engineFolder.path)?.allObjects as? [String] ?? [])
    .filter { $0.hasSuffix(".md") }.sorted()

// Direction of dependencies: mixrender (CLI) -> MixEngine -> (MixIO, MixDSP); MixIO -> MixDSP.
// MixDSP is pure Swift (no C module, no Foundation); MixIO is the only target that imports C.

let package = Package(
    name: "mixrender",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mixrender", targets: ["mixrender"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CSndFile", path: "Sources/CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", path: "Sources/CSampleRate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3f",
                       providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),

        .target(name: "MixDSP",
                dependencies: [.product(name: "RealModule", package: "swift-numerics")],
                // SIMD kernels run 1000x slower unoptimised: keep the DSP core fast in debug test builds too.
                swiftSettings: [.unsafeFlags(["-O"])],
                linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "MixIO",
                dependencies: ["MixDSP", "CSndFile", "CSampleRate", "CFFTW", "CPNG"]),
        .target(name: "MixEngine",
                dependencies: ["MixDSP", "MixIO"],
                exclude: engineDocs),
        .executableTarget(name: "mixrender",
                          dependencies: ["MixEngine",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "bench", dependencies: ["MixEngine", "MixDSP", "MixIO"], path: "bench",
                          exclude: ["peers"]),

        .testTarget(name: "MixDSPTests", dependencies: ["MixDSP"]),
        .testTarget(name: "MixIOTests", dependencies: ["MixIO", "MixDSP"]),
        .testTarget(name: "MixEngineTests", dependencies: ["MixEngine", "MixIO", "MixDSP"]),
        .testTarget(name: "CLITests", dependencies: ["MixEngine", "MixIO", "mixrender"]),
        .testTarget(name: "GoldenTests", dependencies: ["MixEngine", "MixIO", "MixDSP"]),
    ],
    swiftLanguageModes: [.v5]
)
