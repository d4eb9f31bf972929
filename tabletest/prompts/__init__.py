"""The study's eight prompt types as JSONL queries, one per scene, pair, type and variation (`battery.py`,
`templates.py`, from a render or the enumeration: `sources.py`); the question hierarchy in `hierarchy/`."""
