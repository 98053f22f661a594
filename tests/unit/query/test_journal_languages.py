"""Issue 37, item 4: journal dates in any language (CLDR month and weekday names through Babel), jrnl's and Day One's
formats, and an undated file that says why per heading. The fixtures are written for these tests (no journal text
is copied); each test names the example of the issue it reads, and each failed on the code before."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from babel.dates import format_date
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.query.date_names import LANGUAGES, detect_languages, month_names, weekday_names
from rules.query.imports import journal_hints, split_dated, undated_message
from rules.query.journal_dates import read_line, weekday_of


def journal(files: dict[str, str], year: int | None = None,
            languages: frozenset[str] | None = None) -> dict[str, list[str]]:
    hints = journal_hints(files, year, languages)
    return {rel: [p.day.isoformat() for p in split_dated(text, rel, hints).parts] for rel, text in files.items()}


# ----------------------------------------------------------------------------- the examples, one a test
def test_french_counter_headings_with_a_yearless_day_month_take_the_journals_year():
    files = {"2023/journal.md": "# Défi 100 jours\n\n### R1D12 : 4 août\nRéécrit le routeur.\n\n"
                                "### R1D13 : 5 août\nTests du parseur.\n"}
    assert journal(files) == {"2023/journal.md": ["2023-08-04", "2023-08-05"]}


def test_french_weekday_and_first_of_month_ordinal():
    text = "## samedi 30 septembre 2023\nMarché.\n\n## dimanche 1er octobre\nRandonnée.\n\n## lundi 2 octobre\nBureau.\n"
    assert journal({"carnet.md": text}) == {"carnet.md": ["2023-09-30", "2023-10-01", "2023-10-02"]}


def test_german_weekday_with_a_dotted_date_is_day_month_year():
    text = "#### Montag, 08.10.2018\nAngefangen.\n\n#### Dienstag, 09.10.2018\nWeiter.\n"
    assert journal({"tagebuch.md": text}) == {"tagebuch.md": ["2018-10-08", "2018-10-09"]}
    assert read_line("Montag, 08.10.2018").weekdays == {0}


def test_german_ordinal_day_and_month_name():
    text = "## 3. März 2024\nFrühling.\n\n## 4. März 2024\nRegen.\n\n## Mi., 6. März\nSonne.\n"
    assert journal({"tagebuch.md": text}) == {"tagebuch.md": ["2024-03-03", "2024-03-04", "2024-03-06"]}


def test_spanish_weekday_with_de_particles_and_a_year_from_the_folder():
    files = {"2023/agosto.md": "### Lunes 14 de agosto\nPlaya.\n\n### Martes 15 de agosto\nMontaña.\n",
             "2024/marzo.md": "## 5 de marzo de 2024\nTrabajo.\n"}
    assert journal(files) == {"2023/agosto.md": ["2023-08-14", "2023-08-15"], "2024/marzo.md": ["2024-03-05"]}


def test_portuguese_italian_and_dutch_names_and_ordinals():
    files = {"pt.md": "## Segunda-feira, 4 de março de 2024\nAula.\n\n## 1.º de maio de 2024\nFeriado.\n",
             "it.md": "## lunedì 1° aprile 2024\nPasquetta.\n\n## martedì 2 aprile 2024\nLavoro.\n",
             "nl.md": "## maandag 6 mei 2024\nFietsen.\n\n## dinsdag 7 mei 2024\nWerk.\n"}
    assert journal(files) == {"pt.md": ["2024-03-04", "2024-05-01"], "it.md": ["2024-04-01", "2024-04-02"],
                              "nl.md": ["2024-05-06", "2024-05-07"]}


def test_yearless_weekday_headings_pick_the_year_their_weekdays_fit_in_every_language():
    # 14 August was a Monday in 2023 and a Wednesday in 2024: the weekdays vote, as they do in English
    files = {"a.md": "## 2 de enero de 2023\nx\n", "b.md": "## 3 de enero de 2024\ny\n",
             "c.md": "### Lunes 14 de agosto\nz\n\n### Martes 15 de agosto\nw\n"}
    assert journal(files)["c.md"] == ["2023-08-14", "2023-08-15"]


# ------------------------------------------------------------------------------------------- jrnl and Day One
def test_jrnl_bracketed_entries_each_start_an_entry_never_merged_into_the_one_above():
    text = ("[2013-06-09 15:39] Moved the plants.\nThe basil likes the window.\n\n"
            "[2013-06-10 08:05] Early train.\n[2013-06-10 21:40] Late call with the team.\nIt ran long.\n")
    out = split_dated(text, "journal.txt")
    assert [(p.day.isoformat(), p.at.isoformat(timespec="minutes") if p.at else None) for p in out.parts] == [
        ("2013-06-09", "15:39"), ("2013-06-10", "08:05"), ("2013-06-10", "21:40")]
    assert out.parts[1].text == "Early train." and out.parts[2].text.startswith("Late call")


def test_jrnl_twelve_hour_stamps_and_a_link_reference_is_not_an_entry():
    text = "[2019-03-02 09:15 PM] Night walk.\nCold.\n\n[2019-03-01]: 2019-03-01 \"a link reference\"\n"
    out = split_dated(text, "j.txt")
    assert [(p.day.isoformat(), p.at.hour if p.at else None) for p in out.parts] == [("2019-03-02", 21)]


def test_jrnl_folder_journal_takes_its_date_from_the_path():
    files = {"2020/08/29.txt": "Planted garlic.\n", "2020/08/30.txt": "[2020-08-30 07:10] Rain.\nAll day.\n"}
    assert journal(files) == {"2020/08/29.txt": ["2020-08-29"], "2020/08/30.txt": ["2020-08-30"]}


def test_day_one_text_export_date_lines_start_entries_in_the_exporting_language():
    text = ("\tDate:\tJanuary 5, 2018 at 9:31:56 PM PST\n\tLocation:\tPortland, OR\n\tWeather:\t8° Rain\n\n"
            "Coffee with Sam.\n\n\tDate:\t6 janvier 2018 à 10:02:11 UTC+1\n\tTags:\tvoyage\n\nArrivée à Lyon.\n\n"
            "\tDate:\t7. Januar 2018 um 08:15:00 MEZ\n\nZug nach Basel.\n")
    out = split_dated(text, "Journal.txt", journal_hints({"Journal.txt": text}))
    assert [(p.day.isoformat(), p.at.isoformat(timespec="minutes") if p.at else None) for p in out.parts] == [
        ("2018-01-05", "21:31"), ("2018-01-06", "10:02"), ("2018-01-07", "08:15")]


# ------------------------------------------------------------------------------------------- diagnostics
def test_an_undated_file_says_per_heading_why_and_how_to_fix_it():
    text = "# Notizen\n\n## 3. Mäz 2024\nTippfehler.\n\n## Lunes 14 de agosto\nSin año.\n\n## Montag\nNur der Tag.\n"
    out = split_dated(text, "notes.md", journal_hints({"notes.md": text}))
    assert out.undated
    said = dict(out.flags)
    assert "no date recognised (language?" in said[3] and "--language" in said[3] and "YYYY-MM-DD" in said[3]
    assert "no year and none is known (add --year)" in said[6]
    assert "weekday or a day counter but no date" in said[9]
    message = undated_message("notes.md", "skip", None, len(out.flags))
    assert "3 heading(s) look like dates" in message and "--year" in message and "--language" in message


def test_dry_run_shows_the_per_heading_notes_of_an_undated_file(tmp_path: Path):
    from client.query.imports import import_preview

    (tmp_path / "notes.md").write_text("## Lunes 14 de agosto\nSin año.\n", encoding="utf-8")
    lines, total = import_preview(tmp_path)
    assert total == 0
    assert any(line.startswith("undated") and "1 heading(s) look like dates" in line for line in lines)
    assert any("line 1: 'Lunes 14 de agosto' has no year" in line and "--year" in line for line in lines)
    lines, total = import_preview(tmp_path, year=2023)
    assert total == 1 and any("2023-08-14" in line for line in lines)


def test_language_reads_abbreviations_that_are_words_elsewhere_only_when_asked():
    # beside a year any language's abbreviation is a month; without one, only the journal's languages' are
    assert journal({"p.md": "## 3 out. 2022\nChuva.\n\n## 4 out. 2022\nSol.\n"}) == {"p.md": ["2022-10-03",
                                                                                       "2022-10-04"]}
    yearless = "## 3 out.\nChuva.\n\n## 4 out.\nSol.\n"
    assert journal({"p.md": yearless}, year=2022) == {"p.md": []}
    assert journal({"p.md": yearless}, 2022, frozenset({"pt"})) == {"p.md": ["2022-10-03", "2022-10-04"]}
    assert journal({"f.md": "## 3 févr.\na\n## 4 févr.\nb\n"}, 2024) == {"f.md": ["2024-02-03", "2024-02-04"]}
    assert read_line("Day 3 out of 100").month is None  # English text: `out` is no month


def test_two_letter_weekday_abbreviations_count_only_with_their_dot():
    assert weekday_of("Mi", frozenset({"de"})) == {2}
    assert read_line("so viel 3. März 2024", None, frozenset({"de"})).mention
    assert read_line("Mi., 3. März 2024", None, frozenset({"de"})).day == date(2024, 3, 3)
    assert detect_languages(["April", "September", "Montag"]) == {"de"}


# ------------------------------------------------------------------------------------------- invariants
_FORMATS = ["d MMMM y", "EEEE d MMMM y", "EEEE, d. MMMM y", "d 'de' MMMM 'de' y", "EEEE, d 'de' MMMM 'de' y",
            "MMMM d, y", "EEEE, MMMM d, y", "d MMM y", "EEEE dd.MM.y", "y-MM-dd"]


@settings(max_examples=300, deadline=None)
@given(day=st.dates(date(1990, 1, 1), date(2060, 12, 31)), lang=st.sampled_from(LANGUAGES),
       pattern=st.sampled_from(_FORMATS))
def test_any_date_cldr_writes_in_a_supported_language_reads_back_as_that_date(day: date, lang: str, pattern: str):
    """Invariant: a date written with CLDR's own names (wide or abbreviated, with its weekday) in any supported
    language reads back as that day — with the journal's language — and its weekday, when written, agrees."""
    text = format_date(day, pattern, locale=lang)
    found = read_line(text, True, frozenset({lang}))
    assert found.day == day, text
    assert not found.mention, text
    if "EEEE" in pattern:
        assert found.weekdays == {day.weekday()}, text


