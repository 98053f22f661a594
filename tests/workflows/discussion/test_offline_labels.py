"""Issue 39, item 2: every word the offline test double wrote in a discussion says so — each message artifact,
each transcript section, the report's outcome, score table and messages, the result, the progress query and what
`colloquy discuss` prints. The label comes from each call's result (`LLMUsage.offline`), carried on by the
message and idea it produced. The walk fails on any model-written file or row without it."""

from __future__ import annotations

import html
import re

from activities.artifacts import store
from client.common import console
from client.discussion.cli import print_result
from models.common import OFFLINE_LABEL
from models.discussion.workflow import DiscussionResult
from tests.workflows.discussion.helpers import start
from workflows.discussion.workflow import DiscussionWorkflow

LABEL_HTML = html.escape(OFFLINE_LABEL)


def unlabelled_discussion_artifacts(discussion_id: str) -> list[str]:
    folder = store().path_for(discussion_id, "x").parent
    files = sorted(p for p in folder.iterdir() if p.is_file())
    assert files, f"no artifacts in {folder}"
    problems: list[str] = []
    for path in files:
        name, text = path.name, path.read_text(encoding="utf-8")
        if name == "report.html":
            problems += _unlabelled_report(text)
        elif name == "transcript.md" or name.startswith("round-"):
            problems += [f"{name}: {line[:90]}" for line in text.splitlines()
                         if line.startswith("## ") and OFFLINE_LABEL not in line]
        elif not text.startswith(OFFLINE_LABEL):  # a message: one agent's words
            problems.append(f"{name}: starts {text[:60]!r}")
    return problems


def _unlabelled_report(text: str) -> list[str]:
    problems = []
    outcome = re.search(r'<section class="outcome">(.*?)</section>', text, re.S)
    if outcome is None or LABEL_HTML not in outcome.group(1):
        problems.append("report.html: the outcome is unlabelled")
    table = re.search(r"<h2>Ideas and scores.*?</table>", text, re.S)
    rows = re.findall(r"<tr class=.*?</tr>", table.group(0), re.S) if table else []
    if not rows:
        problems.append("report.html: no score rows")
    problems += [f"report.html score row: {row[:90]}" for row in rows if LABEL_HTML not in row]
    problems += [f"report.html message: {h[:90]}" for h in re.findall(r"<header>.*?</header>", text, re.S)
                 if LABEL_HTML not in h]
    return problems


async def test_every_artifact_and_row_of_an_offline_discussion_is_labelled(ts_env, worker, offline, artifact_dir):
    async with worker(ts_env.client) as queue:
        handle = await start(ts_env.client, queue, html_report=True)
        result: DiscussionResult = await handle.result()
        progress = await handle.query(DiscussionWorkflow.progress)
    assert result.report is not None and result.outcome == "selected"
    assert unlabelled_discussion_artifacts(result.discussion_id) == []
    assert result.offline and progress.offline
    assert all(m.offline for m in result.messages) and all(i.offline for i in result.ideas)
    assert result.selected is not None and result.selected.offline
    assert result.outcome_detail.startswith(OFFLINE_LABEL)
    assert result.selection is not None and result.selection.leader_comment_excerpt.startswith(OFFLINE_LABEL)
    with console.capture() as captured:
        print_result(result, "http://ui")
    printed = captured.get()
    assert "the offline test double wrote this discussion's" in " ".join(printed.split())
    rows = [line for line in printed.splitlines() if re.match(r"^│ I\d", line)]
    assert rows and all(OFFLINE_LABEL in row for row in rows), printed
