"""Adversarial cases on the course's secret and the honest-time cache (issue 32), merged into
``adversarial_fixtures.CASES``.

The hidden tests' seeds come from ``<course>/.nbg/test_secret`` and every notebook's time
budget from ``<course>/.nbg_state/honest_times.json``. A student who read the first could
compute every classmate's hidden inputs; one who wrote the second could buy time for the whole
class. The kernel tries both by the course's absolute path, by relative paths out of its
folder and by searching every file system it sees; neither is there (no sandbox mounts the
course root). The answers are right, so the score must stay 6 and the status ok: the attempt
gains nothing and costs nothing, and test_adversarial_class checks that the secret is in no
output and that the cache holds only the instructor's measurements.
"""

from adversarial_fixtures import Case

FORGED = "NBG-FORGED-HONEST-TIME"
_SEARCH = (
    "import json, os\n"
    "for path in ['{ROOT}/.nbg/test_secret', '../../.nbg/test_secret', '../../../.nbg/test_secret']:\n"
    "    try:\n"
    "        print('secret:', open(path).read())\n"
    "    except OSError as error:\n"
    "        print('secret:', type(error).__name__)\n"
    "found = []\n"
    "for top in ('/', ):\n"
    "    for folder, dirs, files in os.walk(top):\n"
    "        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ('/proc', '/sys', '/dev', '/usr')]\n"
    "        found += [os.path.join(folder, f) for f in files if f in ('test_secret', 'honest_times.json')]\n"
    "print('found:', found)\n"
    "for path in ['{ROOT}/.nbg_state/honest_times.json', '../../.nbg_state/honest_times.json']:\n"
    "    try:\n"
    f"        open(path, 'w').write(json.dumps({{{{'ps_adv/ps_adv': {{{{'seconds': 10**6, 'note': '{FORGED}'}}}}}}}}))\n"
    "        print('cache: written', path)\n"
    "    except OSError as error:\n"
    "        print('cache:', type(error).__name__)\n"
)

CASES = {
    "reads_course_secret": Case("right answers; reads the course's test secret and forges the honest-time cache",
                                6, "ok", extra_cell=_SEARCH),
}
