"""Hand-built glTF 2.0 files for the asset tests: the awkward things real downloads contain (Y-up,
several roots, skins and animation, cameras and lights, huge scales and textures, broken parts),
written byte by byte so each test knows exactly what is inside."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import trimesh
from PIL import Image

FLOAT, USHORT = 5126, 5123


def png(width: int, height: int, rgb: tuple[int, int, int] = (200, 60, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), rgb).save(out, format="PNG")
    return out.getvalue()


def eps(width: int = 4, height: int = 4) -> bytes:
    """An Encapsulated PostScript image: Pillow identifies it without help but decodes it with Ghostscript."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 60, 40)).save(out, format="EPS")
    return out.getvalue()


class Gltf:
    """A glTF document and its binary buffer, built up piece by piece, packed by `glb()`."""

    def __init__(self) -> None:
        self.doc: dict = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": []}]}
        self.bin = bytearray()

    def _add(self, key: str, item: dict) -> int:
        self.doc.setdefault(key, []).append(item)
        return len(self.doc[key]) - 1

    def view(self, data: bytes) -> int:
        while len(self.bin) % 4:
            self.bin.append(0)
        index = self._add("bufferViews", {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)})
        self.bin += data
        return index

    def accessor(self, values: np.ndarray, kind: str) -> int:
        array = np.ascontiguousarray(values, dtype=np.uint16 if kind == "SCALAR_INDEX" else np.float32)
        item = {
            "bufferView": self.view(array.tobytes()),
            "componentType": USHORT if kind == "SCALAR_INDEX" else FLOAT,
            "count": len(array),
            "type": "SCALAR" if kind.startswith("SCALAR") else kind,
        }
        if kind == "VEC3":
            item["min"], item["max"] = array.min(axis=0).tolist(), array.max(axis=0).tolist()
        return self._add("accessors", item)

    def box(self, extents=(1.0, 1.0, 1.0), centre=(0.0, 0.0, 0.0), material: int | None = None) -> int:
        """A box mesh (with UVs), extents and centre in the file's own (+Y-up) frame; returns its mesh index."""
        box = trimesh.creation.box(extents=extents)
        vertices = box.vertices[box.faces].reshape(-1, 3) + np.asarray(centre)  # unshared, so UVs are per face
        faces = np.arange(len(vertices)).reshape(-1, 3)
        uv = (vertices[:, :2] - vertices[:, :2].min(axis=0)) / np.ptp(vertices[:, :2], axis=0).clip(1e-9)
        primitive = {
            "attributes": {"POSITION": self.accessor(vertices, "VEC3"), "TEXCOORD_0": self.accessor(uv, "VEC2")},
            "indices": self.accessor(faces.reshape(-1), "SCALAR_INDEX"),
        }
        if material is not None:
            primitive["material"] = material
        return self._add("meshes", {"primitives": [primitive]})

    def mesh(self, vertices, faces) -> int:
        """A mesh of the given triangles (vertex indices), in the file's own (+Y-up) frame; returns its index."""
        primitive = {
            "attributes": {"POSITION": self.accessor(np.asarray(vertices), "VEC3")},
            "indices": self.accessor(np.asarray(faces).reshape(-1), "SCALAR_INDEX"),
        }
        return self._add("meshes", {"primitives": [primitive]})

    def textured_material(self, image: bytes | None = None, uri: str | None = None) -> int:
        """A material whose base colour is a texture: embedded bytes, or an external `uri`."""
        image_item = (
            {"uri": uri} if uri is not None else {"bufferView": self.view(image or png(8, 8)), "mimeType": "image/png"}
        )
        source = self._add("images", image_item)
        texture = self._add("textures", {"source": source})
        return self._add("materials", {"pbrMetallicRoughness": {"baseColorTexture": {"index": texture}}})

    def node(self, root: bool = True, **fields) -> int:
        index = self._add("nodes", fields)
        if root:
            self.doc["scenes"][0]["nodes"].append(index)
        return index

    def glb(self) -> bytes:
        doc = dict(self.doc)
        if self.bin:
            doc["buffers"] = [{"byteLength": len(self.bin)}]
        text = json.dumps(doc).encode()
        text += b" " * (-len(text) % 4)
        binary = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
        if binary:
            chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
        return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


