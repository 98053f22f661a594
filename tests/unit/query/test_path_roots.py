"""Paths belong to the operator (issue 38, item 2): every notes activity checks a path again before it touches the
disk (defence in depth behind the workflow's door), and the CLI turns the user's folder into what the door takes.

Before: `{"notes_dir": "/etc"}` wrote /etc/logs/… and /etc/.notes.lock; `{"directory": "../../../../etc"}` walked
the worker's /etc; a carried `files` entry `../secret.md` read a file beside the import folder.
"""

from __future__ import annotations

from datetime import date

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment
from typer.testing import CliRunner

from activities.query.parse_log import parse_log_batch
from activities.query.storage import notes_list_import_files, notes_read_global_context
from client.query.cli import app
from models.query.workflow import ImportBatchInput, ListImportInput, NotesLocation


@pytest.fixture
def roots(tmp_path, monkeypatch):
    notes, journal, outside = tmp_path / "notes", tmp_path / "journal", tmp_path / "outside"
    for folder in (notes, journal, outside):
        folder.mkdir()
    (journal / "2024-01-02.md").write_text("ran 5k")
    (outside / "secret.md").write_text("2024-01-01 private words")
    (notes / "global-context.md").write_text("# Context\n- mine\n")
    (outside / "global-context.md").write_text("# Context\n- not yours\n")
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(notes))
    monkeypatch.setenv("COLLOQUY_IMPORT_ROOTS", f"journal={journal}")
    return notes, journal, outside


@pytest.mark.parametrize("notes_dir", ["/etc", "../outside", "a/../../outside", "C:/x", "~/notes"])
async def test_a_notes_activity_refuses_a_folder_outside_the_notes_root(roots, notes_dir):
    notes, _, outside = roots
    if notes_dir == "/etc":
        notes_dir = str(outside)
    with pytest.raises(ApplicationError) as err:
        await notes_read_global_context(NotesLocation(notes_dir=notes_dir))
    assert err.value.non_retryable and "notes_dir" in err.value.message
    assert not (outside / "logs").exists() and not (outside / ".notes.lock").exists()


async def test_a_notes_activity_takes_a_folder_inside_the_root_relative_or_as_an_old_absolute_path(roots):
    notes, _, _ = roots
    assert "mine" in await notes_read_global_context(NotesLocation(notes_dir=None))
    assert "mine" in await notes_read_global_context(NotesLocation(notes_dir=str(notes)))   # a run from before
    assert await notes_read_global_context(NotesLocation(notes_dir="alice")) == ""        # a folder inside


@pytest.mark.parametrize("directory", ["../../../../etc", "journal/../outside", "outside", "/etc", "journal\\..",
                                       "C:journal"])
async def test_an_import_activity_refuses_a_folder_outside_the_import_roots(roots, directory):
    with pytest.raises(ApplicationError) as err:
        await notes_list_import_files(ListImportInput(directory=directory))
    assert err.value.non_retryable and "import directory" in err.value.message


async def test_an_import_lists_a_folder_of_its_roots_by_name_or_by_an_old_absolute_path(roots):
    _, journal, _ = roots
    assert await notes_list_import_files(ListImportInput(directory="journal")) == ["2024-01-02.md"]
    assert await notes_list_import_files(ListImportInput(directory=str(journal))) == ["2024-01-02.md"]


async def test_a_carried_file_outside_the_import_folder_is_not_read(roots, offline):
    """`files` rides in the input (continue-as-new): a start could set it to reach beside the folder."""
    batch = ImportBatchInput(directory="journal", files=["../outside/secret.md", "/etc/passwd"], domain_schemas={},
                             undated="today", today=date(2024, 1, 1))
    result = await ActivityEnvironment().run(parse_log_batch, batch)
    assert not result.notes and len(result.failed) == 2
    assert all("file" in f and ("'..'" in f or "absolute" in f) for f in result.failed)
    assert offline.calls("parse_log") == []


def test_the_cli_refuses_to_import_a_folder_outside_the_roots(roots):
    _, _, outside = roots
    result = CliRunner().invoke(app, ["import", str(outside)])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "outside the folders the worker may import from" in text and "COLLOQUY_IMPORT_ROOTS" in text


@pytest.mark.parametrize("command", [["context"], ["reparse"], ["ask", "hi"]])
def test_the_cli_refuses_a_notes_dir_outside_the_notes_root(roots, command):
    _, _, outside = roots
    result = CliRunner().invoke(app, [*command, "--notes-dir", str(outside)])
    assert result.exit_code == 2
    assert "outside the notes root" in " ".join(result.output.split())


def test_the_cli_names_a_folder_of_the_roots_as_the_worker_knows_it(roots):
    from client.query.paths import import_dir_for_worker, notes_dir_for_worker

    notes, journal, _ = roots
    (journal / "2024").mkdir()
    assert import_dir_for_worker(journal / "2024") == "journal/2024"
    assert notes_dir_for_worker(str(notes / "alice")) == "alice"
    assert notes_dir_for_worker(str(notes)) is None
    assert notes_dir_for_worker("bob") == "bob"
