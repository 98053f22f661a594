"""000 NoteTaker merge (Jaccard dedup 0.7 / 0.6 / 0.8, append never overwrite) and NotesState helpers."""

from models.interview.notes import (
    Claim,
    Contradiction,
    Gap,
    KeyIdea,
    NotesState,
    QuotableLine,
    SectionCoverage,
    Story,
)
from rules.interview.notes import (
    counts,
    coverage_for,
    diff_summary,
    is_empty,
    merge_notes,
    summary_text,
)
from rules.interview.similarity import jaccard


def test_jaccard_is_word_set_overlap():
    assert jaccard("the cat sat", "the cat sat") == 1.0
    assert jaccard("a b c d", "a b c e") == 3 / 5
    assert jaccard("", "anything") == 0.0
    assert jaccard("Hello, World!", "hello world") == 1.0


def test_similar_key_idea_is_deduplicated_at_0_7():
    existing = NotesState(key_ideas=[KeyIdea(title="on call rotations burn people out fast")])
    near = NotesState(key_ideas=[KeyIdea(title="on call rotations burn people out quickly")])  # 6/8 = 0.75
    assert len(merge_notes(existing, near).key_ideas) == 1
    different = NotesState(key_ideas=[KeyIdea(title="on call rotations need clear owners")])   # 3/9
    assert len(merge_notes(existing, different).key_ideas) == 2


def test_key_idea_just_below_threshold_is_kept():
    existing = NotesState(key_ideas=[KeyIdea(title="a b c d e f g")])
    new = NotesState(key_ideas=[KeyIdea(title="a b c d e x y")])   # 5/9 = 0.56 < 0.7
    assert len(merge_notes(existing, new).key_ideas) == 2


def test_contradictions_deduplicate_at_0_6_and_quotes_at_0_8():
    c1 = Contradiction(description="said docs are crucial but shipped without docs")
    c2 = Contradiction(description="said docs are crucial but shipped without any docs")       # 8/9
    c3 = Contradiction(description="said docs are crucial yet skipped them for months")          # 4/12
    merged = merge_notes(NotesState(contradictions=[c1]), NotesState(contradictions=[c2, c3]))
    assert [c.description for c in merged.contradictions] == [c1.description, c3.description]
    q1 = QuotableLine(text="we page the person who wrote the code not the person who is awake")
    q2 = QuotableLine(text="we page the person who wrote the code, not the one on the rota who is awake")  # 0.77
    q3 = QuotableLine(text="We page the person who wrote the code not the person awake!")  # 0.9 >= 0.8
    merged = merge_notes(NotesState(quotable_lines=[q1]), NotesState(quotable_lines=[q2, q3]))
    assert [q.text for q in merged.quotable_lines] == [q1.text, q2.text]


def test_merge_appends_and_never_overwrites_any_list():
    old = NotesState(key_ideas=[KeyIdea(title="idea one")], stories=[Story(title="the outage")],
                     claims=[Claim(text="pager duty is a design smell")], gaps=[Gap(description="team size")],
                     contradictions=[Contradiction(description="x vs y")],
                     quotable_lines=[QuotableLine(text="sleep is a feature")], possible_titles=["Pager Truths"])
    new = NotesState(key_ideas=[KeyIdea(title="completely different thought")], stories=[Story(title="the migration")],
                     claims=[Claim(text="alerts must be actionable")], gaps=[Gap(description="hiring")],
                     contradictions=[Contradiction(description="speed versus safety tension")],
                     quotable_lines=[QuotableLine(text="every alert is a promise")], possible_titles=["Night Shift"])
    merged = merge_notes(old, new)
    for field in NotesState.model_fields:
        if field == "section_coverage":
            continue
        before, after = getattr(old, field), getattr(merged, field)
        assert after[: len(before)] == before, field          # old items first, untouched
        assert len(after) == len(before) + 1, field           # the new one appended


def test_merging_empty_update_keeps_everything():
    old = NotesState(key_ideas=[KeyIdea(title="keep me")], possible_titles=["T"])
    assert merge_notes(old, NotesState()) == old


def test_exact_duplicates_of_stories_claims_gaps_titles_are_dropped_case_insensitively():
    old = NotesState(stories=[Story(title="The Outage")], claims=[Claim(text="A")], gaps=[Gap(description="g")],
                     possible_titles=["Title"])
    new = NotesState(stories=[Story(title="the outage")], claims=[Claim(text="a")], gaps=[Gap(description="G ")],
                     possible_titles=["title"])
    assert merge_notes(old, new) == old


def test_section_coverage_quality_only_rises_and_points_accumulate():
    old = NotesState(section_coverage=[SectionCoverage(id="s1", coverage_quality="adequate", key_points_covered=["a"])])
    worse = NotesState(section_coverage=[SectionCoverage(id="s1", coverage_quality="shallow", key_points_covered=["b"])])
    merged = merge_notes(old, worse)
    assert merged.section_coverage[0].coverage_quality == "adequate"
    assert merged.section_coverage[0].key_points_covered == ["a", "b"]
    better = NotesState(section_coverage=[SectionCoverage(id="s1", coverage_quality="deep"),
                                          SectionCoverage(id="s2", coverage_quality="shallow")])
    merged = merge_notes(merged, better)
    assert [(c.id, c.coverage_quality) for c in merged.section_coverage] == [("s1", "deep"), ("s2", "shallow")]


def test_helpers_empty_counts_coverage_summary_and_diff():
    assert is_empty(NotesState())
    notes = NotesState(key_ideas=[KeyIdea(title="scaling challenges")], stories=[Story(title="the outage")],
                       section_coverage=[SectionCoverage(id="s1", coverage_quality="deep")])
    assert not is_empty(notes)
    assert counts(notes)["key_ideas"] == 1 and counts(notes)["stories"] == 1
    assert coverage_for(notes, "s1") == "deep" and coverage_for(notes, "zz") == "none"
    text = summary_text(notes)
    assert "scaling challenges" in text and "s1: deep" in text
    assert summary_text(NotesState()) == "(no notes yet)"
    assert diff_summary(NotesState(), notes) == "1 idea (scaling challenges), 1 story (the outage)"