@settings(max_examples=60, deadline=None)
@given(start=st.dates(date(2000, 1, 1), date(2040, 12, 1)), lang=st.sampled_from(LANGUAGES),
       steps=st.lists(st.integers(1, 3), min_size=2, max_size=6))
def test_a_yearless_journal_in_any_language_is_dated_by_its_years_weekdays(start: date, lang: str,
                                                                           steps: list[int]):
    """Invariant: yearless weekday headings in any language, in a journal that names two neighbouring years, take
    the year their weekdays fit (the journal-level rule, whatever the language)."""
    days = [start]
    for s in steps:
        days.append(days[-1] + timedelta(days=s))
    if days[-1].year != start.year:
        return
    other = start.year + 1
    body = "\n".join(f"## {format_date(d, 'EEEE d MMMM', locale=lang)}\ntext {n}\n" for n, d in enumerate(days))
    files = {"a.md": f"## {start.year}-01-02\nx\n", "b.md": f"## {other}-01-02\ny\n", "c.md": body}
    assert journal(files, languages=frozenset({lang}))["c.md"] == [d.isoformat() for d in days]


def test_cldr_names_are_consistent_across_languages():
    """No name means two different months, and no weekday name is also a month name where both are read."""
    everything = frozenset(LANGUAGES)
    months, weekdays = month_names(everything), weekday_names(everything)
    assert len(set(months.values())) == 12 and len(set(weekdays.values())) == 7
    assert not set(months) & set(weekdays)


