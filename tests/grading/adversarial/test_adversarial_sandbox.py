"""The sandbox on its own, its default and refusal, and kill-safety of the gradebook.

Runtime: about 40-60 s on 2 loaded cores (a few kernels, three small CLI grading runs).
"""

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import adversarial_fixtures as adv  # noqa: E402

from grading.execution.sandbox import bubblewrap as sandbox  # noqa: E402
from grading.execution.kernel import execute_notebook  # noqa: E402
from grading.execution.limits import Limits  # noqa: E402
from grading.execution.sandbox.bubblewrap import bwrap_command, sandbox_available  # noqa: E402

AVAILABLE, WHY = sandbox_available()
# `make test` installs bubblewrap: without it these tests fail (with the
# install hint) rather than skip, so a run without the sandbox cannot look green.
def _require_sandbox(function):
    def wrapper(*args, **kwargs):
        assert AVAILABLE, f"no sandbox: {WHY}"
        return function(*args, **kwargs)

    return functools.wraps(function)(wrapper)


needs_sandbox = _require_sandbox
FIXTURES = sys.modules["fixtures"]


def _run_cells(cells, scratch, sandbox="bubblewrap", limits=Limits(cell_timeout=30)):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=limits, sandbox=sandbox)
    outputs = nbformat.reads(result.notebook_json, 4).cells
    return result, ["".join(o.get("text", "") for o in cell.outputs) for cell in outputs]


@needs_sandbox
def test_kernel_sees_only_its_folder_and_the_python_environment(tmp_path):
    secret = tmp_path / "course" / "gradebook.db"
    secret.parent.mkdir()
    secret.write_text("grades")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "data.csv").write_text("1,2\n")
    result, texts = _run_cells([
        f"import os\nprint(os.path.exists({str(secret)!r}), os.listdir({str(tmp_path)!r}))",
        "import numpy, sklearn.naive_bayes, nbkit.datasets\ntry:\n    import nbcore\nexcept ImportError:\n"
        "    print('no nbcore')\nprint(open('data.csv').read().strip())",
        "open('written.txt', 'w').write('ok')\ntry:\n    open('/usr/evil', 'w')\nexcept OSError as e:\n    print(type(e).__name__)",
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 22), timeout=2)\nexcept OSError as e:\n    print(type(e).__name__)",
        "print(sorted(k for k in os.environ if 'TOKEN' in k or 'SECRET' in k), os.getuid() != 0)",
    ], scratch)
    assert result.status == "ok", result.reason
    # The scratch folder's parents exist (empty) so it can be mounted; nothing else does.
    assert texts == ["False ['scratch']\n", "no nbcore\n1,2\n", "OSError\n", "ConnectionRefusedError\n",
                     "[] True\n"]
    assert (scratch / "written.txt").read_text() == "ok"


