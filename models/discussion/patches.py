"""DiscussionWorkflow's patch ids (see models/patches/__init__.py)."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

_SHIPPED = date(2026, 11, 26)

NO_IDEAS_FAILS = declare("discussion", "discussion-no-ideas-fails-validation", ("discussion_standard",), _SHIPPED,
                         "a discussion whose ideation produced no idea fails validation")
SELECT_WITHOUT_MODERATOR = declare("discussion", "discussion-select-without-moderator", ("discussion_standard",),
                                   _SHIPPED, "without a moderator on the team, the Team Leader selects the idea")
STRICT_INPUT = declare("discussion", "discussion-strict-input", ("discussion_standard",), date(2026, 11, 27),
                       "a role named twice in the team is refused; model ids get the shared check")
