#!/usr/bin/env python3
"""The measured figures in the docs, regenerated or checked: scripts/docs-figures.sh runs this (it checks the
binaries and owns the temporary folder; its header says how to call it).

The figures live between marker comments, one block per table:

    <!-- figures: NAME (scripts/docs-figures.sh) -->
    | the table |
    <!-- /figures -->

- `sizes-*` (docs/formats.md): file sizes. The header names the columns (`night, 1 h`: presets/night.json for one
  hour); each row's label names what it renders (`Ogg Opus, 48 kbit/s`: .opus with --bitrate 48; `quality 0.5`:
  --quality 0.5; `default`: mixrender's default quality, 0.5, given explicitly so that a preset's own choice (the
  night preset's is 0.4) does not stand in for it; `16 bit`: the lossless formats' default depth). A cell is
  `MiB (kbit/s)`: bytes / 1048576 with one decimal, bytes x 8 / seconds / 1000 rounded.
- `encoders` (docs/aac.md): `bench --only encoders` (10 min of pink noise through each lossy writer): wall time,
  x realtime, kbit/s and MiB per hour, with the machine named in a line under the table; the figures that
  aac.md's text quotes from the same run are rewritten where they stand (INLINE below).

--write measures at full length and rewrites the blocks. --check measures the same and fails on any difference;
--check --quick estimates instead (see 'What --check --quick renders' below): sizes from short windows spread over the render, the encoder
table from `bench --quick`, against a stated tolerance. Timings are never checked (they are the machine's).
"""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = ["docs/formats.md", "docs/aac.md"]
START = re.compile(r"^<!-- figures: (\S+) \(scripts/docs-figures\.sh\) -->\s*$")
END = "<!-- /figures -->"
MIB = 1048576

# What --check --quick renders and what it forgives. A lossy, FLAC or ALAC cell is estimated from windows spread
# over the render, the measured part of each (MEASURED_SECONDS) in the middle of one of window_count equal parts
# (an hour: 6 windows, at 5, 15, ..., 55 min; 8 hours: 24, one for each 20 minutes, so that the night's 20-minute
# sleep fade has one). A window is rendered twice from the same start, its warm-up alone and the warm-up with the
# measured part: the difference is the measured part's bytes, from an encoder that has settled, and the warm-up
# less its share at that rate is the file's fixed cost (headers, codebooks, tags, the encoder's start). The
# estimate is that cost plus the render's length at the windows' mean rate; for a row with a bitrate (`Opus, 48
# kbit/s`), at their median rate: the encoder holds a whole render to its target, which a fresh one in a quiet
# stretch does not (at 48 kbit/s a fresh Opus encoder spends a third less in the night's sleep fade than the
# hour's long-running one, which makes up for it; the mean of six windows was 4.7 % low).
# WARMUP_SECONDS: ALAC settles slowly. A fresh ALAC encoder spends 5 % more than FLAC in its first ten seconds,
# 1.6 % more in the next ten and 0.4 % less from then on (seaside at 30 min); the seaside hour's ALAC estimate was
# 6.8 % high without a warm-up, 4.9 % with 5 s, 3.3 % with 10 s and 1.1 % with 30 s. The other encoders settle
# within a few seconds (5 s and 10 s gave the same estimates within 0.6 %), and the warm-up is most of the cost.
# WAV and AIFF are the header plus 4 bytes a frame: predicted from 1 s and 2 s renders and compared exactly (to the
# table's 0.1 MiB and 1 kbit/s; the windows' own tag makes the predicted header about 150 bytes too large).
MEASURED_SECONDS = 10.0
WARMUP_SECONDS = {"caf": 30.0}
DEFAULT_WARMUP_SECONDS = 5.0


def window_count(seconds):
    return max(6, round(seconds / 1200))


