"""Issue 41 item 3: the essay holds to what the person said. A small local model wrote, for an on-call engineer,
"The Interviewer: I'm a beekeeper for over two decades" — speaker residue and invented details, shown as written.
Now the Writer checks the model's essay like input at a door: that sentence is dropped, and when too little of
the essay survives it is the interviewee's own sentences, labelled extractive."""

from __future__ import annotations

from activities.artifacts import store
from rules.interview.essay_checks import Speaker, measure
from rules.interview.essay_repair import EXTRACTIVE_LABEL, essay_sentences
from tests.workflows.interview.helpers import say, start

ANSWERS = ["I have carried the pager for the payments team for six years, and the worst nights were always "
           "settlement batches failing at three in the morning.",
           "We had no runbooks at first, so I wrote one for every alert, and the pages dropped by half."]
BEEKEEPER = ("# A Life Among the Hives\n\nThe Interviewer: I'm a beekeeper for over two decades. The Interviewee "
             "explained that bees taught her patience. She said \"honey is the reward for waiting\". Every spring "
             "I open the hives at dawn.\n")


async def test_the_beekeeper_essay_is_not_shown_for_an_on_call_engineer(ts_env, worker, offline):
    offline.script("interview_writer", BEEKEEPER)
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, duration_seconds=60, interviewee_name="Maya Chen")
        for answer in ANSWERS:
            await say(h, "interviewee", answer)
        result = await h.result()
    essay = store().get(result.essay)
    assert "beekeeper" not in essay and "Interviewer:" not in essay and "honey" not in essay and "hives" not in essay
    assert EXTRACTIVE_LABEL in essay                      # labelled: the model's essay did not hold to the transcript
    assert result.title != "A Life Among the Hives"              # nor its title: the analysis's, or the topic
    figures = measure(essay_sentences(essay.removeprefix("[offline test double]")), Speaker.of(ANSWERS, "Maya Chen"))
    assert figures.quotes_verbatim_pct == 100.0 and figures.first_person and figures.supported_pct >= 80.0
