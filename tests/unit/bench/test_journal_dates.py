"""`python -m bench.journal_dates --corpus DIR` on a tiny corpus written here: the table counts right, wrong,
missed (warned or silent) and spurious entries against truth.json."""

from __future__ import annotations

import json

from bench.journal_dates import main, score_journal


def _journal(root, name, files, entries):  # noqa: ANN001, ANN202
    folder = root / name
    for rel, text in files.items():
        (folder / "notes" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "notes" / rel).write_text(text)
    (folder / "truth.json").write_text(json.dumps({"entries": entries}))
    return folder


def test_scores_and_table(tmp_path, capsys):
    log = "## March 1, 2024\na\n## March 2, 2024\nb\n## Day 3\nc\n## March 4, 2024\nd\n"
    one = _journal(tmp_path, "01-log", {"log.md": log, "2024-03-09.md": "x\n"}, [
        {"file": "log.md", "line": 1, "date": "2024-03-01"},
        {"file": "log.md", "line": 3, "date": "2024-03-03"},   # written wrong on purpose: dated 03-02
        {"file": "log.md", "line": 5, "date": "2024-03-03"},   # `Day 3` alone: merged into the entry above
        {"file": "log.md", "line": 7, "date": "2024-03-04"}])
    s = score_journal(one)
    assert (s.truth, s.right, s.wrong, s.missed, s.spurious) == (4, 2, 1, 1, 1)
    assert (s.warned, s.silent) == (1, 0)  # `Day 3` could not be dated: merged, and the import says so
    assert main(["--corpus", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| 01-log | 4 | 2 | 50.0 | 1 | 1 | 1 | 1 | 0 |" in out and "2 of 4 truth entries dated right (50.0 %)" in out
    assert "| en | 4 | 2 | 50.0 | 1 | 1 | 1 | 1 | 0 |" in out        # the per-language table
    assert main(["--corpus", str(tmp_path / "nothing")]) == 2
