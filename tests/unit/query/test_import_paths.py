"""`notes import` (issue 21): an empty path is refused (it used to import the worker's working directory), and a
symlink is followed only while its target stays inside the chosen folder (`→ /etc/shadow` was imported)."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from typer.testing import CliRunner

from activities.query.storage import notes_list_import_files
from client.query.cli import app
from models.query.workflow import ListImportInput


async def test_symlinks_out_of_the_folder_are_not_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLOQUY_IMPORT_ROOTS", f"tmp={tmp_path}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("2024-01-01 private words")
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "2024-02-01.md").write_text("ran 5k")
    (folder / "sub" / "2024-02-02.md").write_text("swam")
    (folder / "shadow.md").symlink_to(outside / "secret.md")
    (folder / "escape").symlink_to(outside, target_is_directory=True)
    (folder / "alias.md").symlink_to(folder / "2024-02-01.md")          # inside the folder: kept
    files = await notes_list_import_files(ListImportInput(directory="tmp/notes"))
    assert files == ["2024-02-01.md", "alias.md", "sub/2024-02-02.md"]


async def test_an_empty_directory_is_refused_by_the_activity():
    with pytest.raises(ApplicationError, match="no import directory"):
        await notes_list_import_files(ListImportInput(directory=""))


@pytest.mark.parametrize("given", ["", "   "])
def test_the_cli_refuses_an_empty_path(given, tmp_path, monkeypatch):
    (tmp_path / "2024-01-01.md").write_text("the working directory's own files")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["import", given])
    assert result.exit_code == 2 and "empty path" in result.output
