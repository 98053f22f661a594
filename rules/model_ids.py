"""One check for a litellm model id, shared by every pipeline's input checks (issue 39: the discussion refused
`<img src=x>` for its space but accepted `<script>alert(1)</script>`).

A model id is `provider/name[:tag]` and the like (`openai/gpt-4o-mini`, `ollama/llama3.1:8b-instruct-q4_K_M`,
`@cf/meta/llama-3-8b-instruct`, `bedrock/anthropic.claude-v2`): letters, digits and `. _ : / @ + -`, at most
MAX_MODEL_ID_CHARS characters. Pure: stdlib only.
"""

from __future__ import annotations

import re

MAX_MODEL_ID_CHARS = 200
MODEL_ID = re.compile(r"[A-Za-z0-9@][A-Za-z0-9._:/@+\-]*")


def model_id_problem(model: str) -> str | None:
    """Why `model` is not a litellm model id (None: it may be one)."""
    model = model.strip()
    if not model:
        return "the model id is empty"
    if len(model) > MAX_MODEL_ID_CHARS:
        return f"the model id is longer than {MAX_MODEL_ID_CHARS} characters"
    if not MODEL_ID.fullmatch(model):
        return (f"{model[:60]!r} is not a litellm model id (provider/name, e.g. openai/gpt-4o-mini: letters, digits "
                "and . _ : / @ + - only)")
    return None
