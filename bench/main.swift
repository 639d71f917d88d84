// `swift run -c release bench [--quick] [--json]`: see BenchOptions.usage and docs/performance.md.

BenchMain.main(Array(CommandLine.arguments.dropFirst()))
