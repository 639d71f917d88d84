#!/usr/bin/env python3
# Checks docs/preset.schema.json with Python's jsonschema (draft 2020-12): the schema is valid, and it accepts every
# preset in presets/, golden/ and the complete presets in ```json fences of docs/*.md and the kinds' README.md files
# (documents with "tracks" or "sections"). mixrender's own reader is the final word; this keeps the schema from
# refusing what the reader takes. Exits 1 on a problem.
import glob, json, os, re, sys
try:
    import jsonschema
except ImportError:
    print("schema-check: Python's jsonschema is not installed; skipped")
    sys.exit(0)

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
schema = json.load(open(os.path.join(root, "docs/preset.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

documents = []
for path in sorted(glob.glob(os.path.join(root, "presets/*.json")) + glob.glob(os.path.join(root, "golden/**/*.json"), recursive=True)):
    document = json.load(open(path))
    if isinstance(document, dict) and ("tracks" in document or "sections" in document):
        documents.append((os.path.relpath(path, root), document))
for path in sorted(glob.glob(os.path.join(root, "docs/*.md")) + glob.glob(os.path.join(root, "Sources/**/README.md"), recursive=True)):
    text = open(path).read()
    for match in re.finditer(r"```json\n(.*?)```", text, re.S):
        try:
            document = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(document, dict) and ("tracks" in document or "sections" in document):
            line = text.count("\n", 0, match.start()) + 2
            documents.append((f"{os.path.relpath(path, root)}:{line}", document))

refused = 0
for name, document in documents:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        refused += 1
        for error in errors[:3]:
            print(f"{name}: {'/'.join(map(str, error.absolute_path))}: {error.message[:300]}")
print(f"schema-check: {len(documents)} presets, {refused} refused")
sys.exit(1 if refused else 0)
