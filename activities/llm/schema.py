"""Output schemas as the gateway sends them: structured-output modes, small-model caps, token budgets.

- `STRUCTURED_MODES`: how a call asks for JSON (`json_schema` strict schema, `json_object` + the schema where the
  server takes it (llama.cpp turns it into a grammar) and in the prompt, `tools` a forced function call,
  `prompt` the schema in the prompt only). Every mode is parsed and validated the same way afterwards.
- `cap_schema`: bounds for small models (strings at most N characters, arrays at most N items), so a
  grammar-constrained 135M model can always finish the object inside its token budget.
- `token_budget`: the max_tokens a schema needs when filled completely (sized from its bounds), so every call
  carries a bound and none is cut off mid-object.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal, get_args

from pydantic import BaseModel

StructuredMode = Literal["json_schema", "json_object", "tools", "prompt"]
STRUCTURED_MODES: tuple[str, ...] = get_args(StructuredMode)

#: A mode the server rejected → the one tried next (then remembered for that model in this worker).
DOWNGRADE: dict[str, str] = {"json_schema": "json_object", "tools": "json_object", "json_object": "prompt"}

#: Estimated characters per token for JSON text (English words, punctuation, keys).
CHARS_PER_TOKEN = 3.0
#: A string without maxLength: assume this many characters (a sentence or two).
DEFAULT_STRING_CHARS = 240
#: An array without maxItems: assume this many items.
DEFAULT_ARRAY_ITEMS = 6
MIN_BUDGET, MAX_BUDGET = 128, 4096
#: Free-text calls (essays, drafts, discussion turns) without a declared budget.
TEXT_BUDGET = 1024


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local `$ref` replaced by its definition (no recursion in our models)."""
    root = schema

    def walk(node: Any, depth: int = 0) -> Any:
        if depth > 20:
            return {}
        if isinstance(node, dict):
            node = _resolve(node, root)
            return {k: walk(v, depth + 1) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v, depth + 1) for v in node]
        return node

    return walk(schema)


@lru_cache(maxsize=256)
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """`model.model_json_schema()`, generated once per model (pydantic builds it anew on every call: ~4 ms of
    CPU for an agent's output model, paid two or three times per LLM call before). A copy: callers may edit it."""
    return json_copy(_json_schema(model))


