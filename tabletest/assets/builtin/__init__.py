"""The built-in procedural library: every catalog object made from plain geometry, offline, in seconds."""
