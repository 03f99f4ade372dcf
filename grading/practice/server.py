"""``nbg serve``'s web service: tornado, as JupyterHub's own services are, on 127.0.0.1 by default.

Routes (JSON replies):

``POST /check/<assignment>[?notebook=ID][&function=NAME...]``
    the body is the student's ``.ipynb``; ``Authorization: token <T>``. 200: per graded function
    the test cells' results (not counted), messages, the diagnosis's words, the section to read, and
    the checks left. 401 no valid identity; 404 unknown assignment or notebook; 411 no
    Content-Length; 413 larger than ``max_request_bytes``; 422 not a readable notebook (not
    counted); 429 the student's budget is used up, or their previous check is still running; 503
    the queue is full or the grader failed (not counted). 429 and 503 carry ``Retry-After``.
``GET /attempts/<assignment>``
    the requesting student's own attempts (never another's).
``GET /health``
    ``{"ok": true}``, no identity needed.

Limits, all checked before a kernel starts: the identity before the body is read; one check per
student at a time; ``workers`` notebooks run at once and ``queue`` more wait, the rest are
answered 503 at once, so memory stays bounded by ``(workers + queue) x max_request_bytes``; a
body must arrive within ``body_timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import math
import multiprocessing
import time

import tornado.httpserver
import tornado.web
from traitlets import Float, Integer, Type
from traitlets.config import Configurable

from grading.core.practice_log import checks_since, last_attempt_number, read_attempts, record_attempts, utcnow
from grading.execution.kernel import execute_task
from grading.practice.grader import NotGradable
from grading.practice.identity import IdentityBackend, TokenIdentity


class PracticeService(Configurable):
    """``c.PracticeService`` of the course's ``nbgrader_config.py`` (``nbg serve``'s options override it)."""

    identity_class = Type(TokenIdentity, klass=IdentityBackend,
                          help="who a request comes from (the seam for JupyterHub's OAuth)").tag(config=True)
    checks_per_window = Integer(10, help="checks of one graded function a student may run per window").tag(config=True)
    window_seconds = Integer(3600, help="the budget's window, in seconds").tag(config=True)
    max_request_bytes = Integer(8 * 2**20, help="largest notebook a request may send").tag(config=True)
    workers = Integer(2, help="notebooks checked at once").tag(config=True)
    queue = Integer(4, help="checks that may wait for a worker; more are answered 503").tag(config=True)
    body_timeout = Float(30, help="seconds a request's body may take to arrive").tag(config=True)


class Service:
    """The state shared by the handlers: grader, pool, identity, budget, who is being checked."""

    def __init__(self, course, grader, options: PracticeService, executor=None):
        self.course, self.grader, self.options = course, grader, options
        self.identity = options.identity_class(course, parent=options)
        self.db_url = course.db_url
        # autograde's Dask executor when given; else spawned processes, not forked: the service
        # holds threads (tornado, the database) when a worker starts.
        self.on_cluster = executor is not None
        self.pool = executor or concurrent.futures.ProcessPoolExecutor(
            options.workers, mp_context=multiprocessing.get_context("spawn"))
        self.database = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="nbg-practice-db")
        self.running = set()  # students with a check in flight
        self.seconds = 10.0  # recent seconds per check, for Retry-After

    def warm_up(self):
        """Start every worker (imports take seconds) and read the course's released notebooks
        before the first student waits for them."""
        if not self.on_cluster:  # a cluster's workers are running already
            list(self.pool.map(_ready, range(self.options.workers)))
        self.grader.warm_up()

    def retry_after(self, waiting: int) -> int:
        return max(1, math.ceil(self.seconds * (1 + waiting / max(1, self.options.workers))))

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.database.shutdown(wait=True)
        self.grader.close()


def _ready(_):
    return True  # unpickling it imported this module, and with it the executor


class BaseHandler(tornado.web.RequestHandler):
    def initialize(self, service):
        self.service = service
        self.student = None

    def set_default_headers(self):
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")

    def write_error(self, status_code, **kwargs):
        reason = getattr(kwargs.get("exc_info", (None, None))[1], "log_message", None) or self._reason
        self.finish(json.dumps({"error": reason}))

    def refuse(self, status, message, retry_after=None, **extra):
        self.set_status(status)
        if retry_after is not None:
            self.set_header("Retry-After", str(int(retry_after)))
        self.finish(json.dumps({"error": message, **({"retry_after": retry_after} if retry_after else {}), **extra}))

    def identify(self) -> bool:
        self.student = self.service.identity.student(self.request.headers)
        if self.student is None:
            self.set_header("WWW-Authenticate", 'token realm="nbg practice"')
            self.refuse(401, "no valid token: send `Authorization: token <your token>` (your instructor issues it)")
            return False
        return True


class HealthHandler(BaseHandler):
    def get(self):
        self.finish(json.dumps({"ok": True}))


class AttemptsHandler(BaseHandler):
    async def get(self, assignment):
        if not self.identify():
            return
        rows = await asyncio.get_running_loop().run_in_executor(
            self.service.database, read_attempts, self.service.db_url, assignment, self.student)
        self.finish(json.dumps({"student": self.student, "assignment": assignment, "attempts": [
            {"function": a.function, "attempt": a.attempt, "at": a.at.isoformat() + "Z", "passed": a.passed,
             "cells": a.cells} for a in rows]}))


@tornado.web.stream_request_body
class CheckHandler(BaseHandler):
    def prepare(self):
        """Identity and size before a byte of the body is read."""
        self.chunks, self.received = [], 0
        if not self.identify():
            return
        length = self.request.headers.get("Content-Length")
        limit = self.service.options.max_request_bytes
        if length is None or not length.isdigit():
            self.refuse(411, "send the notebook with a Content-Length header")
            return
        if int(length) > limit:
            self.refuse(413, f"the notebook is {int(length)} bytes, more than the {limit} the service accepts: "
                             "clear the outputs (Edit > Clear Outputs of All Cells), save, and send it again")
            return
        self.request.connection.set_max_body_size(int(length))
        self.request.connection.set_body_timeout(self.service.options.body_timeout)

    def data_received(self, chunk):
        self.received += len(chunk)
        self.chunks.append(chunk)

    async def post(self, assignment):
        service, options = self.service, self.service.options
        if assignment not in service.course.source_assignments():
            return self.refuse(404, f"no assignment {assignment!r} in this course")
        notebooks = service.grader.notebook_ids(assignment)
        if not notebooks:
            return self.refuse(404, f"{assignment} is not released yet: there is nothing to check against")
        notebook_id = self.get_query_argument("notebook", notebooks[0] if len(notebooks) == 1 else "")
        if notebook_id not in notebooks:
            return self.refuse(404, f"name the notebook with ?notebook=: one of {', '.join(notebooks)}")
        layout = service.grader.layout(assignment, notebook_id)
        asked = self.get_query_arguments("function") or layout["functions"]
        unknown = [f for f in asked if f not in layout["functions"]]
        if unknown:
            return self.refuse(404, f"no graded function {unknown[0]!r}: one of {', '.join(layout['functions'])}")
        # From here to `running.add` nothing awaits: the budget and the queue are decided atomically.
        if self.student in service.running:
            return self.refuse(429, "your previous check is still running: wait for its reply",
                               retry_after=service.retry_after(0))
        if len(service.running) >= options.workers + options.queue:
            return self.refuse(503, "the practice service is busy: retry later",
                               retry_after=service.retry_after(len(service.running)))
        now = utcnow()
        since = now.timestamp() - options.window_seconds
        used = checks_since(service.db_url, self.student, assignment, _naive(since))
        allowed = [f for f in asked if used.get(f, (0, None))[0] < options.checks_per_window]
        if not allowed:
            oldest = min(used[f][1] for f in asked)
            wait = max(1, math.ceil(oldest.timestamp() + options.window_seconds - now.timestamp()))
            return self.refuse(429, f"no checks left for {', '.join(asked)}: {options.checks_per_window} per "
                                    f"{options.window_seconds // 60} minutes; read the section and think it "
                                    "through, then check again", retry_after=wait, checks_left={f: 0 for f in asked})
        service.running.add(self.student)
        started = time.monotonic()
        try:
            reply = await self._check(assignment, notebook_id, allowed, asked, used)
        finally:
            service.running.discard(self.student)
        if reply is not None:
            service.seconds = 0.7 * service.seconds + 0.3 * (time.monotonic() - started)
            self.finish(json.dumps(reply))

    async def _check(self, assignment, notebook_id, allowed, asked, used):
        service, options = self.service, self.service.options
        loop = asyncio.get_running_loop()
        body = b"".join(self.chunks)
        self.chunks = []
        attempt = last_attempt_number(service.db_url, self.student, assignment) + 1
        try:
            check = await loop.run_in_executor(service.database, service.grader.prepare, self.student, assignment,
                                               notebook_id, body, attempt, set(allowed))
        except NotGradable as error:
            self.refuse(422, f"{error} (not counted)")
            return None
        try:
            result = await asyncio.wrap_future(service.pool.submit(execute_task, check.task))
            functions, attempts = service.grader.interpret(check, result)
            await loop.run_in_executor(service.database, record_attempts, service.db_url, attempts)
        except Exception as error:  # the grader's failure, never the student's: not counted
            self.refuse(503, f"the grader failed on this check ({type(error).__name__}); it was not counted: "
                             "send it again", retry_after=service.retry_after(len(service.running)))
            return None
        for item in functions:
            item["checks_left"] = options.checks_per_window - used.get(item["function"], (0, None))[0] - 1
        return {"student": self.student, "assignment": assignment, "notebook": notebook_id, "attempt": attempt,
                "counted": False, "note": "practice: these results do not count towards your grade",
                "functions": functions,
                "not_checked": [{"function": f, "why": "no checks left in this window", "checks_left": 0}
                                for f in asked if f not in allowed]}


def _naive(epoch: float):
    import datetime as dt

    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).replace(tzinfo=None)


def make_app(service: Service, base_url="/") -> tornado.web.Application:
    """The routes under ``base_url`` (a hub's proxy forwards ``/services/<name>/...`` unchanged)."""
    prefix = "/" + base_url.strip("/") if base_url.strip("/") else ""
    routes = [(r"/health", HealthHandler), (r"/attempts/([A-Za-z0-9_.-]+)", AttemptsHandler),
              (r"/check/([A-Za-z0-9_.-]+)", CheckHandler)]
    return tornado.web.Application([(prefix + path, handler, {"service": service}) for path, handler in routes])


def make_server(service: Service, ssl_options=None, base_url="/") -> tornado.httpserver.HTTPServer:
    return tornado.httpserver.HTTPServer(
        make_app(service, base_url), ssl_options=ssl_options, max_body_size=service.options.max_request_bytes,
        body_timeout=service.options.body_timeout, idle_connection_timeout=service.options.body_timeout,
        max_buffer_size=service.options.max_request_bytes + 2**16, xheaders=False)
