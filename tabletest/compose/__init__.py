"""Composite rendering without Blender: every permutation of objects on the table, composed from
layer renders (the empty table once, each object alone at each slot once) in linear light.

`layers` names, keys and caches the layer renders; `composer` adds the objects' differences from the
empty table and applies Blender's view transform (`view`); `pool` runs composers in parallel
processes. Nothing here imports bpy: the layers are rendered by `tabletest.render`.
"""
