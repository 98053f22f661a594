"""The Web UI link printed by every client command."""

from core.settings import TemporalSettings


def test_local_ui_url_follows_the_dev_server_convention(monkeypatch):
    monkeypatch.delenv("TEMPORAL_UI_URL", raising=False)
    assert TemporalSettings(address="127.0.0.1:7233").workflow_url("w-1") == \
        "http://127.0.0.1:8233/namespaces/default/workflows/w-1"
    assert TemporalSettings(address="127.0.0.1:7391").ui_url == "http://127.0.0.1:8391/namespaces/default/workflows"


def test_explicit_ui_url_wins_and_remote_clusters_say_how_to_set_it(monkeypatch):
    monkeypatch.delenv("TEMPORAL_UI_URL", raising=False)
    remote = TemporalSettings(address="colloquy.a1b2c.tmprl.cloud:7233", namespace="colloquy.a1b2c")
    assert "TEMPORAL_UI_URL" in remote.ui_url
    monkeypatch.setenv("TEMPORAL_UI_URL", "https://cloud.temporal.io/")
    assert remote.workflow_url("w-2") == "https://cloud.temporal.io/namespaces/colloquy.a1b2c/workflows/w-2"
