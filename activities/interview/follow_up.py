"""Follow-Up (000): transcript, notes, plan → summary, 3 topics with starter questions, gaps, strengthen areas."""

from __future__ import annotations

from activities.agents.base import AgentSpec
from activities.artifacts import completed_once
from activities.interview.common import entries_context, language_label, load_transcript, transcript_text
from activities.llm import offline
from models.common import AgentResult
from models.interview.activities import FollowUpInput
from models.interview.analysis import FollowUpAnalysis, FollowUpTopic
from rules.interview.notes import summary_text

FOLLOW_UP = AgentSpec("interview_follow_up", "interview/follow_up.md", FollowUpAnalysis, tier="medium",
                      policy="agent",
                      description="Interview: suggests threads for a 6-minute follow-up session")


@FOLLOW_UP.activity
@completed_once
async def interview_follow_up(inp: FollowUpInput) -> AgentResult[FollowUpAnalysis]:
    entries = load_transcript(inp.transcript)
    result = await FOLLOW_UP.run(
        {"topic": inp.plan.topic, "research_goal": inp.plan.research_goal, "notes_text": summary_text(inp.notes),
         "transcript": transcript_text(entries), "language": language_label(inp.plan.language)},
        offline_context={"window": entries_context(entries), "topic": inp.plan.topic,
                         "gaps": [g.description for g in inp.notes.gaps],
                         "unasked": [q.text for s in inp.plan.sections for q in s.questions][-3:]})
    result.output.suggested_topics = result.output.suggested_topics[:3]
    return result


@FOLLOW_UP.offline
def _offline_follow_up(req: offline.OfflineRequest):
    c = req.context
    if "topic" not in c:
        return None
    topic = c["topic"]
    said = [e["text"] for e in c.get("window", []) if e["speaker"] == "interviewee"]
    summary = f"We talked about {topic} over {len(said)} answers."
    seeds = (c.get("gaps") or []) + (c.get("unasked") or []) + [f"What comes next for {topic}"]
    topics = [FollowUpTopic(title=" ".join(s.split()[:5]).rstrip("?.,"), description=s,
                            suggested_questions=[s if s.endswith("?") else f"Can you tell me more about {s.lower()}?",
                                                 "What would you do differently now?"])
              for s in seeds[:3]]
    return FollowUpAnalysis(summary=summary, suggested_topics=topics, unexplored_gaps=c.get("gaps", [])[:3],
                            strengthen_areas=[t.title for t in topics[:2]])

