"""Python's garbage collector, set for a long-running worker process (`colloquy worker`; docs/performance.md).

Two changes to CPython's defaults, made once by `run_workers` before the worker polls (`COLLOQUY_WORKER_GC_TUNED=0`
keeps Python's own settings):

- **the startup heap frozen** (`gc.freeze`, after one collection): by then the worker has imported everything —
  litellm with its model and price maps, pydantic's schemas, the SDK — about 440,000 objects that live as long as
  the process. Left in the oldest generation, every full collection walks them all: ~0.25 s of CPU each in a busy
  `llm` worker, the event loop stopped meanwhile, about twice a minute at 250 sessions. Frozen, a full collection
  walks only what the running worker made (sessions' sandboxes, caches).
- **the young generation collected every 10,000 net allocations, not every 700.** The count is allocations minus
  deallocations of container objects, and a worker's are nearly all short-lived (protobuf messages, pydantic
  models, dicts of one activation or one model call) and freed by reference counting. At 700 a busy `llm` worker
  ran ~300 young collections a minute, each walking objects about to be freed anyway; at 10,000, a few.

Neither frees less: reference counting frees what it always did, and cycles made after the freeze are still
collected (a little later, with at most ~10,000 more young objects waiting). Workers run in-process
(`running_workers`: tests, the demo) leave the collector as it is.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping

GC_TUNED_ENV = "COLLOQUY_WORKER_GC_TUNED"
YOUNG_THRESHOLD = 10_000
_ON = ("", "1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")


def gc_tuned(environ: Mapping[str, str] | None = None) -> bool:
    """`COLLOQUY_WORKER_GC_TUNED`: on unless 0, false, no or off; any other value is a ValueError naming it
    (`colloquy worker` exits 2 on it before connecting)."""
    raw = (os.environ if environ is None else environ).get(GC_TUNED_ENV, "")
    value = raw.strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(f"{GC_TUNED_ENV}={raw[:40]!r}: use 1 or 0 (or on/off, true/false, yes/no)")


def tune_collector(enabled: bool | None = None) -> int:
    """Collect once, freeze every object alive now, and raise the young generation's threshold; returns how many
    objects were frozen (0, and nothing changed, when `enabled` — else COLLOQUY_WORKER_GC_TUNED — says off)."""
    if not (gc_tuned() if enabled is None else enabled):
        return 0
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
    return gc.get_freeze_count()
