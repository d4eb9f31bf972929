"""The paper's eight prompt types as JSONL queries: one per scene, pair, type and variation."""