def test_cli_language_option_reads_abbreviations_and_refuses_an_unknown_language(tmp_path: Path):
    from typer.testing import CliRunner

    from client.cli import app

    (tmp_path / "diario.md").write_text("## 3 out.\nChuva.\n\n## 4 out.\nSol.\n", encoding="utf-8")
    plain = CliRunner().invoke(app, ["notes", "import", str(tmp_path), "--dry-run", "--year", "2022"])
    assert plain.exit_code == 1 and "--language" in plain.output
    told = CliRunner().invoke(app, ["notes", "import", str(tmp_path), "--dry-run", "--year", "2022", "--language",
                                    "pt"])
    assert told.exit_code == 0 and "2022-10-03, 2022-10-04" in told.output
    wrong = CliRunner().invoke(app, ["notes", "import", str(tmp_path), "--dry-run", "--language", "xx"])
    assert wrong.exit_code == 2 and "--language must be one of" in wrong.output


# ------------------------------------------------------------------- found measuring public journals (bench)
def test_headings_inside_code_fences_and_html_comments_are_not_entries():
    text = ("## Día 2: 14 de Abril, 2020 - Martes\nGit.\n\n```bash\n# 12 de Abril, 2020\nls\n```\n\n"
            "<!--\n## Día 0: 12 de Mayo, 2020 - Domingo\nplantilla\n-->\n\n## Día 1: 13 de Abril, 2020 - Lunes\nHTTP.\n"
            "```Inline code with a backtick``` is no fence\n## Día 3: 15 de Abril, 2020 - Miércoles\nCSS.\n")
    out = split_dated(text, "log.md", journal_hints({"log.md": text}))
    assert [p.day.isoformat() for p in out.parts] == ["2020-04-14", "2020-04-13", "2020-04-15"]
    assert "# 12 de Abril" in out.parts[0].text and "plantilla" in out.parts[0].text