# ---- the models the fixture hub serves ----


def y_up_tall() -> bytes:
    """A box tallest along the file's +Y (glTF up): it must stand up along world +Z."""
    g = Gltf()
    g.node(mesh=g.box(extents=(0.2, 1.0, 0.4), material=g.textured_material()))
    return g.glb()


def multi_root() -> bytes:
    """Two root nodes and a child with its own transform: every mesh must be kept, transforms applied."""
    g = Gltf()
    mesh = g.box(extents=(1.0, 1.0, 1.0))
    child = g.node(root=False, mesh=mesh, translation=[0.0, 3.0, 0.0])
    g.node(mesh=mesh, translation=[-2.0, 0.0, 0.0], children=[child])
    g.node(mesh=mesh, translation=[2.0, 0.0, 0.0], scale=[1.0, 2.0, 1.0])
    return g.glb()


def animated() -> bytes:
    """A skinned, animated mesh with an armature, a camera and a light: only the mesh may survive."""
    g = Gltf()
    g.doc["extensionsUsed"] = ["KHR_lights_punctual"]
    g.doc["extensions"] = {"KHR_lights_punctual": {"lights": [{"type": "point", "intensity": 10.0}]}}
    g.doc["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.01}}]
    joint = g.node(root=False, translation=[0.0, 0.5, 0.0])
    armature = g.node(children=[joint])
    mesh = g.box(extents=(0.5, 1.0, 0.5))
    vertices = g.doc["accessors"][g.doc["meshes"][mesh]["primitives"][0]["attributes"]["POSITION"]]["count"]
    primitive = g.doc["meshes"][mesh]["primitives"][0]
    primitive["attributes"]["JOINTS_0"] = g._add(
        "accessors",
        {
            "bufferView": g.view(np.zeros((vertices, 4), np.uint16).tobytes()),
            "componentType": USHORT,
            "count": vertices,
            "type": "VEC4",
        },
    )
    primitive["attributes"]["WEIGHTS_0"] = g.accessor(np.tile([1.0, 0, 0, 0], (vertices, 1)), "VEC4")
    inverse_bind = g.accessor(np.eye(4, dtype=np.float32).reshape(1, 16), "MAT4")
    skin = g._add("skins", {"joints": [joint], "inverseBindMatrices": inverse_bind, "skeleton": armature})
    g.node(mesh=mesh, skin=skin)
    g.node(camera=0, translation=[0.0, 0.0, 5.0])
    g.node(extensions={"KHR_lights_punctual": {"light": 0}}, translation=[3.0, 3.0, 3.0])
    times = g.accessor(np.array([0.0, 1.0]), "SCALAR")
    g.doc["accessors"][times].update(min=[0.0], max=[1.0])
    moves = g.accessor(np.array([[0.0, 0.5, 0.0], [0.0, 2.0, 0.0]]), "VEC3")
    g._add(
        "animations",
        {
            "channels": [{"sampler": 0, "target": {"node": joint, "path": "translation"}}],
            "samplers": [{"input": times, "output": moves, "interpolation": "LINEAR"}],
        },
    )
    return g.glb()


def absurdly_scaled() -> bytes:
    """A model in the wrong units: 5 km across."""
    g = Gltf()
    g.node(mesh=g.box(extents=(5000.0, 2000.0, 3000.0), centre=(1e4, 500.0, -7e3)))
    return g.glb()


def huge_texture() -> bytes:
    """A 4096 × 64 base-colour texture: it must come out no wider than 2048 px."""
    g = Gltf()
    g.node(mesh=g.box(material=g.textured_material(png(4096, 64))))
    return g.glb()


def external_texture() -> bytes:
    """A GLB whose texture points at a file beside it, which a download never has."""
    g = Gltf()
    g.node(mesh=g.box(material=g.textured_material(uri="diffuse.png")))
    return g.glb()


def corrupt_texture() -> bytes:
    """An embedded texture whose bytes are not an image."""
    g = Gltf()
    g.node(mesh=g.box(material=g.textured_material(b"\x89PNG\r\n\x1a\n but then nothing")))
    return g.glb()


def eps_texture() -> bytes:
    """A GLB whose embedded base-colour texture is an EPS image."""
    g = Gltf()
    g.node(mesh=g.box(material=g.textured_material(eps())))
    return g.glb()


def non_finite() -> bytes:
    g = Gltf()
    g.node(mesh=g.box())
    position = g.doc["accessors"][0]
    view = g.doc["bufferViews"][position["bufferView"]]
    g.bin[view["byteOffset"] : view["byteOffset"] + 4] = struct.pack("<f", float("nan"))
    return g.glb()


def degenerate() -> bytes:
    """Faces, but every vertex at one point: nothing to scale."""
    g = Gltf()
    g.node(mesh=g.box(extents=(0.0, 0.0, 0.0)))
    return g.glb()


def collinear_triangle() -> bytes:
    """One triangle whose corners lie on a line: it has faces and an extent, and shows nothing."""
    g = Gltf()
    g.node(mesh=g.mesh([[0.0, 0.0, 0.0], [0.1, 0.5, 0.05], [0.2, 1.0, 0.1]], [[0, 1, 2]]))
    return g.glb()


def instanced_box(copies: int) -> bytes:
    """One 12-triangle box mesh placed by `copies` nodes side by side: 12 × copies triangles on screen."""
    g = Gltf()
    mesh = g.box()
    for i in range(copies):
        g.node(mesh=mesh, translation=[2.0 * i, 0.0, 0.0])
    return g.glb()


def camera_only() -> bytes:
    g = Gltf()
    g.doc["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.01}}]
    g.node(camera=0)
    return g.glb()


def plain_box(extents=(1.0, 0.5, 0.8), size_bytes: int = 0) -> bytes:
    """A valid box; `size_bytes` pads the binary chunk so the file is at least that large."""
    g = Gltf()
    g.node(mesh=g.box(extents=extents))
    if size_bytes:
        g.view(b"\0" * size_bytes)
    return g.glb()


def gltf_files(stem: str, extents=(0.3, 1.0, 0.3), texture_uri: str = "label.png") -> dict[str, bytes]:
    """A .gltf beside its .bin and texture file (what exporters write): file name -> bytes."""
    g = Gltf()
    g.node(mesh=g.box(extents=extents, material=g.textured_material(uri=texture_uri)))
    g.doc["buffers"] = [{"uri": f"{stem}.bin", "byteLength": len(g.bin)}]
    return {f"{stem}.gltf": json.dumps(g.doc).encode(), f"{stem}.bin": bytes(g.bin), "label.png": png(16, 16)}


def obj_files(stem: str, texture_name: str, texture: bytes) -> dict[str, bytes]:
    """An OBJ (a box, tallest along +Y) beside its MTL, whose `map_Kd` names the texture file: name -> bytes."""
    box = trimesh.creation.box(extents=(0.2, 1.0, 0.4))
    lines = [f"mtllib {stem}.mtl", "usemtl label"]
    lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in box.vertices]
    lines += ["vt 0 0", "vt 1 0", "vt 1 1"]
    lines += [f"f {a + 1}/1 {b + 1}/2 {c + 1}/3" for a, b, c in box.faces]
    mtl = f"newmtl label\nKd 1 1 1\nmap_Kd {texture_name}\n"
    return {f"{stem}.obj": "\n".join(lines).encode() + b"\n", f"{stem}.mtl": mtl.encode(), texture_name: texture}
