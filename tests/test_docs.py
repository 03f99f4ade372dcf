"""The documentation holds together: the README is a front page that links every page of
``docs/``, every relative link and anchor in the Markdown files resolves, and every ``nbg``
command is documented in the pages (``nbg --help`` lists the same commands)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "BENCHMARKS.md", *PAGES]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to '-'."""
    anchors = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def _relative_links(path: Path):
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in LINK.findall(line):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                yield target


def test_every_relative_link_and_anchor_resolves():
    broken = []
    for path in MARKDOWN:
        for target in _relative_links(path):
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_is_a_front_page_that_links_every_page():
    readme = (ROOT / "README.md").read_text()
    assert PAGES, "docs/ holds no page"
    assert [page for page in PAGES if f"](docs/{page.name})" not in readme] == []
    assert len(readme.splitlines()) < 250  # what the project is, the two commands, where to read next
    for page in PAGES:  # each page says where it belongs
        assert "](../README.md)" in page.read_text(), page.name


def test_every_nbg_command_is_documented_in_the_pages():
    from grading.cli import build_parser

    parser = build_parser()
    commands = sorted(next(action for action in parser._actions if action.dest == "command").choices)
    text = "\n".join(page.read_text() for page in [ROOT / "README.md", *PAGES])
    missing = [name for name in commands if not re.search(rf"nbg (--course \S+ )?{name}\b", text)]
    assert commands and not missing, missing
