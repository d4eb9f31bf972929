"""A render and its prompts or questions in the formats VLM training and evaluation tools load, one module per
format (`tabletest export` runs them through `run.py`)."""
