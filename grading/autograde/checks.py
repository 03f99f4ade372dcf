"""Checks of a submission's files and cells that need no kernel (run by the grading process).

Each returns what it found, in words for the feedback and the report;
:mod:`grading.autograde` decides the consequence. Symbolic links are never
followed (a link named like the notebook could point at the source notebook
or the gradebook); a file named like an installed module is dropped from the
kernel's folder (it would replace that module for the tests); deleted test
cells score 0 and edited ones are noted (nbgrader restores them).
"""

from __future__ import annotations

from pathlib import Path

from grading.core.cells import split_hidden_region


def symlinked_folder(course, student, assignment) -> str:
    """A reason when the submission's folders are symbolic links (which could point at the
    source notebooks), else ''."""
    for folder in (course.submitted_root / student, course.submitted_dir(student, assignment)):
        if folder.is_symlink():
            return f"{folder.relative_to(course.root)} is a symbolic link: refusing to follow it"
    return ""


def notebook_problem(path: Path, submitted: Path) -> str:
    """Why a submitted notebook cannot be read safely ('' when it can)."""
    if path.is_symlink():
        return f"{path.name} is a symbolic link, not a notebook: refusing to follow it"
    if not path.exists():
        found = sorted(p.name for p in submitted.glob("*.ipynb"))
        hint = f" (found {', '.join(found)}: the file must be named {path.name})" if found else ""
        return f"no {path.name} in the submission{hint}"
    return ""


def grade_ids(notebook) -> list:
    return [cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in notebook.cells]


def deleted_cells(notebook, source_cells) -> dict:
    """Test and answer cells of the source that the submitted notebook no longer has."""
    present = set(grade_ids(notebook))
    missing = [cell for cell in source_cells if cell["name"] not in present]
    deleted = {
        "tests": [c["name"] for c in missing if c["grade"] and not c["solution"] and c["cell_type"] == "code"],
        "answers": [c["name"] for c in missing if c["solution"]],
    }
    return {key: names for key, names in deleted.items() if names}


def edited_tests(raw_notebook, source_cells) -> list:
    """Test cells whose submitted source differs from the instructor's (nbgrader restores them)."""

    def normal(source):  # the release drops hidden tests and may differ in blank lines
        return [line.rstrip() for line in split_hidden_region(source)[0].splitlines() if line.strip()]

    tests = {c["name"]: normal(c["source"]) for c in source_cells
             if c["grade"] and not c["solution"] and c["cell_type"] == "code"}
    return sorted(
        grade_id for grade_id, cell in zip(grade_ids(raw_notebook), raw_notebook.cells)
        if grade_id in tests and normal(cell.source) != tests[grade_id]
    )


def _module_exists(name: str) -> bool:
    import importlib.util
    import sys

    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


# The sandboxed kernel's IPYTHONDIR and MPLCONFIGDIR live in its scratch folder: a submitted
# .ipython/profile_default/startup/*.py would run before the first cell.
KERNEL_CONFIG_DIRS = (".ipython", ".config", ".jupyter", ".local")


def shadowing_files(folder) -> list[str]:
    """Files and packages at the top of ``folder`` that would replace an installed module.

    The kernel's working directory comes first on its ``sys.path``, so a
    submitted ``numpy.py`` (or ``numpy/__init__.py``, ``numpy.pth``...)
    would be what the tests get when they ``import numpy``.

    Parameters
    ----------
    folder : str or Path
        The copy of a submission the kernel will run in.

    Returns
    -------
    list of str
        Names relative to ``folder``, sorted.
    """
    found = []
    for entry in sorted(Path(folder).iterdir()):
        name = entry.name
        if name in KERNEL_CONFIG_DIRS:  # startup files and settings the kernel would load
            found.append(name)
            continue
        if entry.is_dir() and not entry.is_symlink():
            module = name if (entry / "__init__.py").exists() else None
        elif name.endswith((".py", ".pyc", ".pth")):
            module = name.rsplit(".", 1)[0]
        elif ".so" in name or name.endswith(".pyd"):
            module = name.split(".", 1)[0]
        else:
            module = None
        if module and module.isidentifier() and _module_exists(module):
            found.append(name)
    return found


def source_order(source_notebook) -> list:
    """The grade_ids of a source notebook's cells, in order."""
    return [cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in source_notebook.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")]


def moved_cells(notebook, order) -> list:
    """The instructor's and answer cells (by grade_id) whose place among each other differs from the
    source notebook's ``order``: those outside the longest run the two orders share."""
    import difflib

    known = set(order)
    submitted = [g for g in grade_ids(notebook) if g in known]
    expected = [g for g in order if g in set(submitted)]
    if submitted == expected:
        return []
    matcher = difflib.SequenceMatcher(a=submitted, b=expected, autojunk=False)
    kept = {g for block in matcher.get_matching_blocks() for g in submitted[block.a:block.a + block.size]}
    return [g for g in submitted if g not in kept]


def restore_order(notebook, order) -> None:
    """Put the cells with a source grade_id back in the source notebook's order; each other cell
    (the student's own) stays right after the cell it followed in the submission, a moved cell excepted."""
    position = {g: i for i, g in enumerate(order)}
    moved = set(moved_cells(notebook, order))
    groups, leading = {}, []
    current = None
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in position and grade_id not in groups:
            groups[grade_id] = [cell]
            if grade_id not in moved:
                current = grade_id
        elif current is None:
            leading.append(cell)
        else:
            groups[current].append(cell)
    notebook.cells = leading + [cell for g in sorted(groups, key=position.get) for cell in groups[g]]
