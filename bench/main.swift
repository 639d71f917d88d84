// `swift run -c release bench [--quick] [--json]`: see BenchOptions.usage and the README's Performance section.

BenchMain.main(Array(CommandLine.arguments.dropFirst()))
