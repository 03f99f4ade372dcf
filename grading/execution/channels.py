"""The grader's sockets to a kernel, bounded in bytes and in queued messages.

ZMQ reads a whole message into memory before Python sees it, and queues up to
its high-water mark of messages per socket, however large: a kernel that sends
a 3 GB message, or floods its stdin channel while nobody reads it, would
inflate the grading process. Every socket of the kernel client therefore gets
``zmq.MAXMSGSIZE`` (a larger message is dropped and the connection cut) and a
small ``zmq.RCVHWM``, set before it connects (:func:`bounded_client_class`).
The heartbeat channel, which jupyter_client makes apart from the others, is bounded too
(:class:`BoundedHBChannel`: a heartbeat reply is a few bytes, so :data:`HEARTBEAT_MAX_BYTES`).
A cut connection is seen by a monitor (:func:`watch_channels`): if the kernel
is still alive, it sent what the grader refuses, so the grader stops it and
says why (the student's failure): on iopub, output over the notebook's cap
(the message limit is at least that cap); elsewhere, a message too large.
"""

from __future__ import annotations

import threading
import time

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import HBChannel
from jupyter_client.connect import channel_socket_types

# Messages queued per socket before ZMQ stops reading (the kernel then queues or drops
# its own). A kernel answers one request at a time on stdin and shell; iopub carries bursts.
RCVHWM = {"iopub": 32, "shell": 8, "stdin": 4, "control": 8}
# The kernel echoes the client's b"ping": anything larger is not a heartbeat.
HEARTBEAT_MAX_BYTES = 1024


def max_message_bytes(limits) -> int:
    """The largest message the grader accepts from a kernel: an answer or a notebook's whole
    output, plus room for the message's own fields."""
    return max(limits.max_output_bytes, limits.max_answer_bytes) + 2**20


class BoundedHBChannel(HBChannel):
    """jupyter_client's heartbeat channel, whose socket refuses a reply over
    :data:`HEARTBEAT_MAX_BYTES` and queues one (a kernel's oversized or flooded replies are
    dropped by ZMQ, and its heart then looks stopped, as it would if it did not answer)."""

    def _create_socket(self) -> None:
        # jupyter_client's own method, with the limits set before connect (they do not apply after).
        if self.socket is not None:
            self.poller.unregister(self.socket)
            self.socket.close()
        self.socket = self.context.socket(zmq.REQ)
        self.socket.linger = 1000
        self.socket.setsockopt(zmq.MAXMSGSIZE, HEARTBEAT_MAX_BYTES)
        self.socket.setsockopt(zmq.RCVHWM, 1)
        if self.curve_serverkey is not None:
            client_pub, client_sec = zmq.curve_keypair()
            self.socket.curve_secretkey = client_sec
            self.socket.curve_publickey = client_pub
            self.socket.curve_serverkey = self.curve_serverkey
        self.socket.connect(self.address)
        self.poller.register(self.socket, zmq.POLLIN)


def bounded_client_class(max_bytes: int):
    """A kernel client class whose sockets refuse messages over ``max_bytes`` (set it as the
    kernel manager's ``client_factory``)."""

    class BoundedKernelClient(AsyncKernelClient):
        hb_channel_class = BoundedHBChannel

        def _create_connected_socket(self, channel, identity=None):
            # jupyter_client's own method, with the limits set before connect (they do not apply after).
            sock = self.context.socket(channel_socket_types[channel])
            sock.linger = 1000
            sock.setsockopt(zmq.MAXMSGSIZE, max_bytes)
            sock.setsockopt(zmq.RCVHWM, RCVHWM.get(channel, 8))
            if identity:
                sock.identity = identity
            if getattr(self, "curve_publickey", None) is not None:
                sock.curve_secretkey = self.curve_secretkey
                sock.curve_publickey = self.curve_publickey
                sock.curve_serverkey = self.curve_publickey
            monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_MONITOR_STOPPED)
            self.__dict__.setdefault("nbg_monitors", []).append((channel, monitor))
            sock.connect(self._make_url(channel))
            return sock

    BoundedKernelClient.max_message_bytes = max_bytes
    return BoundedKernelClient


class ChannelWatch:
    """The monitor thread of one kernel client (:func:`watch_channels`); :meth:`stop` before the
    client's channels close.

    While it runs, the watcher is the only user of the monitor sockets (ZMQ sockets are not
    thread-safe); it never closes them. jupyter_client's ``stop_channels`` destroys the client's
    context, which closes every socket of it, monitors included, from the calling thread: with
    the watcher still inside ``recv`` on one of them, libzmq aborted the whole grading process
    (seen under load). Hence the stop and the join first; the context then closes them.
    """

    def __init__(self, executor, monitors, limit):
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=_watch, args=(executor, monitors, limit, self._stopping),
                                        daemon=True, name="nbg-channel-watch")
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self._thread.join(timeout)


def watch_channels(executor, client) -> ChannelWatch | None:
    """Stop the kernel (``executor._kill_kernel``) when one of its connections is cut while it
    lives, with the reason in ``executor._message_error``. Ends when the channels close or
    when stopped."""
    monitors = list(getattr(client, "nbg_monitors", []))
    if not monitors:
        return None
    return ChannelWatch(executor, monitors, getattr(client, "max_message_bytes", 0))


POLL_MS = 100  # how soon the watch sees that it is being stopped


def _watch(executor, monitors, limit, stopping):
    from zmq.utils.monitor import parse_monitor_message

    # Blocking views of the client's (asyncio) monitor sockets; a shadow never closes its socket.
    sockets = {zmq.Socket.shadow(monitor.underlying): channel for channel, monitor in monitors}
    poller = zmq.Poller()
    for sock in sockets:
        poller.register(sock, zmq.POLLIN)
    try:
        while sockets and not stopping.is_set():
            for sock, _ in poller.poll(POLL_MS):
                try:
                    event = parse_monitor_message(sock.recv_multipart())["event"]
                except (zmq.ZMQError, ValueError, KeyError):
                    event = zmq.EVENT_MONITOR_STOPPED
                channel = sockets[sock]
                if event == zmq.EVENT_MONITOR_STOPPED:  # the grader closed the channel
                    poller.unregister(sock)
                    sockets.pop(sock)
                elif stopping.is_set():
                    break
                elif _still_alive(executor, stopping):  # not a death: ZMQ dropped what the kernel sent
                    if channel == "iopub":  # output larger than the whole notebook may print
                        executor._output_limit_hit = True
                    elif not executor._message_error and not executor._output_limit_hit:
                        executor._message_error = (
                            f"its {channel} channel was cut: it sent a message larger than {limit} bytes, "
                            "the most the grader accepts (or closed the channel)")
                    executor._kill_kernel()
    except zmq.ZMQError:  # the context went away with the client
        pass


def _still_alive(executor, stopping) -> bool:
    """Whether the kernel outlives a cut connection by a moment (a dying kernel cuts them all)."""
    for _ in range(10):
        if stopping.is_set() or not executor._kernel_alive():
            return False
        time.sleep(0.1)
    return executor._kernel_alive()
