"""rules/policies.py: a crashed agent attempt is detected in seconds and every timeout leaves room for retries."""

from __future__ import annotations

from datetime import timedelta

from activities.agents.base import AGENTS, HEARTBEAT_EVERY_S
from rules.policies import (
    AGENT_HEARTBEAT_TIMEOUT,
    POLICIES,
    RECOVERY_BOUND,
    retry_window,
    timer_with_recovery,
)
from workflows.activity_options import activity_options


def test_every_agent_kind_has_a_heartbeat_timeout_of_about_two_heartbeat_intervals():
    for kind, policy in POLICIES.items():
        if kind.endswith("agent"):
            assert policy.heartbeat == AGENT_HEARTBEAT_TIMEOUT, kind
            assert activity_options(kind)["heartbeat_timeout"] == AGENT_HEARTBEAT_TIMEOUT
    # the SDK forwards heartbeats at most every 0.8 x timeout; agents heartbeat every 5 s while a model works
    assert 2 * HEARTBEAT_EVERY_S <= AGENT_HEARTBEAT_TIMEOUT.total_seconds() <= 3 * HEARTBEAT_EVERY_S
    for spec in AGENTS.values():
        assert spec.heartbeat_every_s is not None and spec.heartbeat_every_s * 2 <= 12, spec.name


def test_schedule_to_close_leaves_room_for_every_attempt():
    for kind, policy in POLICIES.items():
        assert policy.schedule_to_close > retry_window(policy), (kind, policy.schedule_to_close, retry_window(policy))


def test_recovery_bound_covers_detection_and_first_retry():
    for kind, policy in POLICIES.items():
        if kind.endswith("agent"):
            assert AGENT_HEARTBEAT_TIMEOUT + policy.initial_interval + timedelta(seconds=5) <= RECOVERY_BOUND
    assert RECOVERY_BOUND <= timedelta(seconds=30)
    assert timer_with_recovery(300) == timedelta(seconds=300) + RECOVERY_BOUND
