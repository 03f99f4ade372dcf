"""``nbg serve``: the practice service, feedback while it still helps.

A student sends a notebook; the service grades it with ``nbg autograde``'s pipeline (sandbox,
judge, library rule, diagnosis: :mod:`grading.practice.grader`) on fresh inputs, and replies per
graded function without counting anything. Who asks is an identity backend's answer
(:mod:`grading.practice.identity`); the budget, the size cap and the bounded queue are the
web service's (:mod:`grading.practice.server`); every attempt is a row of
:mod:`grading.core.practice_log`, which ``nbg report`` reads.
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal

from grading.core.errors import NbgError
from grading.execution.limits import Limits
from grading.execution.sandbox import get_sandbox, sandbox_name

__all__ = ["serve"]


def serve(course, *, host="127.0.0.1", port=8642, overrides=None, sandboxed=True, ssl_options=None,
          cell_timeout=None, on_listening=None, scheduler=None, security=None, base_url="/") -> int:
    """Run the service until SIGINT or SIGTERM; returns 0.

    ``overrides``: :class:`~grading.practice.server.PracticeService` options given on the command
    line (they win over ``c.PracticeService`` of the course config). ``scheduler``/``security``:
    the Dask cluster to run the checks on, as ``nbg autograde --scheduler`` (default: the course
    config's ``c.Nbg.scheduler``; none: the service's own pool of ``workers`` processes).
    ``base_url``: the path the routes sit under (a JupyterHub service's ``/services/<name>/``).
    """
    from grading.execution.runners import dask as cluster
    from grading.practice.grader import PracticeGrader
    from grading.practice.server import PracticeService, Service, make_server

    options = PracticeService(config=course.config)
    for name, value in (overrides or {}).items():
        if value is not None:
            setattr(options, name, value)
    for name in ("checks_per_window", "window_seconds", "max_request_bytes", "workers"):
        if getattr(options, name) < 1:
            raise NbgError(f"{name} must be at least 1, got {getattr(options, name)}")
    if options.queue < 0:
        raise NbgError(f"queue must be 0 or more, got {options.queue}")
    sandbox = get_sandbox(sandbox_name(sandboxed))
    dask_cluster = cluster.cluster_settings(course, scheduler, **(security or {}))
    if sandbox.confined and dask_cluster is None:  # on a cluster, each worker's sandbox is checked instead
        available, why = sandbox.available()
        if not available:
            raise NbgError(f"cannot check notebooks sandboxed: {why}")
    limits = Limits(**course.settings.limits())
    timeout = cell_timeout or course.config.Execute.get("timeout", 30)
    limits = dataclasses.replace(limits, cell_timeout=timeout)
    grader = PracticeGrader(course, limits, sandbox)
    executor = cluster.connect(dask_cluster, sandbox=sandbox.name) if dask_cluster else None
    service = Service(course, grader, options, executor)
    try:
        service.warm_up()
        return asyncio.run(_listen(service, make_server(service, ssl_options, base_url), host, port, on_listening))
    finally:
        service.close()


async def _listen(service, server, host, port, on_listening) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    import tornado.netutil

    sockets = tornado.netutil.bind_sockets(port, address=host)  # port 0: a free one, said below
    server.add_sockets(sockets)
    if on_listening is not None:
        on_listening(host, sockets[0].getsockname()[1])
    await stop.wait()
    server.stop()
    await server.close_all_connections()
    return 0
