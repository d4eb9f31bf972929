"""One normalisation path for any model file (GLB, glTF, OBJ, PLY), whatever its source.

A file is checked (a GLB's container and every texture must be complete and self-contained), loaded
without running anything from it (its images are read only in the plain formats of `images.py`), baked
to world-frame meshes (every root and node of the scene with its transform applied; cameras, lights,
armatures and animation carry no faces and drop out), turned +Z up, its textures capped at
`MAX_TEXTURE_PX`, and put in the canonical frame at the catalog size.

Every refusal is a ModelError naming the problem and how the file's owner can fix it.
"""

from __future__ import annotations

import base64
import io
import json
import struct
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import trimesh
from PIL import Image

from tabletest.assets.canonical import GLTF_TO_WORLD, bake, has_surface, to_canonical
from tabletest.assets.images import TextureRefused, decode_texture, textures_only
from tabletest.assets.limits import DEFAULT_MAX_TRIANGLES
from tabletest.config import CatalogObject

MAX_TEXTURE_PX = 2048
MODEL_SUFFIXES = (".glb", ".gltf", ".obj", ".ply")
# glTF is +Y up by specification; OBJ files are by convention (Blender's and most tools' exporters);
# PLY has no convention, and Blender and scanners write it +Z up. A catalog `up_axis` overrides all.
DEFAULT_UP_AXIS = {".glb": "y", ".gltf": "y", ".obj": "y", ".ply": "z"}

_GLB_JSON, _GLB_BIN = 0x4E4F534A, 0x004E4942
_TEXTURE_SLOTS = (
    "baseColorTexture",
    "metallicRoughnessTexture",
    "normalTexture",
    "occlusionTexture",
    "emissiveTexture",
)


# How the owner of a model file fixes each kind of problem.
REEXPORT = "re-export it as glTF 2.0 binary (.glb)"
RECOPY = f"copy the whole file again, or {REEXPORT}"
CONVERT_TEXTURE = "convert it to PNG or JPEG"
SIMPLIFY = "simplify it (e.g. with Blender's Decimate modifier) or raise --max-triangles"
NO_SURFACE = "has no visible surface (every triangle has zero area: its corners are collinear or coincide)"
EXPORT_FACES = "export it again with its real faces"


