"""``nbg report``'s "Learning from practice" on a scripted class of five, counted by hand.

The attempts are inserted directly (no grading): what the practice service would have recorded.
Function ``posterior`` of ``01`` (minutes after 10:00; M1, M2 the mistakes named):

======  ==============================================================  ==================
ann     1: fail M1 (0), 2: pass (4)                                     first pass at 2
ben     1: fail M1 (0), 2: fail M1 (5), 3: pass (15)                    first pass at 3
cat     1: pass (0)                                                     first pass at 1
dan     1: fail (0), 2: fail M2 (2), 3: fail M2 (3)                     never passes
eve     1: fail (0), 2: fail (10), 3: pass (30), 4: fail M1 (40),       first pass at 3
        5: pass (50)
======  ==============================================================  ==================

and ann's request 1 also checked ``beta_map``, which passed.

By hand: posterior practised by 5, passed by 4, attempts to first pass 1, 2, 3, 3: median 2.5,
range 1-3; beta_map 1 student, passed at 1. M1: made by ann, ben, eve, fixed by all three, after
1, 2, 1 checks (median 1) and 4, 15, 10 minutes (median 10). M2: dan, not fixed. Failed checks
with a mistake named: ann 1 (pass 1 later), ben 1 (2), ben 2 (1), dan 2 and 3 (never), eve 4 (1):
6, 4 followed by a pass, median 1. Without: dan 1 (never), eve 1 (2), eve 2 (1): 3, 2, median 1.5.
Requests: ann 2, ben 3, cat 1, dan 3, eve 5 = 14.
"""

from __future__ import annotations

import csv
import datetime as dt

from grading.core.course import Course
from grading.core.practice_log import Attempt, checks_since, last_attempt_number, read_attempts, record_attempts
from grading.report import write_report
from grading.report.practice import learning_from_practice
from tests.grading.fixtures import write_course

T0 = dt.datetime(2026, 11, 2, 10, 0)
SCRIPT = {  # student -> [(minutes, passed, mistakes)]
    "ann": [(0, False, ("M1",)), (4, True, ())],
    "ben": [(0, False, ("M1",)), (5, False, ("M1",)), (15, True, ())],
    "cat": [(0, True, ())],
    "dan": [(0, False, ()), (2, False, ("M2",)), (3, False, ("M2",))],
    "eve": [(0, False, ()), (10, False, ()), (30, True, ()), (40, False, ("M1",)), (50, True, ())],
}


def scripted_attempts() -> list:
    attempts = [Attempt("ann", "01", "beta_map", 1, T0, True, {"test_beta_map_core": True})]
    for student, run in SCRIPT.items():
        for number, (minutes, passed, mistakes) in enumerate(run, 1):
            attempts.append(Attempt(student, "01", "posterior", number, T0 + dt.timedelta(minutes=minutes), passed,
                                    {"test_posterior_core": passed}, mistakes))
    return attempts


def test_the_figures_match_the_hand_count():
    figures = learning_from_practice(scripted_attempts()[::-1])  # the order they come in does not matter
    assert figures["students"] == 5 and figures["attempts"] == 14
    assert figures["functions"] == [
        {"assignment": "01", "function": "beta_map", "students_practised": 1, "students_passed": 1,
         "attempts_to_first_pass_median": 1, "attempts_to_first_pass_min": 1, "attempts_to_first_pass_max": 1},
        {"assignment": "01", "function": "posterior", "students_practised": 5, "students_passed": 4,
         "attempts_to_first_pass_median": 2.5, "attempts_to_first_pass_min": 1, "attempts_to_first_pass_max": 3}]
    assert figures["mistakes"] == [
        {"assignment": "01", "function": "posterior", "mistake": "M1", "students_made": 3, "students_fixed": 3,
         "attempts_to_fix_median": 1, "minutes_to_fix_median": 10.0},
        {"assignment": "01", "function": "posterior", "mistake": "M2", "students_made": 1, "students_fixed": 0,
         "attempts_to_fix_median": None, "minutes_to_fix_median": None}]
    assert figures["failures"] == [
        {"failures": "diagnosed", "count": 6, "followed_by_a_pass": 4, "attempts_to_pass_median": 1},
        {"failures": "undiagnosed", "count": 3, "followed_by_a_pass": 2, "attempts_to_pass_median": 1.5}]


def test_the_table_round_trips_and_the_report_shows_the_section_and_writes_the_csvs(tmp_path):
    course = Course(write_course(tmp_path / "course"))
    record_attempts(course.db_url, scripted_attempts())
    stored = read_attempts(course.db_url)
    assert sorted(stored, key=repr) == sorted(scripted_attempts(), key=repr)
    assert last_attempt_number(course.db_url, "eve", "01") == 5 and last_attempt_number(course.db_url, "zed", "01") == 0
    assert checks_since(course.db_url, "eve", "01", T0 + dt.timedelta(minutes=10)) == {
        "posterior": (4, T0 + dt.timedelta(minutes=10))}
    page = write_report(course, tmp_path / "report.html").read_text()
    assert "Learning from practice" in page and "5 student(s), 14 request(s)" in page
    with (course.root / "exports" / "practice_functions.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["function"], r["students_practised"], r["students_passed"], r["attempts_to_first_pass_median"])
            for r in rows] == [("beta_map", "1", "1", "1"), ("posterior", "5", "4", "2.5")]
    with (course.root / "exports" / "practice_mistakes.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["mistake"], r["students_made"], r["students_fixed"], r["attempts_to_fix_median"],
             r["minutes_to_fix_median"]) for r in rows] == [("M1", "3", "3", "1", "10"), ("M2", "1", "0", "", "")]
    with (course.root / "exports" / "practice_failures.csv").open(newline="") as handle:
        assert [tuple(r.values()) for r in csv.DictReader(handle)] == [
            ("diagnosed", "6", "4", "1"), ("undiagnosed", "3", "2", "1.5")]


def test_without_practice_the_report_has_no_section_and_no_table_is_created(tmp_path):
    course = Course(write_course(tmp_path / "course"))
    page = write_report(course, tmp_path / "report.html").read_text()
    assert "Learning from practice" not in page and not (course.root / "exports" / "practice_functions.csv").exists()
    import sqlalchemy as sa

    assert not sa.inspect(sa.create_engine(course.db_url)).has_table("nbg_practice_attempt")


def test_the_attempts_table_works_on_postgresql_too():
    """A real PostgreSQL server (tests/grading/servers.py), the same figures as on SQLite."""
    from grading.core.database import normalize_db_url
    from tests.grading import servers

    with servers.postgres_server() as server:
        url = normalize_db_url(server.create_database("practice"))
        record_attempts(url, scripted_attempts())
        assert sorted(read_attempts(url), key=repr) == sorted(scripted_attempts(), key=repr)
        assert last_attempt_number(url, "eve", "01") == 5
        assert checks_since(url, "eve", "01", T0 + dt.timedelta(minutes=10)) == {"posterior": (4, T0 + dt.timedelta(minutes=10))}
        assert learning_from_practice(read_attempts(url)) == learning_from_practice(scripted_attempts())
