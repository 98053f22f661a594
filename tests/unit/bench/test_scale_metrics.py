"""bench/scale_metrics.py: /proc/<pid>/stat parsing, CPU lines, latency summaries and the kill-drill windows."""

from __future__ import annotations

import math
import os

import pytest

from bench.scale_metrics import (
    CLOCK_TICKS,
    CpuUse,
    children,
    cpu_seconds,
    kill_windows,
    parse_proc_stat,
    pct,
    summarize,
)

# proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
STAT = "4242 (temporal) S 17 4242 4242 0 -1 4194560 1000 0 0 0 250 75 3 1 20 0 12 0 100 0 0"


def test_parse_proc_stat_fields():
    assert parse_proc_stat(STAT) == (17, 250, 75)


def test_parse_proc_stat_comm_with_spaces_and_parentheses():
    text = STAT.replace("(temporal)", "(my (odd) name) x)")
    assert parse_proc_stat(text) == (17, 250, 75)


def test_cpu_seconds_and_children_from_a_fake_proc(tmp_path):
    for pid, ppid, ticks in ((10, 1, (100, 50)), (11, 10, (7, 3)), (12, 10, (0, 0)), (13, 11, (1, 1))):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(
            f"{pid} (p {pid}) S {ppid} 0 0 0 -1 0 0 0 0 0 {ticks[0]} {ticks[1]} 0 0 20 0 1 0 0 0 0")
    (tmp_path / "self").mkdir()  # not a pid: skipped
    (tmp_path / "99").mkdir()    # vanished meanwhile (no stat): skipped
    assert cpu_seconds(10, tmp_path) == pytest.approx(150 / CLOCK_TICKS)
    assert children(10, tmp_path) == [11, 12]


def test_cpu_seconds_of_this_process_grows():
    before = cpu_seconds()
    sum(i * i for i in range(2_000_000))
    assert cpu_seconds() >= before and cpu_seconds(os.getpid()) >= before


def test_cpu_line_per_role_cycle_and_session_minute():
    use = CpuUse({"server": 30.0, "worker 1": 20.0, "worker 2": 10.0, "client": 6.0})
    assert use.total == 66.0 and use.role_total("worker") == 30.0
    line = use.line(cycles=300, session_minutes=60.0, wall_s=33.0)
    assert "server 30.0 | workers 30.0 | client 6.0 (worker 1 20.0, worker 2 10.0)" in line
    assert "2.00 cores over 33 s" in line
    assert "per cycle (ms): server 100 | workers 100 | client 20" in line
    assert "per session-minute (s): server 0.500 | workers 0.500 | client 0.100" in line


def test_pct_and_summary():
    values = [float(v) for v in range(1, 101)]
    assert pct(values, 50) == 51.0 and pct(values, 95) == 95.0 and math.isnan(pct([], 95))
    s = summarize([2.0, 3.0, None, 10.0])
    assert (s.n, s.missed, s.p50, s.max) == (3, 1, 3.0, 10.0)
    assert not s.sustained(10.0)
    assert summarize([1.0, 2.0]).sustained(10.0) and not summarize([1.0, 12.0]).sustained(10.0)
    assert summarize([]).text().startswith("decisions    0")


def test_kill_windows_split_before_window_after():
    kill = 1000.0
    decisions = [
        (980.0, 2.0),    # decided at 982, before the kill
        (997.0, 2.0),    # sent before, decided at 999: before
        (999.0, 12.0),   # in flight at the kill: window
        (1005.0, 11.0),  # sent inside the window
        (1010.0, None),  # missed inside the window
        (1030.0, 2.0),   # after the window (20 s)
    ]
    w = kill_windows(decisions, kill, 20.0)
    assert (w["before"].n, w["window"].n, w["window"].missed, w["after"].n) == (2, 2, 1, 1)
    assert w["window"].max == 12.0 and w["before"].max == 2.0


def test_cpu_line_in_process_has_no_separate_workers():
    line = CpuUse({"server": 3.0, "client+worker": 6.0}).line(cycles=10, session_minutes=1.0, wall_s=10.0)
    assert "server 3.0 | client+worker 6.0 | total 9.0" in line and "workers" not in line
