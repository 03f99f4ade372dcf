"""``nbg demo``: the whole pipeline on the generated demo class, on the real assignments.

The expected scores below are derived by hand from the test cells each
student's mistake must fail and their points in the source notebooks (not
computed by the pipeline). Points of the auto-graded test cells:

01_bayes_mle_map (20 auto points; the two written answers, 2 + 2, are graded
by hand and count 0 here). Visible tests give no points (issue 21); each
function's hidden tests are split into core / edges / inputs cells:
1 / 0.25 / 0.25 (1.5 in all) for posterior, bernoulli_mle,
beta_posterior_mean, m_estimate, categorical_mle, dirichlet_posterior_mean and
dirichlet_map; 1.25 / - / 0.25 (1.5) for map_hypothesis, ml_hypothesis,
beta_posterior and beta_map; 2.25 / 0.75 / 0.5 (3.5) for beta_credible_interval.
In notebook order: posterior, map_hypothesis, ml_hypothesis, bernoulli_mle,
beta_posterior, beta_map, beta_posterior_mean (10.5 so far), m_estimate,
beta_credible_interval, categorical_mle, dirichlet_posterior_mean, dirichlet_map.
03_multinomial_nb (24 auto points; written answers 3 + 2 by hand; its
class_log_prior and log_normalize are given, not graded), core / edges / inputs:
  count_vectors 3 / 1.25 / 0.75, multinomial_feature_log_prob 4.25 / 1.75 / 1,
  multinomial_jll 3.5 / 1.5 / 1, confusion_matrix 1.75 / 0.75 / 0.5,
  mutual_information 1.75 / 0.75 / 0.5.

The demo's class is its own (graded once per test run, in the module's
fixture ``demo``): the test is of ``nbg demo`` itself, which builds the course,
its students and their LMS download from scratch, as an instructor runs it.

Runtime: the end-to-end demo takes ~3 min on 2 idle cores (26 notebooks, one 25 s
timeout, waited out again when graded alone), up to ~5 min on a loaded machine; the
other tests ~10 s, and the stock serial nbgrader comparison 1-2 min.
"""

import csv
import html
import re
import zipfile

import nbformat
import pytest

from grading import Course
from grading.collect import DEFAULT_PATTERN
from grading.demo import (
    MARKER,
    build_demo_course,
    build_lms_zip,
    repository_course_root,
    run_demo,
)
from grading.commands.demo import format_score_table, print_summary
from grading.demo.students import DEMO_ASSIGNMENTS, DEMO_STUDENTS, DemoStudent, student_notebook
from grading.core.cells import split_hidden_region

BAYES, MULTINOMIAL = DEMO_ASSIGNMENTS

EXPECTED_SCORES = {
    # student: (01_bayes_mle_map, 03_multinomial_nb), after the late penalty
    "perfect": (20, 24),  # every test passes (its earlier blank attempt is ignored)
    "blank": (0, 0),  # the release unchanged: every test fails
    # posterior() without the prior: posterior's 3 hidden cells, 1.5 lost;
    # multinomial_jll() without the log prior: its 3 hidden cells, 6 lost
    "forgot-prior": (20 - 1.5, 24 - 6),
    # dirichlet_posterior_mean() with N + 2 alpha: its 3 hidden cells, 1.5 lost
    # (K != 2 there); multinomial_feature_log_prob() with N_c + 2: 7 lost
    "denominator-2": (20 - 1.5, 24 - 7),
    # posterior() returns the scores: its 3 hidden cells, 1.5 lost
    "unnormalised": (20 - 1.5, 24),
    # multinomial_jll() in probability space: the core cell's short documents
    # pass, the edges cell's 2000-word documents underflow: its 1.5 lost
    "underflow": (20, 24 - 1.5),
    # the kernel dies in m_estimate's cell: the 10.5 points before it are kept,
    # the 9.5 after it are lost
    "kernel-dies": (10.5, 24),
    # confusion_matrix's cell loops until the timeout: its tests' 3 lost,
    # the rest of the notebook runs on
    "infinite-loop": (20, 24 - 3),
    # bernoulli_mle() divides by n + 1 and the visible test was replaced by
    # `pass`: nbgrader restores the test; the hidden cells' 1.5 lost (no gain from the edit)
    "edits-test": (20 - 1.5, 24),
    # 01 submitted 2026-01-17 09:30, due 2026-01-15 23:59: 1 d 9 h 31 min late,
    # 2 started days. The course's policy takes 10% of the 24 points possible
    # (20 auto + 4 written) per day: 2 x 2.4 = 4.8, above the 50% floor
    # (12): 20 - 4.8 = 15.2. 03 on time.
    "late": (15.2, 24),
    # 01 as late as "late", but extensions.csv moves its due date to 2026-01-18 23:59
    "extended": (20, 24),
    # their own (right) confusion_matrix(): every test passes
    "copier-a": (20, 24),
    "copier-b": (20, 24),
}


