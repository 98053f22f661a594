"""Search attribute keys (Web UI filters: ColloquyPipeline="interview" AND ColloquyStatus="running"), and the one
helper workflows set them with:

    sa.upsert(pipeline="query", status="running")     # == workflow.upsert_search_attributes(
                                                      #        [PIPELINE.value_set("query"), STATUS.value_set("running")])

One call is one upsert command, with the values in the order given (keyword order), so switching a workflow to the
helper changes nothing in its history. None or "" values are left out; a topic is cut to MAX_TOPIC_CHARS.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

PIPELINE = SearchAttributeKey.for_keyword("ColloquyPipeline")
PHASE = SearchAttributeKey.for_keyword("ColloquyPhase")
TOPIC = SearchAttributeKey.for_keyword("ColloquyTopic")
STATUS = SearchAttributeKey.for_keyword("ColloquyStatus")

KEYS = {"pipeline": PIPELINE, "phase": PHASE, "topic": TOPIC, "status": STATUS}
MAX_TOPIC_CHARS = 200


def updates(**values: str | None) -> list[SearchAttributeUpdate]:
    """The updates for `pipeline=`, `phase=`, `topic=`, `status=` values, in the order given."""
    unknown = sorted(set(values) - set(KEYS))
    if unknown:
        raise TypeError(f"unknown search attribute(s) {', '.join(unknown)}: use {', '.join(KEYS)}")
    out: list[SearchAttributeUpdate] = []
    for name, value in values.items():
        if value:
            out.append(KEYS[name].value_set(value[:MAX_TOPIC_CHARS] if name == "topic" else value))
    return out


def upsert(**values: str | None) -> None:
    """One `workflow.upsert_search_attributes` command with these values (see `updates`)."""
    workflow.upsert_search_attributes(updates(**values))