# Tolerances, from measurements. Against the tables as --write made them (2026-11-28), the quick estimates landed
# within 2.0 % of the true sizes: 1.99 % high at worst (LAME V2 on night, 1 h), then 1.26 % (LAME V5 on night), 1.11 %
# (ALAC on seaside) and 1.08 % (Vorbis 0.2 on night); every other row within 0.9 %, the 8-hour rows within 0.33 %.
# 5 % leaves the fresh tables 3 points of margin and fails a figure 10 % stale (issue 28's example: night.ogg given
# as 50.3 MiB when it was 55.4) with as much to spare. The tables this script replaced failed on 21 of their 39
# figures, by 5.3 % (seaside's FLAC and ALAC) to 63 % (the night's 8-hour Vorbis).
SIZE_TOLERANCE = 0.05
# bench --quick encodes 30 s of pink noise, the table's run 10 minutes (a minute's loop): within 1 % of each other
# on the same build (156 and 155 kbit/s Vorbis, 124 and 123 LAME, Opus and AAC alike), so 3 % plus the figure's own
# rounding. The old table's Opus (264 kbit/s, libsndfile's mapping) was 63 % off.
ENCODER_TOLERANCE = 0.03

FORMATS = [("Ogg Vorbis", "ogg"), ("Ogg Opus", "opus"), ("MP3", "mp3"), ("AAC in M4A", "m4a"),
           ("FLAC", "flac"), ("ALAC in CAF", "caf"), ("WAV", "wav"), ("AIFF", "aiff")]
PCM = {"wav", "aiff"}
LOSSLESS = {"flac", "caf", "wav", "aiff"}
DEFAULT_QUALITY = "0.5"

# The encoder table's rows and bench's names for them; its columns and bench's figures, with bench's formatting.
BENCH_NAMES = [("Ogg Vorbis", "Ogg Vorbis"), ("MP3", "MP3"), ("Ogg Opus", "Ogg Opus"), ("AAC", "AAC (M4A)")]
BENCH_COLUMNS = {
    "wall s": ("wall", lambda x: f"{x:.{1 if x >= 10 else 2}f}"),
    "x realtime": ("realtime", lambda x: f"{x:.{0 if x >= 100 else 1}f}x"),
    "kbit/s": ("kbps", lambda x: f"{x:.0f}"),
    "MiB per hour": ("hour", lambda x: f"{x:.0f}"),
}
TIMING_COLUMNS = {"wall s", "x realtime"}

# Figures aac.md's text quotes from the encoder run, rewritten where they stand: (pattern, one (bench row,
# figure) per group). "minutes8h" is the time to encode 8 hours at the measured speed (wall x 48 / 60).
INLINE = [
    (r"a 128 kbit/s hour is (\d+) MiB", [("AAC (M4A)", "hour")]),
    (r"AAC 128 kbit/s (\d+) MiB per hour", [("AAC (M4A)", "hour")]),
    (r"Ogg Vorbis at quality 0\.5 about (\d+) kbit/s\s+\((\d+) MiB\)", [("Ogg Vorbis", "kbps"), ("Ogg Vorbis", "hour")]),
    (r"LAME VBR at 0\.5 about (\d+) kbit/s\s+\((\d+) MiB\)", [("MP3", "kbps"), ("MP3", "hour")]),
    (r"an\s+8-hour\s+render's\s+encoding\s+takes\s+about\s+(\d+(?:\.\d+)?)\s+minutes", [("AAC (M4A)", "minutes8h")]),
]


class Stop(Exception):
    """An error that ends the run with one line (status 2: the script, not the docs, is wrong)."""


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


# MARK: - Documents

def read_blocks(doc):
    """The figure blocks of `doc`: {name: (first line inside, line of the end marker)} (0-based)."""
    lines = (REPO / doc).read_text().split("\n")
    blocks, open_at = {}, None
    for i, line in enumerate(lines):
        m = START.match(line)
        if m:
            if open_at is not None:
                raise Stop(f"{doc}:{i + 1}: a figures block starts inside another")
            open_at, name = i + 1, m.group(1)
        elif line.strip() == END:
            if open_at is None:
                raise Stop(f"{doc}:{i + 1}: '{END}' without its start")
            blocks[name] = (open_at, i)
            open_at = None
    if open_at is not None:
        raise Stop(f"{doc}:{open_at}: figures block '{name}' has no '{END}'")
    return lines, blocks


