"""A look's colour at no model's cost: a material made tintable once multiplies its base colour by the
colour of the object that shows it (Object Info), so recolouring an object is a change of one object value,
not a material assignment (which makes Cycles rebuild the scene) nor another model."""

from __future__ import annotations

import re

import bpy

MARK = "tabletest_tintable"


def material_name(material: bpy.types.Material) -> str:
    """The recipe's name of a material, less the `.001` Blender adds to a second copy."""
    return re.sub(r"\.\d{3}$", "", material.name)


def tintable(material: bpy.types.Material) -> bool:
    """Make the material's base colour its own times the object's colour (clamped to 1), once: whether it did now."""
    if material.get(MARK) or not material.use_nodes:
        return False
    tree = material.node_tree
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        return False
    base = bsdf.inputs["Base Color"]
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type, mix.blend_type, mix.clamp_result = "RGBA", "MULTIPLY", True
    mix.inputs["Factor"].default_value = 1.0
    own = next(s for s in mix.inputs if s.identifier == "A_Color")
    if base.links:
        tree.links.new(base.links[0].from_socket, own)
    else:
        own.default_value = base.default_value
    info = tree.nodes.new("ShaderNodeObjectInfo")
    tree.links.new(info.outputs["Color"], next(s for s in mix.inputs if s.identifier == "B_Color"))
    tree.links.new(next(s for s in mix.outputs if s.identifier == "Result_Color"), base)
    material[MARK] = True
    return True
