"""Ground truth computed from a scene's left-to-right order: relations, table sides, vignettes."""
