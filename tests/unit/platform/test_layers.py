"""The import graph of the application packages: layers, and no cycles.

Layers, bottom to top (an import may only point at its own layer or one listed as allowed for it):

    models      payloads and contract names; imports nothing of the project but models
    core        settings, logging, telemetry, the Temporal connection; imports core (and models if it must)
    rules       pure decisions (no I/O, no Temporal); imports models and rules
    activities  the side effects: storage, artifacts, LLM calls; imports models, rules, core, activities
    workflows   orchestration; imports activities, rules, models, core, workflows
    workers     registration and running of workers; imports everything below
    client      the CLI and its helpers; imports everything below except workflows (it starts workflows and
                talks to them by the names in models/), and workers only inside a function (in-process
                workers: `colloquy worker`, the demo), so the CLI never pays for importing them
    bench       benchmarks; may import anything

Every .py file under those packages is parsed (ast), imports inside functions included. Then: no cycle among
module-level imports (the ones that run at import time; `if TYPE_CHECKING:` blocks excluded), and none either
when imports inside functions count too (a function-level import that closes a loop only hides the cycle, as
activities/writing/history.py <-> history_postgres.py did before history_base.py).

Known violations that another change is fixing are listed in ALLOWED, each with the reason; remove an entry when
its import is gone (the test fails on entries that no longer match anything, so the list cannot go stale).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("models", "core", "rules", "activities", "workflows", "workers", "client", "bench")
PROJECT = (*PACKAGES, "tests")

# layer -> the layers it may import (its own included)
MAY_IMPORT: dict[str, set[str]] = {
    "models": {"models"},
    "core": {"core", "models"},
    "rules": {"rules", "models"},
    "activities": {"activities", "models", "rules", "core"},
    "workflows": {"workflows", "activities", "rules", "models", "core"},
    "workers": {"workers", "workflows", "activities", "rules", "models", "core"},
    "client": {"client", "workers", "activities", "rules", "models", "core"},
    "bench": {"bench", "client", "workers", "workflows", "activities", "rules", "models", "core"},
}
# layer -> layers it may import only inside a function (lazily, where it needs them)
ONLY_LAZILY: dict[str, set[str]] = {"client": {"workers"}}

# (importing module, imported module) -> why it is still there. Keep this list short and explained.
ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    source: str          # importing module, dotted
    target: str          # imported project module, dotted
    line: int
    lazy: bool           # inside a function
    type_only: bool      # under `if TYPE_CHECKING:`


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolve(source: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = source.split(".") if is_package else source.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def imports_of(path: Path) -> list[Import]:
    source = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            child_lazy = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            child_type_only = type_only or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(source, is_package, child)
                # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod
                targets = [f"{base}.{a.name}" if _is_module(f"{base}.{a.name}") else base for a in child.names]
            for target in dict.fromkeys(targets):
                if target.split(".")[0] in PROJECT:
                    found.append(Import(source, target, getattr(child, "lineno", 0), lazy, type_only))
            visit(child, child_lazy, child_type_only)

    visit(tree, False, False)
    return found


def all_imports() -> list[Import]:
    return [imp for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            for imp in imports_of(path)]


def layer_problems(imports: list[Import]) -> list[str]:
    problems = []
    for imp in imports:
        src, dst = imp.source.split(".")[0], imp.target.split(".")[0]
        if dst not in MAY_IMPORT[src]:
            why = f"{src} may not import {dst}"
        elif dst in ONLY_LAZILY.get(src, set()) and not imp.lazy:
            why = f"{src} may import {dst} only inside a function"
        else:
            continue
        if (imp.source, imp.target) not in ALLOWED:
            problems.append(f"{imp.source}:{imp.line} imports {imp.target} ({why})")
    return problems


def cycles(imports: list[Import], with_lazy: bool = False) -> list[list[str]]:
    """Strongly connected components (Tarjan) of the import graph with more than one module: module-level imports
    only, or with the imports inside functions too."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if (with_lazy or not imp.lazy) and not imp.type_only and imp.source != imp.target:
            graph.setdefault(imp.source, set()).add(imp.target)
            graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return found


def test_the_parser_sees_module_level_lazy_and_relative_imports() -> None:
    by_source = {(i.source, i.target): i for i in imports_of(ROOT / "rules" / "interview" / "entries.py")}
    assert ("rules.interview.entries", "rules.interview.similarity") in by_source
    lazy = [i for i in imports_of(ROOT / "client" / "cli.py") if i.target == "workers.main"]
    assert lazy and all(i.lazy for i in lazy)


def test_no_import_runs_upward() -> None:
    problems = layer_problems(all_imports())
    assert not problems, "imports against the layer order (see this module's docstring):\n" + "\n".join(problems)


def test_the_allowlist_has_no_stale_entries() -> None:
    present = {(i.source, i.target) for i in all_imports()}
    stale = [f"{s} -> {t}" for s, t in ALLOWED if (s, t) not in present]
    assert not stale, "remove these ALLOWED entries, the imports are gone: " + ", ".join(stale)


def test_no_import_cycles() -> None:
    found = cycles(all_imports())
    assert not found, "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_import_cycles_through_function_level_imports_either() -> None:
    found = cycles(all_imports(), with_lazy=True)
    assert not found, "import cycles (counting imports inside functions):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    loop = [Import("a", "b", 1, False, False), Import("b", "c", 1, True, False), Import("c", "a", 1, False, False)]
    assert cycles(loop) == [] and cycles(loop, with_lazy=True) == [["a", "b", "c"]]


def external_imports_of(path: Path) -> list[tuple[str, int]]:
    """Every import of a package outside the project (top-level name, line), inside functions included."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module.split(".")[0], node.lineno))
    return found


def test_rules_import_no_temporalio() -> None:
    """rules/ is the pure layer: no Temporal there, not even inside a function (what needs it is in workflows/
    or core/, e.g. workflows/activity_options.py turns the pure policy table into Temporal's options)."""
    offenders = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "rules").rglob("*.py"))
                 for name, line in external_imports_of(path) if name == "temporalio"]
    assert not offenders, "rules/ imports temporalio: " + ", ".join(offenders)


def test_the_temporalio_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from temporalio.exceptions import ApplicationError\n", encoding="utf-8")
    assert ("temporalio", 2) in external_imports_of(module)


def test_the_client_never_imports_workflows() -> None:
    offenders = [f"{i.source}:{i.line} imports {i.target}" for i in all_imports()
                 if i.source.startswith("client") and i.target.split(".")[0] == "workflows"]
    assert not offenders, offenders


CODE_FOLDERS = ("rules", "workflows", "activities", "client", "core", "models", "workers", "bench", "tests")
MAX_LINES = 600


def test_no_code_file_over_600_lines() -> None:
    """One concern per file: no Python file of the project over 600 lines (a file that grows past it is split)."""
    long = [f"{path.relative_to(ROOT)}: {n} lines" for folder in CODE_FOLDERS
            for path in sorted((ROOT / folder).rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, long
