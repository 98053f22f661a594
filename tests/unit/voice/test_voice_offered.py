"""Voice per language (issue 37): voice is offered only where the measured error rate is at most the threshold;
the shipped table is bench.voice's measurement; an operator's own table (another model) replaces it; the room and
the join page show no voice control where it is not offered and say the answers are typed; `colloquy study create`
prints voice per language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from client.web.i18n import PAGE_LANGUAGES, room_html
from client.web.voice import offered as offered_mod
from client.web.voice.offered import MEASURED_ENV, voice_table
from rules.voice.offered import THRESHOLD, MeasuredTableError, parse_table
from rules.voice.wer import characters, corpus_cer, error_rate, metric_for, words
from tests.unit.study.test_page_catalogs import _client, _link, english_left

SHIPPED = Path(__file__).resolve().parents[3] / "rules" / "voice" / "measured.json"


def _table(rows: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {"model": "test", "command": "python -m bench.voice --skip-latency --out t.json", "measured": "2026-11-28",
            "rows": rows, **kw}


def _row(language: str, rate: float, voice: str = "espeak-ng", metric: str = "WER") -> dict[str, Any]:
    return {"language": language, "voice": voice, "metric": metric, "error_rate": rate, "sentences": 4}


@pytest.fixture(autouse=True)
def _fresh_table(monkeypatch):
    monkeypatch.delenv(MEASURED_ENV, raising=False)
    offered_mod._table.cache_clear()
    yield
    offered_mod._table.cache_clear()


# ------------------------------------------------------------------------------------------------ the rule
def test_offered_exactly_at_or_under_the_threshold_by_the_best_voice():
    table = parse_table(_table([_row("en", 0.157), _row("en", 0.057, "piper"), _row("de", 0.349),
                                _row("ja", 0.2, metric="CER"), _row("fr", 0.2001)]))
    assert table.offered("en") and table.offered("en-GB") and table.best("en").voice == "piper"
    assert table.offered("ja") and not table.offered("fr") and not table.offered("de")
    assert not table.offered("ko") and not table.offered("not a tag")          # not measured: typing only
    assert table.describe("en") == "offered (WER 0.06)"
    assert table.describe("de") == "typing only (WER 0.35 > 0.20)"
    assert table.describe("ko") == "typing only (not measured)"
    assert table.offered_languages(["en", "de", "ja", "pt-BR"]) == ["en", "ja"]


@given(st.lists(st.tuples(st.sampled_from(["en", "de", "ja", "zh", "pt", "sw"]), st.floats(0, 3)), max_size=12),
       st.sampled_from(["en", "de-AT", "ja", "zh-Hans", "pt-BR", "sw", "ko"]))
def test_offered_iff_some_measurement_of_the_language_is_within_the_threshold(rows, language):
    table = parse_table(_table([_row(lang, rate) for lang, rate in rows]))
    base = language.split("-")[0]
    assert table.offered(language) == any(lang == base and rate <= THRESHOLD for lang, rate in rows)


@pytest.mark.parametrize(("data", "says"), [
    ([], "not a measured table"),
    ({"rows": "x"}, "not a measured table"),
    ({"rows": ["x"]}, "row 1 is not an object"),
    (_table([_row("<b>", 0.1)]), "row 1: '<b>' is not a language tag"),
    (_table([_row("en", -0.1)]), "row 1 (en): error_rate must be a number ≥ 0"),
    (_table([_row("en", float("nan"))]), "error_rate must be a number"),
    (_table([{**_row("en", 0.1), "error_rate": True}]), "error_rate must be a number"),
    (_table([{**_row("en", 0.1), "sentences": 0}]), "sentences must be a whole number ≥ 1"),
    (_table([_row("en", 0.1, metric="BLEU")]), "metric 'BLEU': use WER or CER"),
    (_table([_row("en", 0.1)] * 201), "at most 200"),
])
def test_a_table_that_cannot_be_used_says_why(data, says):
    with pytest.raises(MeasuredTableError, match=None) as err:
        parse_table(data)
    assert says in str(err.value)


def test_the_shipped_table_is_bench_voices_measurement_of_every_shipped_language():
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    table = voice_table()
    assert data["command"].startswith("python -m bench.voice") and "--out rules/voice/measured.json" in data["command"]
    assert "Whisper base" in table.model
    assert {r.language for r in table.rows} == set(PAGE_LANGUAGES)
    assert {r.metric for r in table.rows if r.language in ("ja", "zh")} == {"CER"}
    assert table.offered_languages(list(PAGE_LANGUAGES)) == ["en"]      # what Whisper base measured (docs/voice.md)


def test_an_operators_own_measurement_replaces_the_shipped_one(tmp_path, monkeypatch):
    mine = tmp_path / "large.json"
    mine.write_text(json.dumps(_table([_row("en", 0.03), _row("de", 0.08), _row("fr", 0.5)], model="large-v3")))
    monkeypatch.setenv(MEASURED_ENV, str(mine))
    assert voice_table().offered_languages(["en", "de", "fr"]) == ["en", "de"] and voice_table().model == "large-v3"
    monkeypatch.setenv(MEASURED_ENV, str(tmp_path / "missing.json"))
    with pytest.raises(MeasuredTableError, match="COLLOQUY_VOICE_MEASURED: cannot read"):
        voice_table()
    (tmp_path / "bad.json").write_text("{not json")
    monkeypatch.setenv(MEASURED_ENV, str(tmp_path / "bad.json"))
    with pytest.raises(MeasuredTableError, match="is not JSON"):
        voice_table()


# ------------------------------------------------------------------------------------------ error rates
def test_hindi_words_keep_their_vowel_signs_and_arabic_its_optional_marks_are_ignored():
    """Before: the normaliser's \\w dropped Devanagari vowel signs, splitting every Hindi word into pieces."""
    assert words("सोमवार को हमने") == ["सोमवार", "को", "हमने"]
    assert words("صباحاً") == words("صباحا")
    assert words("Don't – stop: it's well-known!") == ["don't", "stop", "it's", "well", "known"]