def page_text(path):
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return run_demo(out / "demo-output", workers=2, echo=lambda *args: None)


@pytest.mark.slow
def test_every_demo_student_scores_exactly_as_derived(demo):
    assert set(demo.scores) == set(EXPECTED_SCORES)
    got = {s: (round(demo.scores[s][BAYES], 9), round(demo.scores[s][MULTINOMIAL], 9))
           for s in demo.scores}  # 35 - 7.8 is 27.200000000000003 in floating point
    assert got == EXPECTED_SCORES


@pytest.mark.slow
def test_grading_problems_are_flagged_with_the_guilty_cell(demo):
    flagged = {(r.student, r.notebook): r for r in demo.summary.records if r.status != "ok"}
    assert set(flagged) == {
        ("kernel-dies", BAYES), ("infinite-loop", MULTINOMIAL), ("edits-test", BAYES)
    }
    assert flagged[("edits-test", BAYES)].status == "flagged"  # scored with the original test
    assert "test_bernoulli_mle_visible" in flagged[("edits-test", BAYES)].reason
    assert flagged[("kernel-dies", BAYES)].status == "kernel_died"
    assert "m_estimate" in flagged[("kernel-dies", BAYES)].reason
    assert flagged[("infinite-loop", MULTINOMIAL)].status == "timeout"
    assert "confusion_matrix" in flagged[("infinite-loop", MULTINOMIAL)].reason


@pytest.mark.slow
def test_the_summary_ends_with_what_to_do_next(demo):
    lines = []
    print_summary(demo, echo=lines.append)
    at = lines.index("What next:")
    assert any(str(demo.report) in line for line in lines[at:])
    assert any("Running a term" in line for line in lines[at:])
    assert any("--roster-id ID" in line for line in lines[at:])


@pytest.mark.slow
def test_export_says_written_answers_are_not_graded_yet(demo, tmp_path, capsys):
    from grading.cli import main

    code = main(["--course", str(demo.course_root), "export", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1  # the kernel that died, the infinite loop, the edited test need attention
    assert "submission(s) have written answers not graded yet" in out
    assert "perfect/01_bayes_mle_map" in out


@pytest.mark.slow
def test_collect_took_every_student_and_nothing_else(demo):
    for report in demo.collect_reports:
        assert sorted(s for s, _, _ in report.collected) == sorted(EXPECTED_SCORES)
        assert report.unmatched == [] and report.rejected == []


@pytest.mark.slow
def test_feedback_never_shows_hidden_test_source_of_the_real_notebooks(demo):
    course_root = demo.course_root
    assert len(demo.feedback) == len(DEMO_STUDENTS) * len(DEMO_ASSIGNMENTS)
    for assignment in DEMO_ASSIGNMENTS:
        source = nbformat.read(course_root / "source" / assignment / f"{assignment}.ipynb", 4)
        release = nbformat.read(course_root / "release" / assignment / f"{assignment}.ipynb", 4)
        public = "\n".join(cell.source for cell in release.cells)
        secrets = set()
        for cell in source.cells:
            _, hidden = split_hidden_region(cell.source)
            # Lines of 8+ characters the students were never shown ("assert ...",
            # "rng = np.random.default_rng(1101)"); ")" or "else:" prove nothing.
            secrets |= {l.strip() for l in hidden if len(l.strip()) >= 8}
        secrets = {line for line in secrets if line not in public}
        assert len(secrets) > 30  # the check below is not vacuous
        for path in course_root.glob(f"feedback/*/{assignment}/*.html"):
            text = page_text(path)
            leaked = [line for line in secrets if line in text]
            assert not leaked, (path, leaked[:3])


@pytest.mark.slow
def test_feedback_explains_the_kernel_death_and_the_hidden_failure(demo):
    root = demo.course_root
    died = page_text(root / "feedback" / "kernel-dies" / BAYES / f"{BAYES}.html")
    assert "Grading note (kernel_died)" in died and "m_estimate" in died
    wrong = page_text(root / "feedback" / "underflow" / MULTINOMIAL / f"{MULTINOMIAL}.html")
    assert "Score: 0.0 / 3.0" in wrong  # the hidden multinomial_jll test, by name below
    assert "multinomial_jll" in wrong


@pytest.mark.slow
def test_exports_and_report(demo):
    with demo.grades_csv.open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    for student, (bayes, multinomial) in EXPECTED_SCORES.items():
        assert float(rows[student][BAYES]) == bayes
        assert float(rows[student][MULTINOMIAL]) == multinomial
        assert float(rows[student]["total"]) == bayes + multinomial
    with demo.cells_csv.open(newline="") as handle:
        late = [r for r in csv.DictReader(handle) if r["student"] == "late" and r["assignment"] == BAYES]
    tests = [r for r in late if r["grade_id"].startswith("test_")]
    hidden = [r for r in tests if not r["grade_id"].endswith("_visible")]
    assert len(tests) == 44 and len(hidden) == 32 and all(r["passed"] == "1" for r in hidden)  # raw, before the penalty
    # a visible test gives no points: the gradebook keeps no pass or fail for it
    assert all((r["score"], r["passed"]) == ("", "") for r in tests if r["grade_id"].endswith("_visible"))
    written = [r for r in late if not r["grade_id"].startswith("test_")]
    assert [(r["score"], r["passed"]) for r in written] == [("", "")] * 2  # awaiting the instructor
    page = demo.report.read_text()
    # The demo uses the sandbox when the machine has one; the banner says when not.
    assert ("WITHOUT the sandbox" in page) == (not demo.sandboxed)
    assert "kernel-dies" in page and "infinite-loop" in page
    table = format_score_table(demo)
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:]}
    assert rows["perfect"][:4] == ["perfect", "20", "24", "44"]
    assert rows["late"][:4] == ["late", "15.2", "24", "39.2"]


