"""Item analysis against figures computed by hand on a class of five students.

Points (one per test cell, all or nothing):

    student  t1 t2 t3 | total
    s1        1  1  1 |  3
    s2        1  1  0 |  2
    s3        1  0  0 |  1
    s4        0  1  0 |  1
    s5        0  0  0 |  0

Facility: 3/5, 3/5, 1/5. Item-rest correlation of t1: x = (1,1,1,0,0), rest = (2,1,0,1,0);
deviations (.4,.4,.4,-.6,-.6) and (1.2,.2,-.8,.2,-.8): sum of products 0.6, sums of squares
1.2 and 2.8, r = 0.6 / sqrt(3.36) = 0.327327. t2 the same by symmetry of the sums (0.6,
1.2, 2.8). t3: x = (1,0,0,0,0), rest = (2,2,1,1,0): 0.8 / sqrt(0.8 * 2.8) = 0.534522.
Cronbach's alpha: item variances (n - 1) 0.3, 0.3, 0.2 (sum 0.8), total variance 5.2 / 4 =
1.3: alpha = 3/2 * (1 - 0.8 / 1.3) = 0.576923.
A fourth cell passed by s5 alone: x = (0,0,0,0,1), rest = the totals above, mean 1.4:
sum of products -1.4, sums of squares 0.8 and 5.2, r = -1.4 / sqrt(4.16) = -0.686406: flagged.
"""

import numpy as np
import pytest

from grading.report.items import analyse

POINTS = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=float)


def test_facility_discrimination_and_alpha_match_the_hand_computed_values():
    result = analyse(POINTS, POINTS == 1, ["t1", "t2", "t3"], "a")
    assert [i.facility for i in result.items] == pytest.approx([0.6, 0.6, 0.2])
    assert [i.discrimination for i in result.items] == pytest.approx([0.327327, 0.327327, 0.534522], abs=1e-6)
    assert result.alpha == pytest.approx(0.576923, abs=1e-6)
    assert not any(i.flagged for i in result.items)


def test_a_cell_passed_by_the_weakest_student_only_is_flagged():
    points = np.column_stack([POINTS, [0, 0, 0, 0, 1]])
    result = analyse(points, points == 1, ["t1", "t2", "t3", "t4"], "a")
    assert result.items[3].discrimination == pytest.approx(-0.686406, abs=1e-6)
    assert result.items[3].flagged


def test_a_cell_everyone_passes_has_no_discrimination_and_is_not_flagged():
    points = np.column_stack([POINTS, np.ones(5)])
    result = analyse(points, points == 1, ["t1", "t2", "t3", "all"], "a")
    assert np.isnan(result.items[3].discrimination) and not result.items[3].flagged
    assert result.items[3].facility == 1.0
