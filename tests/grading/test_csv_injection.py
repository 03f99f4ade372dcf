"""Every CSV the grader writes is safe to open in a spreadsheet (OWASP "CSV injection").

Hostile values (a student id, an LMS roster's name, a cell id, a mistake's words, an
overrule's reason) that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return are
written with a leading ``'``; a separator inside a text never starts a cell of its own (a
semicolon-separated locale included); numbers, negative ones too, are left as numbers. The
files are read back with Python's ``csv`` reader, the way an LMS importer reads them.
"""

import csv
import io
import re

import pytest

from grading.core.csvfile import FORMULA_STARTS, spreadsheet_cell, unquote_cell
from grading.core.overrules import Overrule, read_overrules, write_overrules
from grading.export import write_cells_csv, write_grades_csv
from grading.grades.read import CellGrade, ClassGrades, SubmissionGrade
from grading.lms import canvas, moodle, write_rows
from grading.report.mistakes import write_mistakes_csv

HOSTILE = [
    "=cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    " =HYPERLINK(\"http://evil.example\",\"x\")",
    "ok;=1+1",  # a semicolon-separated locale would start a cell at "=1+1"
    "ok,=1+1",
    'quote"=1+1',
    "line\n=1+1",
]


def read_cells(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def assert_inert(cell):
    """What a spreadsheet would see in this cell is a number or not a formula."""
    if re.fullmatch(r"-?[0-9.]+(e[-+][0-9]+)?", cell) and cell.count(".") <= 1:
        return
    assert cell[:1] not in FORMULA_STARTS and cell.lstrip()[:1] not in FORMULA_STARTS or cell.startswith("'"), cell


def assert_file_inert(path):
    text = open(path, encoding="utf-8", newline="").read()
    for row in read_cells(path):
        for cell in row:
            assert_inert(cell)
    # Split the way a semicolon locale would (quotes honoured): no piece starts a formula (a
    # piece may be a whole line of numbers, "-1,-1.5", which is no formula either).
    for row in csv.reader(io.StringIO(text), delimiter=";"):
        for piece in row:
            assert not re.match(r"\s*([=+@]|-[^0-9])", piece), piece


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_text_is_neutralised_and_kept(value):
    cell = spreadsheet_cell(value)
    assert_inert(cell)
    # Nothing of the text is lost: a ' in front, and after a ; that a formula follows.
    assert cell.lstrip("'").replace(";'", ";") == value


@pytest.mark.parametrize("number", ["-1.5", "-3", "0", "6", "2.5", "0.333333", "1e-07", "-2.5e+06"])
def test_numbers_stay_numbers(number):
    assert spreadsheet_cell(number) == number


def hostile_grades():
    students = ["-1", "=HYPERLINK(\"http://x\")", "@me", "plain"]
    assignment = "+ps1"
    return ClassGrades(
        students=students,
        assignments=[assignment],
        max_scores={assignment: 6.0},
        submissions={(s, assignment): SubmissionGrade(s, assignment, 2.0, 3.5, 6.0, 0.0) for s in students},
        cells=[CellGrade(s, assignment, "=nb", "-grade_id;=1+1", -1.5, 6.0) for s in students],
    )


def test_grades_and_cells_csv_neutralise_text_and_keep_negative_scores(tmp_path):
    grades = hostile_grades()
    grades_path = write_grades_csv(grades, tmp_path / "grades.csv")
    cells_path = write_cells_csv(grades, tmp_path / "cells.csv")
    for path in (grades_path, cells_path):
        assert_file_inert(path)
    rows = read_cells(grades_path)
    assert rows[0] == ["student", "'+ps1", "total"]
    by_student = {unquote_cell(row[0]): row[1:] for row in rows[1:]}
    # 2 - 3.5 late penalty: a negative score an LMS must read as the number -1.5.
    assert by_student == {s: ["-1.5", "-1.5"] for s in ("-1", '=HYPERLINK("http://x")', "@me", "plain")}
    assert rows[1][0] == "-1"  # an id that is a number is a number, never a formula
    cells = read_cells(cells_path)
    assert cells[1][:4] == ["-1", "'+ps1", "'=nb", "'-grade_id;'=1+1"]
    assert [row[4] for row in cells[1:]] == ["-1.5"] * 4


def test_lms_import_rows_neutralise_roster_fields(tmp_path):
    grades = hostile_grades()
    canvas_header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    canvas_roster = {s: {"Student": "=1+1", "ID": s, "SIS User ID": "@x", "SIS Login ID": s, "Section": "-A"}
                     for s in grades.students}
    moodle_header = ["First name", "Email address", "ID number"]
    moodle_roster = {s: {"First name": "=1+1", "Email address": "@x", "ID number": s} for s in grades.students}
    for module, header, roster in ((canvas, canvas_header, canvas_roster), (moodle, moodle_header, moodle_roster)):
        rows = module.rows(grades, header, roster, grades.assignments, id_column="ID")
        path = write_rows(rows, tmp_path / f"{module.NAME}.csv")
        assert_file_inert(path)
        assert "-1.5" in [cell for row in read_cells(path) for cell in row]


def test_mistakes_csv_neutralises_words(tmp_path):
    rows = [{"assignment": "ps", "function": "=f", "failed": 2, "diagnosed": 1, "not_attempted": 0,
             "mistakes": [("@word", 1, "-explained;=1+1")]}]
    path = write_mistakes_csv(rows, tmp_path / "exports" / "mistakes.csv")
    assert_file_inert(path)
    assert read_cells(path)[1] == ["ps", "'=f", "2", "1", "0", "'@word", "1", "'-explained;'=1+1"]


class FakeCourse:
    def __init__(self, root):
        self.root = root


def test_overrules_are_inert_and_read_back_exactly(tmp_path):
    course = FakeCourse(tmp_path)
    written = [Overrule("ps", "=1+1", "@f", "-because;=2+2", "2026-01-01T00:00:00"),
               Overrule("ps", "'quoted", "f", "'=x;'y;=z", ""),
               Overrule("ps", "-1", "g", "plain reason, with comma", "")]
    write_overrules(course, written)
    assert_file_inert(tmp_path / "overrules.csv")
    assert sorted(read_overrules(course), key=lambda o: o.key) == sorted(written, key=lambda o: o.key)
