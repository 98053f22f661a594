"""Publishing is a human's act where the config asks for one (issue 39).

The invariant, for every sequence of events a writing run can see (rejections, gate results, breakers,
orchestrator decisions, timeouts, budget halts): a run whose config has a `human-approval` state ends
`complete` only with a post a human approved, that synthesis wrote and a final audit read (where the config
has those states). A breaker or the orchestrator may halt such a run, or end it `forced` ("forced — not
approved") carrying the last post a human approved, if any; it never publishes a post nobody saw. Runs whose
config has no human in the loop keep the seed's rules (force_complete may use the best draft).

Pure: models and stdlib only. The workflow builds a `PostRecord` from its run state (`record_of`) and asks
`decide_end` how the run ends; tests/unit/writing/test_publish_invariant.py drives the same functions with
generated event sequences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.writing.workflow import RunState, WorkflowConfig

FORCED = "forced"
FORCED_WORDS = "forced — not approved"


@dataclass(frozen=True)
class Requirements:
    """What a post needs before it may be published, from the config's states."""

    approval: bool = False   # a human-approval state exists: a human must approve the post
    synthesis: bool = False  # a synthesize task exists: the post must be a synthesis
    audit: bool = False      # a final_audit task exists: a final audit must have read the post


def requirements(cfg: WorkflowConfig) -> Requirements:
    states = cfg.states.values()
    return Requirements(approval=any(st.type == "human-approval" for st in states),
                        synthesis=any(st.task == "synthesize" for st in states),
                        audit=any(st.task == "final_audit" for st in states))


@dataclass
class PostRecord:
    """Which posts went through which step (artifact names, oldest first)."""

    synthesized: list[str] = field(default_factory=list)
    audited: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    approved: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class End:
    status: str
    post: str | None          # the artifact name the run ends with (None: no post)
    reason: str | None = None  # why the end differs from the one proposed (None: as proposed)


def record_of(s: RunState) -> PostRecord:
    """The run's record, from what it keeps: successful synthesize / final-audit calls (their output and the
    inputs they read) and the posts a human approved."""
    ok = [i for i in s.invocations if i.status == "success"]
    return PostRecord(synthesized=[i.output_name for i in ok if i.task == "synthesize" and i.output_name],
                      audited=[name for i in ok if i.task == "final_audit" for name in i.inputs],
                      shown=list(s.shown_posts), approved=list(s.approved_posts))


def unpublishable(req: Requirements, rec: PostRecord, post: str | None) -> str | None:
    """Why `post` may not be published under `req` (None: it may). Only a human-approval config asks."""
    if not req.approval:
        return None
    if post is None:
        return "there is no post"
    if req.synthesis and post not in rec.synthesized:
        return f"{post} did not go through synthesis"
    if req.audit and post not in rec.audited:
        return f"{post} was never read by a final audit"
    if post not in rec.shown:
        return f"{post} was never shown to the human reviewer"
    if post not in rec.approved:
        return f"no human approved {post}"
    return None


def last_approved(req: Requirements, rec: PostRecord) -> str | None:
    """The newest post a human approved that may be published, else None."""
    return next((p for p in reversed(rec.approved) if unpublishable(req, rec, p) is None), None)


def decide_end(req: Requirements, rec: PostRecord, status: str, post: str | None, forced: bool = False) -> End:
    """How the run ends, given the status it would end with and the post it would end with.

    - no human in the config: as proposed;
    - `complete` with a publishable post: as proposed;
    - `complete` otherwise: `forced` when the orchestrator forced it, else `halted` — with the last approved
      post, if any;
    - any other end (halted, failed, ...): the status stays; the post is the last approved one (a run that did
      not complete never hands out a post no human approved)."""
    if not req.approval:
        return End(status, post, None)
    if status == "complete":
        problem = unpublishable(req, rec, post)
        if problem is None:
            return End(status, post, None)
        keep = last_approved(req, rec)
        kept = f"; the last approved post is {keep}" if keep else "; no post was approved"
        if forced:
            return End(FORCED, keep, f"{FORCED_WORDS}: the orchestrator forced completion, but {problem} — "
                                     f"only a human publishes in this config{kept}")
        return End("halted", keep, f"not published: {problem} — only a human publishes in this config{kept}")
    return End(status, last_approved(req, rec), None)


def is_published(status: str) -> bool:
    """A status whose post is the run's published result."""
    return status in ("complete", "complete_below_floor")
