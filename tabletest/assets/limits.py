"""Limits on the models TableTest accepts, kept apart from `normalize` so that reading them (the
commands' defaults, `render`'s checks) does not import trimesh."""

# A model with more triangles is refused (`--max-triangles`): the catalog's objects need far fewer, and
# the memory of loading one grows with its triangles (5 million took 2.7 GB to import, more to render).
DEFAULT_MAX_TRIANGLES = 1_000_000