def shared_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The one cached schema of `model`, not a copy: for readers that build new values from it (`cap_schema`,
    `require_some`, `token_budget` …) and never edit it. What leaves the gateway (a request) is a `json_copy`."""
    return _json_schema(model)


def json_copy(node: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars): what `copy.deepcopy` does for a schema at a
    fifth of its cost (no memo, no dispatch per type), paid on every agent call."""
    if isinstance(node, dict):
        return {k: json_copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [json_copy(v) for v in node]
    return node


def _free_form(node: Any) -> bool:
    """An object of anything (`dict[str, Any]`: no declared properties, any values), optional or in a list:
    nothing to fill but keys and nesting the model invents. A typed map (`dict[str, str]`) is not free-form."""
    if not isinstance(node, dict):
        return False
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = [o for o in node[key] if not (isinstance(o, dict) and o.get("type") == "null")]
            return bool(options) and all(_free_form(o) for o in options)
    if node.get("type") == "array":
        return _free_form(node.get("items"))
    return (node.get("type") == "object" and not node.get("properties") and "$ref" not in node
            and node.get("additionalProperties", True) in (True, {}))


def cap_schema(schema: Any, max_string: int, max_items: int) -> Any:
    """Bound strings and arrays for a small model (never below a declared minimum), and leave out optional
    free-form objects: a grammar lets a small model nest invented keys in them until its token budget runs out
    (an unfinished object), and their defaults stand in."""
    if isinstance(schema, dict):
        out = {k: cap_schema(v, max_string, max_items) for k, v in schema.items()}
        if isinstance(out.get("properties"), dict):
            required = set(out.get("required") or [])
            out["properties"] = {k: v for k, v in out["properties"].items() if k in required or not _free_form(v)}
        if out.get("type") == "string" and "enum" not in out and "const" not in out:
            cap = min(int(out.get("maxLength", max_string)), max_string)
            out["maxLength"] = max(cap, int(out.get("minLength", 0)))
        if out.get("type") == "array":
            cap = min(int(out.get("maxItems", max_items)), max_items)
            out["maxItems"] = max(cap, int(out.get("minItems", 0)))
        return out
    if isinstance(schema, list):
        return [cap_schema(v, max_string, max_items) for v in schema]
    return schema


def one_item_each(schema: dict[str, Any], field: str, key: str, values: list[str]) -> dict[str, Any]:
    """`schema` (an output model's) with its array `field` turned into one item per value, in order, each item's
    `key` fixed to its value (a tuple: prefixItems). For calls that must cover a known list (every idea scored,
    every draft audited): a grammar-constrained small model otherwise picks which ones, and how they are called."""
    schema = inline_refs(schema)
    item = schema["properties"][field]["items"]
    schema["properties"][field] = {
        "type": "array", "minItems": len(values), "maxItems": len(values), "items": False,
        "prefixItems": [{**item, "properties": {**item["properties"], key: {"type": "string", "const": v}}}
                        for v in values]}
    return schema


def require_some(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema that requires none of its properties requires them all: the gateway refuses an answer
    with none of the output model's fields (`{}` is another schema, or nothing), so a grammar must not allow it
    (SmolLM2 answered `{}` for the Note-taker over HTTP). Fields with defaults stay optional for validation."""
    if schema.get("properties") and not schema.get("required"):
        return {**schema, "required": list(schema["properties"])}
    return schema


def enumerate_bounded_numbers(schema: Any) -> Any:
    """Bounded numbers as the list of their values: grammar-constrained decoding (llama.cpp's json_object +
    schema) ignores minimum/maximum, and a model then writes a score of 402 for a 1-10 field."""
    if isinstance(schema, dict):
        out = {k: enumerate_bounded_numbers(v) for k, v in schema.items()}
        if out.get("type") in ("integer", "number") and "enum" not in out:
            choices = _bounded_choices(out)
            if choices:
                out = {k: v for k, v in out.items() if k not in ("type", "minimum", "maximum", "exclusiveMinimum",
                                                                 "exclusiveMaximum")}
                out["enum"] = choices
        return out
    if isinstance(schema, list):
        return [enumerate_bounded_numbers(v) for v in schema]
    return schema


def _bounded_choices(node: dict[str, Any]) -> list[int | float] | None:
    """The values a small model picks from for a bounded number: every integer of a range of at most 21, or
    eleven evenly spaced numbers."""
    low = node.get("minimum", node.get("exclusiveMinimum"))
    high = node.get("maximum", node.get("exclusiveMaximum"))
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)) or high <= low:
        return None
    if node["type"] == "integer":
        lo = int(low) + (1 if "exclusiveMinimum" in node and "minimum" not in node else 0)
        hi = int(high) - (1 if "exclusiveMaximum" in node and "maximum" not in node else 0)
        return list(range(lo, hi + 1)) if 0 <= hi - lo <= 20 else None
    values = [round(low + (high - low) * i / 10, 4) for i in range(11)]
    if "exclusiveMinimum" in node and "minimum" not in node:
        values = values[1:]
    if "exclusiveMaximum" in node and "maximum" not in node:
        values = values[:-1]
    return [int(v) if float(v).is_integer() and node["type"] == "integer" else v for v in values]


def _tokens(node: Any, root: dict[str, Any], depth: int = 0) -> float:
    if not isinstance(node, dict) or depth > 12:
        return 4
    node = _resolve(node, root)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return max((_tokens(v, root, depth + 1) for v in node[key]), default=4)
    if "allOf" in node:
        return sum(_tokens(v, root, depth + 1) for v in node["allOf"])
    if "enum" in node or "const" in node:
        values = node.get("enum") or [node.get("const")]
        return 2 + max(len(json.dumps(v)) for v in values) / CHARS_PER_TOKEN
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        return 2 + int(node.get("maxLength", DEFAULT_STRING_CHARS)) / CHARS_PER_TOKEN
    if kind == "array" and isinstance(node.get("prefixItems"), list):  # a tuple: each position its own schema
        return 2 + sum(1 + _tokens(v, root, depth + 1) for v in node["prefixItems"])
    if kind == "array":
        items = int(node.get("maxItems", DEFAULT_ARRAY_ITEMS))
        return 2 + items * (1 + _tokens(node.get("items", {}), root, depth + 1))
    if kind == "object":
        props = node.get("properties") or {}
        total = 2.0
        for name, sub in props.items():
            total += 2 + len(name) / CHARS_PER_TOKEN + _tokens(sub, root, depth + 1)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not props:  # a free map: assume a few entries
            total += 4 * (4 + _tokens(extra, root, depth + 1))
        return total
    return 4  # number, integer, boolean, null


def token_budget(schema: dict[str, Any]) -> int:
    """max_tokens for one answer that fills `schema` completely (with 25% slack for whitespace and the
    tokenizer), within MIN_BUDGET..MAX_BUDGET."""
    estimate = _tokens(schema, schema) * 1.25 + 16
    return int(min(MAX_BUDGET, max(MIN_BUDGET, round(estimate))))


def prompt_schema(node: Any) -> Any:
    """The schema as the prompt shows it: no `title`s (pydantic's names for every field: noise), and a tuple of
    same-shaped items (one per idea, per draft) as one item whose key lists the values. The request's schema (the
    grammar) keeps every position; the prompt stays short (a moderator's prompt over HTTP was 3,200 tokens)."""
    if isinstance(node, list):
        return [prompt_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: prompt_schema(sub) for name, sub in value.items()}
        else:
            out[key] = prompt_schema(value)
    tuple_items = out.get("prefixItems")
    if isinstance(tuple_items, list) and tuple_items and all(isinstance(t, dict) for t in tuple_items):
        first = dict(tuple_items[0])
        props = dict(first.get("properties") or {})
        for name, sub in props.items():
            consts = [t.get("properties", {}).get(name, {}).get("const") for t in tuple_items]
            if isinstance(sub, dict) and "const" in sub and all(c is not None for c in consts):
                props[name] = {"type": "string", "enum": consts}
        first["properties"] = props
        out = {k: v for k, v in out.items() if k not in ("prefixItems", "items")}
        out["items"] = first
    return out


def schema_instruction(schema: dict[str, Any], name: str) -> str:
    """The schema, for the prompt (modes json_object and prompt)."""
    compact = json.dumps(prompt_schema(inline_refs(schema)), separators=(",", ":"))
    return (f"Answer with only one JSON object (no prose, no code fence) that matches this JSON schema "
            f"of {name}:\n{compact}")
