"""Paths belong to the operator (issue 38, item 2): the rule of rules/paths.py, generated and named.

The property: whatever relative path an input gives, `resolve_inside(root, it)` either refuses it with a one-line
PathRefused or returns a path inside the root — `..` segments, absolute paths, mixed separators, drive letters, `~`,
NUL and other control characters, unicode, and symbolic links (in a real folder) that lead out of the root.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.settings import import_roots, notes_root, parse_roots
from rules.paths import (
    PathRefused,
    input_path_problems,
    locate,
    relative_problem,
    relative_to_roots,
    resolve_inside,
    subfolder_of,
)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[Path, Path]:
    """A root with ordinary folders and symbolic links (into the root, out of it, to /, chained), and a folder
    beside it that nothing may reach."""
    base = tmp_path_factory.mktemp("paths")
    root, outside = base / "root", base / "outside"
    (root / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("private")
    (root / "a" / "note.md").write_text("mine")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "a" / "up").symlink_to(Path("..") / "..", target_is_directory=True)     # a/up -> the root's parent
    (root / "link_in").symlink_to(root / "a", target_is_directory=True)
    (root / "link_root").symlink_to("/", target_is_directory=True)
    (root / "chain").symlink_to(root / "link_out", target_is_directory=True)
    (root / "file_out.md").symlink_to(outside / "secret.md")
    return root, outside


SEGMENTS = st.sampled_from(["..", ".", "", "a", "b", "note.md", "link_out", "link_in", "link_root", "chain", "up",
                            "file_out.md", "C:", "c:", "~", "~root", "\x00", "é", "\u2025", "\uff0e\uff0e", "etc",
                            "..\\..", "a\\..", " ", "...", "\n", "%2e%2e", "$HOME"])
SEPARATORS = st.sampled_from(["/", "\\", "//", "/./"])
HOSTILE = st.one_of(
    st.builds(lambda lead, segs, sep: lead + sep.join(segs), st.sampled_from(["", "/", "\\", "C:", "~/", "//", "./"]),
              st.lists(SEGMENTS, max_size=8), SEPARATORS),
    st.text(max_size=40),
    st.text(alphabet="./\\:~a\x00", max_size=20),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=HOSTILE)
def test_a_resolved_path_is_always_inside_its_root(world, text):
    root, outside = world
    real_root = root.resolve()
    try:
        target = resolve_inside(root, text)
    except PathRefused as err:
        message = str(err)
        assert "\n" not in message and len(message) < 400
        return
    assert target.is_relative_to(real_root), (text, target)
    assert not target.is_relative_to(outside.resolve())


@settings(max_examples=400, deadline=None)
@given(text=HOSTILE)
@example(text="À:")   # found by the generator in a full run: a file name, not a drive (drive letters are A-Z)
def test_what_the_door_accepts_has_no_way_out_in_its_text(text):
    """The door's check is text only: an accepted path is relative, with no `..`, no backslash, no control
    character, no drive letter (`A:`–`Z:`, any case: Windows has no others) and no `~`."""
    if relative_problem(text) is None:
        segments = text.split("/")
        assert not text.startswith("/") and ".." not in segments and "\\" not in text
        assert all(ord(c) >= 32 and ord(c) != 127 for c in text)
        drive = len(text) >= 2 and text[1] == ":" and text[0].isascii() and text[0].isalpha()
        assert not drive and not text.startswith("~")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=HOSTILE)
def test_a_located_path_is_always_inside_its_named_root(world, text):
    root, _ = world
    roots = {"journal": root, "other": root / "a"}
    try:
        target = locate(roots, "journal/" + text)
    except PathRefused:
        return
    assert target.is_relative_to(root.resolve())


# ------------------------------------------------------------------------------------- named regressions
@pytest.mark.parametrize("text, why", [
    ("../../../../etc", "'..'"),          # the ImportNotesWorkflow
    ("/etc", "absolute"),                 # the QueryWorkflow notes_dir
    ("a/../../b", "'..'"),
    ("C:/Windows", "drive letter"),
    ("c:notes", "drive letter"),
    ("\\\\server\\share", "backslash"),
    ("a\\..\\..", "backslash"),
    ("~/notes", "'~'"),
    ("~root", "'~'"),
    ("notes\x00.md", "control character"),
    ("x" * 2000, "longer than"),
])
def test_a_hostile_path_is_refused_by_its_text(text, why):
    problem = relative_problem(text)
    assert problem is not None and why in problem


@pytest.mark.parametrize("text", ["link_out", "link_out/secret.md", "chain/secret.md", "a/up", "a/up/outside",
                                  "link_root/etc", "file_out.md"])
def test_a_symbolic_link_out_of_the_root_is_refused(world, text):
    root, _ = world
    assert relative_problem(text) is None          # nothing in the text: the file system says it
    with pytest.raises(PathRefused, match="outside its root"):
        resolve_inside(root, text)


@pytest.mark.parametrize("text, expected", [("", "."), (".", "."), ("a", "a"), ("a//b/", "a/b"), ("./a/./b", "a/b"),
                                            ("link_in", "a"), ("link_in/b", "a/b"), ("a/note.md", "a/note.md")])
def test_a_path_inside_the_root_is_given(world, text, expected):
    root, _ = world
    assert resolve_inside(root, text) == (root.resolve() / expected).resolve()


def test_locate_names_the_root_first(world):
    root, _ = world
    roots = {"journal": root}
    assert locate(roots, "journal/a/b") == (root / "a" / "b").resolve()
    assert locate(roots, "journal") == root.resolve()
    with pytest.raises(PathRefused, match="no configured root .*journal"):
        locate(roots, "etc/passwd")
    with pytest.raises(PathRefused, match="absolute"):
        locate(roots, str(root))


def test_a_local_folder_gets_its_name_in_the_roots(world, tmp_path):
    root, outside = world
    roots = {"journal": root, "deep": root / "a"}
    assert relative_to_roots(roots, root / "a" / "b") == "deep/b"          # the innermost root wins
    assert relative_to_roots(roots, root) == "journal"
    assert relative_to_roots(roots, outside) is None
    assert relative_to_roots(roots, root / "link_out") is None            # resolved first: the link leads out
    assert subfolder_of(root, root / "a") == "a" and subfolder_of(root, root) == ""
    assert subfolder_of(root, outside) is None


def test_the_door_names_each_bad_field_and_file():
    problems = input_path_problems({"directory": "../../etc", "notes_dir": "/etc", "other": None},
                                   ["ok.md", "../x.md", "", "/etc/passwd"])
    assert [p.split(":")[0] for p in problems] == ["directory", "notes_dir", "files[1]", "files[2]", "files[3]"]
    assert input_path_problems({"directory": "tmp/journal", "notes_dir": None}, ["a/b.md"]) == []


# ------------------------------------------------------------------------------------- the configuration
def test_import_roots_come_from_the_environment(tmp_path):
    env = {"COLLOQUY_IMPORT_ROOTS": f"journal={tmp_path / 'j'}{os.pathsep}work={tmp_path / 'w'}"}
    from core.resources import apps_dir

    examples = apps_dir().resolve()   # the shipped sample notes: always importable (read-only package data)
    assert import_roots(env) == {"examples": examples, "journal": (tmp_path / "j").resolve(),
                                 "work": (tmp_path / "w").resolve()}
    default = import_roots({})
    assert sorted(default) == ["examples", "imports"] and default["imports"].name == "imports"
    assert relative_to_roots(default, examples / "fitness" / "sample_notes") == "examples/fitness/sample_notes"


@pytest.mark.parametrize("value, why", [("journal", "NAME=FOLDER"), ("j=/x", "lowercase"), ("Journal=/x", "lowercase"),
                                        ("journal=relative/x", "absolute"), ("a1=/x:a1=/y", "twice")])
def test_a_malformed_import_roots_value_is_refused(value, why):
    with pytest.raises(ValueError, match=why):
        parse_roots(value, ":")


def test_the_notes_root_is_the_configured_one(tmp_path):
    assert notes_root({"COLLOQUY_NOTES_DIR": str(tmp_path)}) == tmp_path.resolve()
    assert notes_root({}).name == "notes"


def test_a_worker_with_malformed_import_roots_stops_at_start(monkeypatch):
    """Before connecting, like the worker's other settings: a typo would otherwise refuse every import later."""
    from typer.testing import CliRunner

    from client import cli

    monkeypatch.setenv("COLLOQUY_IMPORT_ROOTS", "Journal=/srv/journal")
    bad = CliRunner().invoke(cli.app, ["worker"])
    assert bad.exit_code == 2 and "COLLOQUY_IMPORT_ROOTS" in bad.output and "lowercase" in bad.output
