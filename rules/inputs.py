"""Raw workflow input → its pydantic model, or one clear message naming every bad field (pure; no Temporal).

Workflows take their input, signal and update arguments as raw JSON (`Any`) and validate them here, so a wrong
type, a missing field or an unknown field fails the run (or rejects the signal/update) with a message a person can
act on, instead of failing the workflow task over and over ("Failed decoding arguments"):

    inp = parse_input(InterviewInput, raw, "InterviewWorkflow input")
    # InvalidInput: invalid InterviewWorkflow input: duration_seconds: expected an integer, got 'abc';
    #               unknown field 'duration_second' (did you mean 'duration_seconds'? known: topic, context, …)

Unknown fields are refused recursively (nested models, lists and dicts of models), except inside a field marked
`CARRIED` (models/common.py: the state a run carries into the next, written by its own model). Values are validated exactly as
the pydantic data converter would (from JSON), so valid input gives the same model as before.

Before any of that the raw value is measured (`raw_problems`): its encoded size (at most the model's `MAX_BYTES`,
else `MAX_INPUT_BYTES`), its nesting (at most `MAX_DEPTH`), no lone surrogate in any text, no number out of range.
A payload the data converter could not decode at all (invalid JSON, nesting past the parser's limit) arrives as an
`Undecodable` (core/converter.py) and is refused the same way: the run fails at once, the signal is recorded as a
rejection, the update is rejected — never a workflow task retried forever.
"""

from __future__ import annotations

import difflib
import json
import math
import types
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from models.common import CARRIED, Undecodable

M = TypeVar("M", bound=BaseModel)

EXPECTED = {
    "int_parsing": "an integer", "int_type": "an integer", "int_from_float": "an integer",
    "float_parsing": "a number", "float_type": "a number", "decimal_parsing": "a number",
    "string_type": "a string", "bool_parsing": "true or false", "bool_type": "true or false",
    "list_type": "a list", "tuple_type": "a list", "set_type": "a list",
    "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
    "datetime_parsing": "a date-time (ISO 8601)", "datetime_type": "a date-time (ISO 8601)",
    "datetime_from_date_parsing": "a date-time (ISO 8601)",
    "date_parsing": "a date (YYYY-MM-DD)", "date_type": "a date (YYYY-MM-DD)",
    "date_from_datetime_parsing": "a date (YYYY-MM-DD)", "none_required": "null",
}
MAX_SHOWN = 60
MAX_INPUT_BYTES = 256 * 1024   # a workflow input, signal or update argument (JSON, UTF-8) unless its model says
MAX_DEPTH = 32                 # objects/lists nested deeper than any model is refused before validation
MAX_PROBLEMS = 12              # problems named in one message (then "… and N more")
MAX_MESSAGE_CHARS = 2000       # the longest message: it is recorded in the history


class InvalidInput(ValueError):
    """The input cannot become the model; `str(err)` is the one line to show."""


def max_bytes(model: type[BaseModel]) -> int:
    """The most bytes (JSON, UTF-8) an input of `model` may take: its `MAX_BYTES`, else MAX_INPUT_BYTES."""
    return int(getattr(model, "MAX_BYTES", MAX_INPUT_BYTES))


def encoded_size(raw: Any) -> int:
    """Bytes of `raw` as compact JSON in UTF-8 (lone surrogates counted, never raising)."""
    text = json.dumps(raw, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=True)
    return len(text.encode("utf-8", "surrogatepass"))


