"""How fast ``nbg`` answers ``--help`` and a usage error: the console script, start-up included.

Each command line is run as the instructor runs it (the ``nbg`` script next to this
interpreter, a new process each time), in interleaved rounds (every command once per round,
the order rotating) so that a slow spell of the machine hits all of them. Two reference lines
are timed in the same rounds: the interpreter alone (``python -c pass``, the floor) and the
import of the autograde step with its libraries (what ``nbg autograde --help`` loaded before
the commands imported their steps only when they run).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 1.0  # issue 28: --help and a usage error "in well under a second" on an idle machine

# (argv, what it is)
COMMANDS = [
    (["--help"], "help"),
    (["autograde", "--help"], "help"),
    (["demo", "--help"], "help"),
    (["report", "--help"], "help"),
    (["autograde", "--no-such-option"], "usage error"),
    (["--course", "/no/such/folder", "status"], "usage error"),
]
REFERENCES = {
    "python -c pass": ([sys.executable, "-c", "pass"], "the interpreter alone"),
    "python -c 'import grading.autograde'": ([sys.executable, "-c", "import grading.autograde"],
                                             "the autograde step's libraries"),
}


def _nbg() -> list:
    script = Path(sys.executable).with_name("nbg")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "grading"]


def _time(argv) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=300)
    return time.perf_counter() - start


def _load() -> str:
    try:
        return ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def run(repeats=10, echo=print) -> dict:
    """Median, min and max wall seconds of each command line over ``repeats`` interleaved rounds
    (after one untimed round that warms the file cache)."""
    lines = {"nbg " + " ".join(argv): (_nbg() + argv, what) for argv, what in COMMANDS}
    lines.update(REFERENCES)
    labels = list(lines)
    times = {label: [] for label in labels}
    load_before = _load()
    echo(f"startup: {len(labels)} command lines, {repeats} rounds")
    for index in range(repeats + 1):
        shift = index % len(labels)
        for label in labels[shift:] + labels[:shift]:
            seconds = _time(lines[label][0])
            if index:
                times[label].append(seconds)
    rows = [{"command": label, "what": lines[label][1], "reference": label in REFERENCES, "median_s": statistics.median(values),
             "min_s": min(values), "max_s": max(values)} for label, values in times.items()]
    return {"repeats": repeats, "target_s": TARGET_S, "rows": rows, "load_before": load_before,
            "load_after": _load()}


def checks(section) -> list:
    """(target, measured, met) for the report's Targets: the slowest median of the nbg lines."""
    timed = [row for row in section["rows"] if not row["reference"]]
    slowest = max(timed, key=lambda row: row["median_s"])
    return [(f"nbg --help and a usage error answer in under {section['target_s']:g} s (median)",
             f"{slowest['median_s']:.2f} s ({slowest['command']})", slowest["median_s"] < section["target_s"])]


def report_lines(section: dict, title: str, command: str) -> list:
    lines = [title, "", f"`{command} --only startup`: each command line run as a new process, "
             f"{section['repeats']} interleaved rounds after a warm-up round (load average "
             f"{section['load_before']} before, {section['load_after']} after); target: under "
             f"{section['target_s']:g} s on an idle machine. The two reference lines bound it: the "
             "interpreter alone, and the libraries of the autograde step, which `nbg autograde --help` "
             "imported before the commands imported their steps only when they run.", "",
             "| command line | what | median | min | max |", "|---|---|---|---|---|"]
    for row in section["rows"]:
        what = f"reference: {row['what']}" if row["reference"] else row["what"]
        lines.append(f"| `{row['command']}` | {what} | {row['median_s']:.2f} s | {row['min_s']:.2f} s "
                     f"| {row['max_s']:.2f} s |")
    return lines + [""]
