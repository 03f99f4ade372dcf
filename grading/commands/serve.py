"""``nbg serve``: the practice service; ``nbg serve tokens``: issue or revoke the students' tokens."""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

from grading.core.course import Course
from grading.core.csvfile import csv_text
from grading.core.errors import NbgError

DESCRIPTION = """\
Run the practice service: a student POSTs a notebook to /check/<assignment> with their token and
gets, per graded function, the hidden tests' results on fresh inputs (not counted), their
messages, the named mistake and the section to read. Options default to c.PracticeService of the
course config. First issue the tokens: nbg serve tokens --roster roster.csv --out tokens.csv"""


def add_arguments(parser):
    parser.description = DESCRIPTION
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=8642, help="port (default: 8642; 0: a free one, printed)")
    parser.add_argument("--base-url", default=os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/"), metavar="PATH",
                        help="serve the routes under this path (default: $JUPYTERHUB_SERVICE_PREFIX, which "
                             "JupyterHub sets for a service, else /)")
    parser.add_argument("--budget", type=int, dest="checks_per_window", metavar="N",
                        help="checks per student and graded function per window (default: 10)")
    parser.add_argument("--window", type=int, dest="window_seconds", metavar="SECONDS",
                        help="the budget's window (default: 3600)")
    parser.add_argument("--max-bytes", type=int, dest="max_request_bytes", metavar="N",
                        help="largest notebook accepted (default: 8 MiB)")
    parser.add_argument("-j", "--workers", type=int, help="notebooks checked at once (default: 2)")
    parser.add_argument("--queue", type=int, help="checks that may wait; more get 503 + Retry-After (default: 4)")
    parser.add_argument("--timeout", type=float, dest="cell_timeout",
                        help="seconds per cell (default: c.Execute.timeout of the course config, else 30)")
    parser.add_argument("--certfile", help="TLS certificate (PEM); with --keyfile the service speaks HTTPS")
    parser.add_argument("--keyfile", help="TLS private key (PEM)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the checks on this Dask scheduler, as nbg autograde does (default: "
                             "c.Nbg.scheduler of the course config; 'local': the service's own workers)")
    parser.add_argument("--tls-ca-file", metavar="PEM", help="TLS: CA certificate of the Dask cluster")
    parser.add_argument("--tls-cert", metavar="PEM", help="TLS: this grader's certificate (Dask)")
    parser.add_argument("--tls-key", metavar="PEM", help="TLS: this grader's private key (Dask)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run student code WITHOUT the sandbox (only for trusted code)")
    actions = parser.add_subparsers(dest="serve_action", metavar="ACTION")
    tokens = actions.add_parser("tokens", help="issue (or --revoke) the students' tokens",
                                description="Issue a token per student (a new one replaces the old) and write "
                                            "them to --out (mode 0600) for you to hand out; only their hashes "
                                            "are kept in <course>/.nbg/practice_tokens.json.")
    tokens.add_argument("--roster", metavar="CSV", help="a CSV with an `id` column (default: the gradebook's students)")
    tokens.add_argument("--student", action="append", dest="token_students", metavar="ID", help="only this student (repeatable)")
    tokens.add_argument("--out", metavar="CSV", help="where to write student,token (required when issuing)")
    tokens.add_argument("--revoke", action="append", metavar="ID", help="revoke this student's token (repeatable)")


def _roster(path) -> list:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise NbgError(f"cannot read the roster {path}: {error.strerror}") from None
    if not rows or "id" not in rows[0]:
        raise NbgError(f"the roster {path} needs an `id` column (one student id a row)")
    return [row["id"].strip() for row in rows if row["id"] and row["id"].strip()]


def _tokens(course, args) -> int:
    from grading.practice.identity import token_store

    store = token_store(course)
    if args.revoke:
        found = store.revoke(args.revoke)
        for student in args.revoke:
            print(f"{student}: {'revoked' if student in found else 'had no token'}")
        return 0 if len(found) == len(args.revoke) else 1
    if not args.out:
        raise NbgError("give --out FILE: the new tokens are written there (and nowhere else)")
    students = args.token_students or (_roster(args.roster) if args.roster else course.known_students())
    if not students:
        raise NbgError("no students: give --roster CSV or --student ID")
    out = Path(args.out)
    try:  # the file first: tokens are replaced only once there is somewhere to write them
        descriptor = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise NbgError(f"{out} exists: give a new file (it would hold live tokens)") from None
    except OSError as error:
        raise NbgError(f"cannot write {out}: {error.strerror}") from None
    try:
        issued = store.issue(students)
    except Exception:
        os.close(descriptor)
        out.unlink()
        raise
    with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as handle:
        handle.write(csv_text([["student", "token"], *sorted(issued.items())]))  # ids from a roster
    print(f"{len(issued)} token(s) written to {out} (mode 0600); hand each student their own")
    return 0


def run(args) -> int:
    course = Course(args.course, db_url=args.db)
    if args.serve_action == "tokens":
        return _tokens(course, args)
    if bool(args.certfile) != bool(args.keyfile):
        raise NbgError("give both --certfile and --keyfile for TLS")
    from grading.practice import serve

    ssl_options = {"certfile": args.certfile, "keyfile": args.keyfile} if args.certfile else None
    base_url = "/" + args.base_url.strip("/") + "/" if args.base_url.strip("/") else "/"
    scheme = "https" if ssl_options else "http"

    def listening(host, port):
        print(f"nbg serve: listening on {scheme}://{host}:{port}{base_url} (Ctrl-C stops)", flush=True)
        if args.unsafe_no_sandbox:
            print("nbg serve: WARNING: student code runs WITHOUT the sandbox, with your permissions", flush=True)

    from grading.practice.identity import TokenIdentity, token_store
    from grading.practice.server import PracticeService

    tokens = issubclass(PracticeService(config=course.config).identity_class, TokenIdentity)
    if tokens and not token_store(course).read():
        print("nbg serve: no student tokens issued yet, so every request is refused until you run "
              "`nbg serve tokens` (unless c.PracticeService.identity_class names another backend)", file=sys.stderr)

    overrides = {name: getattr(args, name) for name in
                 ("checks_per_window", "window_seconds", "max_request_bytes", "workers", "queue")}
    sys.stdout.flush()
    return serve(course, host=args.host, port=args.port, overrides=overrides, sandboxed=not args.unsafe_no_sandbox,
                 ssl_options=ssl_options, cell_timeout=args.cell_timeout, on_listening=listening,
                 scheduler=args.scheduler, base_url=base_url,
                 security={"tls_ca_file": args.tls_ca_file, "tls_cert": args.tls_cert, "tls_key": args.tls_key})
