"""The fault drill on separate hosts (issue 38): the Temporal dev server, the S3 server, a worker, two `colloquy
serve` replicas and the driver each on a host of its own (network namespaces joined by a bridge: tests/netns.py).
During live interviews (answers through both replicas), a study, notes imports and writing runs, each host's link
is cut and healed in turn, then each process is killed and restarted (tests/e2e/drill/driver.py).

Done when: every run completes, nothing is lost or duplicated (runs, answers, drafts, notes), and each recovery —
from the link's healing or the process's restart until answers go through both replicas and an essay opens
through both — is within RECOVERY_BOUND_S (loose: the measured times are reported, docs/operations.md).

`make test-faults` runs the default drill (about 3 minutes); the longer one (30 s outages, more interviews) is
marked slow. Needs root for `ip netns` (CI runs as root): elsewhere it skips and says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.drill.hosts import HOSTS
from tests.e2e.interview.helpers import ROOT
from tests.netns import Lab, unavailable

pytestmark = [pytest.mark.drill, pytest.mark.faults]

RECOVERY_BOUND_S = 60.0   # per fault, from the heal or restart (a restarted serve or worker imports for seconds)
DRILL_TIMEOUT_S = 900


@pytest.fixture
def lab() -> Iterator[Lab]:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    made = Lab.create(HOSTS)
    try:
        yield made
    finally:
        made.close()
        assert not made.exists(), f"namespaces left behind: {made.exists()}"


def table(report: dict) -> str:
    head = "| fault | down s | recovery s | runs | completed | lost | duplicated | answers | lost | duplicated |"
    rows = [head, "|" + "---|" * 10]
    for p in report["phases"]:
        rows.append(f"| {p['fault']} | {p['down_s']:.1f} | {p['recovery_s']:.1f} | {p['runs']} | {p['completed']} | "
                    f"{p['lost']} | {p['duplicated']} | {p['answers']} | {p['answers_lost']} | "
                    f"{p['answers_duplicated']} |")
    return "\n".join(rows)


def drill(lab: Lab, tmp: Path, profile: str) -> dict:
    (tmp / "lab.json").write_text(lab.to_json())
    report = tmp / "report.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    out = tmp / "driver.log"
    with out.open("w") as log:
        try:
            done = subprocess.run([*lab.wrap("driver"), sys.executable, "-m", "tests.e2e.drill.driver",
                                   str(tmp / "lab.json"), str(tmp), str(report), profile], cwd=ROOT, env=env,
                                  stdout=log, stderr=subprocess.STDOUT, timeout=DRILL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the drill ran past {DRILL_TIMEOUT_S} s: {out.read_text()[-5000:]}\n{logs(tmp)}"
                                 ) from None
    assert done.returncode == 0 and report.exists(), f"{out.read_text()[-5000:]}\n{logs(tmp)}"
    print(out.read_text())
    return json.loads(report.read_text())


def logs(tmp: Path) -> str:
    """The tail of each process's log (what failed, seen from its host)."""
    parts = []
    for log in [tmp / "worker.log", tmp / "serve-a" / "serve.log", tmp / "serve-b" / "serve.log",
                tmp / "temporal" / "server.log"]:
        if log.exists():
            parts.append(f"--- {log.relative_to(tmp)}\n{log.read_text()[-2000:]}")
    return "\n".join(parts)


def check(report: dict, tmp: Path, known_slow: bool = False) -> None:
    """Every run completed, nothing lost or duplicated, every fault recovered from; and within the bound, except
    where `known_slow` names the open finding of the longer drill (docs/operations.md "Fault drill")."""
    print("\n" + table(report))
    print(f"setup {report['setup_s']} s, whole drill {report['wall_s']} s; the driver's waits for a result asked "
          f"again after a dropped connection: {report.get('result_waits_retried') or 'none'}")
    lost = [r for r in report["runs"] if not r["completed"]]
    assert not lost, f"runs that did not complete: {lost}\n{logs(tmp)}"
    for p in report["phases"]:
        assert p["lost"] == 0 and p["duplicated"] == 0, p
        assert p["answers_lost"] == 0 and p["answers_duplicated"] == 0, p
        assert not p["unrecovered"], p
    faults = [p["fault"] for p in report["phases"]]
    assert faults == [f"{kind} {host}" for kind in ("cut", "kill")
                      for host in ("temporal", "worker", "serve-a", "serve-b", "s3")]
    over = [(p["fault"], p["recovery_s"]) for p in report["phases"] if p["recovery_s"] >= RECOVERY_BOUND_S]
    if over and known_slow and [f for f, _ in over] == ["kill worker"]:
        pytest.xfail(f"open: after a 30 s worker outage in the longer drill the restarted worker's replays of the "
                     f"long interview histories most likely outlast the 10 s workflow task timeout on a loaded "
                     f"machine (docs/operations.md, Fault drill): {over}")
    assert not over, f"recovery over {RECOVERY_BOUND_S:g} s: {over}"


def test_each_link_cut_and_each_process_killed_loses_nothing(lab, tmp_path):
    check(drill(lab, tmp_path, "default"), tmp_path)


@pytest.mark.slow
def test_longer_outages_and_more_interviews_lose_nothing(lab, tmp_path):
    check(drill(lab, tmp_path, "slow"), tmp_path, known_slow=True)
