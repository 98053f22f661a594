"""`colloquy study create` and the languages of a study's pages (issue 37, honest coverage): a language without a
page catalog needs the researcher's explicit --english-pages; the command prints what each language gets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from client.study.cli import app
from client.study.coverage import coverage_lines, study_languages, unsupported_pages
from client.web.i18n import PAGE_LANGUAGES, has_catalog


def test_a_language_without_page_catalog_is_refused_without_english_pages():
    r = CliRunner().invoke(app, ["create", "On-call", "--quota", "1", "--languages", "en,ja,ko,tlh"])
    assert r.exit_code == 2, r.output
    assert "no page catalog for ko, tlh" in r.output and "--english-pages" in r.output
    assert "Traceback" not in r.output
    r = CliRunner().invoke(app, ["create", "On-call", "--quota", "1", "--language", "ko"])
    assert r.exit_code == 2 and "no page catalog for ko" in r.output
    r = CliRunner().invoke(app, ["invite", "study-x", "--language", "ko"])
    assert r.exit_code == 2 and "no page catalog for ko" in r.output and "--english-pages" in r.output


def test_the_shipped_languages_pass_and_the_coverage_says_what_each_gets():
    assert unsupported_pages("en", ["en", "de", "es", "ja", "ar", "sw", "pt-BR", "zh"]) == []
    lines = coverage_lines("en", ["en", "ja", "ko"], [])
    by_lang = {line.split()[0]: line for line in lines[1:]}
    assert "translated" in by_lang["ja"] and "English (--english-pages)" in by_lang["ko"]
    assert "built-in text" in by_lang["en"] and "built-in text" in by_lang["ja"] and "shown in en" in by_lang["ko"]
    assert "the plan's language" in by_lang["en"] and "plan translated by model" in by_lang["ja"]
    assert "offered (WER" in by_lang["en"] and "piper" in by_lang["en"]
    assert "typing only (CER" in by_lang["ja"] and "typing only (not measured)" in by_lang["ko"]
    assert lines[-1].startswith("voice: offered where the measured error rate is at most 0.20")
    assert [x.split()[0] for x in coverage_lines("de", [], [])[1:-2]] == study_languages("de", [])


@given(st.lists(st.sampled_from([*PAGE_LANGUAGES, "ko", "tlh", "pt-BR", "ar-EG", "he", "xx-YY"]), max_size=8),
       st.sampled_from(["en", "de", "ko", "ar"]))
def test_coverage_invariants(languages, default):
    """Refused exactly the languages no catalog covers; every language of the study gets one coverage line."""
    english = unsupported_pages(default, languages)
    assert set(english) == {x for x in [default, *languages] if not has_catalog(x)}
    lines = coverage_lines(default, languages, [])
    assert len(lines) == 1 + len(study_languages(default, languages)) + (0 if languages else 1) + 1
    for line in lines[1:1 + len(study_languages(default, languages))]:
        lang = line.split()[0]
        assert ("English (--english-pages)" in line) == (lang in english)
