"""The writing CLI's terminal helpers (split from client/writing/cli.py)."""

from __future__ import annotations

import os
import sys


def discard_typed_ahead(stream=None) -> bool:  # noqa: ANN001 - a text stream (sys.stdin by default)
    """Drop what was typed on the terminal before the post was shown (issue 39: an `approve` typed while the run
    was still drafting waited in the input buffer and approved, unseen, the post that came next). Piped answers
    are kept: a script answers on purpose. True when something was dropped."""
    import select

    stream = sys.stdin if stream is None else stream
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return False
        import termios

        waiting = bool(select.select([fd], [], [], 0)[0])
        termios.tcflush(fd, termios.TCIFLUSH)
        return waiting
    except (AttributeError, ImportError, OSError, ValueError):  # no terminal to flush (Windows, a closed stream)
        return False
