"""What the grader itself observed of a kernel, apart from what the notebook only reported.

A notebook's outputs are the student's: any cell can ``raise MemoryError`` or
print a traceback. So the incidents the grader asserts ("the kernel ran out of
memory") come from its own observations only: :class:`KernelWatch` reads the
kernel's processes in ``/proc`` after every cell (the peak of its address space
against the memory limit, its processes and threads against the process
limit); the kernel's exit signal, the output cap, timeouts and interrupts, the
code-cell cap and the time budget are the executor's own (its status and
reason, :mod:`grading.execution.kernel`).

The error outputs are still listed, by :func:`reported_errors`, worded as what
the notebook reported ("cell 5 (add_solution) raised MemoryError: ..."), never
as a fact, and they never change a status.
"""

from __future__ import annotations

import os
from pathlib import Path

from grading.core.cells import is_test_cell

# The grader's own error outputs (executor.py): not the notebook's report.
GRADER_ENAMES = ("NotExecuted", "KernelDied")
MEMORY_NEAR = 0.9  # a peak above this share of the address-space limit reached it
PROC = Path("/proc")


def cell_label(cell, index) -> str:
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"cell {index} ({grade_id})" if grade_id else f"cell {index}"


def _status(pid: int) -> dict:
    try:
        text = (PROC / str(pid) / "status").read_text()
    except OSError:
        return {}
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _children(root: int) -> list[int]:
    """``root`` and every process below it (one pass over /proc: pid -> parent)."""
    parents = {}
    for entry in os.scandir(PROC):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 1 and fields[1].isdigit():
                parents[int(entry.name)] = int(fields[1])
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found.extend(frontier)
    return found


class KernelWatch:
    """The grader's own measurements of one kernel's processes, cell by cell.

    Parameters
    ----------
    limits : Limits
        The limits the sandbox enforces (memory and processes are compared with them).
    """

    def __init__(self, limits):
        self.limits = limits
        self.peak_bytes = 0  # the largest address space of one of the kernel's processes
        self.most_tasks = 0  # the most processes and threads seen at once
        self.memory_cell = self.tasks_cell = ""  # the first cell after which a limit was reached

    def sample(self, root_pid, label: str, errors=("MemoryError",)) -> None:
        """Measure the processes under ``root_pid`` (the sandbox's) after the cell ``label``, whose
        error outputs are named ``errors``.

        A limit counts as reached by a cell only when the measurement and the cell's failure agree:
        importing scikit-learn maps most of a 1 GiB address space without running out of anything,
        and a raised MemoryError far from the limit is the notebook's own words."""
        if root_pid is None:
            return
        tasks, peak = 0, 0
        for pid in _children(int(root_pid)):
            fields = _status(pid)
            if not fields or fields.get("Name") == "bwrap":  # the sandbox's own helpers
                continue
            tasks += int(fields.get("Threads", "1") or 1)
            peak = max(peak, int((fields.get("VmPeak", "0 kB").split() or ["0"])[0]) * 1024)
        self.peak_bytes, self.most_tasks = max(self.peak_bytes, peak), max(self.most_tasks, tasks)
        memory, processes = self.limits.memory_bytes, self.limits.max_processes
        if memory and peak >= MEMORY_NEAR * memory and "MemoryError" in errors and not self.memory_cell:
            self.memory_cell = label
        if processes and tasks >= processes - 2 and errors and not self.tasks_cell:
            self.tasks_cell = label

    def incidents(self) -> list[str]:
        """One line per limit the kernel was measured to reach."""
        found = []
        if self.memory_cell:
            found.append(f"{self.memory_cell} ran out of memory: the grader measured the kernel's address space "
                         f"at {self.peak_bytes // 2**20} MiB of the {self.limits.memory_bytes // 2**20} MiB it allows")
        if self.tasks_cell:
            found.append(f"{self.tasks_cell} could not start more processes: the grader counted "
                         f"{self.most_tasks} processes and threads in the kernel's sandbox, which allows "
                         f"{self.limits.max_processes}")
        return found


def _main_pids(root, first_only=False) -> list[int]:
    found = [pid for pid in _children(int(root)) if _status(pid).get("Name") not in (None, "bwrap")]
    return found[:1] if first_only else found


def run_delays(kernel_root, judge_root) -> dict:
    """pid -> seconds its main thread has waited for a CPU (``/proc/<pid>/schedstat``), for the
    kernel (the first process in its sandbox) and the judge server's processes.

    Wall time minus the growth of these waits is the time a notebook would take on an idle
    machine: a busy machine slows every notebook alike, and this takes it out."""
    pids = (_main_pids(kernel_root, True) if kernel_root else []) + (_main_pids(judge_root) if judge_root else [])
    delays = {}
    for pid in pids:
        try:
            delays[pid] = int((PROC / str(pid) / "schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    return delays


def _kind(ename: str, evalue: str) -> bool:
    """Whether an error is of a kind the sandbox or a limit could cause (worth reporting)."""
    text = f"{ename}: {evalue}"
    markers = ("Resource temporarily unavailable", "No space left on device", "Disk quota exceeded",
               "Read-only file system", "unable to open database file", "Network is unreachable",
               "Name or service not known", "Temporary failure in name resolution", "Connection refused",
               "No address associated", "File too large")
    names = ("MemoryError", "BlockingIOError", "SystemExit", "PermissionError", "ConnectionRefusedError",
             "ConnectionError", "gaierror", "URLError", "OSError", "FileNotFoundError", "NotADirectoryError")
    return ename in names or any(marker in text for marker in markers)


def reported_errors(notebook) -> list[str]:
    """What the notebook's own outputs report, worded as such (one line per answer cell).

    E.g. ``"cell 5 (add_solution) raised MemoryError: ..."``: the notebook says so, the grader
    did not observe it (the grading log prefixes it with "the notebook's own output says").
    Test cells (the judge's verdicts) and the grader's own error outputs are left out.
    """
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or is_test_cell(cell):
            continue
        for output in cell.get("outputs", []):
            ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
            if output.get("output_type") == "error" and ename not in GRADER_ENAMES and _kind(ename, evalue):
                evalue = " ".join(evalue.split())[:120]
                found.append(f"{cell_label(cell, index)} raised {ename[:60]}{': ' + evalue if evalue else ''}")
                break
    return found
