"""InterviewWorkflow's patch ids (see models/patches/__init__.py). The pure session (rules/interview/session_*.py)
asks them through `Session.patched`, the workflow's own ones through `workflow.patched`."""

from __future__ import annotations

from datetime import date

from models.patches.registry import declare

_SHIPPED = date(2026, 11, 26)
_TRUTH = ("interview_before_truth_adaptive", "interview_before_truth_structured")                  # issue 11
_QUESTION_TRUTH = ("interview_before_question_truth_adaptive", "interview_before_question_truth_structured")
_CARRIED = ("interview_continued_run1", "interview_continued_run2")


def _declare(id: str, pinned_by: tuple[str, ...], what: str) -> str:
    return declare("interview", id, pinned_by, _SHIPPED, what)


LATE_GRACE = _declare("interview-late-grace-only-for-the-previous-question", _TRUTH,
                      "a late answer belongs to the previous section only while it answers that section's question")
CLOSING = _declare("interview-closing-needs-a-person-and-no-topic-turn", _TRUTH,
                   "a closing remark ends the interview only from a person, with no topic turn after it")
LISTEN = _declare("interview-listeners-only-on-interviewee-content", (*_TRUTH, "interview_after_scale"),
                  "NoteTaker/Researcher run only when the interviewee said something new")
ENDS_AT = _declare("interview-ends-at-follows-early-sections", _TRUTH,
                   "a section ending early brings the interview's end forward")
KEEP_QUESTION = _declare("interview-question-kept-until-answered", _QUESTION_TRUTH,
                         "the question in force is not swapped at a phase change or a new run")
NO_REPEAT = _declare("interview-no-repeated-question", _QUESTION_TRUTH,
                     "an answered question is never asked again")
POOL_EXHAUSTED = _declare("interview-section-ends-when-followups-run-out", _QUESTION_TRUTH,
                          "a structured section ends when no follow-up is left for what is still open")
LATE_SUMMARY = _declare("interview-summary-after-late-grace", _QUESTION_TRUTH,
                        "a section's summary waits for its late answers")
CLOCK_CATCH_UP = _declare("interview-clock-catches-up", _QUESTION_TRUTH,
                          "a late timer settles everything due at once")
END_BEFORE_START = _declare("interview-end-before-start-stays-ended", _QUESTION_TRUTH,
                            "an `end` delivered with the start is logged after the creation and stays ended")
PLANNER_FITS = _declare("interview-planner-times-fit-the-duration", _QUESTION_TRUTH,
                        "a model's section times are shares of the duration asked for")
QUIET_CYCLE = _declare("interview-timers-only-when-due", ("interview_before_scale", "interview_after_scale"),
                       "the live loop arms a timer only when something is due (no cadence ticker)")
BOUNDED_PAYLOADS = _declare("interview-bounded-payloads", _CARRIED,
                            "carried state and archive chunks stay under their byte bounds")
ENDED_NOT_CARRIED = _declare("interview-ended-is-not-carried", _CARRIED,
                             "an interview that ended is not continued as new")
FINISH_CARRIED_END = _declare("interview-carried-end-finishes", _CARRIED,
                              "a run that starts from a state carried after the end only writes up")
_SHIPPED_CARRY = date(2026, 11, 27)
CARRY_ARRIVALS = declare("interview", "interview-carry-archives-arrivals", _CARRIED, _SHIPPED_CARRY,
                         "entries that arrive while a run archives are archived too before the state is carried")
NOTES_BOUNDED = declare("interview", "interview-notes-and-research-bounded", _CARRIED, _SHIPPED_CARRY,
                        "the merged notes and research items shed their oldest past a byte budget")
_ENGINE_ASKS = ("interview_engine_asks_adaptive", "interview_engine_asks_structured")
ENGINE_ASKS = declare("interview", "interview-engine-records-its-question", _ENGINE_ASKS, _SHIPPED_CARRY,
                      "the engine records the question it puts in force as the interviewer's entry (one event, one "
                      "id); clients no longer echo it, and no entry is matched against the decision")
NO_BLANK = declare("interview", "interview-no-blank-question", ("interview_blank_question",), _SHIPPED_CARRY,
                   "a blank question is never put in force: a plan's blank questions are dropped (a plan left with "
                   "none gets the topic's default), an Orchestrator's blank proposal gives way to the fallback's")
_SHIPPED_QUESTIONS = date(2026, 11, 27)
ASKABLE = declare("interview", "interview-shown-text-is-a-question", ("interview_question_text",), _SHIPPED_QUESTIONS,
                  "every text put in front of the interviewee is a question (rules/interview/question_text.py): an "
                  "Orchestrator proposal that is not gives way to the fallback's, a model's plan keeps only questions")
NO_REASK = declare("interview", "interview-no-reask-across-sessions", ("interview_question_text",), _SHIPPED_QUESTIONS,
                   "a follow-up never puts in force a question answered in an earlier session of the interview")
LATE_TO_LAST_RUN = declare("interview", "interview-late-answer-to-the-last-section-run", ("interview_question_text",),
                           _SHIPPED_QUESTIONS, "an answer after the time ran out belongs to the last section that ran, "
                           "not to one the time never reached (where no summary ever read it)")
_SHIPPED_ONE_ANSWER = date(2026, 11, 28)
_ONE_ANSWER = ("interview_question_text", "interview_one_answer")   # recorded before / with the change (issue 35)
ANSWER_PARTS = declare("interview", "interview-one-answer-in-parts", _ONE_ANSWER, _SHIPPED_ONE_ANSWER,
                       "the parts of one answer (`X`, `X-2`, ... or numbered) are one answer: the engine decides "
                       "once, after the last part, and a part that comes later never answers the question in force")
SEEN_QUESTION = declare("interview", "interview-answer-filed-with-the-question-seen", _ONE_ANSWER,
                        _SHIPPED_ONE_ANSWER, "an answer is filed with the question on screen when the person began "
                        "it (`reply_to_question_id`); a late answer never displaces the question in force")
DECISION_DEADLINE = declare("interview", "interview-decision-deadline", _ONE_ANSWER, _SHIPPED_ONE_ANSWER,
                            "no Orchestrator decision within decision_deadline_seconds of an answer: the fallback's "
                            "question is put in force (the console shows 'model slow'); the late decision is dropped")
_SHIPPED_QUIET_DEADLINE = date(2026, 11, 28)
DEADLINE_TIMER_CANCELLED = declare("interview", "interview-decision-deadline-timer-cancelled",
                                   ("interview_one_answer", "interview_deadline_cancelled"), _SHIPPED_QUIET_DEADLINE,
                                   "a decision in time cancels its deadline timer: no timer fires 8 s after every "
                                   "answer to wake the workflow for nothing (a workflow task per exchange, issue 40)")
_SHIPPED_LAST_TURN = date(2026, 11, 28)
LAST_TURN_CARRIED = declare("interview", "interview-last-turn-survives-the-archive", _CARRIED, _SHIPPED_LAST_TURN,
                            "archiving the transcript keeps which entry took the last turn: a question asked and "
                            "followed only by asides (later parts, answers to earlier questions) still waits for "
                            "its answer in the next run (found by tests/unit/interview/test_session_machine.py)")
SEEN_AFTER_ARCHIVE = declare("interview", "interview-question-seen-after-the-archive", _CARRIED, _SHIPPED_LAST_TURN,
                             "an answer stamped with a question an earlier run archived (`reply_to_question_id` not "
                             "in the kept tail) is filed with that question's section, read from the sections' "
                             "entries: an answer to the question in force is never filed late to the previous "
                             "section (found by tests/unit/interview/test_session_machine.py)")