def raw_problems(raw: Any, limit: int = MAX_INPUT_BYTES) -> list[str]:
    """What makes `raw` unusable before any model sees it: too deep, a lone surrogate, a number out of range,
    or more than `limit` bytes. Empty when it is fine."""
    if isinstance(raw, Undecodable):
        return [f"the payload is not valid JSON: {raw.reason}"]
    problems: list[str] = []
    stack: list[tuple[Any, str, int]] = [(raw, "", 0)]
    while stack and len(problems) < 3:
        value, path, depth = stack.pop()
        where = f"{path}: " if path else ""
        if depth > MAX_DEPTH:
            problems.append(f"{where}nested more than {MAX_DEPTH} levels deep")
            break
        if isinstance(value, str):
            if _has_surrogate(value):
                problems.append(f"{where}text with an invalid character (a lone UTF-16 surrogate)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                problems.append(f"{where}a number out of range ({value})")
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(k, str) and _has_surrogate(k):
                    problems.append(f"{where}a field name with an invalid character (a lone UTF-16 surrogate)")
                stack.append((v, _join(path, f".{_key(k)}" if path else _key(k)), depth + 1))
        elif isinstance(value, list | tuple):
            stack.extend((v, _join(path, f"[{i}]"), depth + 1) for i, v in enumerate(value))
    if not problems:
        size = encoded_size(raw)
        if size > limit:
            largest = ""
            if isinstance(raw, dict) and raw:
                key = max(raw, key=lambda k: encoded_size(raw[k]))
                largest = f" ({str(key)[:40]}: {encoded_size(raw[key]):,} bytes)"
            problems.append(f"too large: {size:,} bytes of JSON{largest}, at most {limit:,}")
    return problems


def _key(key: Any) -> str:
    """A field name as a message shows it: as sent when plain, else escaped and short."""
    name = str(key)
    return name if name.isprintable() and 0 < len(name) <= 40 and not _has_surrogate(name) else ascii(name[:40])


def _join(path: str, part: str) -> str:
    return path + part if len(path) < 80 else path.rstrip("…") + "…"


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def parse_input(model: type[M], raw: Any, what: str) -> M:
    """`raw` (decoded JSON, or already a `model`) as a `model`, or InvalidInput saying what is wrong."""
    problems = raw_problems(raw.model_dump(mode="json") if isinstance(raw, model) else raw, max_bytes(model))
    if problems:
        raise InvalidInput(f"invalid {what}: " + "; ".join(problems))
    if isinstance(raw, model):
        return raw     # validated when it was made (in-process callers), measured above
    problems = input_problems(model, raw)
    if problems:
        raise InvalidInput(f"invalid {what}: " + summary(problems))
    return model.model_validate_json(json.dumps(raw))


def summary(problems: list[str]) -> str:
    """The problems as one line of at most MAX_MESSAGE_CHARS (the first MAX_PROBLEMS, then how many more): a
    message never grows with the input (it is recorded in the history and shown in full)."""
    shown: list[str] = []
    for problem in problems[:MAX_PROBLEMS]:
        if len("; ".join([*shown, problem])) > MAX_MESSAGE_CHARS - 40:
            break
        shown.append(problem)
    if not shown:
        shown = [problems[0][:MAX_MESSAGE_CHARS - 41] + "…"]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; … and {more} more" if more > 0 else "")


def input_problems(model: type[BaseModel], raw: Any) -> list[str]:
    """Every problem of `raw` as `model`: unknown fields first, then pydantic's errors, each naming its field."""
    if raw is None:
        return [f"no input given: expected a JSON object with {_fields_hint(model)}"]
    if not isinstance(raw, dict):
        return [f"expected a JSON object with {_fields_hint(model)}, got {_show(raw)}"]
    problems = unknown_fields(model, raw)
    try:
        model.model_validate_json(json.dumps(raw))
    except ValidationError as err:
        problems += [_describe(e) for e in err.errors(include_url=False)]
    except (TypeError, ValueError) as err:   # not JSON-serialisable (only possible for in-process callers)
        problems.append(str(err))
    return problems


def unknown_fields(model: type[BaseModel], raw: dict[str, Any], path: str = "") -> list[str]:
    """Keys of `raw` (and of nested objects) that `model` does not define, each with the known ones."""
    if model.model_config.get("extra") == "allow":
        return []
    fields = model.model_fields
    known = [f.alias or name for name, f in fields.items()]
    accepted = set(known) | set(fields)
    out: list[str] = []
    for key in raw:
        if key not in accepted:
            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.75)
            hint = f"did you mean {close[0]!r}? " if close else ""
            where = f"{path}: " if path else ""
            out.append(f"{where}unknown field {key!r} ({hint}known: {', '.join(known)})")
    for name, f in fields.items():
        key = f.alias or name
        if key in raw and CARRIED not in f.metadata:     # a run's carried state: its own model wrote it
            out += _nested_unknown(f.annotation, raw[key], f"{path}.{key}" if path else key)
    return out


def _nested_unknown(annotation: Any, value: Any, path: str) -> list[str]:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return unknown_fields(annotation, value, path) if isinstance(value, dict) else []
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _nested_unknown(options[0], value, path) if len(options) == 1 else []
    if origin in (list, tuple, set, frozenset) and args and isinstance(value, list):
        out: list[str] = []
        for i, item in enumerate(value):
            out += _nested_unknown(args[0], item, f"{path}[{i}]")
        return out
    if origin is dict and len(args) == 2 and isinstance(value, dict):
        out = []
        for k, item in value.items():
            out += _nested_unknown(args[1], item, f"{path}[{k!r}]")
        return out
    if args and getattr(annotation, "__metadata__", None) is not None:  # Annotated[X, ...]
        return _nested_unknown(args[0], value, path)
    return []


def _describe(error: Any) -> str:
    loc = _loc(error.get("loc", ()))
    kind = error.get("type", "")
    if kind == "missing":
        *parent, last = error.get("loc", ("?",))
        where = f"{_loc(tuple(parent))}: " if parent else ""
        return f"{where}missing field {last!r}"
    if kind in EXPECTED:
        return f"{loc}: expected {EXPECTED[kind]}, got {_show(error.get('input'))}"
    msg = str(error.get("msg", "invalid value"))
    msg = msg.removeprefix("Value error, ")
    msg = msg.replace("Input should be", "expected").replace("input should be", "expected")
    msg = msg[:1].lower() + msg[1:]
    shown = f", got {_show(error.get('input'))}" if "input" in error else ""
    return f"{loc}: {msg}{shown}" if loc else f"{msg}{shown}"


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{_key(part)}" if out else _key(part))
    return out


def _show(value: Any) -> str:
    if value is None:
        return "null"
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


def _fields_hint(model: type[BaseModel]) -> str:
    required = [f.alias or n for n, f in model.model_fields.items() if f.is_required()]
    known = [f.alias or n for n, f in model.model_fields.items()]
    listed = f"required: {', '.join(required)}" if required else f"known: {', '.join(known)}"
    return f"the fields of {model.__name__} ({listed})"
