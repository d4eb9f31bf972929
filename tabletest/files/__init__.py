"""The ground floor: files and folders every stage reads and writes (atomic writes, JSONL, temporary names,
locks, digests, where a record's files may lie), and the records they hold as closed models: a render folder
read as typed records, with its run log, settings and scene families. Imports nothing of the project's but
its error type."""
