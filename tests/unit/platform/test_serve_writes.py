"""`colloquy serve` writes to object storage only what rules/serve_writes.py names (issue 38, item 5): the room's
recorded answers and a researcher's edited themes. The k8s manifest gives serve its own scoped user, the policy
file grants exactly those writes, the docs say so, and every key serve's write paths build falls inside them
(while a worker's artifacts do not)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from activities.artifact_store import key_for
from activities.voice.store import audio_scope
from client.web.study.themes import EDITED
from rules.serve_writes import SERVE_WRITES, serve_may_write
from rules.voice.clips import EXTENSION

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "deploy" / "k8s"
IDS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}", fullmatch=True)  # what key_for accepts


def test_the_policy_grants_serve_exactly_its_writes_for_the_configmaps_bucket():
    config = yaml.safe_load((K8S / "configmap.yaml").read_text())["data"]
    prefix = "/".join(p for p in (config["COLLOQUY_S3_BUCKET"], config["COLLOQUY_S3_PREFIX"].strip("/")) if p)
    arn = f"arn:aws:s3:::{prefix}/"
    policy = json.loads((K8S / "serve-object-store-policy.json").read_text())
    granted: dict[str, list[str]] = {}
    for statement in policy["Statement"]:
        assert statement["Effect"] == "Allow"
        for action in statement["Action"]:
            granted.setdefault(action, []).extend(statement["Resource"])
    assert set(granted) == {"s3:GetObject", "s3:PutObject"}          # no delete, no list, no bucket settings
    assert granted["s3:GetObject"] == [arn + "*"]
    assert all(r.startswith(arn) for r in granted["s3:PutObject"])
    assert sorted(r.removeprefix(arn) for r in granted["s3:PutObject"]) == sorted(SERVE_WRITES)


def test_serve_uses_its_own_scoped_user_and_the_docs_say_what_it_writes():
    docs = {yaml_doc["metadata"]["name"]: yaml_doc for yaml_doc in yaml.safe_load_all((K8S / "serve.yaml").read_text())
            if yaml_doc and yaml_doc["kind"] == "Deployment"}
    [container] = docs["colloquy-serve"]["spec"]["template"]["spec"]["containers"]
    secrets = {r["secretRef"]["name"] for r in container["envFrom"] if "secretRef" in r}
    assert "colloquy-object-store-serve" in secrets and "colloquy-object-store" not in secrets
    text = (K8S / "serve.yaml").read_text()
    assert "read-only is enough" not in text
    operations = (ROOT / "docs" / "operations.md").read_text()
    assert "serve needs read only" not in operations
    for pattern in SERVE_WRITES:
        assert pattern.split("/")[-1].lstrip("*") in operations, pattern
    assert "serve-object-store-policy.json" in operations and "serve_writes" in (ROOT / "docs" / "voice.md").read_text()


@given(wid=IDS, sha=st.text("0123456789abcdef", min_size=32, max_size=32), ext=st.sampled_from(sorted(set(
    EXTENSION.values()))))
def test_every_clip_key_the_room_writes_is_allowed(wid, sha, ext):
    assert serve_may_write(key_for(audio_scope(wid), f"clip-{sha}.{ext}"))


@given(sid=IDS, name=st.sampled_from(sorted(EDITED)))
def test_every_edited_theme_key_is_allowed(sid, name):
    assert serve_may_write(key_for(sid, EDITED[name]))


@given(scope=IDS, name=st.sampled_from(["transcript.json", "essay.md", "findings.json", "report.html", "plan.json",
                                        "speech-q1-en.wav"]))
def test_a_workers_artifacts_are_not_serves_to_write(scope, name):
    assert not serve_may_write(key_for(scope, name))
