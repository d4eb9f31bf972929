"""Scoring model answers (`tabletest score`): parse them as a reader would, judge them against the gold, report."""
