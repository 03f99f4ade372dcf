"""The import direction of the code, as a contract (imports inside functions count too).

``grading`` is layered: commands over the demo, over the pipeline steps, over
the services, over ``core``. A module imports only from its own top-level
package or from a lower layer; the steps (and the services) never import each
other. ``nbcore`` (the reference) and ``nbkit`` (the student kit) are layered the
same way (:data:`NBCORE_LAYERS`, :data:`NBKIT_LAYERS`). Code that runs inside a
sandbox imports nothing of ``grading`` but its own kind. The student kit and the
reference never import the grader, the kit never imports the reference, and no
import cycle exists anywhere. No folder of the four packages holds more than 15
modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("grading", "nbcore", "nbkit", "bench")

# Top to bottom; the entries of one layer are siblings that may not import each other.
LAYERS = [
    ["grading.cli", "grading.__main__"],
    ["grading.commands", "grading.plugins", "grading.late"],  # late: the plugin's old name
    ["grading.demo", "grading.practice"],  # practice: autograde's steps, served
    ["grading.release", "grading.collect", "grading.autograde", "grading.validate", "grading.status",
     "grading.feedback", "grading.export", "grading.report"],
    ["grading.grades", "grading.lms", "grading.execution"],
    ["grading.core"],
]
# nbcore: the bridge to discriminative classifiers on the estimators (one package per event model),
# on the functional core the notebooks teach, on what nbcore re-exports from the student kit.
NBCORE_LAYERS = [
    ["nbcore.linear", "nbcore.logistic"],
    ["nbcore.models"],
    ["nbcore.estimation", "nbcore.selection", "nbcore.practice", "nbcore._validation"],
    ["nbcore.text", "nbcore.datasets", "nbcore.testing", "nbcore.plotting"],
]
# nbkit: `python -m nbkit` over the notebook check, over what the notebooks import, over the text helpers.
NBKIT_LAYERS = [
    ["nbkit.__main__"],
    ["nbkit.check", "nbkit.practice"],  # the two things a student runs: the local check, the practice service
    ["nbkit.librule", "nbkit.datasets", "nbkit.plotting", "nbkit.testing"],  # librule: the grader imports it too
    ["nbkit.text"],
]
LAYERS_OF = {"grading": LAYERS, "nbcore": NBCORE_LAYERS, "nbkit": NBKIT_LAYERS}
# Run inside the student's kernel or the judge's sandbox: stdlib, NumPy and each other only.
RUNTIME = {"grading.execution.plain", "grading.execution.frames", "grading.execution.kernel_runtime",
           "grading.execution.judge_runtime", "grading.execution.judge_server", "grading.execution.process", "grading.execution.diagnosis_runtime",
           "grading.execution.evidence", "grading.execution.evidence.counterexample",
           "grading.execution.evidence.behaviour"}
MAX_LINES = 500
MAX_MODULES_PER_FOLDER = 15  # every package's folders: folders say what belongs together


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def imports_of(path: Path, known: set) -> set:
    """The project modules ``path`` imports, anywhere in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target in known:
                found.add(target)
    found.discard(name)
    return found


@pytest.fixture(scope="module")
def graph() -> dict:
    files = list(source_files())
    known = {module_name(path) for path in files}
    return {module_name(path): imports_of(path, known) for path in files}


def layer_of(module: str, layers=LAYERS):
    for index, layer in enumerate(layers):
        for entry in layer:
            if module == entry or module.startswith(entry + "."):
                return index, entry
    return None, None


def layer_violations(graph: dict, package="grading") -> list:
    """The imports within ``package`` that go up or sideways in :data:`LAYERS_OF` ``[package]``."""
    layers = LAYERS_OF[package]
    bad = []
    for importer, targets in graph.items():
        if not importer.startswith(package + ".") or importer == "grading.__main__":
            continue  # the package's own __init__ re-exports (grading's: Course, lazily)
        low, own = layer_of(importer, layers)
        for target in targets:
            if not target.startswith(package + "."):
                continue
            high, theirs = layer_of(target, layers)
            if own is None or theirs is None:
                bad.append(f"{importer} -> {target}: a module outside the layers (add it to LAYERS)")
            elif own != theirs and high <= low:
                bad.append(f"{importer} -> {target}: {own} may import only lower layers, not {theirs}")
    return bad


