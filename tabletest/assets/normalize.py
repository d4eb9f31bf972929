"""One normalisation path for any model file (GLB, glTF, OBJ, PLY), whatever its source.

A file is checked (a GLB's container and every texture must be complete and self-contained), loaded
without running anything from it, baked to world-frame meshes (every root and node of the scene with
its transform applied; cameras, lights, armatures and animation carry no faces and drop out), turned
+Z up, its textures capped at `MAX_TEXTURE_PX`, and put in the canonical frame at the catalog size.
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
from PIL import Image, UnidentifiedImageError

from tabletest.assets.canonical import GLTF_TO_WORLD, bake, to_canonical
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


class ModelError(ValueError):
    """A model file that cannot become an asset; the message says what is wrong with it."""


def normalise(path: Path, obj: CatalogObject) -> trimesh.Scene:
    """The model at `path` as a canonical-frame scene of `obj`: +Z up, on z = 0, footprint centred, size_m."""
    meshes = world_meshes(path, obj.up_axis)
    try:
        return to_canonical(meshes, obj.size_m, obj.yaw_deg)
    except ValueError as err:  # a model with no extent cannot be scaled
        raise ModelError(f"cannot be scaled to size ({err})") from None


def world_meshes(path: Path, up_axis: str | None = None) -> list[tuple[str, trimesh.Trimesh]]:
    """Check and load a model file; its meshes baked into one +Z-up frame, textures capped."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in MODEL_SUFFIXES:
        raise ModelError(f"{suffix or 'no suffix'} is not a model format; use one of {', '.join(MODEL_SUFFIXES)}")
    try:
        if suffix == ".glb":
            data = path.read_bytes()
            check_gltf(*read_glb(data))
            scene = trimesh.load(io.BytesIO(data), file_type="glb", force="scene", process=False)
        else:
            if suffix == ".gltf":
                check_gltf(_read_json(path.read_bytes()), b"", base_dir=path.parent)
            scene = trimesh.load(str(path), force="scene", process=False)
    except ModelError:
        raise
    except Exception as err:  # noqa: BLE001 - any reader failure means the same thing: the file cannot be read
        raise ModelError(f"does not load ({type(err).__name__}: {err})") from None
    meshes = bake(scene)
    if not meshes:
        raise ModelError("has no mesh with faces")
    if not all(np.all(np.isfinite(mesh.vertices)) for _, mesh in meshes):
        raise ModelError("has non-finite vertex coordinates (NaN or infinity)")
    if (up_axis or DEFAULT_UP_AXIS[suffix]) == "y":
        for _, mesh in meshes:
            mesh.apply_transform(GLTF_TO_WORLD)
    for _, mesh in meshes:
        cap_textures(mesh, MAX_TEXTURE_PX)
    return meshes


def read_glb(data: bytes) -> tuple[dict, bytes]:
    """The JSON and binary chunks of a GLB whose header, length and chunks are all complete."""
    if len(data) < 20 or data[:4] != b"glTF":
        raise ModelError("is not a GLB file (it does not start with the 'glTF' magic)")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise ModelError(f"is GLB version {version}; only glTF 2.0 is supported")
    if length != len(data):
        raise ModelError(f"is truncated or padded: its header says {length} bytes, the file has {len(data)}")
    chunks: list[tuple[int, bytes]] = []
    offset = 12
    while offset < length:
        if offset + 8 > length:
            raise ModelError("is truncated inside a chunk header")
        size, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + size > length:
            raise ModelError("is truncated: a chunk runs past the end of the file")
        chunks.append((kind, data[offset + 8 : offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _GLB_JSON:
        raise ModelError("has no JSON chunk first, as GLB requires")
    binary = next((chunk for kind, chunk in chunks[1:] if kind == _GLB_BIN), b"")
    return _read_json(chunks[0][1]), binary


def _read_json(raw: bytes) -> dict:
    try:
        gltf = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"has a glTF JSON part that is not valid JSON ({err})") from None
    if not isinstance(gltf, dict):
        raise ModelError("has a glTF JSON part that is not an object")
    return gltf


def check_gltf(gltf: dict, binary: bytes, base_dir: Path | None = None) -> None:
    """Every texture resolves to a complete, decodable image inside the model itself (or, for a .gltf
    beside its files, inside its own folder): no external or dangling reference reaches the renderer."""
    images = gltf.get("images", [])
    for i, texture in enumerate(gltf.get("textures", [])):
        source = texture.get("source")
        if not isinstance(source, int) or not 0 <= source < len(images):
            raise ModelError(f"has texture {i} without a valid image (source {source!r} of {len(images)} images)")
    for i, image in enumerate(images):
        raw = _image_bytes(gltf, binary, image, base_dir, f"image {i}")
        try:
            with Image.open(io.BytesIO(raw)) as decoded:
                decoded.load()
        except UnidentifiedImageError:
            raise ModelError(f"has image {i} in no image format PIL knows") from None
        except Exception as err:  # noqa: BLE001 - whatever else PIL raises, the texture cannot be shown
            raise ModelError(f"has image {i} that does not decode ({type(err).__name__}: {err})") from None


def _image_bytes(gltf: dict, binary: bytes, image: dict, base_dir: Path | None, what: str) -> bytes:
    if "bufferView" in image:
        return _buffer_view(gltf, binary, image["bufferView"], base_dir, what)
    uri = image.get("uri")
    if not isinstance(uri, str):
        raise ModelError(f"has {what} with neither a bufferView nor a uri")
    return _uri_bytes(uri, base_dir, what)


def _buffer_view(gltf: dict, binary: bytes, index: object, base_dir: Path | None, what: str) -> bytes:
    views, buffers = gltf.get("bufferViews", []), gltf.get("buffers", [])
    if not isinstance(index, int) or not 0 <= index < len(views):
        raise ModelError(f"has {what} pointing at bufferView {index!r}, which does not exist")
    view = views[index]
    buffer_index = view.get("buffer", 0)
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(buffers):
        raise ModelError(f"has {what} in buffer {buffer_index!r}, which does not exist")
    uri = buffers[buffer_index].get("uri")
    data = binary if uri is None else _uri_bytes(uri, base_dir, f"buffer {buffer_index}")
    start = int(view.get("byteOffset", 0))
    end = start + int(view.get("byteLength", 0))
    if end > len(data):
        raise ModelError(f"has {what} running past the end of its buffer ({end} > {len(data)} bytes)")
    return data[start:end]


def _uri_bytes(uri: str, base_dir: Path | None, what: str) -> bytes:
    if uri.startswith("data:"):
        header, _, payload = uri.partition(",")
        if not header.endswith(";base64"):
            raise ModelError(f"has {what} as a data URI that is not base64")
        try:
            return base64.b64decode(payload, validate=True)
        except ValueError:
            raise ModelError(f"has {what} as a data URI that is not valid base64") from None
    if base_dir is None:
        raise ModelError(f"has {what} referring to the external file {uri!r}, which a GLB cannot carry")
    root = base_dir.resolve()
    target = (root / unquote(uri)).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise ModelError(f"has {what} referring to {uri!r}, which is not a file in {base_dir}")
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