def test_a_range_of_two_days_with_a_year_is_dated_by_its_first_day_in_any_language():
    for heading, want in [("Día 36-37: 18 y 19 de Mayo, 2020 - Lunes y Martes", date(2020, 5, 18)),
                          ("3-4 janvier 2026", date(2026, 1, 3)), ("19 - 23 of August 2019", date(2019, 8, 19)),
                          ("1 e 2 maggio 2021", date(2021, 5, 1)), ("7 und 8. März 2024", date(2024, 3, 7))]:
        found = read_line(heading)
        assert found.day == want and not found.mention, heading


def test_a_misspelt_weekday_in_another_language_still_leads_a_dated_heading():
    assert weekday_of("Sontag") == {6} and weekday_of("Mitwoch") == {2} and weekday_of("miercole") == {2}
    text = "#### Montag, 22.10.2018\nFedora.\n\n#### Sontag, 11.11.2018\nGluon.\n"
    assert journal({"doc.md": text}) == {"doc.md": ["2018-10-22", "2018-11-11"]}


def test_a_date_spread_over_folders_with_a_month_name_and_a_weekday_dates_the_file():
    files = {"Storia/2022/marzo/lunedì_21/12_46_00/appunti.md": "# lezione di storia\nIl Risorgimento.\n",
             "Arte/2020/dicembre/martedì_01/08_00_37/appunti.md": "# Lezione di Arte\nGiotto.\n"}
    assert journal(files) == {"Storia/2022/marzo/lunedì_21/12_46_00/appunti.md": ["2022-03-21"],
                              "Arte/2020/dicembre/martedì_01/08_00_37/appunti.md": ["2020-12-01"]}


def test_a_daily_note_whose_heading_was_copied_from_another_day_keeps_the_day_its_weekday_and_path_agree_on():
    # 6 March 2021 was a Saturday; the folder's 6 May 2021 was the Thursday the heading names
    rel = "Biologia/2021/maggio/giovedì_06/12_12_00/appunti.md"
    text = "# Lezione di Biologia\n## giovedì 06 marzo 2021, 12:13:23\nLa cellula.\n"
    out = split_dated(text, rel, journal_hints({rel: text}))
    assert [p.day.isoformat() for p in out.parts] == ["2021-05-06"]
    assert any("the date its path states" in w for w in out.warnings)
    # a heading whose weekday fits its own date keeps it (the path is only a folder)
    same = "# Lezione\n## giovedì 04 marzo 2021\nx\n"
    assert [p.day.isoformat() for p in split_dated(same, rel, journal_hints({rel: same})).parts] == ["2021-03-04"]


def test_a_written_date_its_path_confirms_is_kept_when_only_the_weekday_is_off():
    # 24 November 2021 was a Wednesday, as the folder says; the heading's "Martedì" is the slip, not the 24
    rel = "Fisica/2021/novembre/mercoledì_24/09_02_00/appunti.md"
    text = "# Lezione di Fisica\n## Martedì 24 novembre 2021, 09:08\nOnde.\n"
    out = split_dated(text, rel, journal_hints({rel: text}))
    assert [p.day.isoformat() for p in out.parts] == ["2021-11-24"]
    assert any("not the weekday written" in w for w in out.warnings)


