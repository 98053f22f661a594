"""The study workflow's erasure steps (patch study-erasure; docs/study.md, "Erasure"): called by StudyWorkflow.

- `erase_withdrawn`: each withdrawn participant's interview (every run), artifacts, audio and, with payload
  encryption on, data key (activities/study/erasure.py); the ledger then keeps only that they withdrew. True when
  one of them had saved corrections: their words are in this run's `member_check` updates, so the study goes on in
  a fresh run (continue-as-new, the ledger carried without them) ... An erasure that fails (the store refused,
  after the storage policy's retries) stays pending and is tried again at the study's next wake; the participant
  is withdrawn meanwhile, in no finding.
- `purge_earlier_runs`: ... which deletes the runs before it (DeleteWorkflowExecution). The interviews are
  children with parent-close ABANDON: they run on, found by id as after any continue-as-new.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.study import study_erase_participant, study_purge_runs
    from models.study.activities import EraseInput, PurgeRunsInput
    from models.study.workflow import StudyState
    from rules.errors import error_message
    from rules.study.ledger import Ledger
    from workflows.calls import call_activity


async def erase_withdrawn(study_id: str, ledger: Ledger) -> bool:
    """Erase every participant whose erasure is pending; True when the study's runs so far hold words of theirs."""
    had_words = False
    for p in ledger.to_erase():
        if p.interview_id:
            try:
                await call_activity(study_erase_participant, EraseInput(
                    study_id=study_id, participant_id=p.participant_id, interview_id=p.interview_id),
                    kind="storage", summary=f"erase {p.participant_id}'s data")
            except ActivityError as err:    # e.g. the store refused: still pending, tried again at the next wake
                workflow.logger.warning("erasing %s failed: %s", p.participant_id, error_message(err))
                continue
        had_words = had_words or bool(p.corrections)
        ledger.erased(workflow.now(), p)
    if had_words:
        ledger.state.purge_runs = True
    return had_words


async def purge_earlier_runs(study_id: str, state: StudyState) -> None:
    await call_activity(study_purge_runs, PurgeRunsInput(study_id=study_id, keep_run_id=workflow.info().run_id),
                        kind="storage", summary="delete the study's earlier runs (a withdrawn participant's words)")
    state.purge_runs = False
