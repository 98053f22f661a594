"""bench/scale_cores.py and the pure parts of bench/scale_burst.py and bench/scale_per_core.py: CPU lists, the core
layout, the per-core line and its bisection, the burst windows."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.scale_burst import burst_windows
from bench.scale_cores import (
    SizeOutcome,
    affinity,
    format_cpus,
    largest_passing,
    next_probe,
    parse_cpu_list,
    per_core_line,
    plan_cores,
)
from bench.scale_metrics import CpuUse, Result
from bench.scale_per_core import compare_lines, steady_outcome


@pytest.mark.parametrize(("text", "cpus"), [
    ("0", {0}), ("0-1", {0, 1}), ("0,2-3", {0, 2, 3}), (" 3 , 1", {1, 3}), ("2-2", {2}), ("0-1,1-2", {0, 1, 2}),
])
def test_parse_cpu_list(text, cpus):
    assert parse_cpu_list(text) == cpus


@pytest.mark.parametrize("text", ["", "a", "0,", "-1", "1-", "3-1", "0-1-2", "1.5"])
def test_parse_cpu_list_rejects(text):
    with pytest.raises(ValueError):
        parse_cpu_list(text)


@given(st.sets(st.integers(0, 200), min_size=1))
def test_format_is_the_inverse_of_parse(cpus):
    text = format_cpus(cpus)
    assert parse_cpu_list(text) == cpus
    assert format_cpus(parse_cpu_list(text)) == text


def test_format_cpus_ranges():
    assert format_cpus({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8"


def test_plan_cores_splits_workers_and_the_rest():
    layout = plan_cores("0", {0, 1})
    assert (layout.workers, layout.server) == ({0}, {1})
    layout = plan_cores("0-1", range(4))
    assert (layout.workers, layout.server) == ({0, 1}, {2, 3})
    assert layout.text() == "workers on CPU 0-1; dev server + client on CPU 2-3"


def test_split_roles_run_a_workflows_and_an_llm_process_per_worker_core():
    assert plan_cores("0", {0, 1}).roles == ("all",)
    layout = plan_cores("0", {0, 1}, split_roles=True)
    assert layout.roles == ("workflows", "llm") and (layout.workers, layout.server) == ({0}, {1})
    assert "`--role workflows` and a `--role llm` process" in layout.text()


@pytest.mark.parametrize("argv", [["--split-roles"], ["--split-roles", "--compare-tree", "."]])
def test_split_roles_goes_with_per_core(argv, capsys):
    import argparse

    from bench.interview_scale import add_per_core_arguments, check_per_core_arguments

    parser = argparse.ArgumentParser()
    add_per_core_arguments(parser)
    args = parser.parse_args(argv)
    args.in_process, args.kill_drill, args.workers, args.sessions = False, False, 1, "10"
    with pytest.raises(SystemExit):
        check_per_core_arguments(parser, args)
    assert "--split-roles go with --per-core" in capsys.readouterr().err


@pytest.mark.parametrize(("workers", "available", "reason"), [
    ("0", {0}, "at least 2 CPUs"),
    ("0-1", {0, 1}, "need at least one other"),
    ("2", {0, 1}, "CPU 2 not available"),
    ("0-x", {0, 1}, "not a CPU number"),
])
def test_plan_cores_rejects(workers, available, reason):
    with pytest.raises(ValueError, match=reason):
        plan_cores(workers, available)


def test_affinity_reads_this_process():
    assert affinity(os.getpid()) == frozenset(os.sched_getaffinity(0))


def out(n: int, p95: float, missed: int = 0, base: float = 2.0) -> SizeOutcome:
    return SizeOutcome(n, p95, base, missed)


def test_size_outcome_passes_within_ratio_and_without_misses():
    assert out(100, 2.2).passes                      # exactly 1.1x
    assert not out(100, 2.21).passes
    assert not out(100, 2.0, missed=1).passes
    assert not SizeOutcome(100, float("nan"), 2.0, 0).passes   # no decision at all
    assert not SizeOutcome(100, 2.0, 0.0, 0).passes            # no baseline
    assert math.isclose(out(100, 3.0).ratio, 1.5)


def test_per_core_line_takes_the_largest_passing_size_per_core():
    outcomes = [out(100, 2.0), out(200, 2.1), out(300, 2.5), out(400, 2.1, missed=2)]
    assert largest_passing(outcomes) == 200
    assert per_core_line(outcomes, 1, 10) == "sessions per worker core: 200 (cadence 10 s, p95 ≤ 1.1× asyncio)"
    assert per_core_line(outcomes, 2, 30) == "sessions per worker core: 100 (cadence 30 s, p95 ≤ 1.1× asyncio)"
    assert per_core_line([out(100, 2.0)], 3, 30).startswith("sessions per worker core: 33.3333 ")


def test_per_core_line_when_nothing_passes():
    assert per_core_line([out(100, 5.0)], 1, 10) == ("sessions per worker core: below the smallest size tried "
                                                      "(cadence 10 s, p95 ≤ 1.1× asyncio)")
    assert per_core_line([], 1, 10).startswith("sessions per worker core: below the smallest size tried")


def test_next_probe_bisects_on_multiples_of_25():
    assert next_probe([out(100, 2.0), out(200, 3.0)]) == 150
    assert next_probe([out(100, 2.0), out(150, 2.0), out(200, 3.0)]) == 175
    assert next_probe([out(100, 2.0), out(175, 3.0)]) == 150     # 137.5 rounds to 150
    assert next_probe([out(100, 2.0), out(150, 3.0)]) == 125
    assert next_probe([out(100, 2.0), out(125, 3.0)]) is None    # step reached
    assert next_probe([out(100, 2.0), out(200, 2.0)]) is None    # nothing failed above
    assert next_probe([out(100, 3.0), out(200, 3.0)]) is None    # nothing passed
    assert next_probe([out(300, 3.0), out(100, 2.0), out(500, 3.0)]) == 200   # the smallest failing above


@given(st.lists(st.tuples(st.integers(1, 40).map(lambda k: k * 25), st.booleans()), min_size=1, max_size=12,
                unique_by=lambda t: t[0]))
def test_next_probe_lies_strictly_between_and_is_new(sizes):
    outcomes = [out(n, 2.0 if ok else 9.0) for n, ok in sizes]
    probe = next_probe(outcomes)
    if probe is None:
        return
    lo = largest_passing(outcomes)
    assert lo is not None
    hi = min(o.sessions for o in outcomes if not o.passes and o.sessions > lo)
    assert lo < probe < hi and probe % 25 == 0 and probe not in {o.sessions for o in outcomes}


def test_burst_windows_split_by_when_the_answer_was_sent():
    decisions = [(90.0, 2.0), (99.9, 8.0), (100.0, 3.0), (120.0, None), (130.0, 4.0), (130.1, 2.5), (200.0, 2.0)]
    w = burst_windows(decisions, 100.0, 130.0)
    assert (w["before"].n, w["before"].missed, w["before"].max) == (2, 0, 8.0)
    assert (w["during"].n, w["during"].missed, w["during"].max) == (2, 1, 4.0)
    assert (w["after"].n, w["after"].max) == (2, 2.5)
    assert (w["outside"].n, w["outside"].max) == (4, 8.0)


@given(st.lists(st.tuples(st.floats(0, 1000), st.one_of(st.none(), st.floats(0, 60))), max_size=40),
       st.floats(0, 1000), st.floats(0, 500))
def test_burst_windows_lose_and_duplicate_nothing(decisions, start, length):
    w = burst_windows(decisions, start, start + length)
    parts = [w["before"], w["during"], w["after"]]
    assert sum(s.n + s.missed for s in parts) == len(decisions)
    assert w["outside"].n == w["before"].n + w["after"].n


def test_compare_lines_cpu_per_exchange():
    base, this = Result(), Result()
    base.cpu = CpuUse({"server": 10.0, "worker 1": 20.0, "client": 1.0})
    this.cpu = CpuUse({"server": 10.0, "worker 1": 15.0, "client": 1.0})
    base.steady_cpu, base.steady_exchanges = {"server": 4.0, "worker 1": 8.0}, 80
    this.steady_cpu, this.steady_exchanges = {"server": 3.0, "worker 1": 6.0}, 80
    lines = compare_lines("old@abc1234", 50, 2, base, this)
    assert lines == ["  worker CPU per exchange: old@abc1234 200 ms -> this tree 150 ms (−25 %)",
                     "  worker CPU per exchange, steady state: old@abc1234 100 ms -> this tree 75 ms (−25 %)",
                     "  server CPU per exchange: old@abc1234 100 ms -> this tree 100 ms (+0 %)",
                     "  server CPU per exchange, steady state: old@abc1234 50 ms -> this tree 38 ms (−25 %)"]


def test_steady_state_is_not_measured_without_its_sample():
    res = Result()
    assert res.steady_ms("worker") != res.steady_ms("worker")     # NaN
    assert "not measured" in res.steady_line()
    assert compare_lines("old@abc1234", 50, 2, Result(), Result())[1].endswith("(n/a)")


def test_pinned_text_reads_every_thread_of_this_process():
    import threading

    from bench.scale_cores import pinned_text, thread_cpus

    done = threading.Event()
    t = threading.Thread(target=done.wait)
    t.start()
    try:
        masks = thread_cpus(os.getpid())
        assert sum(masks.values()) >= 2
        text = pinned_text([("bench", os.getpid())])
        assert text.startswith(f"pinned: bench pid {os.getpid()} on CPU ")
    finally:
        done.set()
        t.join()


def test_check_tree_needs_a_colloquy_source_tree(tmp_path):
    from bench.scale_per_core import check_tree, tree_label

    assert check_tree(tmp_path / "missing") == "not a directory"
    assert "no client/cli.py" in (check_tree(tmp_path) or "")
    assert tree_label(tmp_path) == tmp_path.name   # not a git checkout: its name alone


@given(st.lists(st.tuples(st.floats(0, 100), st.one_of(st.none(), st.floats(0.5, 5))), max_size=40),
       st.floats(0, 100))
def test_the_steady_state_counts_exactly_the_answers_sent_from_its_start(decisions, at):
    res = Result(decisions=decisions, steady_at=at)
    assert sorted(res.steady_latencies()) == sorted(lat for t, lat in decisions if t >= at and lat is not None)
    assert Result(decisions=decisions).steady_latencies() == []  # not measured: nothing counted


def test_the_steady_ratio_leaves_the_start_phase_out_and_has_its_own_per_core_line():
    slow_start = [(1.0, 3.0)] * 10 + [(50.0, 2.1)] * 90  # the first exchanges beside the starts are slow
    t = Result(latencies=[lat for _, lat in slow_start], decisions=slow_start, steady_at=40.0)
    a = Result(latencies=[2.0] * 100, decisions=[(1.0, 2.0)] * 10 + [(50.0, 2.0)] * 90, steady_at=30.0)
    whole, steady = outcome_of(t, a), steady_outcome(100, t, a)
    assert whole.ratio == pytest.approx(1.5) and not whole.passes
    assert steady.ratio == pytest.approx(1.05) and steady.passes
    assert per_core_line([steady], 1, 30, steady=True) == (
        "sessions per worker core, steady state: 100 (cadence 30 s, p95 ≤ 1.1× asyncio)")
    assert per_core_line([whole], 1, 30).startswith("sessions per worker core: below")


def outcome_of(t: Result, a: Result):  # noqa: ANN201
    from bench.scale_per_core import outcome

    return outcome(100, t, a)


def test_bench_workers_cache_bytecode_as_an_installed_wheel(monkeypatch):
    """PYTHONDONTWRITEBYTECODE (set on some machines) left a source tree without bytecode: the sandbox compiled the
    interview's workflow module again for every workflow it started (~9 % of the worker's CPU while starting)."""
    from bench.scale_processes import worker_env
    from core.settings import WorkerTuning

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert "PYTHONDONTWRITEBYTECODE" not in worker_env(1.0, WorkerTuning())


def test_repeat_lines_give_medians_ranges_and_the_change_per_pair():
    from bench.scale_per_core import repeat_lines

    def run(steady_ms: float) -> Result:
        return Result(latencies=[2.2] * 10, decisions=[(50.0, 2.2)] * 10, steady_at=40.0,
                      steady_cpu={"worker 1": steady_ms / 1000 * 10, "server": 0.3}, steady_exchanges=10)

    pairs = [(run(b), run(t)) for b, t in ((40, 30), (44, 36), (38, 33))]
    a = Result(latencies=[2.0] * 10, decisions=[(50.0, 2.0)] * 10, steady_at=30.0)
    lines = repeat_lines("base@x", 100, 1, pairs, a)
    steady = next(line for line in lines if "worker CPU ms per exchange, steady state" in line)
    assert "base@x 40 [38–44] -> this tree 33 [30–36] (−18 %; per pair: −25 %, −18 %, −13 %)" in steady
    assert any("p95 ratio to asyncio, steady state: base@x 1.10" in line for line in lines)
    assert repeat_lines("base@x", 100, 1, pairs[:1], a) == []  # one run: the usual lines say it all


def test_with_repeat_the_per_core_lines_read_the_median_run_not_the_last():
    from bench.scale_per_core import Row, row_outcome

    def run(p95: float) -> Result:
        return Result(latencies=[p95] * 10, decisions=[(50.0, p95)] * 10, steady_at=40.0)

    a = Result(latencies=[2.0] * 10, decisions=[(50.0, 2.0)] * 10, steady_at=30.0)
    pairs = [(run(2.5), run(2.3)), (run(2.4), run(2.26)), (run(2.6), run(2.1))]  # the last run alone would pass
    row = Row(250, pairs[-1][1], a, pairs[-1][0], pairs)
    assert row_outcome(row).ratio == pytest.approx(1.13) and not row_outcome(row).passes
    assert row_outcome(row, base=True, steady=True).ratio == pytest.approx(1.25)
    assert row_outcome(Row(250, run(2.1), a)).passes  # one run: that run
