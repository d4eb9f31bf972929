"""The ground floor: files and folders every stage reads and writes (atomic writes, JSONL, temporary names,
locks, where a record's files may lie, a render folder's run log and settings). Imports nothing of the
project's but its error type."""
