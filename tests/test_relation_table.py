"""The one table of relations: every stage's words are the table's, converses pair up, and VSR's relations are
worded in their own words."""

from __future__ import annotations

from tabletest.prompts.hierarchy import captions, naming, pairs, skills
from tabletest.truth.relation_table import BY_KEY, RELATIONS, VSR_NAMES, vsr_asked


def test_every_relation_s_converse_is_one_whose_converse_it_is():
    assert len(BY_KEY) == len(RELATIONS)
    for relation in RELATIONS:
        if relation.converse is not None:
            assert BY_KEY[relation.converse].converse == relation.key, relation.key


def test_the_words_every_stage_says_are_their_relation_s_in_the_table():
    for word, key in naming.FACT.items():
        assert naming.PHRASE[word] in BY_KEY[key].words and BY_KEY[naming.FACT[naming.OTHER[word]]].converse == key
    for key, (said, converse) in skills.SUPPORT.items():
        assert said in BY_KEY[key].words and converse in BY_KEY[BY_KEY[key].converse].words
    for key, (said, frame) in pairs.WORDED.items():
        assert said in BY_KEY[key].words and frame == BY_KEY[key].frame
    assert captions.OWN_CAPTIONS <= set(BY_KEY)


def test_at_least_45_of_vsr_s_relations_are_worded_in_their_own_words():
    asked = vsr_asked()
    assert len(asked) >= 45 and set(asked) <= set(VSR_NAMES)
    assert {"near", "far from", "close to", "at the edge of", "parallel to", "perpendicular to", "across from", "beyond"} <= set(asked)
