"""The rule on ready-made libraries: one implementation, for the grader and for ``nbkit check``.

What a graded function may use (:mod:`.rule`), what a piece of code uses (:mod:`.walk`), what
each graded function of a notebook reaches (:mod:`.library`), and how a notebook's cells are
read (:mod:`.cells`). Pure analysis of the source text: nothing here runs the notebook. The
grader (``grading.autograde.scan``) imports it; it ships in the student kit's wheel, so the
check a student runs is the rule that grades them.
"""

from .cells import NotebookCells, library_verdicts, names_looked_up, parse_cell, split_cells
from .rule import DEFAULT_ALLOWED, RULE_TEXT, LibraryRule, exercise_libraries

__all__ = ["DEFAULT_ALLOWED", "RULE_TEXT", "LibraryRule", "NotebookCells", "exercise_libraries",
           "library_verdicts", "names_looked_up", "parse_cell", "split_cells"]
