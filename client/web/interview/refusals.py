"""Why the interview refused an entry, in the participant's language.

The engine refuses an entry, a control or an assistant query with an English message (what the CLI, the Temporal
CLI and the logs show) and a language-free code from a closed set (rules/interview/entries.py REFUSAL_CODES), with
the numbers a sentence needs, in the update error's details. A page that asked in another language
(client/web/errors.py `request_language`) reads the sentence below for that code from its language's catalog
(client/web/locale/); the English message stays in `detail`. An error without a known code (a worker from before
the codes, another kind of failure) keeps the English message, as before.

The sentences are clauses without a final stop: the room shows them after "Not delivered:".
"""

from __future__ import annotations

from typing import Any

from client.web.errors import participant_text
from client.web.i18n import N_, local_number
from rules.interview import entries as codes

REASONS = {
    codes.ENTRY_ID_MISSING: N_("the answer had no id; please reload the page and send it again"),
    codes.ENTRY_ID_TOO_LONG: N_("the answer's id is too long; please reload the page and send it again"),
    codes.UNKNOWN_SPEAKER: N_("the page sent the answer for an unknown speaker; please reload the page"),
    codes.UNKNOWN_KIND: N_("the page sent an unknown kind of entry; please reload the page"),
    codes.EMPTY_TEXT: N_("the answer is empty: there is nothing to record"),
    codes.TOO_LONG: N_("the answer is %(length)s characters long; the limit is %(limit)s — please split it into "
                       "several answers"),
    codes.OUT_OF_ORDER: N_("the answer arrived out of order; please send it again"),
    codes.ENDED: N_("the interview has ended; nothing more is recorded"),
    codes.UNKNOWN_ACTION: N_("this action is not known; please reload the page"),
    codes.QUERY_ID_MISSING: N_("the question to the assistant had no id; please reload the page"),
    codes.QUERY_EMPTY: N_("the question to the assistant is empty"),
    codes.QUERY_TOO_LONG: N_("the question to the assistant is %(length)s characters long; the limit is %(limit)s"),
    codes.ASSISTANT_CLOSED: N_("the interview has ended; the assistant is closed"),
}


def refusal(exc: BaseException | None) -> tuple[str, dict[str, int]] | None:
    """(code, numbers) an update error carries in its details (on the error or a cause of it), else None."""
    seen: set[int] = set()
    current = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for detail in getattr(current, "details", None) or ():
            if isinstance(detail, dict) and detail.get("code") in REASONS:
                numbers = {k: v for k, v in detail.items()
                           if k != "code" and isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}
                return str(detail["code"]), numbers
        nxt: Any = getattr(current, "cause", None)
        current = nxt if isinstance(nxt, BaseException) else current.__cause__
    return None


def refusal_text(exc: BaseException | None, language: str | None) -> str | None:
    """The refusal's sentence in `language` (None when English is asked for, or the error names no known code, or
    lacks a number its sentence needs: the caller then shows the English message)."""
    found = refusal(exc) if language else None
    if found is None:
        return None
    code, numbers = found
    try:
        return participant_text(REASONS[code], language) % {k: local_number(v, language) for k, v in numbers.items()}
    except (KeyError, ValueError, TypeError):
        return None


def ended_text(language: str | None) -> str | None:
    """'The interview has ended' in `language` (None: English asked for)."""
    return participant_text(REASONS[codes.ENDED], language) if language else None