@pytest.mark.parametrize("package", sorted(LAYERS_OF))
def test_layers_import_only_downwards(graph, package):
    assert layer_violations(graph, package) == []


def test_the_layer_check_catches_a_planted_violation(graph):
    planted = {**graph, "grading.core.text": graph.get("grading.core.text", set()) | {"grading.autograde"},
               "grading.export": graph.get("grading.export", set()) | {"grading.report"}}
    assert len(layer_violations(planted)) == len(layer_violations(graph)) + 2


def test_the_layer_check_of_the_reference_and_the_kit_catches_planted_violations(graph):
    planted = {**graph,
               "nbcore.estimation": graph["nbcore.estimation"] | {"nbcore.models.gaussian"},  # the core on a model
               "nbcore.models.gaussian": graph["nbcore.models.gaussian"] | {"nbcore.linear"},  # a model on the bridge
               "nbcore.linear": graph["nbcore.linear"] | {"nbcore.logistic"},  # siblings
               "nbkit.text": graph["nbkit.text"] | {"nbkit.check.run"}}
    assert len(layer_violations(planted, "nbcore")) == len(layer_violations(graph, "nbcore")) + 3
    assert len(layer_violations(planted, "nbkit")) == len(layer_violations(graph, "nbkit")) + 1
    unplaced = {**graph, "nbcore.linear": graph["nbcore.linear"] | {"nbcore.newmodule"}}
    assert any("outside the layers" in v for v in layer_violations(unplaced, "nbcore"))


def test_sandbox_runtime_imports_only_its_own_kind(graph):
    bad = {module: sorted(t for t in graph[module] if t.startswith("grading") and t not in RUNTIME | {"grading", "grading.execution"})
           for module in RUNTIME if module in graph}
    assert {module: targets for module, targets in bad.items() if targets} == {}
    assert RUNTIME <= set(graph), "a runtime module was renamed: update RUNTIME"


def test_kit_and_reference_never_import_the_grader(graph):
    bad = [(module, target) for module, targets in graph.items() for target in targets
           if module.startswith(("nbkit", "nbcore")) and target.startswith("grading")
           or module.startswith("nbkit") and target.startswith("nbcore")]
    assert bad == []


def find_cycle(graph: dict):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            # importing a package's submodule imports the package's __init__, not a cycle through it
            if module.startswith(target + "."):
                continue
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_no_import_cycle(graph):
    assert find_cycle(graph) is None


def test_the_cycle_check_finds_a_planted_cycle(graph):
    planted = {**graph, "grading.core.course": graph["grading.core.course"] | {"grading.report"},
               "grading.report": graph["grading.report"] | {"grading.core.course"}}
    assert find_cycle(planted) is not None


def test_modules_and_folders_stay_small():
    long = {str(path.relative_to(ROOT)): n for path in source_files()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}
    assert crowded_folders() == {}


def crowded_folders(packages=PACKAGES) -> dict:
    """{folder: number of modules} of the folders of ``packages`` with more than the limit."""
    return {str(folder.relative_to(ROOT)): n for package in packages for folder in [ROOT / package,
            *(p for p in (ROOT / package).rglob("*") if p.is_dir() and p.name != "__pycache__")]
            if (n := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER}


def test_the_folder_rule_covers_every_package():
    assert set(PACKAGES) >= {"grading", "bench", "nbcore", "nbkit"}
    assert {p for p in PACKAGES if (ROOT / p).is_dir()} == set(PACKAGES), "a package was renamed: update PACKAGES"
