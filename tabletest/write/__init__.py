"""What a render writes: the scene families it runs over and their records (`families.py`, `records.py`), the
images finished beside the next render (`finish.py`), shard folders merged into one (`merge.py`) and the
record formats as JSON Schemas (`schema.py`). Every file lands whole (temporary name, then rename)."""