@pytest.mark.slow
def test_report_explains_late_penalties_and_lists_the_copiers(demo):
    page = demo.report.read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    late = text.split("Late submissions")[1].split("Similar answers")[0]
    assert ("late 01_bayes_mle_map 2026-01-17 09:30 2026-01-15 23:59 1 d 9 h 31 min "
            "20 / 24 -4.8 15.2") in late
    assert "extended 01_bayes_mle_map 2026-01-17 09:30 2026-01-18 23:59 (extension) on time" in late
    similar = text.split("Similar answers")[1]
    # only the pair that shares code of its own; everyone with the instructor's
    # solution shares it too, which does not count
    assert page.count("<details>") == 1 and "copier-a and copier-b :" in similar
    assert "extended and" not in similar and "perfect and" not in similar


# --- fast: the generated class itself ------------------------------------------

@pytest.fixture(scope="module")
def released_course(tmp_path_factory):
    from grading.release import build_release

    root = tmp_path_factory.mktemp("demo_course") / "course"
    build_demo_course(root, repository_course_root(), DEMO_ASSIGNMENTS)
    course = Course(root)
    build_release(course, list(DEMO_ASSIGNMENTS))
    return course


def test_lms_zip_is_reproducible_and_matches_the_collect_pattern(released_course, tmp_path):
    first = build_lms_zip(released_course, BAYES, tmp_path / "a.zip")
    second = build_lms_zip(released_course, BAYES, tmp_path / "b.zip")
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert len(names) == len(DEMO_STUDENTS) + 1  # perfect submitted twice
    students = {re.search(DEFAULT_PATTERN, name).group("student") for name in names}
    assert students == {s.student_id for s in DEMO_STUDENTS}


def test_a_mistake_replaces_only_its_cell(released_course):
    source = nbformat.read(released_course.source_notebooks(BAYES)[0], 4)
    release = nbformat.read(released_course.release_dir(BAYES) / f"{BAYES}.ipynb", 4)
    students = {s.student_id: s for s in DEMO_STUDENTS}
    perfect = student_notebook(students["perfect"], BAYES, source, release)
    wrong = student_notebook(students["forgot-prior"], BAYES, source, release)
    differing = [
        a.metadata["nbgrader"]["grade_id"]
        for a, b in zip(perfect.cells, wrong.cells)
        if a.source != b.source
    ]
    assert differing == ["posterior"]
    assert "BEGIN SOLUTION" not in nbformat.writes(perfect)
    assert "likelihood / likelihood.sum()" in nbformat.writes(wrong)


def test_a_mistake_in_a_cell_of_several_functions_replaces_only_its_function(released_course):
    """01's coin_estimates cell defines four graded functions; edits-test gets only bernoulli_mle
    wrong, so the other three keep the instructor's solution, in the same cell."""
    import ast

    source = nbformat.read(released_course.source_notebooks(BAYES)[0], 4)
    release = nbformat.read(released_course.release_dir(BAYES) / f"{BAYES}.ipynb", 4)
    students = {s.student_id: s for s in DEMO_STUDENTS}
    perfect = student_notebook(students["perfect"], BAYES, source, release)
    wrong = student_notebook(students["edits-test"], BAYES, source, release)
    differing = [a.metadata["nbgrader"]["grade_id"] for a, b in zip(perfect.cells, wrong.cells) if a.source != b.source]
    assert differing == ["coin_estimates", "test_bernoulli_mle_visible"]

    def functions(notebook):
        cell = next(c for c in notebook.cells if c.metadata["nbgrader"]["grade_id"] == "coin_estimates")
        return {node.name: ast.get_source_segment(cell.source, node) for node in ast.parse(cell.source).body
                if isinstance(node, ast.FunctionDef)}

    mine, right = functions(wrong), functions(perfect)
    assert set(mine) == set(right) == {"bernoulli_mle", "beta_posterior", "beta_map", "beta_posterior_mean"}
    assert [name for name in right if mine[name] != right[name]] == ["bernoulli_mle"]
    assert "(np.asarray(n, dtype=float) + 1)" in mine["bernoulli_mle"]


