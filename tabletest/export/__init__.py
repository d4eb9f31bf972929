"""`tabletest export`: a render and its prompts in the formats VLM training and evaluation tools load."""
