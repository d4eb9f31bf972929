"""Layout: which objects stand in which slot, the canonical scene enumeration, and selections of it."""