def test_a_student_editing_a_missing_cell_is_a_clear_error(released_course):
    source = nbformat.read(released_course.source_notebooks(BAYES)[0], 4)
    release = nbformat.read(released_course.release_dir(BAYES) / f"{BAYES}.ipynb", 4)
    ghost = DemoStudent("ghost", "edits a renamed cell", code={(BAYES, "no_such_cell"): "x = 1"})
    with pytest.raises(ValueError, match="update grading/demo/students.py"):
        student_notebook(ghost, BAYES, source, release)


def test_demo_refuses_to_replace_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(ValueError, match="not an earlier demo"):
        run_demo(tmp_path, echo=lambda *args: None)
    assert (tmp_path / "thesis.tex").exists() and not (tmp_path / MARKER).exists()


# Honest demo students (no kernel death, loop, edited test or late penalty): their
# scores must be stock nbgrader's, cell by cell.
HONEST = ("perfect", "blank", "forgot-prior", "denominator-2", "unnormalised", "underflow")


def _stock_autograde(root, students):
    """Stock nbgrader's ``autograde`` of each student (every assignment) in the course at ``root``,
    one command after the other, as an instructor runs it; the completed processes."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    return [subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "*", f"--student={student}", "--force"],
                           cwd=root, env=env, capture_output=True, text=True, timeout=900) for student in students]


@pytest.mark.slow
def test_honest_students_score_cell_by_cell_as_stock_serial_nbgrader(demo, tmp_path):
    """Stock nbgrader grades each honest student serially; the students are split between two
    copies of the course (a gradebook each), graded side by side to halve the wait."""
    import concurrent.futures
    import shutil

    groups = [HONEST[0::2], HONEST[1::2]]
    roots = []
    for number in range(len(groups)):
        root = tmp_path / f"stock{number}"
        shutil.copytree(demo.course_root, root, ignore=shutil.ignore_patterns("autograded", "feedback"))
        roots.append(root)
    with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
        runs = [run for result in pool.map(_stock_autograde, roots, groups) for run in result]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-2000:] for run in runs if run.returncode]
    ours = Course(demo.course_root)
    for root, students in zip(roots, groups):
        with ours.gradebook() as mine, Course(root).gradebook() as theirs:
            for student in students:
                for assignment in DEMO_ASSIGNMENTS:
                    def cells(gradebook):
                        notebook = gradebook.find_submission(assignment, student).notebooks[0]
                        return {g.name: g.auto_score for g in notebook.grades if g.cell_type == "code"}
                    stock = cells(theirs)
                    assert any(score is not None for score in stock.values()), (student, assignment)  # graded
                    assert cells(mine) == stock, (student, assignment)


@pytest.mark.slow
def test_typical_mistakes_are_diagnosed_on_the_feedback_pages(demo):
    from tests.mutation.cases import load_cases

    words = {a: load_cases(a) for a in DEMO_ASSIGNMENTS}
    expected = {  # student: [(assignment, function, mistake)]: the catalogue's words on the page
        "forgot-prior": [(BAYES, "posterior", "forgotten_prior"), (MULTINOMIAL, "multinomial_jll", "forgets_prior")],
        "unnormalised": [(BAYES, "posterior", "unnormalised_scores")],
        "denominator-2": [(BAYES, "dirichlet_posterior_mean", "denominator_2_alpha")],
        "edits-test": [(BAYES, "bernoulli_mle", "k_over_n_plus_1")],
    }
    root = demo.course_root
    for student, mistakes in expected.items():
        for assignment, function, mistake in mistakes:
            page = page_text(root / "feedback" / student / assignment / f"{assignment}.html")
            text = words[assignment][function]["explanations"][mistake]
            assert f"Your answer behaves like a known mistake: {text}" in page, (student, function, mistake)
    for assignment in DEMO_ASSIGNMENTS:
        page = page_text(root / "feedback" / "perfect" / assignment / f"{assignment}.html")
        assert "known mistake" not in page
    report = page_text(demo.report)
    assert "The class's mistakes" in report and "Item analysis of the test cells" in report
    assert words[BAYES]["posterior"]["explanations"]["forgotten_prior"] in report
    assert (root / "exports" / "mistakes.csv").is_file()
    # the three files an instructor opens together sit together (the course's own exports/)
    assert demo.grades_csv.parent == demo.cells_csv.parent == root / "exports"
