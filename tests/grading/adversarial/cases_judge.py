"""Adversarial cases on the judge's bounds (issue 20), merged into ``adversarial_fixtures.CASES``.

Each is a family where the student's kernel misbehaves towards the grader: its
answers carry the grader's protocol fields, its functions change their
arguments in place to fool an expected value computed after the call, call
the test's function slowly or without end, return more bytes than the grader
accepts, flood the stdin channel or send an iopub message over the size
limit. Each must end as the student's outcome (a failed test cell, a stopped
kernel with its reason), never as the grader's failure (status "error"); the
scores are derived by hand from the fixture's test cells (posterior 2,
count_rows 1, add 1 + 2).
"""

from adversarial_fixtures import BLANK, Case, _add_first

# A serve loop of the student's that answers every request with the grader's own fields
# ("op": "callback" made the grader take an answer for a message of the judge's).
_FORGING_SERVE = (
    "import builtins, json\n"
    "def serve():\n"
    "    answer, seq = {{'ready': True}}, 0\n"
    "    while True:\n"
    "        request = json.loads(builtins.input(f'\\x00nbg-serve\\x00{{seq}}\\x00' + json.dumps(answer)))\n"
    "        seq = request.get('seq')\n"
    "        if request.get('op') == 'describe':\n"
    "            answer = {{'op': 'done', 'passed': True, 'kind': 'function'}}\n"
    "        elif request.get('op') == 'call':\n"
    "            answer = {{'op': 'callback', 'id': 1, 'passed': True, 'ok': True, 'value': {{'t': 'int', 'v': '0'}}}}\n"
    "        else:\n"
    "            return\n"
    "__nbg_bridge__.serve = serve"
)
_HONEST_POSTERIOR = ("    scores = np.asarray(prior, dtype=float) * np.asarray(likelihood, dtype=float)\n"
                     "    return scores / scores.sum()\n")

CASES = {
    # The cell that forges the serve loop reaches the kernel through builtins.input: the library rule
    # (cases_scan) counts it against every function tested after it, so the notebook is also flagged.
    "judge_answer_with_op": Case("blank answers; the serve loop answers with the grader's 'op' fields", 0, "flagged",
                                 ("library rule",), base=BLANK, extra_cell=_FORGING_SERVE),
    # Under copy-back, likelihood set to ones made the expected value (computed from the
    # arguments after the call) equal the normalised prior it returns: 2 undeserved points.
    "judge_in_place_fools_expected": Case(
        "posterior knows the worked example, else sets likelihood to ones in place and returns the prior", 4, "ok",
        answers={"posterior_solution": "def posterior(prior, likelihood):\n"
                                       "    if isinstance(prior, list):\n"
                                       "        return np.array([0.25, 0.75])\n"
                                       "    likelihood[:] = 1.0\n"
                                       "    return np.asarray(prior) / np.sum(prior)"}),
    # Under copy-back, the emptied list made the test's zip over it check nothing.
    "judge_list_emptied_in_place": Case("posterior right, but empties its prior list in place", 4, "ok", answers={
        "posterior_solution": "def posterior(prior, likelihood):\n" + _HONEST_POSTERIOR.replace(
            "    return", "    if isinstance(prior, list):\n        prior.clear()\n    return")}),
    "judge_slow_callback": Case("add calls the test's counting function with 10**9", 4, "ok", answers={
        "add_solution": "def add(a, b):\n    if callable(a):\n        a(10**9)\n    return a + b"}),
    # The grader refuses more than Limits.max_callbacks calls; here the cell's time limit comes first.
    "judge_callback_flood": Case("add calls the test's function a million times, ignoring errors", 4, "ok",
                                 answers={"add_solution": "def add(a, b):\n    if callable(a):\n"
                                                          "        for _ in range(10**6):\n            try:\n"
                                                          "                a(0)\n            except Exception:\n"
                                                          "                pass\n    return a + b"}),
    # 2,000,000 characters but 24,000,000 bytes as the kernel sends them (ASCII JSON escapes).
    "judge_oversize_answer": Case("add returns two million emoji for the hidden test", 4, "ok", answers={
        "add_solution": "def add(a, b):\n    if a == -1:\n        return '\\U0001F600' * 2_000_000\n    return a + b"}),
    # get_ipython() in the flooding cell is code the grader cannot read: every later test counts 0
    # (the library rule), and the flood still ends as the student's outcome, never the grader's.
    "judge_stdin_flood": Case("a cell sends 200 input requests of 1 MiB without waiting for replies", 0,
                              "flagged", ("library rule",), extra_cell=(
                                  "kernel = get_ipython().kernel\nfor _ in range(200):\n"
                                  "    kernel.session.send(kernel.stdin_socket, 'input_request', "
                                  "{{'prompt': 'x' * 2**20, 'password': False}}, kernel.get_parent('shell'), "
                                  "ident=kernel._parent_ident['shell'])")),
    "judge_huge_iopub": Case("the add cell publishes one 40 MB display message", 3, "kernel_died",
                             ("bytes of output", "add_solution"), answers={"add_solution": _add_first(
                                 "from IPython.display import publish_display_data\n"
                                 "publish_display_data({'text/plain': 'x' * 40_000_000})")}),
    "judge_killed_mid_call": Case("add kills its own kernel when the tests call it", 3, "kernel_died",
                                  ("kernel died", "test_add"), answers={
                                      "add_solution": "def add(a, b):\n    import os, signal\n"
                                                      "    os.kill(os.getpid(), signal.SIGKILL)"}),
}
