from models.discussion.workflow import Idea, IdeaDraft
from rules.discussion.ideas import MAX_POOL, find_idea, is_duplicate, merge_ideas


def d(title, description="does a thing", refines=None):
    return IdeaDraft(title=title, description=description, refines=refines)


def test_new_ideas_are_numbered_in_order():
    r = merge_ideas([], [d("Compost hub"), d("Food bank app"), d("School kitchens")], 1)
    assert [(i.id, i.title, i.proposed_in_round) for i in r.pool] == [
        ("I1", "Compost hub", 1), ("I2", "Food bank app", 1), ("I3", "School kitchens", 1)]
    assert r.added == ["I1", "I2", "I3"] and not r.dropped


def test_more_than_five_in_one_answer_are_cut():
    r = merge_ideas([], [d(f"Idea number {n}") for n in range(1, 8)], 1)
    assert len(r.pool) == 5
    assert "2 idea(s) beyond the first 5" in r.dropped[0]


def test_duplicates_are_dropped_against_pool_and_same_answer():
    first = merge_ideas([], [d("Community compost hub")], 1)
    r = merge_ideas(first.pool, [d("community  COMPOST hub!"), d("Solar dryers"), d("Solar dryers")], 2)
    assert [i.id for i in r.pool] == ["I1", "I2"]
    assert any("duplicate of I1" in x for x in r.dropped)
    assert any("duplicate of I2" in x for x in r.dropped)


def test_jaccard_duplicate_threshold():
    assert is_duplicate("Compost hub for the town market", "The compost hub for town market")
    assert not is_duplicate("Compost hub", "Compost app")


def test_refinement_keeps_id_and_records_round():
    pool = merge_ideas([], [d("Compost hub", "old")], 1).pool
    r = merge_ideas(pool, [d("Compost hub v2", "new and better", refines="i1")], 2)
    assert len(r.pool) == 1 and r.pool[0].id == "I1"
    assert r.pool[0].title == "Compost hub" and r.pool[0].description == "new and better"
    assert r.pool[0].refined_in_rounds == [2] and r.refined == ["I1"]
    assert pool[0].description == "old"  # the input pool is not changed


def test_refining_an_unknown_id_adds_a_new_idea():
    r = merge_ideas([], [d("Fresh idea", refines="I9")], 1)
    assert [i.id for i in r.pool] == ["I1"]


def test_empty_titles_or_descriptions_are_dropped_and_text_is_cleaned():
    r = merge_ideas([], [d("  ", "x"), d("No body", "   "), d("  Spaced\n title ", "a " * 1000)], 1)
    assert [i.title for i in r.pool] == ["Spaced title"]
    assert len(r.pool[0].description) <= 1500 and r.pool[0].description.endswith("…")
    assert len(r.dropped) == 2


def test_ids_are_never_reused_and_pool_is_capped():
    pool = [Idea(id=f"I{n}", title=f"Distinct idea {n} alpha{n}", description="x", proposed_in_round=1)
            for n in range(1, MAX_POOL + 1)]
    r = merge_ideas(pool, [d("One more beyond the cap")], 3)
    assert len(r.pool) == MAX_POOL and "already holds" in r.dropped[0]
    r2 = merge_ideas(pool[:2] + pool[5:6], [d("Next")], 2)
    assert r2.added == ["I7"]


def test_find_idea_by_id_number_or_title():
    pool = merge_ideas([], [d("Compost hub")], 1).pool
    for ref in ("I1", "i1", "1", "#1", "compost HUB"):
        assert find_idea(pool, ref) is pool[0]
    assert find_idea(pool, "I2") is None and find_idea(pool, None) is None
