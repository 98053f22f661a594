"""Reading a model's answer: lenient JSON for structured agents, prose for free-text ones (the gateway's
parsers; a failure is a ValueError whose message the gateway sends back to the model in a re-ask)."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)


def _loads(text: str) -> Any:
    # strict=False: raw control characters (a newline, a tab) inside strings are accepted. llama.cpp's grammar
    # for JSON strings (llama-cpp-python's `char` rule, `[^"\\]`) lets a model write them, so a
    # grammar-constrained answer was otherwise "invalid JSON" for an unescaped line break.
    return json.loads(text, strict=False)


def extract_json(text: str) -> Any:
    """Lenient JSON: strip code fences and chatter, take the outermost object/array."""
    cleaned = re.sub(r"```(?:json)?", "", text).strip()
    try:
        return _loads(cleaned)
    except ValueError:
        pass
    # an object first ("[note] {...}" is an object with chatter), then an array
    for opening, closing in (("{", "}"), ("[", "]")):
        start, end = cleaned.find(opening), cleaned.rfind(closing)
        if start < 0:
            continue
        if end <= start:
            raise ValueError("unterminated JSON in the model's answer")
        try:
            return _loads(cleaned[start : end + 1])
        except ValueError:
            continue
    if "{" not in cleaned and "[" not in cleaned:
        raise ValueError("no JSON object in the model's answer")
    raise ValueError("no parseable JSON object in the model's answer")


def parse_output(text: str, model: type[T]) -> T:
    try:
        data = extract_json(text)
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {exc}") from exc
    if isinstance(data, dict):
        data.pop("_offline", None)
        names = _field_names(model)
        if names and not names & set(data):
            # an answer with none of the model's fields is another schema (or garbage), even where every field has
            # a default: refused, never read as an empty result
            raise ValueError(f"wrong schema for {model.__name__}: none of its fields "
                             f"({', '.join(sorted(names)[:8])}) in an answer with {', '.join(sorted(data)[:8]) or 'no keys'}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"wrong schema for {model.__name__}: {exc.errors(include_url=False)[:5]}") from exc


def _field_names(model: type[BaseModel]) -> set[str]:
    names = set(model.model_fields)
    names.update(f.alias for f in model.model_fields.values() if f.alias)
    return names


def check_prose(text: str) -> str:
    """A free-text agent's answer (an essay, a draft, a discussion turn): prose, not empty and not a bare JSON
    object or array (another agent's schema, or garbage). ValueError with the reason otherwise."""
    stripped = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    if not stripped:
        raise ValueError("an empty answer")
    if stripped[0] in "{[":
        try:
            json.loads(stripped)
        except ValueError:
            return text
        raise ValueError("a JSON value where prose was asked for")
    return text


#: litellm metadata key: the provider is configured local (free); the gateway sets it on every call.
FREE_OF_CHARGE = "colloquy_free_of_charge"


def free_of_charge(response: Any, litellm_params: dict[str, Any] | None) -> Any:
    """An in-process provider's answer (the offline double, the local model) on a provider configured local
    costs nothing: stamped on the response, litellm takes the price as known instead of looking the model up in
    its cost map and pricing the tokens on every call (a tenth of a busy worker's CPU per agent call,
    docs/performance.md). A provider configured with prices (`local: false`, a test's priced double) is left to
    litellm's pricing. The gateway charges $0 for local providers itself (`_cost`)."""
    metadata = (litellm_params or {}).get("metadata") or {}
    hidden = getattr(response, "_hidden_params", None)
    if metadata.get(FREE_OF_CHARGE) and isinstance(hidden, dict):
        hidden["response_cost"] = 0.0
    return response
