"""``nbg demo`` keeps the honest-time cache of an earlier demo in its folder, and only of a demo.

Runtime: well under a second (files only; the demo itself is graded in test_demo.py).
"""

from grading.autograde.budget import CACHE_NAME
from grading.core.state import STATE_DIRNAME
from grading.demo import MARKER, earlier_honest_times


def _earlier(out, marker=True, cache='{"01/01": {"key": "k", "seconds": 7.5}}'):
    folder = out / "course" / STATE_DIRNAME
    folder.mkdir(parents=True)
    if cache is not None:
        (folder / CACHE_NAME).write_text(cache)
    if marker:
        (out / MARKER).write_text("made by `nbg demo`\n")
    return out


def test_an_earlier_demo_s_cache_is_kept(tmp_path):
    out = _earlier(tmp_path / "demo")
    assert earlier_honest_times(out) == '{"01/01": {"key": "k", "seconds": 7.5}}'


def test_nothing_from_a_folder_that_is_not_a_demo_or_has_no_cache(tmp_path):
    assert earlier_honest_times(_earlier(tmp_path / "other", marker=False)) is None
    assert earlier_honest_times(_earlier(tmp_path / "uncached", cache=None)) is None
    assert earlier_honest_times(tmp_path / "missing") is None
