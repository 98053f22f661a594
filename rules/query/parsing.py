"""Parser guards (never invent data, flag uncertainty), correction merging and input splitting."""

from __future__ import annotations

import re
from typing import Any

from models.query.parts import LogField

_NUM = re.compile(r"\d+(?:[.,]\d+)?")
_QUESTION_WORDS = ("why", "how", "what", "when", "which", "should", "could", "is ", "are ", "do ", "does ")


def _numbers_in(text: str) -> set[float]:
    return {float(n.replace(",", ".")) for n in _NUM.findall(text)}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def supported_value(value: Any, raw: str, vocabulary: dict[str, str]) -> bool:
    """Is this value stated in the raw text? Numbers must appear; a string needs a word of it (or of the
    vocabulary term it normalizes) in the text. Booleans and empty values pass."""
    if value is None or isinstance(value, bool) or value == "" or value == [] or value == {}:
        return True
    if isinstance(value, (int, float)):
        nums = _numbers_in(raw)
        return float(value) in nums or any(abs(float(value) - n) < 1e-6 for n in nums)
    if isinstance(value, str):
        raw_words = _words(raw)
        for short, full in vocabulary.items():
            if short.lower() in raw.lower():
                raw_words |= _words(full)
        words = _words(value)
        return not words or bool(words & raw_words)
    return True


def drop_invented(domain_data: dict[str, Any], raw: str, vocabulary: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Remove every leaf value the raw text does not support. Returns (clean data, dropped field paths)."""
    dropped: list[str] = []

    def walk(node: Any, path: str) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                kept = walk(v, f"{path}.{k}" if path else k)
                if kept is not _DROP:
                    out[k] = kept
            return out
        if isinstance(node, list):
            items = [walk(v, f"{path}[{i}]") for i, v in enumerate(node)]
            return [i for i in items if i is not _DROP]
        if supported_value(node, raw, vocabulary):
            return node
        dropped.append(path)
        return _DROP

    clean = {}
    for domain, data in domain_data.items():
        kept = walk(data, domain)
        if kept is not _DROP:
            clean[domain] = kept
    return clean, dropped


class _Drop:
    pass


_DROP = _Drop()


def check_schema(domain_data: dict[str, Any], schemas: dict[str, dict[str, LogField]]) -> tuple[dict[str, Any], list[str]]:
    """Keep only domains that have a schema and fields the schema declares, with the declared type.
    Wrong-typed or unknown fields are removed and reported (they become uncertain, never silently kept)."""
    problems: list[str] = []
    clean: dict[str, Any] = {}
    for domain, data in domain_data.items():
        schema = schemas.get(domain)
        if schema is None:
            problems.append(f"{domain}: not a loaded domain")
            continue
        if not isinstance(data, dict):
            problems.append(f"{domain}: expected an object")
            continue
        fixed = _check_object(data, schema, domain, problems)
        if fixed:
            clean[domain] = fixed
    return clean, problems


def _check_object(data: dict[str, Any], schema: dict[str, LogField], path: str, problems: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        spec = schema.get(key)
        where = f"{path}.{key}"
        if spec is None:
            problems.append(f"{where}: not in the schema")
            continue
        ok, fixed = _check_value(value, spec, where, problems)
        if ok:
            out[key] = fixed
    return out


def _check_value(value: Any, spec: LogField, where: str, problems: list[str]) -> tuple[bool, Any]:
    if value is None:
        return False, None
    t = spec.type
    if t == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return True, value
    if t == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return True, value
    if t == "integer" and isinstance(value, float) and value.is_integer():
        return True, int(value)
    if t == "string" and isinstance(value, str):
        return True, value
    if t == "boolean" and isinstance(value, bool):
        return True, value
    if t == "object" and isinstance(value, dict):
        return True, _check_object(value, spec.items or {}, where, problems) if spec.items else value
    if t == "list" and isinstance(value, list):
        if spec.items:
            items = [_check_object(v, spec.items, f"{where}[{i}]", problems) for i, v in enumerate(value)
                     if isinstance(v, dict)]
            return True, [i for i in items if i]
        return True, value
    problems.append(f"{where}: expected {t}, got {type(value).__name__}")
    return False, None


def deep_merge(base: Any, delta: Any) -> Any:
    """Apply a correction delta: dicts merge recursively; lists of objects merge item by item on 'name'
    (a new name is appended); anything else is replaced by the delta."""
    if isinstance(base, dict) and isinstance(delta, dict):
        out = dict(base)
        for k, v in delta.items():
            out[k] = deep_merge(base.get(k), v) if k in base else v
        return out
    if isinstance(base, list) and isinstance(delta, list) and all(isinstance(x, dict) for x in base + delta):
        if all("name" in x for x in delta):
            out_list = [dict(x) for x in base]
            for d in delta:
                match = next((x for x in out_list if str(x.get("name", "")).lower() == str(d["name"]).lower()), None)
                if match is None:
                    out_list.append(d)
                else:
                    match.update(deep_merge(match, {k: v for k, v in d.items() if k != "name"}))
            return out_list
    return delta


def split_both(text: str) -> tuple[str, str]:
    """Fallback split of a BOTH input into (log portion, query portion): questions go to the query."""
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    questions = [s for s in sentences if s.endswith("?") or s.lower().startswith(_QUESTION_WORDS)]
    logs = [s for s in sentences if s not in questions]
    return " ".join(logs).strip(), " ".join(questions).strip()


def looks_like_question(text: str) -> bool:
    t = text.strip().lower()
    return "?" in t or t.startswith(_QUESTION_WORDS)


def log_json_schema(schemas: dict[str, dict[str, LogField]]) -> dict[str, Any]:
    """The JSON schema of `domain_data` for these domain schemas: one object per domain with its declared
    fields and types (what `check_schema` keeps). The Parser's call sends it in place of a free-form object,
    so a grammar-constrained model fills the declared fields instead of inventing keys and nesting."""

    def field(spec: LogField) -> dict[str, Any]:
        if spec.type == "list":
            return {"type": "array", "items": fields(spec.items) if spec.items else {"type": "string"}}
        if spec.type == "object":
            return fields(spec.items) if spec.items else {"type": "object", "additionalProperties": {"type": "string"}}
        return {"type": spec.type}

    def fields(spec: dict[str, LogField]) -> dict[str, Any]:
        return {"type": "object", "properties": {name: field(f) for name, f in spec.items()},
                "additionalProperties": False}

    return {"type": "object", "properties": {domain: fields(spec) for domain, spec in schemas.items()},
            "additionalProperties": False}
