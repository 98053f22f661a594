"""The registry of `workflow.patched` ids (models/patches/): every id the workflows and the pure session ask is
registered (none spelled as a string at the call), and every registered id is used and pinned by recorded histories
that exist and that a test replays (tests/workflows/**/test_replay*.py; writing's in its flow tests)."""

from __future__ import annotations

import ast
import importlib

from models.patches import RETENTION, all_patches
from tests.unit.platform.test_layers import ROOT, module_name

HISTORIES = ROOT / "tests" / "histories"
PATCH_CALLS = {"patched", "deprecate_patch", "_new"}     # `_new`: WritingWorkflow asks each id once through it


def _resolve(module: object, node: ast.expr) -> object:
    if isinstance(node, ast.Name):
        return getattr(module, node.id)
    if isinstance(node, ast.Attribute):
        return getattr(_resolve(module, node.value), node.attr)
    raise TypeError(ast.unparse(node))


def patch_ids_used() -> tuple[dict[str, list[str]], list[str]]:
    """(id -> where it is asked, problems) over workflows/ and rules/."""
    used: dict[str, list[str]] = {}
    problems: list[str] = []
    for package in ("workflows", "rules"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            module = None
            for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
                params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
                for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
                    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                    if name not in PATCH_CALLS or not call.args:
                        continue
                    arg, where = call.args[0], f"{path.relative_to(ROOT)}:{call.lineno}"
                    if isinstance(arg, ast.Name) and arg.id in params:
                        continue        # a helper forwarding its parameter (WritingWorkflow._new)
                    if isinstance(arg, ast.Constant):
                        problems.append(f"{where}: patch id {arg.value!r} spelled as a string; use models/patches/")
                        continue
                    module = module or importlib.import_module(module_name(path))
                    used.setdefault(str(_resolve(module, arg)), []).append(where)
    return used, problems


def test_every_patch_id_asked_is_registered_and_none_is_a_string():
    used, problems = patch_ids_used()
    registry = all_patches()
    problems += [f"{', '.join(where)}: {pid!r} is not in models/patches/" for pid, where in used.items()
                 if pid not in registry]
    assert not problems, "\n".join(problems)
    assert len(used) >= 30      # the scan sees the interview session's, query's, writing's and discussion's ids


def test_every_registered_id_is_used_and_pinned_by_histories_that_exist():
    used, _ = patch_ids_used()
    problems = []
    for pid, patch in all_patches().items():
        if pid not in used:
            problems.append(f"{pid}: registered but no workflow asks it (retired? remove it from models/patches/)")
        if not patch.pinned_by:
            problems.append(f"{pid}: no recorded history pins it")
        problems += [f"{pid}: tests/histories/{name}.json does not exist" for name in patch.pinned_by
                     if not (HISTORIES / f"{name}.json").is_file()]
        if patch.retire_after != patch.since + RETENTION:
            problems.append(f"{pid}: retire_after is not since + RETENTION")
    assert not problems, "\n".join(problems)


def test_every_pinning_history_is_replayed_by_a_test():
    replayed = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "workflows").rglob("test_*.py"))
    pinned = {name for patch in all_patches().values() for name in patch.pinned_by}
    missing = sorted(name for name in pinned if f'"{name}"' not in replayed)
    assert not missing, f"histories that pin a patch but no replay test replays: {missing}"