def test_japanese_and_chinese_are_scored_by_characters():
    assert metric_for("ja") == metric_for("zh-Hans") == "CER" and metric_for("de") == "WER"
    assert characters("我们，终于。") == ["我", "们", "终", "于"]
    assert corpus_cer([("星期一早上", "星期一早上")]) == 0.0
    assert error_rate([("星期一早上", "星期二早上")], "zh") == pytest.approx(1 / 5)
    assert error_rate([("a b c d", "a x c d")], "en") == pytest.approx(1 / 4)


# ------------------------------------------------------------------------------------------------ pages
@pytest.mark.parametrize("lang", PAGE_LANGUAGES)
def test_the_room_has_voice_controls_exactly_where_voice_is_offered(lang):
    html = room_html(lang)
    offered = voice_table().offered(lang)
    assert ('id="mic"' in html) == ('id="voice-consent"' in html) == offered
    assert ('id="typing-only"' in html) == (not offered)
    assert english_left(html, lang) == [] or lang == "en"
    spoken = room_html(lang, voice=True)             # where another model's table offers it: translated too
    assert 'id="mic"' in spoken and (lang == "en" or english_left(spoken, lang) == [])


def test_the_typing_only_line_names_the_language_in_the_pages_language():
    assert "In German you answer by typing" not in room_html("de")
    assert "Auf Deutsch antworten Sie schriftlich" in room_html("de")
    assert "In Korean you answer by typing: speaking your answers is not offered in this language." in room_html("ko")
    assert 'id="mic"' in room_html("en") and 'id="typing-only"' not in room_html("en")


async def test_the_join_page_says_whether_answers_may_be_spoken():
    from tests.unit.study.test_page_catalogs import FakeStudy

    for lang, spoken in (("en", True), ("de", False), ("ja", False)):
        http = await _client(FakeStudy(_link(lang)))
        try:
            page = await (await http.get(f"/study/s/join/t?lang={lang}")).text()
        finally:
            await http.close()
        assert ('id="voice-offered"' in page) == spoken and ('id="typing-only"' in page) == (not spoken)
        assert 'id="mic"' not in page


async def test_with_an_operators_table_the_room_offers_voice_in_german(tmp_path, monkeypatch):
    mine = tmp_path / "t.json"
    mine.write_text(json.dumps(_table([_row("de", 0.1)])))
    monkeypatch.setenv(MEASURED_ENV, str(mine))
    assert 'id="mic"' in room_html("de") and 'id="mic"' not in room_html("en")   # en not measured in that table


# ------------------------------------------------------------------------------------------ study create
class _Started:
    def __init__(self) -> None:
        self.started: list[str] = []

    async def start_workflow(self, *args: Any, id: str, **kw: Any) -> None:  # noqa: A002
        self.started.append(id)


