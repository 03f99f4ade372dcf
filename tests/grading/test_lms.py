"""``nbg export --format canvas|moodle``: files the LMS's gradebook import accepts.

The checks below follow the importers' documented rules, not this code:

* Canvas (its ``GradebookImporter``): the header's first cell contains
  "Student", the second "ID", then "SIS User ID" and "SIS Login ID", and the
  last identity column is "Section"; every later column is an assignment,
  matched by the id in "Name (123)" or else by its exact name; a row whose
  first cell contains "Points Possible" gives the assignments' points; a
  student is found by "ID", else by the SIS ids; an empty cell is no grade.
* Moodle (grade import, CSV file): one header row, every row with as many
  fields as the header; the user is identified by mapping one column to
  ``useridnumber``/``useremail``/``username``; each grade column holds a
  number (or nothing).

Scores are the fixture class's hand-derived ones (late_perfect: policy
"zero", 0).
"""

import csv
import re
import subprocess
import sys

import pytest
from graded_class import graded_class_root

from grading import Course
from grading.grades.read import read_class_grades
from grading.lms import write_lms_csv

# The fixture class's students with made-up Canvas ids (a Canvas export's layout,
# including its Points Possible row, an assignment with its Canvas id and a
# read-only total column).
CANVAS_ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section,ps_fixture (4711),Current Score
    Points Possible,,,,,6,(read only)
"Blank, Bo",101,S101,blank,Sec 1,,
"Perfect, Pat",102,S102,perfect,Sec 1,,
"Wrong, Wes",103,S103,wrong_hidden,Sec 2,,
"Late, Lee",104,S104,late_perfect,Sec 2,,
"Dies, Dee",105,S105,kernel_dies,Sec 1,,
"Loop, Lou",106,S106,infinite_loop,Sec 1,,
"Edit, Eddie",107,S107,edits_test_cell,Sec 1,,
"Syntax, Sy",108,S108,syntax_error,Sec 2,,
"Stderr, Stu",109,S109,stderr_output,Sec 2,,
"Never, Ned",110,S110,never_submitted,Sec 2,,
"""
EXPECTED = {"blank": "0", "perfect": "6", "wrong_hidden": "4", "late_perfect": "0",
            "kernel_dies": "3", "infinite_loop": "3", "edits_test_cell": "3",
            "syntax_error": "3", "stderr_output": "6", "never_submitted": ""}


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    return read_class_grades(Course(graded_class_root(tmp_path_factory)))


def parse_like_canvas(path):
    """(assignments {column: (title, id)}, points {title: points}, grades {canvas id: {title: grade}})."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4]  # the last identity column
    assignments = {}
    for index, name in enumerate(header[5:], start=5):
        match = re.match(r"^(.*)\s+\((\d+)\)$", name)
        assignments[index] = (match.group(1), match.group(2)) if match else (name, None)
    points, grades = {}, {}
    for row in rows[1:]:
        assert len(row) == len(header)
        if "Points Possible" in row[0]:
            points = {assignments[i][0]: row[i] for i in assignments}
            continue
        assert row[1] or row[2] or row[3], "a student Canvas cannot find"
        grades[row[1]] = {assignments[i][0]: row[i] for i in assignments}
    return assignments, points, grades


def test_canvas_file_follows_the_importer(grades, tmp_path):
    (tmp_path / "roster.csv").write_text(CANVAS_ROSTER)
    path = write_lms_csv(grades, "canvas", tmp_path / "roster.csv", "SIS Login ID", tmp_path / "canvas.csv")
    assignments, points, by_id = parse_like_canvas(path)
    assert list(assignments.values()) == [("ps_fixture", "4711")]  # the roster's Canvas assignment id
    assert points == {"ps_fixture": "6"}
    logins = {str(100 + i): login for i, login in enumerate(EXPECTED, start=1)}
    assert {logins[canvas_id]: row["ps_fixture"] for canvas_id, row in by_id.items()} == EXPECTED
    first = path.read_text(encoding="utf-8").splitlines()[2]
    assert first == '"Blank, Bo",101,S101,blank,Sec 1,0'  # identity columns copied as they are


def test_canvas_without_assignment_ids_names_the_column_after_the_assignment(grades, tmp_path):
    (tmp_path / "roster.csv").write_text(
        "Student,ID,SIS Login ID,Section\n" + "".join(f"S {s},{i},{s},A\n" for i, s in enumerate(EXPECTED)))
    path = write_lms_csv(grades, "canvas", tmp_path / "roster.csv", "SIS Login ID", tmp_path / "canvas.csv")
    assignments, points, _ = parse_like_canvas(path)
    assert list(assignments.values()) == [("ps_fixture", None)] and points == {"ps_fixture": "6"}


def test_moodle_file_follows_the_import(grades, tmp_path):
    roster = "First name,Last name,ID number,Institution,Department,Email address\n" + "".join(
        f"{s},Doe,{1000 + i},Uni,CS,{s}@example.edu\n" for i, s in enumerate(EXPECTED))
    (tmp_path / "roster.csv").write_text(roster)
    path = write_lms_csv(grades, "moodle", tmp_path / "roster.csv", "First name", tmp_path / "moodle.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["First name", "Last name", "ID number", "Email address", "ps_fixture"]
    assert all(len(row) == len(rows[0]) for row in rows)
    by_email = {row[3]: row[4] for row in rows[1:]}  # "Map from: Email address, to: useremail"
    assert by_email == {f"{s}@example.edu": grade for s, grade in EXPECTED.items()}
    assert all(v == "" or float(v) <= 6 for v in by_email.values())  # within the item's 6 points


def test_a_graded_student_missing_from_the_roster_is_an_error(grades, tmp_path):
    (tmp_path / "roster.csv").write_text("Student,ID,SIS Login ID,Section\nPat,1,perfect,A\n")
    with pytest.raises(ValueError, match=r"\['blank', .*not in the roster"):
        write_lms_csv(grades, "canvas", tmp_path / "roster.csv", "SIS Login ID", tmp_path / "c.csv")


def test_roster_without_the_id_column_or_lms_ids_says_what_to_do(grades, tmp_path):
    (tmp_path / "roster.csv").write_text("name,login\nPat,perfect\n")
    with pytest.raises(ValueError, match="no column 'student_id'.*--roster-id"):
        write_lms_csv(grades, "moodle", tmp_path / "roster.csv", "student_id", tmp_path / "m.csv")
    with pytest.raises(ValueError, match="Moodle roster needs one of the columns"):
        write_lms_csv(grades, "moodle", tmp_path / "roster.csv", "login", tmp_path / "m.csv")


def test_cli_export_canvas(tmp_path_factory, tmp_path):
    root = graded_class_root(tmp_path_factory)
    (tmp_path / "roster.csv").write_text(CANVAS_ROSTER)

    def nbg(*args):
        return subprocess.run([sys.executable, "-m", "grading", "--course", str(root), "export",
                               "--out", str(tmp_path / "out"), *args],
                              capture_output=True, text=True, timeout=300)

    done = nbg("--format", "canvas", "--roster", str(tmp_path / "roster.csv"), "--roster-id", "SIS Login ID")
    assert done.returncode == 1, done.stderr  # the class's dead kernel etc. need attention
    assert "points possible: ps_fixture 6" in done.stdout
    assert (tmp_path / "out" / "canvas.csv").read_text().startswith("Student,ID,SIS User ID")
    done = nbg("--format", "moodle")
    assert done.returncode == 2 and "needs --roster" in done.stderr
