"""Whether a text may be put in front of the interviewee as the question in force (issue 35: a small model's
"questions" were "Where it started (140s left)" and `},\\n[id]: 3, … { targetSectionID } …(no notes yet),\\n{"`).

`is_askable(text)` says (ok, reason). A text is askable when it is one question (or a request) addressed to the
person, in whatever language they speak:
- no template residue: braces, brackets, JSON keys, schema field names, a prompt's timers ("(140s left)"), markdown
  headings or list items, a speaker or prompt label ("Interviewer:", "Topic:"), lines of the prompts echoed;
- no instruction to the interviewer ("Ask the interviewee about …", "Probe …");
- at most MAX_QUESTION_CHARS characters, with letters;
- it asks: a question mark of any script (`?`, `？`, `؟`, Greek `;` …), or a request to the person ("Tell me about
  …", "Please …") or a question ending (Japanese, Chinese, Korean). Another language is never a reason to refuse.

`repaired(text)` is the only repair: surrounding whitespace and one pair of surrounding quotes go. A fragment left
after cutting debris out is never shown: what fails gives way to the plan (000's fallback decision)."""

from __future__ import annotations

import re

MAX_QUESTION_CHARS = 400
MAX_LINES = 3

#: Question marks of the scripts people write in: Latin and most others, full-width (CJK), Arabic/Persian/Urdu,
#: Armenian, Ethiopic, reversed (irony), the small form, Spanish's opening one; Greek's (U+037E, and the ASCII
#: semicolon it is normalised to) counts in Greek text only.
QUESTION_MARKS = "?？؟՞፧⸮﹖¿"
GREEK_QUESTION_MARKS = "\u037e;"
_GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")

#: A request addressed to the interviewee asks without a question mark ("Tell me about …", "Please …"). A bare
#: interrogative word does not: "Where it started" is a section's title, not a question.
_EN_REQUESTS = re.compile(
    r"^(?:tell me|tell us|describe|walk me|walk us|talk me|talk about|share|explain|give me|give us|give an example|"
    r"say more|please|imagine|think back|picture|help me understand)\b", re.IGNORECASE)
#: Question endings without a question mark: Japanese か, Chinese 吗/呢, Korean 까/니/나요/가요.
_CJK_ENDINGS = re.compile(r"(?:か|吗|嗎|呢|까|니|나요|가요)[。．.!！]*$")

_RESIDUE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("template braces", re.compile(r"[{}]")),
    ("brackets (an id or a label)", re.compile(r"[\[\]]")),
    ("JSON", re.compile(r"\"[^\"\n]{1,40}\"\s*:\s*[\"\d\[{tfn]|\\n|\\\"|```")),
    ("a timer from the prompt", re.compile(r"\(\s*\d+\s*s\s+(?:left|elapsed)\s*\)|\b\d+s (?:left|elapsed)\b|"
                                           r"\d+\s*% done", re.IGNORECASE)),
    ("a markdown heading or list", re.compile(r"(?m)^\s*(?:#{1,6}\s|[-*•]\s|\d+[.)]\s|\*\*)")),
    ("a schema field name", re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]{2,}(?:[A-Z][a-z0-9]+)+[A-Z]*\b")),
    ("a speaker or prompt label", re.compile(
        r"(?im)^\s*(?:interviewer|interviewee|candidate|assistant|user|system|orchestrator|planner|question|"
        r"next question|topic|research goal|angle|timing|current section|plan coverage|notes|research|transcript|"
        r"context|duration|phase|phases|brief|reason|answer|output|response|json)\s*:")),
    ("the prompt echoed", re.compile(
        r"✓|○|\bnot asked\b|\(no notes yet\)|\(none\)|\bOrchestratorDecision\b|\bPlanSnapshot\b|"
        r"you are the (?:orchestrator|planner)|answer with one json|this is a follow-up session|"
        r"previously discussed:|previously covered:|required dimensions of|\bid:", re.IGNORECASE)),
)

_INSTRUCTION = re.compile(
    r"^(?:ask|probe|follow up|follow-up|dig|let them|listen|acknowledge|transition|move on|note that|steer|"
    r"encourage them|invite them|invite the|prompt them|prompt the)\b|\b(?:the|this) (?:interviewee|participant|"
    r"respondent)\b", re.IGNORECASE)

_QUOTES = (("\"", "\""), ("'", "'"), ("“", "”"), ("‘", "’"), ("«", "»"), ("「", "」"), ("„", "“"))


def repaired(text: str) -> str:
    """The light repair: surrounding whitespace and one pair of surrounding quotes go (nothing is cut out)."""
    t = text.strip()
    for left, right in _QUOTES:
        if len(t) >= 2 and t.startswith(left) and t.endswith(right) and left not in t[1:-1] and right not in t[1:-1]:
            return t[1:-1].strip()
    return t


def asks(text: str, language: str | None = None) -> bool:
    """Whether `text` asks: a question mark of any script, else an interrogative or request form. `language` (a
    BCP-47 tag such as "en", "ja") narrows the forms without a question mark to that language's; None: any."""
    if any(mark in text for mark in QUESTION_MARKS) or (
            any(mark in text for mark in GREEK_QUESTION_MARKS) and _GREEK.search(text)):
        return True
    lang = (language or "").split("-")[0].lower()
    if lang in ("", "en") and _EN_REQUESTS.match(text.lstrip("\"'“‘«( ")):
        return True
    return lang in ("", "ja", "zh", "ko") and bool(_CJK_ENDINGS.search(text.rstrip()))


def is_askable(text: str, language: str | None = None, *, closing: bool = False) -> tuple[bool, str]:
    """(True, "") when `text` may be shown to the interviewee as a question, else (False, why). `closing`: the
    engine's closing line in the wrap-up, which thanks rather than asks (every other check holds)."""
    t = repaired(text)
    if not t or not any(ch.isalpha() for ch in t):
        return False, "no words"
    if len(t) > MAX_QUESTION_CHARS:
        return False, f"longer than {MAX_QUESTION_CHARS} characters"
    if t.count("\n") >= MAX_LINES:
        return False, f"more than {MAX_LINES} lines"
    for reason, pattern in _RESIDUE:
        if pattern.search(t):
            return False, f"template residue: {reason}"
    if _INSTRUCTION.search(t):
        return False, "an instruction to the interviewer"
    if not closing and not asks(t, language):
        return False, "does not ask anything"
    return True, ""


def askable_text(text: str, language: str | None = None, *, closing: bool = False) -> str | None:
    """The text to show (repaired), or None when it is not askable."""
    ok, _ = is_askable(text, language, closing=closing)
    return repaired(text) if ok else None
