"""Hypothesis strategies for the doors: documents generated from a JSON schema (the subset pydantic writes:
objects, required fields, strings with lengths, numbers with bounds, arrays, maps, anyOf, enum/const, $ref), the
same documents with one value spoiled, and hostile JSON (lone surrogates, deep nesting, huge and non-finite
numbers, long texts). Used by tests/unit/platform/test_door_fuzz.py for the workflow doors and the HTTP routes."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SURROGATES = st.sampled_from(["\ud800", "\udfff", "a\udc80b"])
TEXT = st.one_of(st.text(max_size=20), st.text(max_size=20).flatmap(lambda t: SURROGATES.map(lambda s: t + s)),
                 st.integers(1, 70_000).map(lambda n: "x" * n))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=2 ** 63),
                    st.floats(allow_nan=True, allow_infinity=True), TEXT)


def deep(n: int) -> Any:
    value: Any = []
    for _ in range(n):
        value = [value]
    return value


HOSTILE = st.one_of(
    st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                 max_leaves=12),
    st.integers(20, 400).map(deep),
)


def from_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None, depth: int = 0) -> st.SearchStrategy[Any]:
    """Documents valid for `schema` as far as its keywords go (patterns and formats are not honoured: a
    generated value may still be refused, which is part of what the doors are tested for)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if depth > 6:
        return st.none()
    if "$ref" in schema:
        return st.deferred(lambda: from_schema(defs[schema["$ref"].rsplit("/", 1)[1]], defs, depth + 1))
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, defs, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if kind == "string":
        low, high = schema.get("minLength", 0), min(schema.get("maxLength", 40), 300)
        longer = st.integers(high + 1, high + 5).map(lambda n: "y" * n) if "maxLength" in schema else st.nothing()
        return st.text(min_size=low, max_size=max(low, high)) | longer
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = from_schema(schema.get("items", {}), defs, depth + 1)
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 3), 3))
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if not props:
            values = from_schema(schema.get("additionalProperties") or {}, defs, depth + 1) \
                if isinstance(schema.get("additionalProperties"), dict) else SCALARS
            return st.dictionaries(st.text(max_size=10), values, max_size=3)
        required = set(schema.get("required", []))
        fields = {name: from_schema(sub, defs, depth + 1) for name, sub in props.items()}
        optional = [name for name in props if name not in required]
        return st.fixed_dictionaries({n: fields[n] for n in props if n in required},
                                     optional={n: fields[n] for n in optional})
    return SCALARS


def spoiled(documents: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A document with one of its values (or a new field) replaced by hostile JSON."""
    @st.composite
    def spoil(draw: st.DrawFn) -> Any:
        doc = draw(documents)
        if not isinstance(doc, dict):
            return draw(HOSTILE)
        use_field = bool(doc) and draw(st.booleans())
        key = draw(st.sampled_from(sorted(doc))) if use_field else draw(TEXT)
        return {**doc, key: draw(HOSTILE)}

    return spoil()


def door_inputs(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    documents = from_schema(schema)
    return st.one_of(documents, spoiled(documents), HOSTILE)
