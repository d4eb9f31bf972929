"""The one asker of the template table's rows (`template_table`): the rows of a kind, asked together, item by
item of what they range over, each question recorded as its row says."""

from __future__ import annotations

from tabletest.prompts.hierarchy.naming import id_key
from tabletest.prompts.hierarchy.phrasings import Wording
from tabletest.prompts.hierarchy.record import Asker
from tabletest.prompts.hierarchy.template_table import TEMPLATES
from tabletest.truth.scene_facts import SceneGeometry


def ask_kind(ask: Asker, g: SceneGeometry, kind: str) -> None:
    """Every question of the rows of `kind`: for each range they share, in the table's order, each item asked by
    each of its rows in turn (a pair's yes/no beside its choice)."""
    rows = [row for row in TEMPLATES if row.kind == kind]
    for over in dict.fromkeys(row.over for row in rows):
        for item in over(g):
            for row in (r for r in rows if r.over is over):
                if (held := row.decide(g, *item)) is None:
                    continue
                for asked in row.pairing(row, held, item):
                    ask.ask(
                        id_key(*asked.key),
                        Wording(row.name, asked.words),
                        skill=held.skill or row.skill,
                        level="multi" if held.skill else row.level,
                        frame=row.frame,
                        relation=asked.relation,
                        answer_type=row.answer_type,  # type: ignore[arg-type]
                        answer=asked.answer,
                        objects=asked.objects,
                        options=asked.options,
                        facts=row.facts(held),
                        rules=[*row.rules, *asked.rules, *held.rules],
                        pair=asked.pair and id_key(*asked.pair),
                    )
