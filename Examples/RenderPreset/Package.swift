// swift-tools-version:6.0
import Foundation
import PackageDescription

// An example of a program built on the MixRender library, which it takes by path from this repository
// (docs/library.md). A program elsewhere would name the repository instead:
// .package(url: "https://.../mixrender.git", from: "...").
// A package taken by path is known by its folder's name (the clone's: mixrender, or another), not by its manifest's.
let mixrender = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "RenderPreset",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "RenderPreset",
                          dependencies: [.product(name: "MixRender", package: mixrender)]),
    ],
    swiftLanguageModes: [.v6]
)