def test_a_heading_date_that_differs_from_the_paths_day_is_reported():
    rel = "Filosofia/2021/novembre/giovedì_4/10_11_00/appunti.md"
    text = "# Lezione di Filosofia\n## Mercoledì 3 novembre 2021, 12:14:00\nKant.\n"
    out = split_dated(text, rel, journal_hints({rel: text}))
    assert [p.day.isoformat() for p in out.parts] == ["2021-11-03"]
    assert any("its path names 2021-11-04" in w and "2021-11-03" in w for w in out.warnings)


_STAMPED = st.lists(st.datetimes(datetime(1995, 1, 1), datetime(2045, 12, 31)).map(lambda d: d.replace(second=0,
                    microsecond=0)), min_size=1, max_size=8)


@settings(max_examples=120, deadline=None)
@given(stamps=_STAMPED, twelve_hour=st.booleans(), blank=st.lists(st.booleans(), min_size=8, max_size=8),
       title=st.sampled_from(["Walk.", "Meeting with [Ana] about 3 things", "", "2 coffees", "# not a heading"]))
def test_every_jrnl_entry_line_starts_its_own_entry(stamps: list[datetime], twelve_hour: bool, blank: list[bool],
                                                    title: str):
    """Invariant (jrnl): however the entries follow each other — blank line or none, 12- or 24-hour stamps, any
    title —, each `[stamp]` line is one entry with its day and time; none is merged into the one above."""
    lines = []
    for n, d in enumerate(stamps):
        stamp = d.strftime("%Y-%m-%d %I:%M %p" if twelve_hour else "%Y-%m-%d %H:%M")
        lines += [f"[{stamp}] {title}".rstrip(), f"body {n}"] + ([""] if blank[n] else [])
    out = split_dated("\n".join(lines), "journal.txt", journal_hints({"journal.txt": "\n".join(lines)}))
    assert [(p.day, p.at) for p in out.parts] == [(d.date(), d.time()) for d in stamps]
    assert all(f"body {n}" in p.text for n, p in enumerate(out.parts))


@settings(max_examples=120, deadline=None)
@given(stamps=_STAMPED, lang=st.sampled_from(LANGUAGES), width=st.sampled_from(["long", "medium"]))
def test_every_day_one_entry_is_dated_in_the_exporting_language(stamps: list[datetime], lang: str, width: str):
    """Invariant (Day One): an export whose `Date:` lines CLDR writes in any supported language gives one entry per
    `Date:` line, dated that day."""
    from babel.dates import format_datetime

    text = "".join(f"\tDate:\t{format_datetime(d, width, locale=lang)}\n\tTags:\tx\n\nEntry {n}.\n\n"
                   for n, d in enumerate(stamps))
    out = split_dated(text, "Journal.txt", journal_hints({"Journal.txt": text}))
    assert [p.day for p in out.parts] == [d.date() for d in stamps], text


def test_jrnl_stamps_out_of_order_are_dated_as_written_never_repaired():
    # found by the jrnl invariant: 2000 between 2010 and 2020 was "repaired" to 2020 like a typed heading
    text = "[2010-01-01 00:00] A.\nbody 0\n[2000-01-01 00:00] B.\nbody 1\n[2020-01-01 00:00] C.\nbody 2\n"
    out = split_dated(text, "journal.txt", journal_hints({"journal.txt": text}))
    assert [p.day.year for p in out.parts] == [2010, 2000, 2020]
    assert any("out of order" in w for w in out.warnings)


def test_a_day_one_export_with_an_abbreviated_month_in_any_language_is_dated():
    # found by the Day One invariant: `1 ene 2000` (Spanish, CLDR's medium format) was not read without --language
    text = "\tDate:\t1 ene 2000, 0:00:00\n\tTags:\tx\n\nEntry 0.\n"
    assert [p.day for p in split_dated(text, "Journal.txt", journal_hints({"Journal.txt": text})).parts] == [
        date(2000, 1, 1)]


def test_a_date_line_years_from_the_day_its_path_names_is_text_not_an_entry():
    # found measuring the Italian archive: a lesson filed under 2022/aprile/giovedì_28 quoting Bloomsday
    rel = "Inglese/2022/aprile/giovedì_28/11_13_00/appunti.md"
    text = "# Lezione di Inglese\nUlysses, James Joyce.\n\n16th of june 1904\nOne day in Dublin.\n"
    out = split_dated(text, rel, journal_hints({rel: text}))
    assert [p.day.isoformat() for p in out.parts] == ["2022-04-28"] and "Dublin" in out.parts[0].text
    assert any("more than a year from the day its path names" in w for w in out.warnings)
