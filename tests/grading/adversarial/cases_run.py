"""Issue 20's cases for the adversarial class: forged incidents, slow notebooks, replayed inputs.

Merged into :data:`adversarial_fixtures.CASES` (its last line), so they are graded in the same
single sandboxed run as every other case (``test_adversarial_class.py``), which checks each one's
score, status and reason, the rest of the class and the gradebook.

* Forged incidents: a notebook's error outputs are the student's. Raising ``MemoryError``,
  ``PermissionError``, a network error, ``SystemExit`` or an exception named like the grader's
  timeout is reported as what the notebook's output says, never as a fact the grader asserts:
  status ``ok`` (no ``blocked``), no points either way. The five cases of
  ``adversarial_fixtures`` whose expectations rested on such outputs (``sys_exit``,
  ``gradebook_write``, ``reads_solutions``, ``reads_classmate``, ``network``) are restated here
  with the same submissions: what the sandbox blocked there left no trace the grader itself saw
  (a refused open, a missing network), so the notebook's words are all there is.
* A notebook far over the honest time: four answer cells that each sleep 3 s (12 s, under the
  cell timeout each, past the 10 s below which no notebook is called slow, within the class's
  20 s notebook limit, many times the source notebook's time): flagged for review, with its
  slowest cells and their seconds.
* Replayed inputs: ``test_add_hidden`` also checks ``add`` on a pair drawn from
  ``nbkit.testing.hidden_rng``, as the course's hidden tests do (the one change this module makes
  to the shared fixture: the assertion is added to the hidden test before the course is written;
  a correct ``add`` passes it whatever the seed). An answer holding a table of the inputs an
  earlier, unseeded run drew fails it: the judge draws each student's inputs from their own seed.
"""

from __future__ import annotations

import dataclasses

import adversarial_fixtures as adv  # partly imported: this module is imported by its last line
import numpy as np

HIDDEN_BASE = 2026
SEEDED_CHECK = f'''
from nbkit.testing import hidden_rng
_a, _b = (int(v) for v in hidden_rng({HIDDEN_BASE}).integers(-10**6, 10**6, size=2))
assert add(_a, _b) == _a + _b, "add is wrong on a random pair of integers"
'''
if "hidden_rng" not in adv.TEST_ADD_HIDDEN:
    adv.TEST_ADD_HIDDEN = adv.TEST_ADD_HIDDEN.replace("### END HIDDEN TESTS", SEEDED_CHECK.strip() + "\n### END HIDDEN TESTS")

# What an earlier run without a grading seed drew (the inputs a student could have harvested).
HARVESTED = tuple(int(v) for v in np.random.default_rng(HIDDEN_BASE).integers(-10**6, 10**6, size=2))
_TABLE = {(2, 3): 5, (-1, 1): 0, (0.5, 0.25): 0.75, HARVESTED: sum(HARVESTED)}
_SLEEP = "\nimport time\ntime.sleep(3)"
_OWN_OUTPUT = "the notebook's own output says"


def _restated(name, status, reason):
    return dataclasses.replace(adv.CASES[name], status=status, reason=reason)


CASES = {
    "forged_memory_error": adv.Case("correct answers; a cell raises MemoryError itself", 6, "ok",
                                    (_OWN_OUTPUT, "raised memoryerror"),
                                    extra_cell="raise MemoryError('Unable to allocate 64.0 GiB')"),
    "forged_permission_network": adv.Case(
        "correct answers; cells raise PermissionError and ConnectionRefusedError themselves", 6, "ok",
        (_OWN_OUTPUT, "raised permissionerror", "raised connectionrefusederror"),
        answers={"count_rows_solution": "raise ConnectionRefusedError(111, 'Connection refused')",
                 "add_solution": adv.PERFECT["add_solution"] + "\nraise PermissionError(13, 'Permission denied', "
                                                               "'/course/gradebook.db')"},
        extra_cell=adv.PERFECT["count_rows_solution"]),
    "forged_timeout_and_exit": adv.Case(
        "correct answers; raises an exception named CellTimeoutError, then SystemExit", 6, "ok",
        (_OWN_OUTPUT, "raised systemexit"),
        answers={"posterior_solution": adv.PERFECT["posterior_solution"] + "\nclass CellTimeoutError(Exception):\n"
                                       "    pass\nraise CellTimeoutError('no reply from the kernel within 10 s')",
                 "add_solution": adv.PERFECT["add_solution"] + "\nimport sys\nsys.exit(0)"}),
    "slow_cells": adv.Case("correct answers; four cells of sleep(3), far over the honest time", 6, "flagged",
                           ("times the", "slowest cells: cell"),
                           answers={key: source + _SLEEP for key, source in adv.PERFECT.items()},
                           extra_cell=_SLEEP.strip()),
    "replays_harvested_inputs": adv.Case(
        "add looks its inputs up in a table harvested from an earlier, unseeded run", 4, "ok",
        answers={"add_solution": f"TABLE = {_TABLE!r}\ndef add(a, b):\n    return TABLE.get((a, b), a * b)"}),
    # Restated: the sandbox blocked these, but only the notebook's own output says so.
    "sys_exit": _restated("sys_exit", "ok", (_OWN_OUTPUT, "raised systemexit")),
    "gradebook_write": _restated("gradebook_write", "ok", (_OWN_OUTPUT, "unable to open database file")),
    # These also load code at run time, which the library rule finds first (cases_scan): flagged for it,
    # and the notebook's own words on what the sandbox stopped are kept.
    "reads_solutions": _restated("reads_solutions", "flagged", ("library rule", _OWN_OUTPUT,
                                                                "raised filenotfounderror")),
    "reads_classmate": _restated("reads_classmate", "flagged", ("library rule", _OWN_OUTPUT,
                                                                "raised filenotfounderror")),
    "network": _restated("network", "flagged", ("library rule", _OWN_OUTPUT,
                                                "raised urlerror|raised connectionrefusederror")),
}
