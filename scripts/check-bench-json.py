#!/usr/bin/env python3
"""Checks a bench report in JSON (`bench --json`, `--json-output FILE`): it parses, has sections and rows, and no
figure in it is NaN or infinite (a figure that cannot be taken is in a row's `notTaken`, a target's `value` is
null, each saying why).

    scripts/check-bench-json.py REPORT.json

Prints one line and exits 0, or prints each fault (its JSON path and why) and exits 1.
"""
import json
import math
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: scripts/check-bench-json.py REPORT.json", file=sys.stderr)
        return 2
    path = sys.argv[1]
    faults = []

    def refuse(name):  # Python's reader takes NaN, Infinity and -Infinity, which JSON has not.
        raise ValueError(f"{name} is not JSON")

    try:
        with open(path, encoding="utf-8") as stream:
            report = json.load(stream, parse_constant=refuse)
    except (OSError, ValueError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 1

    def walk(value, where):
        if isinstance(value, float) and not math.isfinite(value):
            faults.append(f"{where}: {value}")
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{where}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{where}[{index}]")

    walk(report, "$")
    sections = report.get("sections") if isinstance(report, dict) else None
    if not sections:
        faults.append("$.sections: none")
    else:
        for k, section in enumerate(sections):
            if not section.get("rows") and not section.get("notes"):
                faults.append(f"$.sections[{k}] ({section.get('id')}): no rows and no notes")
            for r, row in enumerate(section.get("rows", [])):
                for key, why in row.get("notTaken", {}).items():
                    if not isinstance(why, str) or not why:
                        faults.append(f"$.sections[{k}].rows[{r}].notTaken.{key}: says no reason")
    for t, target in enumerate(report.get("targets", []) if isinstance(report, dict) else []):
        if target.get("value") is None and not target.get("note"):
            faults.append(f"$.targets[{t}] ({target.get('name')}): not measured, and no note says why")
    if faults:
        for fault in faults:
            print(f"{path}: {fault}", file=sys.stderr)
        return 1
    rows = sum(len(section.get("rows", [])) for section in sections)
    untaken = sum(len(row.get("notTaken", {})) for section in sections for row in section.get("rows", []))
    print(f"{path}: {len(sections)} sections, {rows} rows, every figure finite ({untaken} not taken, each saying why)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
