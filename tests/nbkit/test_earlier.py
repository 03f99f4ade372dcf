"""nbkit.earlier: a later notebook's demonstrations call the function the student wrote in an earlier one.

The earlier notebook is a real file in the hand-out's layout (``<id>/<id>.ipynb`` side by side);
each case says which function runs by results that only that function gives.
"""

import json

import numpy as np
import pytest

from nbkit import earlier


def _notebook(folder, notebook, answer, given=""):
    cells = [{"cell_type": "code", "metadata": {}, "source": "import numpy as np\nimport no_such_module_here\n"},
             {"cell_type": "code", "metadata": {}, "source": given},
             {"cell_type": "code", "metadata": {"nbgrader": {"solution": True, "grade_id": "double"}},
              "source": answer},
             {"cell_type": "code", "metadata": {}, "source": "raise RuntimeError('a later cell is never run')\n"}]
    path = folder / notebook / f"{notebook}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"cells": [dict(c, outputs=[], execution_count=None) for c in cells],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    later = folder / "07_later"
    later.mkdir(exist_ok=True)
    return later


def _stand_in(values):
    values = np.asarray(values, dtype=float)
    return values * 2 if len(values) == 1 else np.full(len(values), -1.0)  # agrees on the first call only


ANSWER = ("def _helper(values):\n    return np.asarray(values, dtype=float)\n\n\n"
          "def double(values):\n    ### BEGIN SOLUTION\n    return _helper(values) * 2\n    ### END SOLUTION\n")


def test_the_students_function_is_used_once_it_agrees_with_the_stand_in(tmp_path, capsys):
    later = _notebook(tmp_path, "05_first", ANSWER)
    double = earlier.function("05_first", "double", fallback=_stand_in, folder=later)
    assert np.array_equal(double([3]), [6.0])
    assert np.array_equal(double([1, 2]), [2.0, 4.0])  # the stand-in would give -1, -1
    assert capsys.readouterr().out == "(your double from notebook 5 is used below)\n"


@pytest.mark.parametrize("answer, why", [
    ("def double(values):\n    raise NotImplementedError()\n", "double is not written yet in 05_first.ipynb"),
    ("def double(values):\n    return np.asarray(values) * 3\n",
     "your double from notebook 5 gives another result than the stand-in here; run its tests"),
    ("def double(values):\n    return values.shape\n",
     "your double from notebook 5 fails here (AttributeError: 'list' object has no attribute 'shape'); run its tests"),
    ("def double(values)\n    return 2\n", "no answer cell of 05_first.ipynb defines double"),
])
def test_the_stand_in_is_used_and_says_why(tmp_path, capsys, answer, why):
    later = _notebook(tmp_path, "05_first", answer, given="def double(values):\n    return 'given, not an answer'\n")
    double = earlier.function("05_first", "double", fallback=_stand_in, folder=later)
    assert np.array_equal(double([3]), [6.0])
    assert np.array_equal(double([1, 2]), [-1.0, -1.0])  # the stand-in from then on
    assert capsys.readouterr().out == f"({why}: a stand-in is used below)\n"


def test_a_missing_notebook_means_the_stand_in(tmp_path, capsys):
    later = tmp_path / "07_later"
    later.mkdir()
    double = earlier.function("05_first", "double", fallback=_stand_in, folder=later)
    assert np.array_equal(double([1, 2]), [-1.0, -1.0])
    assert capsys.readouterr().out == (
        "(05_first.ipynb is not next to this notebook or in ../05_first/: a stand-in is used below)\n")


def test_the_working_folder_is_the_default(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_notebook(tmp_path, "05_first", ANSWER))  # a notebook's kernel runs in its own folder
    double = earlier.function("05_first", "double", fallback=_stand_in)
    assert np.array_equal(double([3]), [6.0])
    assert np.array_equal(double([1, 2]), [2.0, 4.0])
    assert capsys.readouterr().out == "(your double from notebook 5 is used below)\n"


def test_a_notebook_next_to_the_later_one_is_found(tmp_path, capsys):
    _notebook(tmp_path, "05_first", ANSWER)
    (tmp_path / "05_first" / "05_first.ipynb").rename(tmp_path / "07_later" / "05_first.ipynb")
    double = earlier.function("05_first", "double", fallback=_stand_in, folder=tmp_path / "07_later")
    assert np.array_equal(double([3]), [6.0])
    assert "is used below" in capsys.readouterr().out
