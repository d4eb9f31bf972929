"""Scoring model answers: parse them as a reader would, judge them against the gold, report."""
