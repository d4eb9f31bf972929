"""TableTest: synthetic table-top scenes with exact spatial ground truth, for testing VLMs."""

__version__ = "0.1.0"
