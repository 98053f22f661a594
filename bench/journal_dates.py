"""How well the importer dates real journals: `python -m bench.journal_dates --corpus DIR`.

DIR holds one folder per journal, each with `notes/` (the journal as its author keeps it) and `truth.json`
(`entries[]`: `file`, `line` for in-file headings, `date`; see the corpus INDEX; optional `language` — en when
absent —, `format`, and `options`: the `--year`/`--language` the import's notes ask for). `--corpus` may be given
more than once. Every journal is split exactly as `colloquy notes import` splits it (rules/query/imports.py: the
journal's hints, then each file), with no model and no store. Per journal it prints: entries in truth, dated right,
dated wrong, missed, spurious (entries the importer made that match no truth entry), and the truth headings that
were merged into another entry — warned (the import reports that line) or silent; then the same per language.
A benchmark, not a test: it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from rules.query.imports import IMPORT_SUFFIXES, journal_hints, split_dated


@dataclass
class Score:
    name: str
    language: str = "en"
    truth: int = 0
    right: int = 0
    wrong: int = 0
    missed: int = 0
    spurious: int = 0
    warned: int = 0
    silent: int = 0

    def add(self, other: Score) -> None:
        for k in ("truth", "right", "wrong", "missed", "spurious", "warned", "silent"):
            setattr(self, k, getattr(self, k) + getattr(other, k))


def score_journal(folder: Path, year: int | None = None, verbose: bool = False) -> Score:
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    root = folder / "notes"
    files = {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(root.rglob("*")) if p.is_file() and p.suffix.lower() in IMPORT_SUFFIXES}
    options = truth.get("options", {})
    hints = journal_hints(files, year or options.get("year"), frozenset(options.get("languages", ())))
    splits = {rel: split_dated(text, rel, hints) for rel, text in files.items()}
    score = Score(folder.name, truth.get("language", "en"))
    claimed: set[tuple[str, int]] = set()
    for t in truth["entries"]:
        score.truth += 1
        split = splits.get(t["file"])
        want = date.fromisoformat(t["date"])
        if split is None:
            score.missed += 1
            continue
        line = t.get("line")
        flagged = {n for n, _ in split.flags}
        part = None
        if line is None:
            part = split.parts[0] if split.parts else None
        else:
            part = next((p for p in split.parts if p.line <= line <= max(p.end_line, p.line)), None)
        if part is None:
            empty = next((d for n, d in split.empty if line is None or n == line), None)
            if empty is not None:
                score.right += empty == want
                score.wrong += empty != want
                continue
            score.missed += 1
            if line is not None:
                score.warned += line in flagged
                score.silent += line not in flagged
            if verbose:
                print(f"  missed {t['file']}:{line} {t['heading_or_line']!r} ({t['date']})", file=sys.stderr)
            continue
        key = (t["file"], part.line)
        if key in claimed:
            score.missed += 1
            score.warned += line in flagged
            score.silent += line not in flagged
            if verbose:
                print(f"  merged {t['file']}:{line} {t['heading_or_line']!r} into line {part.line} "
                      f"({'warned' if line in flagged else 'SILENT'})", file=sys.stderr)
            continue
        claimed.add(key)
        if part.day == want:
            score.right += 1
        else:
            score.wrong += 1
            if verbose:
                print(f"  wrong {t['file']}:{line} {t['heading_or_line']!r}: {part.day} (truth {t['date']})",
                      file=sys.stderr)
    for rel, split in splits.items():
        for p in split.parts:
            if (rel, p.line) not in claimed:
                score.spurious += 1
                if verbose:
                    print(f"  spurious {rel}:{p.line} {p.day}", file=sys.stderr)
    return score


def table(scores: list[Score], by: str = "journal") -> str:
    """The per-journal table (`by="journal"`), or one row per language (`by="language"`), with the total."""
    if by == "language":
        groups: dict[str, Score] = {}
        for s in scores:
            groups.setdefault(s.language, Score(s.language, s.language)).add(s)
        scores = [groups[k] for k in sorted(groups)]
    total = Score("**total**")
    for s in scores:
        total.add(s)
    rows = [f"| {by} | entries in truth | dated right | % | dated wrong | missed | spurious | merged: warned | "
            "merged: silent |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in [*scores, total]:
        share = f"{100 * s.right / s.truth:.1f}" if s.truth else "–"
        rows.append(f"| {s.name} | {s.truth} | {s.right} | {share} | {s.wrong} | {s.missed} | {s.spurious} | "
                    f"{s.warned} | {s.silent} |")
    pct = 100 * total.right / total.truth if total.truth else 0.0
    rows.append(f"\n{total.right} of {total.truth} truth entries dated right ({pct:.1f} %); "
                f"{total.silent} merged without a warning.")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.journal_dates", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, type=Path, action="append",
                    help="folder of journals (each: notes/ + truth.json); repeatable")
    ap.add_argument("--verbose", action="store_true", help="list every miss, wrong date and spurious entry")
    args = ap.parse_args(argv)
    folders = [p for corpus in args.corpus if corpus.is_dir()
               for p in sorted(corpus.iterdir()) if (p / "truth.json").is_file()]
    if not folders:
        print(f"no journal with a truth.json under {', '.join(map(str, args.corpus))}", file=sys.stderr)
        return 2
    scores = []
    for folder in folders:
        if args.verbose:
            print(folder.name, file=sys.stderr)
        scores.append(score_journal(folder, verbose=args.verbose))
    print(table(scores))
    print()
    print(table(scores, by="language"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
