"""Issue 22, item 1-2: journals dated as people write them, and never silently. Small fixtures of each format,
written for these tests; each test names the format and failed on the code before (one file = one date form)."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.query.imports import journal_hints, parse_date, split_dated
from rules.query.journal_dates import read_line, weekday_of


def days(result) -> list[str]:  # noqa: ANN001
    return [p.day.isoformat() for p in result.parts]


def journal(files: dict[str, str], year: int | None = None) -> dict[str, list[str]]:
    hints = journal_hints(files, year)
    return {rel: days(split_dated(text, rel, hints)) for rel, text in files.items()}


# ------------------------------------------------------------------------------------------- headings
def test_100_days_of_code_template_headings_are_dated():
    text = ("# 100 Days Of Code - Log\n\n### Day 0: Thursday January 25, 2018\nSet up the repo.\n\n"
            "### Day 1: Friday January 26, 2018\nFirst exercise.\n")
    assert days(split_dated(text, "log.md")) == ["2018-01-25", "2018-01-26"]


def test_day_counter_headings_after_a_plain_date_heading_are_separate_days_not_one_entry():
    text = ("## July 20, 2020\nStarted.\n\n## Day 2: Jul 21, 2020\nArrays.\n\n## Day 3: Jul 22, 2020\nMaps.\n"
            "\n## Day 4: Jul 23, 2020\nSets.\n")
    out = split_dated(text, "log.md")
    assert days(out) == ["2020-07-20", "2020-07-21", "2020-07-22", "2020-07-23"]
    assert [p.text for p in out.parts] == ["Started.", "Arrays.", "Maps.", "Sets."]


def test_a_misspelt_weekday_does_not_fold_the_day_into_the_one_before():
    text = "### Tuesday March 20, 2018\nOne.\n\n### Wedneday March 21, 2018\nTwo.\n\n### thuersday, 22 March 2018\n3\n"
    assert days(split_dated(text, "log.md")) == ["2018-03-20", "2018-03-21", "2018-03-22"]
    assert weekday_of("Wedneday") == {2} and weekday_of("thuesday") == {1, 3} and weekday_of("Mondays") == {0}
    assert weekday_of("Sunday") == {6} and not weekday_of("Sundae") and not weekday_of("today")


def test_ordinals_and_day_of_month_forms():
    for text, want in [("## 4th January 2015", "2015-01-04"), ("## 1st of March, 2016", "2016-03-01"),
                       ("## March 2nd, 2016", "2016-03-02"), ("## Sat, 23rd Jan 2021 at 07:30", "2021-01-23")]:
        assert days(split_dated(text + "\nx\n", "j.md")) == [want], text


def test_round_day_counters_with_compact_and_iso_dates_newest_first():
    text = ("# Round 2\n\n### R2D3 2020-11-18\nc\n\n### R2D2 - 2020-11-17\nb\n\n### R2D1 - 2020-11-16\na\n")
    assert days(split_dated(text, "r2-log.md")) == ["2020-11-18", "2020-11-17", "2020-11-16"]
    assert days(split_dated("### R1D45 - 20200915\nx\n### R1D46 - 20200916\ny\n", "r1.md")) == [
        "2020-09-15", "2020-09-16"]


def test_newest_first_day_headings_dated_by_the_bold_line_under_them_and_the_top_one_by_its_counter():
    text = ("# Log\n\n### Day 12 :tada:\nDone!\n\n### Day 11\n\n**Friday, January 3, 2020**\n\nHooks.\n\n"
            "### Day 10\n\n**Thursday, January 2, 2020**\n\nProps.\n")
    out = split_dated(text, "log.md")
    assert days(out) == ["2020-01-04", "2020-01-03", "2020-01-02"]
    assert out.parts[1].text.endswith("Hooks.") and out.parts[0].inferred
    assert any("counted on from day 11" in w for w in out.warnings)


def test_org_mode_day_first_settled_by_the_journal_and_a_month_first_journal_read_the_other_way():
    org = ("#+TITLE: Lab\n* Week 04-02 / 10-02\n** monday, 04-02-2019\nRead.\n** tuesday, 05-02-2019\nWrote.\n"
           "* Week 11-02 / 17-02\n** wednesday, 13-02-2019\nRan.\n")
    assert journal({"journal.org": org}) == {"journal.org": ["2019-02-04", "2019-02-05", "2019-02-13"]}
    us = "## 02/04/2019\na\n## 02/05/2019\nb\n## 02/13/2019\nc\n"
    assert journal({"us.md": us}) == {"us.md": ["2019-02-04", "2019-02-05", "2019-02-13"]}
    # The order comes from the journal, not from each heading: another file's day over 12 settles this one.
    assert journal({"a.md": "## 03-04-2019\nx\n", "b.md": "## 25-04-2019\ny\n"})["a.md"] == ["2019-04-03"]


def test_a_journal_that_never_settles_the_order_is_not_guessed_and_says_so():
    out = split_dated("## 03-04-2019\nx\n## 05-06-2019\ny\n", "j.md", journal_hints({"j.md": ""}))
    assert out.parts == [] and [n for n, _ in out.flags] == [1, 3]
    assert "day-first or month-first" in out.flags[0][1]


def test_month_files_whose_headings_give_only_the_day_and_the_weekend():
    text = "# August 2019\n\n## Thursday 1st\nOne.\n\n## Friday 2nd\nTwo.\n\n## The weekend\nHike.\n\n## 5\nFive.\n"
    out = split_dated(text, "2019/08-August-2019.md")
    assert days(out) == ["2019-08-01", "2019-08-02", "2019-08-03", "2019-08-05"]
    assert any(n == 9 and "weekend" in w for n, w in out.flags)


def test_journals_without_a_year_take_it_from_folder_front_matter_journal_or_year_option_never_today():
    text = "#### R1D1 - Thu Jun 21\na\n#### R1D2 - Fri Jun 22\nb\n"
    assert days(split_dated(text, "2018/log.md")) == ["2018-06-21", "2018-06-22"]
    assert days(split_dated("---\ndate: 2018-06-20\n---\n" + text, "log.md")) == ["2018-06-21", "2018-06-22"]
    # Another file of the journal names its year; the weekdays pick it among the journal's years.
    files = {"r1.md": text, "old.md": "## Thu Jul 26 21:36:50 EDT 2018\nc\n", "other.md": "## 2016-01-02\nd\n"}
    assert journal(files)["r1.md"] == ["2018-06-21", "2018-06-22"]
    assert journal({"r1.md": text}, year=2018)["r1.md"] == ["2018-06-21", "2018-06-22"]
    alone = split_dated(text, "log.md", journal_hints({"log.md": text}))
    assert alone.parts == [] and all("--year" in w for _, w in alone.flags) and len(alone.flags) == 2


def test_a_yearless_journal_crossing_new_year_moves_to_the_next_year():
    assert days(split_dated("## Dec 30\na\n## Dec 31\nb\n## Jan 1\nc\n", "2020/log.md")) == [
        "2020-12-30", "2020-12-31", "2021-01-01"]


def test_a_date_one_typed_digit_off_is_repaired_from_its_weekday_and_neighbours_and_reported():
    text = "## Wednesday 2019-05-29\na\n## Friday 2019-05-21\nb\n## Monday 2019-06-03\nc\n"
    out = split_dated(text, "log.md")
    assert days(out) == ["2019-05-29", "2019-05-31", "2019-06-03"]
    assert out.flags[0][0] == 3 and "one digit away" in out.flags[0][1]
    # A weekday-only heading between dated ones: the next such day after the entry before it.
    assert days(split_dated("** tuesday, 11-06-2019\na\n** wedenesday\nb\n", "j.org",
                            journal_hints({"j.org": "** monday, 17-06-2019"}))) == ["2019-06-11", "2019-06-12"]


# ------------------------------------------------------------------------------------ file names / front matter
def test_file_names_and_front_matter_as_journals_write_them():
    hints = journal_hints({"log-25-01-2023.md": ""})
    for name, want in [("journals/2023_01_15.md", "2023-01-15"), ("2023-01-15-a-slug.markdown", "2023-01-15"),
                       ("log-25-01-2023.md", "2023-01-25"), ("20230115.md", "2023-01-15")]:
        assert days(split_dated("Some text.\n", name, hints)) == [want], name
    assert days(split_dated("---\ntitle: 2021-04-22\n---\n- item\n", "notes/x.md")) == ["2021-04-22"]
    moved = split_dated("---\ntitle: Day 12\ndate: 2013-10-20 23:52\n---\nPost.\n", "2013-10-17-day-12.markdown")
    assert days(moved) == ["2013-10-20"] and "differs from the file name" in moved.warnings[0]


# ------------------------------------------------------------------------------------------- never silent
def test_every_date_like_heading_not_used_is_reported_with_its_line():
    text = ("# Log\n\n### Day 0: February 30, 2016 (Example)\ntemplate\n\n### Day 1: June 02, 2018\nreal\n\n"
            "## Notes about the 2018-06-01 release\nstill day 1\n")
    out = split_dated(text, "log.md")
    assert days(out) == ["2018-06-02"]
    assert [n for n, _ in out.flags] == [3, 9]
    assert "not a real date" in out.flags[0][1] and "inside other words" in out.flags[1][1]
    assert out.warnings[0].startswith("line 3: ")


def test_a_file_with_no_date_is_undated():
    out = split_dated("Just thoughts.\n## Ideas\nmore\n", "thoughts.md")
    assert out.undated and out.parts == []


def test_parse_date_reads_a_complete_date_anywhere_in_a_heading():
    assert parse_date("Day 3: Jun 06, 2018, Wednesday") == (date(2018, 6, 6), None)
    assert parse_date("Plans for 2015") is None and parse_date("2026-02-30") == "2026-02-30 is not a real date"


# ------------------------------------------------------------------------------------------- properties
FORMATS = [
    lambda d: d.isoformat(),
    lambda d: f"{d:%Y_%m_%d}",
    lambda d: f"{d:%Y%m%d}",
    lambda d: f"{d.day}.{d.month:02d}.{d.year}",
    lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year}",
    lambda d: f"{d:%a} {d:%b} {d.day:02d} {d.year}",
    lambda d: f"{d.day}{'th' if 10 <= d.day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d.day % 10, 'th')} "
              f"of {d:%B} {d.year}",
    lambda d: f"Day 7: {d:%b} {d.day}, {d.year}",
    lambda d: f"R1D7 - {d:%Y%m%d}",
    lambda d: f"{d:%a %b %d} 21:36:50 EDT {d.year}",
]
DATES = st.dates(min_value=date(1950, 1, 1), max_value=date(2099, 12, 31))


@given(DATES, st.sampled_from(range(len(FORMATS))))
@settings(max_examples=300, deadline=None)
def test_property_a_date_rendered_in_any_supported_form_reads_back(day: date, form: int):
    found = read_line(FORMATS[form](day))
    assert found.day == day and not found.mention


@given(DATES, st.booleans())
@settings(max_examples=200, deadline=None)
def test_property_numeric_dates_read_back_in_the_order_the_journal_settles(day: date, day_first: bool):
    written = f"{day:%d-%m-%Y}" if day_first else f"{day:%m/%d/%Y}"
    assert read_line(written, day_first).day == day


LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"),
               max_size=40)


@given(DATES, st.lists(st.tuples(st.integers(0, 20), st.lists(LINE, max_size=4)), min_size=1, max_size=6),
       st.lists(LINE, max_size=3))
@settings(max_examples=200, deadline=None)
def test_property_splitting_never_loses_text(start: date, entries, preamble):  # noqa: ANN001
    """Whatever the body lines, every line of the file is in exactly one entry, in order — but the dated headings
    that split it (the 'modulo headings')."""
    lines, day = ["# Journal"], start
    lines += [p for p in preamble if p.strip() and not p.lstrip().startswith(("#", "*", "_"))]
    for gap, body in entries:
        day += timedelta(days=gap)
        lines.append(f"## {day:%A, %B} {day.day}, {day.year}")
        lines += [b for b in body if not b.lstrip().startswith(("#", "*", "_")) and not read_line(b).has_date]
    text = "\n".join(lines) + "\n"
    out = split_dated(text, "journal.md")
    kept = "\n".join(p.text for p in out.parts)
    expected = [ln.strip() for ln in lines[1:] if ln.strip() and not ln.startswith("## ")]
    assert [ln.strip() for ln in kept.split("\n") if ln.strip()] == expected


@given(st.lists(DATES, min_size=1, max_size=8, unique=True), st.sampled_from(range(len(FORMATS))), st.booleans())
@settings(max_examples=200, deadline=None)
def test_property_a_journal_in_any_heading_form_oldest_or_newest_first_splits_into_its_days(
        dates: list[date], form: int, newest_first: bool):
    ordered = sorted(dates, reverse=newest_first)
    text = "# My log\n\n" + "\n".join(f"## {FORMATS[form](d)}\nentry {i}\n" for i, d in enumerate(ordered))
    out = split_dated(text, "log.md", journal_hints({"log.md": text}))
    assert days(out) == [d.isoformat() for d in ordered] and out.flags == []
    assert [p.text for p in out.parts] == [f"entry {i}" for i in range(len(ordered))]
