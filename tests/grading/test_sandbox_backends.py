"""The sandbox backends behind one protocol, chosen by name."""

from __future__ import annotations

import os

import pytest

from grading.core.errors import NbgError
from grading.execution.limits import Limits
from grading.execution.sandbox import SANDBOXES, get_sandbox, sandbox_name


def test_backends_by_name():
    assert sorted(SANDBOXES) == ["bubblewrap", "none"]
    assert sandbox_name(True) == "bubblewrap" and sandbox_name(False) == "none"
    assert get_sandbox("bubblewrap").confined and not get_sandbox("none").confined
    with pytest.raises(NbgError, match="unknown sandbox 'kubernetes': choose one of bubblewrap, none"):
        get_sandbox("kubernetes")


def test_the_unconfined_judge_runs_as_given(tmp_path):
    argv = ["python", "-c", "pass"]
    assert get_sandbox("none").judge_command(argv, tmp_path, Limits()) == (argv, None, None)


def test_the_bubblewrap_judge_is_wrapped_with_an_empty_environment(tmp_path):
    command, environment, uid = get_sandbox("bubblewrap").judge_command(["python", "-c", "pass"], tmp_path, Limits())
    assert any(part.endswith("bwrap") for part in command) and command[-3:] == ["python", "-c", "pass"]
    assert environment == {}
    if os.geteuid() == 0:  # as root the judge runs as an unprivileged uid of its own, owning its folder
        assert uid is not None and uid != 0 and tmp_path.stat().st_uid == uid
    else:
        assert uid is None


def test_a_scratch_folder_too_long_for_the_kernels_sockets_is_a_clear_error(tmp_path):
    """The sandboxed kernel talks over unix sockets in its scratch folder, whose paths Linux caps
    at 107 bytes: a longer folder is refused up front, saying what to change (ZMQ's own error,
    'File name too long', came only once the kernel had started)."""
    from grading.execution.sandbox.bubblewrap import make_kernel_manager

    deep = tmp_path / ("x" * (120 - len(str(tmp_path))))
    deep.mkdir()
    with pytest.raises(NbgError, match="too long a path for the kernel's sockets.*shorter path"):
        make_kernel_manager(deep, limits=Limits(), sandboxed=True)
    assert not any(deep.iterdir())  # nothing was prepared in it