class ModelError(ValueError):
    """A model file that cannot become an asset: what is wrong with it, and how its owner can fix that."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem, self.fix = problem, fix


def normalise(model: Path | bytes, obj: CatalogObject, max_triangles: int = DEFAULT_MAX_TRIANGLES) -> trimesh.Scene:
    """The model (a file, or a GLB's bytes) as a canonical-frame scene of `obj`: +Z up, on z = 0, footprint
    centred, size_m."""
    meshes = world_meshes(model, obj.up_axis, max_triangles)
    try:
        scene = to_canonical(meshes, obj.size_m, obj.yaw_deg)
    except ValueError as err:  # a model with no extent cannot be scaled
        raise ModelError(f"cannot be scaled to size ({err})", "re-export it with its real geometry") from None
    if not has_surface(meshes):
        raise ModelError(NO_SURFACE, EXPORT_FACES)
    return scene


def world_meshes(
    model: Path | bytes, up_axis: str | None = None, max_triangles: int = DEFAULT_MAX_TRIANGLES
) -> list[tuple[str, trimesh.Trimesh]]:
    """Check and load a model; its meshes baked into one +Z-up frame, textures capped.

    `model` is a file, or the bytes of a GLB that the caller has read (and verified) already, so that
    what is loaded is exactly what was checked. The triangles a file declares are counted against
    `max_triangles` before anything heavy is read (a PLY's header, an OBJ's face lines, a glTF's accessor
    counts), and counted again once loaded.
    """
    if isinstance(model, bytes):
        suffix, path, data = ".glb", None, model
    else:
        path = Path(model)
        suffix = path.suffix.lower()
        if suffix not in MODEL_SUFFIXES:
            formats = ", ".join(MODEL_SUFFIXES)
            raise ModelError(f"{suffix or 'no suffix'} is not a model format", f"export it as one of {formats}")
        data = path.read_bytes() if suffix == ".glb" else b""
    try:
        with textures_only():
            if suffix == ".glb":
                gltf, binary = read_glb(data)
                check_triangles(gltf_triangles(gltf), max_triangles)
                check_gltf(gltf, binary)
                scene = trimesh.load(io.BytesIO(data), file_type="glb", force="scene", process=False)
            else:
                if suffix == ".gltf":
                    gltf = _read_json(path.read_bytes())
                    check_triangles(gltf_triangles(gltf), max_triangles)
                    check_gltf(gltf, b"", base_dir=path.parent)
                else:
                    check_triangles(_declared_triangles(path, suffix), max_triangles)
                scene = trimesh.load(str(path), force="scene", process=False)
    except ModelError:
        raise
    except TextureRefused as err:
        raise ModelError(f"has {err}", CONVERT_TEXTURE) from None
    except Exception as err:  # noqa: BLE001 - any reader failure means the same thing: the file cannot be read
        raise ModelError(f"does not load ({type(err).__name__}: {err})", REEXPORT) from None
    meshes = bake(scene)
    if not meshes:
        raise ModelError("has no mesh with faces", "export it again with its meshes, not only cameras or lights")
    check_triangles(sum(len(mesh.faces) for _, mesh in meshes), max_triangles)
    if not all(np.all(np.isfinite(mesh.vertices)) for _, mesh in meshes):
        raise ModelError("has non-finite vertex coordinates (NaN or infinity)", f"repair the mesh, then {REEXPORT}")
    if (up_axis or DEFAULT_UP_AXIS[suffix]) == "y":
        for _, mesh in meshes:
            mesh.apply_transform(GLTF_TO_WORLD)
    for _, mesh in meshes:
        cap_textures(mesh, MAX_TEXTURE_PX)
    return meshes


def too_many_triangles(triangles: int, max_triangles: int) -> str | None:
    """The problem with a model of `triangles` triangles, if it has more than allowed."""
    if triangles <= max_triangles:
        return None
    return f"has {triangles} triangles, more than the {max_triangles} allowed (--max-triangles)"


def check_triangles(triangles: int, max_triangles: int) -> None:
    if problem := too_many_triangles(triangles, max_triangles):
        raise ModelError(problem, SIMPLIFY)


def gltf_triangles(gltf: dict) -> int:
    """The triangles a glTF document declares, from its accessor counts (nothing decoded): each mesh
    counted once per node that places it."""
    accessors = gltf.get("accessors") or []

    def count(index: object) -> int:
        accessor = accessors[index] if isinstance(index, int) and 0 <= index < len(accessors) else {}
        value = accessor.get("count") if isinstance(accessor, dict) else 0
        return value if isinstance(value, int) and value > 0 else 0

    per_mesh = []
    for mesh in gltf.get("meshes") or []:
        triangles = 0
        for primitive in (mesh.get("primitives") or []) if isinstance(mesh, dict) else []:
            if not isinstance(primitive, dict) or primitive.get("mode", 4) not in (4, 5, 6):
                continue  # points and lines have no faces
            attributes = primitive.get("attributes") or {}
            corners = count(primitive.get("indices", attributes.get("POSITION") if isinstance(attributes, dict) else None))
            triangles += corners // 3 if primitive.get("mode", 4) == 4 else max(corners - 2, 0)
        per_mesh.append(triangles)
    placed = (node.get("mesh") for node in gltf.get("nodes") or [] if isinstance(node, dict))
    return sum(per_mesh[m] for m in placed if isinstance(m, int) and 0 <= m < len(per_mesh))


def _declared_triangles(path: Path, suffix: str) -> int:
    """A PLY's face count from its header; an OBJ's face lines (each at least one triangle), streamed."""
    with open(path, "rb") as fh:
        if suffix == ".ply":
            for line in fh:
                words = line.split()
                if words[:2] == [b"element", b"face"] and len(words) == 3 and words[2].isdigit():
                    return int(words[2])
                if words[:1] == [b"end_header"]:
                    break
            return 0
        return sum(1 for line in fh if line.startswith((b"f ", b"f\t")))


def read_glb(data: bytes) -> tuple[dict, bytes]:
    """The JSON and binary chunks of a GLB whose header, length and chunks are all complete."""
    if len(data) < 20 or data[:4] != b"glTF":
        raise ModelError("is not a GLB file (it does not start with the 'glTF' magic)", REEXPORT)
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise ModelError(f"is GLB version {version}, and only glTF 2.0 is read", REEXPORT)
    if length != len(data):
        raise ModelError(f"is truncated or padded: its header says {length} bytes, the file has {len(data)}", RECOPY)
    chunks: list[tuple[int, bytes]] = []
    offset = 12
    while offset < length:
        if offset + 8 > length:
            raise ModelError("is truncated inside a chunk header", RECOPY)
        size, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + size > length:
            raise ModelError("is truncated: a chunk runs past the end of the file", RECOPY)
        chunks.append((kind, data[offset + 8 : offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _GLB_JSON:
        raise ModelError("has no JSON chunk first, as GLB requires", REEXPORT)
    binary = next((chunk for kind, chunk in chunks[1:] if kind == _GLB_BIN), b"")
    return _read_json(chunks[0][1]), binary


def _read_json(raw: bytes) -> dict:
    try:
        gltf = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"has a glTF JSON part that is not valid JSON ({err})", REEXPORT) from None
    if not isinstance(gltf, dict):
        raise ModelError("has a glTF JSON part that is not an object", REEXPORT)
    return gltf


def check_gltf(gltf: dict, binary: bytes, base_dir: Path | None = None, max_texture_px: int | None = None) -> None:
    """Every texture resolves to a complete, decodable image inside the model itself (or, for a .gltf
    beside its files, inside its own folder): no external or dangling reference reaches the renderer.
    With `max_texture_px`, a larger image is refused from its header, before it is decoded."""
    images = gltf.get("images", [])
    for i, texture in enumerate(gltf.get("textures", [])):
        source = texture.get("source")
        if not isinstance(source, int) or not 0 <= source < len(images):
            problem = f"has texture {i} without a valid image (source {source!r} of {len(images)} images)"
            raise ModelError(problem, REEXPORT)
    for i, image in enumerate(images):
        raw = _image_bytes(gltf, binary, image, base_dir, f"image {i}")
        try:
            decode_texture(raw, max_texture_px)
        except TextureRefused as err:
            raise ModelError(f"has image {i} {err}", CONVERT_TEXTURE) from None


def _image_bytes(gltf: dict, binary: bytes, image: dict, base_dir: Path | None, what: str) -> bytes:
    if "bufferView" in image:
        return _buffer_view(gltf, binary, image["bufferView"], base_dir, what)
    uri = image.get("uri")
    if not isinstance(uri, str):
        raise ModelError(f"has {what} with neither a bufferView nor a uri", REEXPORT)
    return _uri_bytes(uri, base_dir, what)


def _buffer_view(gltf: dict, binary: bytes, index: object, base_dir: Path | None, what: str) -> bytes:
    views, buffers = gltf.get("bufferViews", []), gltf.get("buffers", [])
    if not isinstance(index, int) or not 0 <= index < len(views):
        raise ModelError(f"has {what} pointing at bufferView {index!r}, which does not exist", REEXPORT)
    view = views[index]
    buffer_index = view.get("buffer", 0)
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(buffers):
        raise ModelError(f"has {what} in buffer {buffer_index!r}, which does not exist", REEXPORT)
    uri = buffers[buffer_index].get("uri")
    data = binary if uri is None else _uri_bytes(uri, base_dir, f"buffer {buffer_index}")
    start = int(view.get("byteOffset", 0))
    end = start + int(view.get("byteLength", 0))
    if end > len(data):
        raise ModelError(f"has {what} running past the end of its buffer ({end} > {len(data)} bytes)", REEXPORT)
    return data[start:end]


def _uri_bytes(uri: str, base_dir: Path | None, what: str) -> bytes:
    if uri.startswith("data:"):
        header, _, payload = uri.partition(",")
        if not header.endswith(";base64"):
            raise ModelError(f"has {what} as a data URI that is not base64", REEXPORT)
        try:
            return base64.b64decode(payload, validate=True)
        except ValueError:
            raise ModelError(f"has {what} as a data URI that is not valid base64", REEXPORT) from None
    if base_dir is None:
        raise ModelError(
            f"has {what} referring to the external file {uri!r}, which a GLB cannot carry",
            "re-export it as a GLB with its textures embedded",
        )
    root = base_dir.resolve()
    target = (root / unquote(uri)).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise ModelError(
            f"has {what} referring to {uri!r}, which is not a file in {base_dir}",
            f"put that file in {base_dir} beside the model, or {REEXPORT}",
        )
    return target.read_bytes()


def cap_textures(mesh: trimesh.Trimesh, max_px: int) -> None:
    """Shrink every texture of the mesh's material whose larger side exceeds `max_px` (aspect kept)."""
    material = getattr(mesh.visual, "material", None)
    if material is None:
        return
    for slot in (*_TEXTURE_SLOTS, "image"):
        image = getattr(material, slot, None)
        if isinstance(image, Image.Image) and max(image.size) > max_px:
            scale = max_px / max(image.size)
            size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
            setattr(material, slot, image.resize(size, Image.Resampling.LANCZOS))