def test_study_create_prints_voice_per_language(monkeypatch):
    from client.connection import Connection
    from client.study import cli

    fake = _Started()

    async def connect(self: Connection) -> _Started:
        return fake

    async def no_warning(*args: Any, **kw: Any) -> bool:
        return True

    monkeypatch.setattr(Connection, "connect", connect)
    monkeypatch.setattr("client.worker_check.warn_if_no_worker", no_warning)
    r = CliRunner().invoke(cli.app, ["create", "On-call", "--quota", "2", "--languages", "en,de,ja", "--id", "s-1"])
    assert r.exit_code == 0, r.output
    assert fake.started == ["s-1"]
    rows = {line.split()[0]: line for line in r.output.splitlines() if line.split()[:1] in (["en"], ["de"], ["ja"])}
    assert "offered (WER 0.06): spoken by piper" in rows["en"]
    assert "typing only (WER 0.35 > 0.20)" in rows["de"] and "typing only (CER 0.54 > 0.20)" in rows["ja"]
    assert "voice: offered where the measured error rate is at most 0.20 (rules/voice/measured.json" in r.output


def test_study_create_refuses_a_measured_table_it_cannot_use(tmp_path, monkeypatch):
    from client.study import cli

    (tmp_path / "t.json").write_text('{"rows": [{"language": "en"}]}')
    monkeypatch.setenv(MEASURED_ENV, str(tmp_path / "t.json"))
    r = CliRunner().invoke(cli.app, ["create", "On-call", "--quota", "2"])
    assert r.exit_code == 2 and "voice:" in r.output and "error_rate must be a number" in r.output
    assert "Traceback" not in r.output


async def test_the_audio_door_refuses_a_language_voice_is_not_offered_in(tmp_path, monkeypatch):
    """The page shows no microphone there, and the door agrees: nothing is stored or transcribed."""
    from aiohttp.test_utils import TestClient, TestServer

    from client.web.app import build_app
    from client.web.interview.room import room_extension
    from client.web.interview.sessions import room_path
    from client.web.voice.room import voice_extension

    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path))

    async def temporal() -> Any:
        raise ConnectionError("no Temporal in this test")

    app = build_app("researcher-token-for-tests", None, [], extensions=[room_extension(temporal, b"s"),
                                                                       voice_extension()])
    http = TestClient(TestServer(app, host="127.0.0.1"))
    await http.start_server()
    try:
        door = room_path(b"s", "interview-x") + "/audio?consent=yes&lang="
        headers = {"X-Colloquy-CSRF": "page", "Content-Type": "audio/wav"}
        for lang in ("de", "ja", "pt-BR", "ko"):
            r = await http.post(door + lang, data=b"RIFF", headers=headers)
            assert r.status == 403 and "voice is not offered in" in (await r.json())["error"], lang
        r = await http.post(door + "en", data=b"RIFF", headers=headers)
        assert r.status == 400                                       # English goes on to read the clip
    finally:
        await http.close()
    assert not list(tmp_path.glob("audio-*/*"))


def test_the_researcher_page_is_told_voice_per_language():
    from client.web.voice.offered import voice_summary

    summary = voice_summary([*PAGE_LANGUAGES, "de", "ko"])
    rows = {r["language"]: r for r in summary["languages"]}         # type: ignore[attr-defined]
    assert list(rows)[:len(PAGE_LANGUAGES)] == list(PAGE_LANGUAGES) and "ko" in rows
    assert rows["en"]["offered"] and rows["en"]["said"] == "offered (WER 0.06)"
    assert not rows["ko"]["offered"] and rows["ko"]["said"] == "typing only (not measured)"
    assert summary["threshold"] == THRESHOLD and summary["source"] == "rules/voice/measured.json"
    page = (Path(__file__).resolve().parents[3] / "client" / "web" / "study.html").read_text()
    assert 'id="voice-languages"' in page


def test_another_model_without_its_own_measurement_is_said(tmp_path, monkeypatch):
    from client.study.coverage import voice_note
    from client.web.voice.offered import unmeasured_model

    monkeypatch.delenv("COLLOQUY_SPEECH_PROFILE", raising=False)
    monkeypatch.delenv("COLLOQUY_WHISPER_DIR", raising=False)
    assert unmeasured_model() is None
    monkeypatch.setenv("COLLOQUY_SPEECH_PROFILE", "local")
    monkeypatch.setenv("COLLOQUY_WHISPER_DIR", str(tmp_path / "whisper-large"))
    assert "not the model of COLLOQUY_WHISPER_DIR" in (unmeasured_model() or "")
    assert "not the model of COLLOQUY_WHISPER_DIR" in voice_note()
    monkeypatch.setenv("COLLOQUY_SPEECH_PROFILE", "config")
    assert "config speech profile" in (unmeasured_model() or "")
    mine = tmp_path / "t.json"
    mine.write_text(json.dumps(_table([_row("de", 0.1)])))
    monkeypatch.setenv(MEASURED_ENV, str(mine))
    assert unmeasured_model() is None