@needs_sandbox
def test_the_judge_has_the_reference_and_no_view_of_the_submission(tmp_path):
    """Test cells run in the judge: nbcore importable there, the kernel's folder and network not."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "answers.txt").write_text("student data")
    test = {"nbgrader": {"grade": True, "solution": False, "grade_id": "t", "points": 1, "locked": True,
                         "schema_version": 3}}
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("def where():\n    import os\n    return os.getcwd()"),
        nbformat.v4.new_code_cell(
            "import os, socket, nbcore\n"
            f"print(os.path.exists({str(scratch / 'answers.txt')!r}), os.getcwd() != where(), os.getuid() != 0)\n"
            "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=2)\nexcept OSError as e:\n"
            "    print(type(e).__name__)", metadata=test),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(cell_timeout=30), sandbox="bubblewrap")
    assert result.status == "ok", result.reason
    outputs = nbformat.reads(result.notebook_json, 4).cells[1].outputs
    assert [o.get("text") for o in outputs] == ["False True True\nConnectionRefusedError\n"]


@needs_sandbox
def test_kernels_reuse_the_graders_matplotlib_font_cache(tmp_path, monkeypatch):
    """Without the seeded cache each sandboxed kernel rescans the fonts (~0.5 s):
    the copy must be read as it is, not rebuilt, and matplotlib must stay quiet."""
    cache = sandbox.build_matplotlib_cache(tmp_path / "matplotlib")
    assert cache is not None and list(cache.glob(sandbox.MATPLOTLIB_CACHE_FILES))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nplt.figure(); plt.plot([1, 2]); plt.title('x'); print('drawn')")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    seeded = {}

    real_kernel_manager = sandbox.Bubblewrap.kernel_manager

    def remember_the_seeded_copy(self, *args, **kwargs):  # the kernel starts right after this
        manager = real_kernel_manager(self, *args, **kwargs)
        seeded.update({p.name: p.stat().st_mtime_ns for p in (scratch / ".config" / "matplotlib").iterdir()})
        return manager

    monkeypatch.setattr(sandbox.Bubblewrap, "kernel_manager", remember_the_seeded_copy)
    result = execute_notebook(nbformat.writes(notebook), scratch, limits=Limits(cell_timeout=60),
                              sandbox="bubblewrap", matplotlib_cache=cache)
    outputs = nbformat.reads(result.notebook_json, 4).cells[0].outputs
    assert result.status == "ok", result.reason
    streams = [(o.name, o.text) for o in outputs if o.output_type == "stream"]
    assert streams == [("stdout", "drawn\n")]  # no stderr: no warning from matplotlib
    assert seeded, "no font cache was copied into the scratch folder"
    after = {p.name: p.stat().st_mtime_ns for p in (scratch / ".config" / "matplotlib").iterdir()}
    assert after == seeded  # read, not rewritten


def test_command_binds_no_course_folder_read_write(tmp_path):
    command = bwrap_command(["python", "-m", "ipykernel_launcher"], tmp_path, Limits())
    writable = [command[i + 1] for i, arg in enumerate(command) if arg == "--bind"]
    assert writable == [str(tmp_path.resolve())]
    assert "--unshare-net" in command or "--unshare-all" in command
    assert "--clearenv" in command and "--die-with-parent" in command
    assert any(arg.startswith("--nproc=") for arg in command) and any(arg.startswith("--as=") for arg in command)


def test_refuses_without_bubblewrap_and_says_how_to_install(tmp_path, monkeypatch):
    FIXTURES.write_course(tmp_path / "course")
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    available, reason = sandbox_available()
    assert not available and "apt-get install bubblewrap" in reason and "--unsafe-no-sandbox" in reason
    from grading.autograde import autograde

    with pytest.raises(ValueError, match="cannot grade sandboxed: bubblewrap"):
        autograde(tmp_path / "course")


def _nbg(*args, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "grading", *args], capture_output=True, text=True,
                          timeout=600, env=env, **kwargs)


@pytest.mark.slow
def test_cli_refuses_then_unsafe_flag_grades_and_the_report_shows_it(tmp_path):
    FIXTURES.make_class(tmp_path, {"ann": "perfect"})
    no_bwrap = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    refused = _nbg("--course", str(tmp_path), "autograde", "-j", "1", "--quiet", env=no_bwrap)
    assert refused.returncode == 2
    assert "apt-get install bubblewrap" in refused.stderr and "--unsafe-no-sandbox" in refused.stderr
    unsafe = _nbg("--course", str(tmp_path), "autograde", "-j", "1", "--quiet", "--unsafe-no-sandbox", env=no_bwrap)
    assert unsafe.returncode == 0, unsafe.stderr
    assert _nbg("--course", str(tmp_path), "report").returncode == 0
    assert "WITHOUT the sandbox for 1 submission(s)" in (tmp_path / "report.html").read_text()


@needs_sandbox
@pytest.mark.slow
def test_sandbox_is_on_by_default_in_the_cli(tmp_path):
    FIXTURES.make_class(tmp_path, {"ann": "perfect"})
    run = _nbg("--course", str(tmp_path), "autograde", "-j", "1", "--quiet")
    assert run.returncode == 0, run.stderr
    assert '"sandboxed": true' in (tmp_path / "grading_log.jsonl").read_text()


@needs_sandbox
@pytest.mark.slow
def test_killing_the_grader_at_any_moment_loses_and_double_counts_nothing(tmp_path):
    """SIGKILL the grading process twice mid-run, at different moments, then re-run:
    every student ends with the hand-derived score, once, and the gradebook opens."""
    students = {"ann": "perfect", "bob": "wrong_hidden", "cid": "blank", "dee": "perfect",
                "eve": "syntax_error", "fay": "wrong_hidden"}
    FIXTURES.make_class(tmp_path, students)
    state = tmp_path / ".nbg_state" / "autograde" / FIXTURES.FIXTURE_ASSIGNMENT
    killed_mid_run = []
    for delay in (0.0, 0.5):  # right after a commit, then somewhere inside the next submission
        process = subprocess.Popen([sys.executable, "-m", "grading", "--course", str(tmp_path), "autograde",
                                    "-j", "1", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        done_before = len(list(state.glob("*.json"))) if state.exists() else 0
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            if state.exists() and len(list(state.glob("*.json"))) > done_before:
                time.sleep(delay)
                break
            time.sleep(0.02)
        killed_mid_run.append(process.poll() is None)
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the grader and its kernel
        except ProcessLookupError:
            pass  # it had already finished
        process.wait()
    assert killed_mid_run[0], "the first run finished before it could be killed"
    final = _nbg("--course", str(tmp_path), "autograde", "-j", "2", "--quiet")
    assert final.returncode == 0, final.stderr
    again = _nbg("--course", str(tmp_path), "autograde", "-j", "1", "--quiet")
    assert f"0 notebook(s) graded, {len(students)} submission(s) unchanged" in again.stdout
    rows = adv.gradebook_rows(tmp_path)
    assert set(rows) == set(students)
    for student, kind in students.items():
        assert sum(rows[student].values()) == FIXTURES.EXPECTED_SCORES[kind], student
        assert len(rows[student]) == 4, student
    from grading.core.course import Course

    with Course(tmp_path).gradebook() as gradebook:
        assert len(gradebook.find_assignment(FIXTURES.FIXTURE_ASSIGNMENT).submissions) == len(students)


def _children(pid) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            found.append(int(status.parent.name))
    return found


def _is_python(pid) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(
            Path(sys.executable).name.encode())
    except OSError:
        return False


@needs_sandbox
@pytest.mark.slow
def test_a_lost_pool_worker_is_never_a_grade(tmp_path):
    """SIGKILL a pool worker while it grades: its notebooks are graded again, no 0 is recorded."""
    students = {"ann": "perfect", "bob": "wrong_hidden", "cid": "perfect", "dee": "blank"}
    FIXTURES.make_class(tmp_path, students)
    process = subprocess.Popen([sys.executable, "-m", "grading", "--course", str(tmp_path), "autograde",
                                "-j", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    killed = None
    deadline = time.monotonic() + 240
    while killed is None and time.monotonic() < deadline and process.poll() is None:
        for worker in _children(process.pid):
            # A pool worker is a forked Python process (not the sandbox probe's bwrap),
            # caught while it runs a kernel and a judge.
            if _is_python(worker) and len(_children(worker)) >= 2:
                os.kill(worker, signal.SIGKILL)
                killed = worker
                break
        time.sleep(0.05)
    out, err = process.communicate(timeout=600)
    assert killed is not None, "no pool worker was caught grading"
    assert process.returncode == 0, out + err
    rows = adv.gradebook_rows(tmp_path)
    for student, kind in students.items():
        assert sum(rows[student].values()) == FIXTURES.EXPECTED_SCORES[kind], student
    log = [json.loads(line) for line in (tmp_path / "grading_log.jsonl").read_text().splitlines()]
    assert sorted(r["student"] for r in log) == sorted(students)  # one record each: no error, no 0 in between
    assert all(r["status"] == "ok" for r in log), log
