"""App names: a domain app is a bare name from the apps/ registry (`apps/<name>/app.yaml`), never a path."""

from __future__ import annotations

import re

#: "general" or a directory name under apps/: lower-case letters, digits, '-' and '_', 1-64 characters.
APP_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def check_app_id(app_id: str) -> str:
    """The app id itself if it is a bare app name; otherwise ValueError with one clear line (no path, no '..')."""
    if not isinstance(app_id, str) or not APP_ID_PATTERN.fullmatch(app_id):
        raise ValueError(f"invalid app id {app_id!r}: an app is a name under apps/ "
                         "(lower-case letters, digits, '-' and '_'), or general")
    return app_id
