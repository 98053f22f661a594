"""What `colloquy serve` writes to the artifact store, and nothing else (least privilege): serve only reads, except

- the interview room's recorded answers (client/web/voice/room.py): `audio-<interview id>/clip-<sha>.<ext>`,
  written before the audio worker transcribes them. A clip (up to rules.voice.clips.MAX_CLIP_BYTES, 12 MB) cannot
  travel to the worker in a workflow input instead: Temporal caps a payload at 2 MB, and the audio would then sit
  in the run's history for as long as the history is kept, not under the audio retention rule (docs/voice.md);
- a researcher's edited study themes (client/web/study/themes.py): `<study id>/findings-edited.json`,
  `findings-edited.md`, `report-edited.html`.

deploy/k8s/serve-object-store-policy.json grants serve's credentials exactly these (s3:PutObject) and reading
(s3:GetObject) the rest; tests/unit/platform/test_serve_writes.py keeps the two, the code and docs/operations.md in
step. Keys are the store's `scope/name` (activities/artifact_store.py `key_for`), under COLLOQUY_S3_PREFIX.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

#: Key patterns serve may write (`*` matches any characters, '/' included, as in an S3 policy's Resource).
SERVE_WRITES: tuple[str, ...] = ("audio-*/clip-*", "*/findings-edited.json", "*/findings-edited.md",
                                 "*/report-edited.html")


def serve_may_write(key: str) -> bool:
    """True when `colloquy serve`'s scoped credentials allow writing the object `key` (scope/name)."""
    return any(fnmatchcase(key, pattern) for pattern in SERVE_WRITES)
