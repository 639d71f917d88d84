#!/bin/bash
# Rewrites the preset schema (Sources/MixServer/Page/preset.schema.json; docs/preset.schema.json links to it) from the declarations (PresetSchema.generate: the kinds, output, master, voice; the file is its own
# template for everything that is not a kind). The test run that writes it fails on purpose, so writing is never
# mistaken for passing: run the test again without MIXRENDER_WRITE_SCHEMA to see it pass.
set -e
cd "$(dirname "$0")/.."
export MIXRENDER_OPTIMIZE_OWN_MODULES=1   # scripts/test.sh's build, reused
swift build --build-tests
MIXRENDER_WRITE_SCHEMA=1 swift test --skip-build --filter PresetSchemaTests/theSchemaIsGeneratedFromTheKinds || true
swift test --skip-build --filter PresetSchemaTests
# The schema is valid and accepts every example preset (skipped without Python's jsonschema).
python3 scripts/schema-check.py
