"""The practice service's reply time: ``nbg serve`` on loopback, one function of 01 checked.

A copy of the course's ``01_bayes_mle_map`` (source, catalogue, config) is released into a scratch
course; ``nbg serve`` runs on 127.0.0.1 as an instructor would start it (2 workers, a queue of 8).
The notebook sent is the whole source notebook (every given cell, the demonstrations too) whose
``posterior`` is a catalogued mistake, so every reply names it. Measured from the client:

* idle: requests one after the other, each from its own student, ``?function=posterior``;
* under load: 10 students send 4 requests each at once (40): the replies' times, and how many were
  answered 200, 429 or 503 (each with ``Retry-After``);
* the service process's peak resident memory (``VmHWM``) after the load;
* ``nbg autograde`` of the same notebook (every function, one submission, one worker), for comparison.
"""

from __future__ import annotations

import csv
import http.client
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "01_bayes_mle_map"
FUNCTION = "posterior"
TARGET_P50_S = 5.0
BIN = Path(sys.executable).parent


def _percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else None


def _course(scratch: Path) -> tuple:
    from grading.core.course import Course
    from grading.core.mistakes import load_cases
    from grading.release import generate_assignment

    root = scratch / "course"
    (root / "source").mkdir(parents=True)
    (root / "mistakes").mkdir()
    shutil.copy(ROOT / "course" / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "course" / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    shutil.copy(ROOT / "course" / "mistakes" / f"{ASSIGNMENT}.py", root / "mistakes")
    generate_assignment(Course(root), ASSIGNMENT)  # the gradebook's notebooks; no hand-out needed
    source = nbformat.read(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    mistake, mutant = next(iter(load_cases(root / "mistakes" / f"{ASSIGNMENT}.py")[FUNCTION]["mutants"].items()))
    for cell in source.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and re.search(rf"^def {FUNCTION}\(", cell.source, re.M):
            cell.source += "\n\n\n" + mutant  # the later definition is the one the tests call
            break
    return root, nbformat.writes(source).encode(), mistake


def _send(port, token, body):
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.request("POST", f"/check/{ASSIGNMENT}?function={FUNCTION}", body=body,
                           headers={"Authorization": f"token {token}"})
        response = connection.getresponse()
        text = response.read().decode()
        return response.status, response.getheader("Retry-After"), text, time.perf_counter() - started
    finally:
        connection.close()


def _peak_rss(pid) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def run(smoke=False, echo=print) -> dict:
    idle_n, load_students, per_student = (1, 1, 2) if smoke else (10, 10, 4)
    students = [f"s{i}" for i in range(idle_n + load_students)]
    with tempfile.TemporaryDirectory(prefix="bench-practice-") as scratch:
        scratch = Path(scratch)
        root, body, mistake = _course(scratch)
        (scratch / "roster.csv").write_text("id\n" + "\n".join(students) + "\n")
        subprocess.run([str(BIN / "nbg"), "--course", str(root), "serve", "tokens", "--roster", str(scratch / "roster.csv"),
                        "--out", str(scratch / "tokens.csv")], check=True, capture_output=True)
        with (scratch / "tokens.csv").open(newline="") as handle:
            tokens = {row["student"]: row["token"] for row in csv.DictReader(handle)}
        log = (scratch / "serve.log").open("w")
        started = time.perf_counter()
        workers = "1" if smoke else "2"  # the smoke run: one worker starts faster
        server = subprocess.Popen([str(BIN / "nbg"), "--course", str(root), "serve", "--port", "0", "-j", workers,
                                   "--queue", "8", "--budget", "100"], stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        try:
            port = None
            while port is None and server.poll() is None and time.perf_counter() - started < 180:
                found = re.search(r"127\.0\.0\.1:(\d+)", (scratch / "serve.log").read_text())
                port = int(found.group(1)) if found else time.sleep(0.2)
            if port is None:
                raise RuntimeError("nbg serve did not start: " + (scratch / "serve.log").read_text()[-2000:])
            start_s = time.perf_counter() - started
            echo(f"practice: server up in {start_s:.1f} s; {idle_n} idle requests")
            idle, named = [], 0
            for student in students[:idle_n]:
                status, _, text, seconds = _send(port, tokens[student], body)
                if status != 200:
                    raise RuntimeError(f"idle request refused: {status} {text[:300]}")
                idle.append(seconds)
                named += "known mistake" in text
            echo(f"practice: {load_students * per_student} requests at once")
            answers, lock = [], threading.Lock()

            def send(student):
                answer = _send(port, tokens[student], body)
                with lock:
                    answers.append(answer)

            threads = [threading.Thread(target=send, args=(s,)) for s in students[idle_n:] for _ in range(per_student)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            peak = _peak_rss(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
        statuses = [a[0] for a in answers]
        served = [a[3] for a in answers if a[0] == 200]
        autograde_s, scores = None, []
        if not smoke:  # the smoke run checks the service's code only
            echo("practice: nbg autograde of the same notebook")
            from grading.autograde import autograde
            from grading.core.course import Course

            folder = root / "submitted" / "s0" / ASSIGNMENT
            folder.mkdir(parents=True)
            (folder / f"{ASSIGNMENT}.ipynb").write_bytes(body)
            began = time.perf_counter()
            scores = [r.score for r in autograde(Course(root), workers=1).records]
            autograde_s = round(time.perf_counter() - began, 2)
    return {"assignment": ASSIGNMENT, "function": FUNCTION, "workers": int(workers), "mistake": mistake, "target_p50_s": TARGET_P50_S,
            "start_s": round(start_s, 2), "idle": {"n": len(idle), "named": named, "p50_s": statistics.median(idle),
                                                   "p95_s": _percentile(idle, 0.95)},
            "load": {"students": load_students, "each": per_student, "n": len(answers), "ok": statistics_count(statuses, 200), "429": statistics_count(statuses, 429),
                     "503": statistics_count(statuses, 503),
                     "retry_after_on_all_refusals": all(a[1] for a in answers if a[0] != 200),
                     "p50_s": statistics.median(served) if served else None, "p95_s": _percentile(served, 0.95)},
            "service_peak_rss_bytes": peak, "autograde_s": autograde_s, "autograde_score": scores}


def statistics_count(values, wanted) -> int:
    return sum(1 for v in values if v == wanted)


def report_lines(section: dict, title: str, command: str) -> list:
    idle, load = section["idle"], section["load"]
    rss = section.get("service_peak_rss_bytes")
    return [title, "", f"`{command} --only practice`: `nbg serve` on loopback ({section.get('workers', 2)} workers, a queue of 8) checks "
            f"`{section['function']}` of `{section['assignment']}` in the whole source notebook with the catalogued "
            f"mistake `{section['mistake']}` (every reply names it: {idle['named']} of {idle['n']} idle replies did). "
            f"Goal: p50 under {section['target_p50_s']:g} s idle.", "",
            "| | requests | answered 200 | 429 | 503 | p50 | p95 |", "|---|---|---|---|---|---|---|",
            f"| idle, one at a time | {idle['n']} | {idle['n']} | 0 | 0 | {idle['p50_s']:.2f} s | {idle['p95_s']:.2f} s |",
            f"| {load['students']} students x {load['each']} at once | {load['n']} | {load['ok']} | {load['429']} | {load['503']} | "
            + (f"{load['p50_s']:.2f} s | {load['p95_s']:.2f} s |" if load["p50_s"] is not None else "- | - |"), "",
            f"Every refusal carried `Retry-After`: {'yes' if load['retry_after_on_all_refusals'] else 'NO'}. "
            f"The service's peak resident memory after the load: "
            + (f"{rss / 2**20:.0f} MiB" if rss else "not measured") + f"; start-up (2 workers warmed): "
            f"{section['start_s']:.1f} s. `nbg autograde` of the same notebook (every function, one worker, "
            "with its honest-time measurement of the source): "
            + (f"{section['autograde_s']:.1f} s." if section["autograde_s"] is not None else "not run."), ""]
