"""The fixed agent inputs of `python -m bench.local_models` (written for the bench; no real person's words).

Two interview transcripts (an on-call engineer, a village baker) give the Orchestrator's decisions (early and late in
each conversation), the Analysis and the essay; two topics give the Planner's plans; one notes question with the
Analyzer's findings gives the Synthesizer's answer; one short story gives a writing draft."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Interview:
    slug: str
    topic: str
    research_goal: str
    angle: str
    name: str
    #: (interviewer question, interviewee answer) in order
    turns: tuple[tuple[str, str], ...]


PLAN_TOPICS: tuple[tuple[str, str], ...] = (
    ("What on-call taught me", "A backend engineer who carried the pager for a payments team for four years."),
    ("Running a village bakery", "A baker who took over her grandmother's bakery and kept it open through a "
                                 "flood."),
)

INTERVIEWS: tuple[Interview, ...] = (
    Interview(
        slug="oncall", topic="What on-call taught me", research_goal="How carrying the pager changes an engineer",
        angle="Pager fatigue is a design problem, not a personal one", name="Maya", turns=(
            ("How did you end up carrying the pager?",
             "Honestly, by accident. I answered the pager one night when nobody else did, and after a year the "
             "rotation was simply mine."),
            ("Tell me about the worst night you had on call.",
             "A certificate expired at two in the morning during our biggest sale of the year. The alert went to a "
             "channel nobody read, so customers told us before our monitoring did."),
            ("What did you change after that night?",
             "We deleted every alert nobody had acted on in ninety days. Our pages dropped by seventy percent and "
             "people started trusting the ones that were left."),
            ("How do you know whether a rotation is healthy?",
             "I count the nights people were woken up, not the incidents. If the same person is woken twice in a "
             "week, the system is broken, not the person."),
            ("What would you never do again?",
             "I would never again ship a migration on a Friday without a written rollback. We did it once and I "
             "spent the weekend restoring backups by hand."),
        )),
    Interview(
        slug="bakery", topic="Running a village bakery", research_goal="What keeps a small family bakery alive",
        angle="A bakery survives on routine and on its neighbours", name="Ines", turns=(
            ("How did the bakery become yours?",
             "My grandmother ran it for forty years. When her hands got too stiff to knead, I left my office job and "
             "came back to the village to learn her bread."),
            ("What does a normal morning look like?",
             "I start the ovens at half past three. By six the first loaves are out and the farmers come in before "
             "the fields, always for the same rye."),
            ("Tell me about the flood.",
             "The river came into the shop in March and ruined both mixers. We baked in a neighbour's kitchen for "
             "three weeks, forty loaves a night in a home oven."),
            ("What did the village do while you were closed?",
             "People paid for bread they could not collect yet. The school lent us its hall to sell from, and "
             "nobody asked for their money back."),
        )),
)

#: The notes question: what the Analyzer found in the notes (claims with the entry ids they rest on).
NOTES_QUESTION = "Why did my bench press feel heavy on January 9?"
NOTES_ENTRIES = {
    "2026-01-05": "Bench press 3x5 at 60 kg, felt strong. Slept 8 hours.",
    "2026-01-07": "Squat 3x5 at 80 kg. Knees a bit sore.",
    "2026-01-09": "Bench press 3x5 at 62.5 kg, felt heavy. Slept 5 hours.",
}
NOTES_FINDINGS = (
    ("On January 9 you slept 5 hours, against 8 hours before the strong session on January 5.", ["2026-01-09",
                                                                                               "2026-01-05"]),
    ("The weight went up from 60 kg to 62.5 kg between the two bench sessions.", ["2026-01-05", "2026-01-09"]),
)

STORY = ("# The lighthouse keeper\n\nMara kept the light on the north rock for thirty years. Every night she climbed "
         "the hundred and twelve steps, trimmed the wick and watched the ships pass. One winter a storm cut the "
         "cable to the mainland and no supply boat came for six weeks. She rationed the oil, burned the furniture "
         "for heat and kept the lamp lit. When the boat finally came, the captain asked why she had not simply "
         "let it go dark for a few nights. She said the ships did not know about the storm on the cable.\n")
