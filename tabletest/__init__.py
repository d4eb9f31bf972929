"""TableTest: synthetic table-top scenes with exact spatial ground truth, for testing VLMs.

Arranged by pipeline stage, each stage a folder on a floor that imports only those below it: files/ (and the
top-level errors, config, cache, extras) on the ground; assets/, layout/, truth/, compose/, write/, prompts/,
render/, verify/, score/, rewards/, export/, show/, farm/ above; every command in commands/ on top
(docs/architecture.md draws them).
"""

__version__ = "0.1.0"
