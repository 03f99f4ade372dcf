"""The heartbeat channel is bounded like the kernel client's other sockets.

jupyter_client makes the heartbeat socket apart from the others, so the limits the grader
sets on those (grading/execution/channels.py) did not reach it: a kernel could answer the
heartbeat's ``ping`` with a huge reply, which ZMQ would read whole into the grading process.
A stand-in "kernel" in a subprocess (a ZMQ REP socket on 127.0.0.1, at most 20 replies, gone
after 15 s) answers either with the echo a kernel sends or with 256 MiB. Runtime about 8 s.
"""

import subprocess
import sys
import time

import pytest
import zmq
from jupyter_client.channels import HBChannel

from grading.execution.channels import HEARTBEAT_MAX_BYTES, BoundedHBChannel, bounded_client_class

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


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def beat_against(channel_class, reply_bytes, seconds=3.0):
    """(whether the heart looked alive at the end, the largest RSS rise seen meanwhile)."""
    kernel = subprocess.Popen([sys.executable, "-c", KERNEL, str(reply_bytes)], stdout=subprocess.PIPE, text=True)
    context = zmq.Context()
    try:
        port = int(kernel.stdout.readline())
        channel = channel_class(context, None, f"tcp://127.0.0.1:{port}")
        channel.time_to_dead = 0.5
        before, peak = rss_bytes(), 0
        channel.start()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            peak = max(peak, rss_bytes() - before)
            time.sleep(0.02)
        beating = channel.is_beating()
        channel.stop()
        return beating, peak
    finally:
        kernel.kill()
        kernel.wait(timeout=10)
        context.destroy(linger=0)


def test_the_grader_uses_the_bounded_heartbeat():
    assert bounded_client_class(2**20)().hb_channel_class is BoundedHBChannel


def test_an_honest_heartbeat_still_beats():
    beating, _ = beat_against(BoundedHBChannel, 0)
    assert beating


@pytest.mark.parametrize("channel_class", [HBChannel, BoundedHBChannel], ids=["stock", "bounded"])
def test_a_huge_heartbeat_reply_is_refused_before_it_is_read(channel_class):
    beating, peak = beat_against(channel_class, 256 * 2**20)
    if channel_class is HBChannel:  # the control: jupyter_client's own channel reads it whole
        assert peak > 64 * 2**20  # sampled every 20 ms: part of the 256 MiB is seen
    else:
        assert not beating and peak < 32 * 2**20 and HEARTBEAT_MAX_BYTES < 2**20
