#!/usr/bin/env python3
"""The slowest tests of Swift Testing runs, from their event streams (scripts/run-tests.sh writes one per shard).

    scripts/slowest-tests.py [--count N] EVENTS.jsonl...      (default 20)

A test's time is from its testStarted event to its testEnded one. scripts/run-tests.sh runs each shard's tests one
at a time (--no-parallel), so that is the time the test took, while the other shard ran beside it on the other
core. (In a parallel run it would include the test's wait behind hundreds of others.) Prints one line per test,
slowest first, with the sum over all tests.
"""
import json
import sys


def main() -> int:
    arguments = sys.argv[1:]
    count = 20
    if arguments[:1] == ["--count"]:
        if len(arguments) < 2 or not arguments[1].isdigit():
            print("slowest-tests.py: --count needs a whole number", file=sys.stderr)
            return 2
        count, arguments = int(arguments[1]), arguments[2:]
    if not arguments:
        print("usage: scripts/slowest-tests.py [--count N] EVENTS.jsonl...", file=sys.stderr)
        return 2
    seconds: dict = {}
    for path in arguments:
        started: dict = {}
        try:
            with open(path, encoding="utf-8") as stream:
                for number, line in enumerate(stream, 1):
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError as error:
                        print(f"{path}:{number}: not JSON: {error}", file=sys.stderr)
                        return 1
                    if record.get("kind") != "event":
                        continue
                    event = record.get("payload", {})
                    test = event.get("testID", "")
                    # A suite's ID is Target.Suite; a test's is Target.Suite/name()/File.swift:line:column.
                    if event.get("kind") not in ("testStarted", "testEnded") or "/" not in test:
                        continue
                    instant = event["instant"]["absolute"]
                    if event["kind"] == "testStarted":
                        started[test] = instant
                    elif test in started:
                        seconds[test] = seconds.get(test, 0) + instant - started.pop(test)
        except OSError as error:
            print(f"{path}: {error.strerror}", file=sys.stderr)
            return 1
    if not seconds:
        print("slowest-tests.py: no test ran in " + ", ".join(arguments), file=sys.stderr)
        return 1
    shown = min(count, len(seconds))
    print(f"the {shown} slowest of {len(seconds)} tests ({sum(seconds.values()):.0f} s in all):")
    for test, total in sorted(seconds.items(), key=lambda item: -item[1])[:shown]:
        print(f"{total:8.1f} s  {'/'.join(test.split('/')[:2])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
