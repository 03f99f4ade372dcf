"""The heartbeat channel is bounded like the kernel client's other sockets.

jupyter_client makes the heartbeat socket apart from the others, so the limits the grader
sets on those (grading/execution/channels.py) did not reach it: a kernel could answer the
heartbeat's ``ping`` with a huge reply, which ZMQ would read whole into the grading process.
A stand-in "kernel" in a subprocess (a ZMQ REP socket on 127.0.0.1, at most 20 replies, gone
after 15 s) answers either with the echo a kernel sends or with 256 MiB; the huge replies are measured in
a fresh interpreter, by its peak resident memory. Runtime about 18 s.
"""

import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq
from jupyter_client.channels import HBChannel  # noqa: F401 (the control, named by beat_in_a_fresh_process)

from grading.execution.channels import HEARTBEAT_MAX_BYTES, BoundedHBChannel, bounded_client_class

ROOT = Path(__file__).resolve().parents[2]
KERNEL = """
import sys, time, zmq
socket = zmq.Context().socket(zmq.REP)
port = socket.bind_to_random_port("tcp://127.0.0.1")
print(port, flush=True)
reply = bytes(int(sys.argv[1])) if int(sys.argv[1]) else None
deadline = time.monotonic() + 15
for _ in range(20):
    if not socket.poll(int(max(0, deadline - time.monotonic()) * 1000)):
        break
    request = socket.recv()
    socket.send(reply if reply is not None else request)
"""


def peak_bytes() -> int:
    """The process's peak resident memory (VmHWM: never missed between two samples)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def beat_against(channel_class, reply_bytes, seconds=3.0, time_to_dead=0.5):
    """(whether the heart looked alive at the end, how much the peak memory rose meanwhile)."""
    kernel = subprocess.Popen([sys.executable, "-c", KERNEL, str(reply_bytes)], stdout=subprocess.PIPE, text=True)
    context = zmq.Context()
    try:
        port = int(kernel.stdout.readline())
        channel = channel_class(context, None, f"tcp://127.0.0.1:{port}")
        channel.time_to_dead = time_to_dead  # long enough for a huge reply to arrive whole
        before = peak_bytes()
        channel.start()
        time.sleep(seconds)
        beating = channel.is_beating()
        channel.stop()
        return beating, peak_bytes() - before
    finally:
        kernel.kill()
        kernel.wait(timeout=10)
        context.destroy(linger=0)


def beat_in_a_fresh_process(which, reply_bytes):
    """beat_against in a new interpreter, whose peak memory is its own (this one's may already
    be higher than any heartbeat would raise it)."""
    code = ("import sys; sys.path.insert(0, 'tests/grading'); import test_heartbeat_bound as t; "
            f"print(*t.beat_against(t.{which}, {reply_bytes}, seconds=6.0, time_to_dead=5.0))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    beating, rise = done.stdout.split()
    return beating == "True", int(rise)


def test_the_grader_uses_the_bounded_heartbeat():
    assert bounded_client_class(2**20)().hb_channel_class is BoundedHBChannel


def test_an_honest_heartbeat_still_beats():
    beating, _ = beat_against(BoundedHBChannel, 0)
    assert beating


@pytest.mark.parametrize("which", ["HBChannel", "BoundedHBChannel"], ids=["stock", "bounded"])
def test_a_huge_heartbeat_reply_is_refused_before_it_is_read(which):
    beating, rise = beat_in_a_fresh_process(which, 256 * 2**20)
    if which == "HBChannel":  # the control: jupyter_client's own channel reads it whole
        assert rise > 200 * 2**20
    else:
        assert not beating and rise < 32 * 2**20 and HEARTBEAT_MAX_BYTES < 2**20
