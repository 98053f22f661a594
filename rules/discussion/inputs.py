"""Checks on a DiscussionInput, shared by the workflow (authoritative) and the CLI (early, friendly)."""

from __future__ import annotations

import re

from models.discussion.workflow import REQUIRED_ROLES, ROLES, DiscussionInput
from rules.discussion.levels import LEVELS
from rules.model_ids import model_id_problem

MAX_TOPIC_CHARS = 2000
MAX_MODEL_ID_CHARS = 200
TOPIC_KEYWORD_CHARS = 100
_WHY_REQUIRED = {"leader": "the team leader frames the discussion at kickoff",
                 "ideation": "the ideation specialist is the only source of ideas"}


def validate_input(inp: DiscussionInput, strict: bool = True) -> list[str]:
    """Every problem with the input, as sentences a user can act on (empty list: valid). `strict` (issue 39): a
    role named twice in the team is refused, as a role given two models is, and model ids get the one check every
    pipeline uses (rules/model_ids.py); runs started before keep the old checks (whitespace only, repeats
    merged)."""
    errors: list[str] = []
    topic = inp.topic.strip()
    if not topic:
        errors.append("the topic is empty: say what the team should discuss")
    elif len(topic) > MAX_TOPIC_CHARS:
        errors.append(f"the topic is {len(topic)} characters long; the limit is {MAX_TOPIC_CHARS}: "
                      "state the question briefly")
    if inp.level not in LEVELS:
        errors.append(f"unknown level {inp.level!r}: use {', '.join(LEVELS)}")
    unknown = sorted({r for r in inp.team if r not in ROLES})
    if unknown:
        errors.append(f"unknown role(s) in the team: {', '.join(unknown)}; known roles are {', '.join(ROLES)}")
    twice = sorted({r for r in inp.team if inp.team.count(r) > 1})
    if strict and twice:
        errors.append(f"the team names {', '.join(map(repr, twice))} more than once: give each role once")
    for role in REQUIRED_ROLES:
        if role not in inp.team:
            errors.append(f"the team needs a {role}: {_WHY_REQUIRED[role]}")
    for role, model in sorted(inp.models.items()):
        if role not in ROLES:
            errors.append(f"model given for unknown role {role!r}; known roles are {', '.join(ROLES)}")
        elif role not in inp.team:
            errors.append(f"model given for role {role!r}, which is not in the team")
        if not model.strip():
            errors.append(f"empty model id for role {role!r}")
        elif strict and model_id_problem(model):
            errors.append(f"model id for role {role!r}: {model_id_problem(model)}")
        elif len(model) > MAX_MODEL_ID_CHARS or re.search(r"\s", model.strip()):
            errors.append(f"model id for role {role!r} is not a litellm model id: {model[:60]!r}")
    return errors


def normalized_team(team: list[str]) -> list[str]:
    """The team in the seed's speaking order, without duplicates."""
    return [r for r in ROLES if r in team]


def topic_keyword(topic: str) -> str:
    """The topic as a one-line Keyword search attribute value."""
    line = re.sub(r"\s+", " ", topic).strip()
    return line if len(line) <= TOPIC_KEYWORD_CHARS else line[: TOPIC_KEYWORD_CHARS - 1] + "…"
