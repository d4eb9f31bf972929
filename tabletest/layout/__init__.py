"""Layout: which scenes (the canonical enumeration, selections, shards, held-out splits), where each object
stands (slots, placement, objects on, in and beside others, exact distances between meshes) and the camera,
as plain immutable scene specs; random scenes (their config, sampler, sets, looks, exposure and
counterfactual partners). No Blender."""