def table_rows(lines):
    """A Markdown table's header cells, and its rows as (line index, cells); lines that are not rows are skipped."""
    rows = [(i, [c.strip() for c in line.strip().strip("|").split("|")])
            for i, line in enumerate(lines) if line.startswith("|")]
    if len(rows) < 2 or not set(rows[1][1][0]) <= set("-: "):
        raise Stop("a figures block holds no Markdown table (a header, its rule, rows)")
    return rows[0][1], rows[2:]


def replace_block(doc, name, make_lines):
    """Rewrites the block `name` of `doc` with make_lines(its current lines), reading the file again just before
    writing: someone else may be editing other parts of it."""
    path = REPO / doc
    lines, blocks = read_blocks(doc)
    if name not in blocks:
        raise Stop(f"{doc}: the figures block '{name}' is gone")
    first, end = blocks[name]
    new = make_lines(lines[first:end])
    text = "\n".join(lines[:first] + new + lines[end:])
    tmp = path.with_name(path.name + ".figures-tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# MARK: - Size tables

def parse_label(label):
    """(extension, mixrender options) for a size table's row label, e.g. 'MP3, 96 kbit/s CBR'."""
    name, _, setting = label.partition(", ")
    ext = dict(FORMATS).get(name)
    setting = re.sub(r"\s*\(.*?\)", "", setting).strip()
    if ext is None:
        raise Stop(f"row '{label}': unknown format '{name}' (known: {', '.join(n for n, _ in FORMATS)})")
    if ext in LOSSLESS:
        if setting == "16 bit":
            return ext, []
    elif m := re.fullmatch(r"quality (0(?:\.\d+)?|1(?:\.0+)?)", setting):
        return ext, ["--quality", m.group(1)]
    elif m := re.fullmatch(r"(\d+) kbit/s(?: CBR)?", setting):
        return ext, ["--bitrate", m.group(1)]
    elif setting == "default":
        return ext, ["--quality", DEFAULT_QUALITY]
    raise Stop(f"row '{label}': cannot tell what '{setting}' renders "
               "(this script knows 'quality Q', 'N kbit/s', 'default', and '16 bit' for the lossless formats)")


def parse_column(title):
    """(preset path, seconds) for a size table's column title, e.g. 'night, 8 h'."""
    m = re.fullmatch(r"([\w-]+), (\d+(?:\.\d+)?) h", title)
    if not m:
        raise Stop(f"column '{title}': expected 'PRESET, HOURS h' (a preset in presets/)")
    preset = REPO / "presets" / f"{m.group(1)}.json"
    if not preset.is_file():
        raise Stop(f"column '{title}': no preset {preset.relative_to(REPO)}")
    return preset, float(m.group(2)) * 3600


def cell_text(size, seconds):
    return f"{size / MIB:.1f} MiB ({int(size * 8 / seconds / 1000 + 0.5)} kbit/s)"


def parse_cell(text):
    m = re.fullmatch(r"(\d+(?:\.\d)?) MiB \((\d+) kbit/s\)", text)
    return (float(m.group(1)), int(m.group(2))) if m else None


def seconds_text(s):
    return f"{s:.3f}".rstrip("0").rstrip(".")


class Renderer:
    def __init__(self, mixrender, tmp, jobs):
        self.mixrender, self.tmp, self.jobs, self.count = mixrender, Path(tmp), jobs, 0

    def size(self, preset, ext, options, seconds, window=None):
        """Renders (a window of) `preset` at `seconds`, returns the file's bytes and removes it."""
        self.count += 1
        out = self.tmp / f"r{self.count}-{preset.stem}.{ext}"
        command = [self.mixrender, "render", str(preset), "-o", str(out), "--duration", seconds_text(seconds), "-q", *options]
        if window:
            command += ["--start", seconds_text(window[0]), "--end", seconds_text(window[1])]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise Stop(f"{' '.join(command)}: failed ({done.returncode}): {done.stderr.strip()}")
        size = out.stat().st_size
        out.unlink()
        return size

    def map(self, tasks):
        """Runs (key, function) tasks `jobs` at a time; yields (key, result) as each finishes."""
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            futures = {pool.submit(f): key for key, f in tasks}
            try:
                for future in concurrent.futures.as_completed(futures):
                    yield futures[future], future.result()
            except BaseException:
                for future in futures:
                    future.cancel()
                raise


def size_table(doc, name, lines):
    header, rows = table_rows(lines)
    columns = [parse_column(t) for t in header[1:]]
    parsed = []
    for _, cells in rows:
        if len(cells) != len(header):
            raise Stop(f"{doc}: {name}: row '{cells[0]}' has {len(cells)} cells, the header {len(header)}")
        parsed.append((cells[0], *parse_label(cells[0]), cells[1:]))
    return header, columns, parsed


def write_sizes(doc, name, lines, renderer, check_only):
    """Renders every cell at full length; rewrites the block (--write) or compares it (--check). Returns stale lines."""
    header, columns, rows = size_table(doc, name, lines)
    tasks = []
    for r, (label, ext, options, _) in enumerate(rows):
        for c, (preset, seconds) in enumerate(columns):
            tasks.append(((r, c), lambda p=preset, e=ext, o=options, s=seconds: timed(renderer.size, p, e, o, s)))
    # Longest first, so that two jobs finish together.
    tasks.sort(key=lambda t: -columns[t[0][1]][1] * (4 if rows[t[0][0]][1] in LOSSLESS else 1))
    sizes = {}
    for (r, c), (size, took) in renderer.map(tasks):
        sizes[(r, c)] = size
        seconds = columns[c][1]
        say(f"{doc}: {name}: {rows[r][0]} | {header[c + 1]}: {size} bytes, {cell_text(size, seconds)} ({took:.0f} s)")
    if check_only:
        stale = []
        for r, (label, _, _, cells) in enumerate(rows):
            for c, (_, seconds) in enumerate(columns):
                measured = cell_text(sizes[(r, c)], seconds)
                if cells[c] != measured:
                    stale.append(f"{doc}: {name}: '{label}', {header[c + 1]}: the table says {cells[c]}, measured {measured}")
        return stale

    def rewrite(current):
        h, cs, rs = size_table(doc, name, current)
        if h != header:
            raise Stop(f"{doc}: {name}: the table's columns changed while it was measured")
        out, by_label = [], {label: r for r, (label, *_) in enumerate(rows)}
        for line in current:
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
            if cells and cells[0] in by_label and len(cells) == len(header):
                r = by_label[cells[0]]
                line = "| " + " | ".join([cells[0]] + [cell_text(sizes[(r, c)], s) for c, (_, s) in enumerate(columns)]) + " |"
            elif cells and parse_cell(cells[-1]):
                say(f"{doc}: {name}: row '{cells[0]}' appeared while the table was measured; left as it is")
            out.append(line)
        return out
    replace_block(doc, name, rewrite)
    say(f"{doc}: {name}: rewritten")
    return []


def timed(f, *args):
    start = time.monotonic()
    return f(*args), time.monotonic() - start


def quick_sizes(doc, name, lines, renderer, verbose):
    """Estimates every cell from short windows (see 'What --check --quick renders') and compares. Returns (stale lines, deviations)."""
    header, columns, rows = size_table(doc, name, lines)
    tasks, plans = [], {}
    for r, (label, ext, options, _) in enumerate(rows):
        for c, (preset, seconds) in enumerate(columns):
            if ext in PCM:
                # One and two seconds from the start: the header and the bytes a second, the header the same at any length.
                plans[(r, c)] = ("exact", 1)
                for k in (1, 2):
                    tasks.append(((r, c, f"exact{k}"), lambda p=preset, e=ext, o=options, s=seconds, k=k: renderer.size(p, e, o, s, (0, k))))
                continue
            n, warmup = window_count(seconds), WARMUP_SECONDS.get(ext, DEFAULT_WARMUP_SECONDS)
            plans[(r, c)] = ("windows", n)
            for i in range(n):
                start = max(0.0, (i + 0.5) * seconds / n - MEASURED_SECONDS / 2 - warmup)
                for part, length in (("warmup", warmup), ("whole", warmup + MEASURED_SECONDS)):
                    tasks.append(((r, c, i, part), lambda p=preset, e=ext, o=options, s=seconds, w=(start, start + length):
                                  renderer.size(p, e, o, s, w)))
    got = dict(renderer.map(tasks))
    stale, deviations = [], []
    for r, (label, ext, options, cells) in enumerate(rows):
        for c, (preset, seconds) in enumerate(columns):
            where = f"{doc}: {name}: '{label}', {header[c + 1]}"
            table = parse_cell(cells[c])
            if table is None:
                stale.append(f"{where}: '{cells[c]}' is not 'MiB (kbit/s)'")
                continue
            mib, kbps = table
            # The row's two figures must be one size: kbit/s from the MiB (to its 0.05) within rounding of the stated one.
            slack = 0.5 + 0.05 * MIB * 8 / seconds / 1000 + 1e-9
            if abs(mib * MIB * 8 / seconds / 1000 - kbps) > slack:
                stale.append(f"{where}: {mib} MiB is not {kbps} kbit/s over {seconds / 3600:g} h")
            kind, n = plans[(r, c)]
            if kind == "exact":
                per_second = got[(r, c, "exact2")] - got[(r, c, "exact1")]
                estimate = got[(r, c, "exact1")] + round(seconds - 1) * per_second
                measured = cell_text(estimate, seconds)
                deviations.append((doc, name, label, header[c + 1], estimate, mib, 0.0, "exact"))
                if measured != cells[c]:
                    stale.append(f"{where}: the table says {cells[c]}, {measured} by its length (exact)")
                continue
            measured = [got[(r, c, i, "whole")] - got[(r, c, i, "warmup")] for i in range(n)]
            warmup = WARMUP_SECONDS.get(ext, DEFAULT_WARMUP_SECONDS)
            fixed = sum(got[(r, c, i, "warmup")] - m * warmup / MEASURED_SECONDS for i, m in enumerate(measured)) / n
            is_bitrate = "--bitrate" in options
            rate = (statistics.median(measured) if is_bitrate else statistics.fmean(measured)) / MEASURED_SECONDS
            estimate = fixed + rate * seconds
            deviation = estimate / (mib * MIB) - 1
            deviations.append((doc, name, label, header[c + 1], estimate, mib, deviation,
                               f"{n} windows, {'median' if is_bitrate else 'mean'}"))
            if verbose:
                say(f"{where}: table {cells[c]}, quick {cell_text(estimate, seconds)} ({100 * deviation:+.1f} %)")
            if abs(deviation) > SIZE_TOLERANCE:
                stale.append(f"{where}: the table says {cells[c]}, quick estimate {cell_text(estimate, seconds)} "
                             f"({100 * deviation:+.1f} %; tolerance {100 * SIZE_TOLERANCE:g} %)")
    return stale, deviations


# MARK: - The encoder table (docs/aac.md)

def run_bench(bench, quick):
    command = [bench, "--only", "encoders", "--json"] + (["--quick"] if quick else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise Stop(f"{' '.join(command)}: failed ({done.returncode}): {done.stderr.strip()}")
    report = json.loads(done.stdout)
    section = next(s for s in report["sections"] if s["id"] == "encoders")
    figures = {row["labels"]["format"]: {k: v["median"] for k, v in row["figures"].items()} for row in section["rows"]}
    for f in figures.values():
        f["minutes8h"] = f["wall"] * 8 * 3600 / 600 / 60 if "wall" in f else None
    return report, section, figures


def bench_name(label):
    for prefix, name in BENCH_NAMES:
        if label.startswith(prefix):
            return name
    raise Stop(f"encoder row '{label}': no bench row for it (known: {', '.join(p for p, _ in BENCH_NAMES)})")


def machine_line(report):
    """The machine, from /proc/cpuinfo, and the load when the figures were measured."""
    cpu, cores = "unknown CPU", os.cpu_count()
    try:
        models = [l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")]
        cpu, cores = (models[0], len(models)) if models else (cpu, cores)
    except OSError:
        pass
    load = report["machine"].get("loadAverageAtStart", "?").split()[0]
    return (f"Measured by `scripts/docs-figures.sh` on {report['date'][:10]}: {cpu}, {cores} cores, load average {load} "
            f"at the start; {report['build'].split(',')[0]} build.")


def encoders(doc, name, lines, bench, mode, verbose):
    """--write: one full bench run fills the table, the machine line and the INLINE figures. --check: compares kbit/s
    and MiB per hour (exactly, or with --quick within ENCODER_TOLERANCE). Returns stale lines."""
    header, rows = table_rows(lines)
    report, section, figures = run_bench(bench, quick=mode == "quick")
    say(f"{doc}: {name}: bench --only encoders{' --quick' if mode == 'quick' else ''}: "
        + ", ".join(f"{k} {v['kbps']:.0f} kbit/s, {v['wall']:.2f} s" for k, v in figures.items()))
    for title in header[1:]:
        if title not in BENCH_COLUMNS:
            raise Stop(f"{doc}: {name}: column '{title}': not one of bench's ({', '.join(BENCH_COLUMNS)})")
    stale = []
    text = (REPO / doc).read_text()
    if mode == "write":
        written = [n for n in section["notes"] if n.startswith("frames decoded back")]
        if written and len(set(re.findall(r"\b\d{2,}\b", written[0]))) != 1:
            say(f"{doc}: {name}: not every format decoded back to the frames written: {written[0]} (the text says all four do)")

        def rewrite(current):
            out = []
            for line in current:
                if line.startswith("|"):
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    if cells[0] != header[0] and not set(cells[0]) <= set("-: "):
                        f = figures[bench_name(cells[0])]
                        cells[1:] = [BENCH_COLUMNS[t][1](f[BENCH_COLUMNS[t][0]]) for t in header[1:]]
                        line = "| " + " | ".join(cells) + " |"
                    out.append(line)
            return out + ["", machine_line(report)]
        replace_block(doc, name, rewrite)
        # The text's figures from the same run, each number replaced where it stands.
        path = REPO / doc
        text = path.read_text()
        for pattern, sources in INLINE:
            m = re.search(pattern, text)
            if not m:
                say(f"{doc}: the text quoting /{pattern}/ was not found; that figure is not regenerated")
                continue
            for g in range(len(sources), 0, -1):
                row, key = sources[g - 1]
                value = figures[row][key]
                new = f"{value:.1f}" if key == "minutes8h" else f"{value:.0f}"
                text = text[:m.start(g)] + new + text[m.end(g):]
        tmp = path.with_name(path.name + ".figures-tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        say(f"{doc}: {name}: rewritten, with the figures its text quotes")
        return stale

    tolerance = ENCODER_TOLERANCE if mode == "quick" else 0
    for _, cells in rows:
        f = figures[bench_name(cells[0])]
        for title, cell in zip(header[1:], cells[1:]):
            if title in TIMING_COLUMNS:
                continue
            key, fmt = BENCH_COLUMNS[title]
            stale += compare(f"{doc}: {name}: '{cells[0]}', {title}", cell, f[key], fmt, tolerance, verbose)
    for pattern, sources in INLINE:
        m = re.search(pattern, text)
        if not m:
            say(f"{doc}: the text quoting /{pattern}/ was not found; that figure is not checked")
            continue
        for g, (row, key) in enumerate(sources, 1):
            if key == "minutes8h":
                continue
            stale += compare(f"{doc}: the text's '{' '.join(m.group(0).split())}'", m.group(g), figures[row][key],
                             lambda x: f"{x:.0f}", tolerance, verbose)
    return stale


def compare(where, cell, value, fmt, tolerance, verbose):
    try:
        stated = float(cell)
    except ValueError:
        return [f"{where}: '{cell}' is not a number"]
    if tolerance == 0:
        return [] if fmt(value) == cell else [f"{where}: the doc says {cell}, measured {fmt(value)}"]
    # The stated figure is rounded to a whole number: it may be off by half a unit before any tolerance.
    deviation = value / stated - 1
    if verbose:
        say(f"{where}: doc {cell}, quick {value:.1f} ({100 * deviation:+.1f} %)")
    if abs(value - stated) > 0.5 + tolerance * stated:
        return [f"{where}: the doc says {cell}, quick measure {value:.1f} ({100 * deviation:+.1f} %; "
                f"tolerance {100 * tolerance:g} % and rounding)"]
    return []


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(prog="docs-figures.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mixrender", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--only", action="append", default=[], help="a figures block's name (repeatable, or comma-separated)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--deviations", help="--check --quick: write every estimate beside its table figure here (JSON)")
    args = parser.parse_args()
    if args.write and args.check:
        raise Stop("--write or --check, not both")
    if args.quick and not args.check:
        raise Stop("--quick is for --check (--write always measures at full length)")
    mode = "quick" if args.quick else "check" if args.check else "write"
    only = {n for o in args.only for n in o.split(",") if n}

    blocks = []
    for doc in DOCS:
        if not (REPO / doc).is_file():
            raise Stop(f"{doc}: missing")
        lines, found = read_blocks(doc)
        blocks += [(doc, name, lines[a:b]) for name, (a, b) in found.items()]
    unknown = only - {name for _, name, _ in blocks}
    if unknown:
        raise Stop(f"--only: no figures block named {', '.join(sorted(unknown))} "
                   f"(there are: {', '.join(name for _, name, _ in blocks)})")
    blocks = [b for b in blocks if not only or b[1] in only]
    if not blocks:
        raise Stop(f"no figures blocks in {' or '.join(DOCS)} (their markers are '<!-- figures: NAME (scripts/docs-figures.sh) -->')")
    for _, name, _ in blocks:
        if not (name.startswith("sizes-") or name == "encoders"):
            raise Stop(f"figures block '{name}': this script makes sizes-* and encoders")
    if any(name == "encoders" for _, name, _ in blocks) and not os.access(args.bench, os.X_OK):
        raise Stop(f"no bench executable at '{args.bench}' (docs/aac.md's encoder table needs it: give --bench PATH, "
                   "or --only the sizes tables)")
    # The encoder table first (its timings want a quiet machine), then the size tables, shortest first.
    blocks.sort(key=lambda b: (b[1] != "encoders", sum(s for _, s in parse_columns(b)) if b[1] != "encoders" else 0))

    renderer = Renderer(args.mixrender, args.tmp, max(1, args.jobs))
    stale, deviations, started = [], [], time.monotonic()
    for doc, name, lines in blocks:
        t0 = time.monotonic()
        if name == "encoders":
            stale += encoders(doc, name, lines, args.bench, mode, args.verbose)
        elif mode == "quick":
            s, d = quick_sizes(doc, name, lines, renderer, args.verbose)
            stale += s
            deviations += d
        else:
            stale += write_sizes(doc, name, lines, renderer, check_only=mode == "check")
        say(f"{doc}: {name}: {time.monotonic() - t0:.0f} s")
    if args.deviations:
        Path(args.deviations).write_text(json.dumps(
            [dict(zip(["doc", "table", "row", "column", "estimateBytes", "tableMiB", "deviation", "how"], d)) for d in deviations], indent=1))
    for line in stale:
        print(line)
    what = {"write": "written", "check": "checked at full length", "quick": "checked quickly"}[mode]
    say(f"docs-figures: {len(blocks)} blocks {what} with {renderer.count} renders in {time.monotonic() - started:.0f} s"
        + (f"; {len(stale)} stale (run scripts/docs-figures.sh --write)" if stale else ""))
    return 1 if stale else 0


def parse_columns(block):
    doc, name, lines = block
    header, _ = table_rows(lines)
    return [parse_column(t) for t in header[1:]]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Stop as error:
        say(f"docs-figures: {error}")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
