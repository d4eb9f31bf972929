"""A model's columns are measured once per model file and kept in the user's cache, read back exactly."""

from __future__ import annotations

import numpy as np

from tabletest.assets.canonical import model_columns, model_mesh
from tabletest.assets.columns import Columns, columns_of
from tabletest.assets.manifest import load_manifest


def same(a: Columns, b: Columns) -> bool:
    return (a.x0, a.y0, a.cell) == (b.x0, b.y0, b.cell) and all(
        np.array_equal(x, y, equal_nan=True) for x, y in ((a.bottom, b.bottom), (a.top, b.top))
    )


def test_columns_are_kept_by_the_model_bytes_and_a_damaged_copy_is_measured_again(builtin_assets, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entry = load_manifest(builtin_assets).objects["bowl"]
    path = str(builtin_assets / entry.file)
    measured = columns_of(*model_mesh(path, entry.sha256))
    model_columns.cache_clear()
    assert same(model_columns(path, entry.sha256), measured)
    (kept,) = (tmp_path / "tabletest" / "columns").iterdir()
    assert kept.name.startswith(entry.sha256)

    raised = {"x0": measured.x0, "y0": measured.y0, "cell": measured.cell, "bottom": measured.bottom, "top": measured.top + 1}
    with open(kept, "wb") as fh:
        np.savez(fh, **raised)
    model_columns.cache_clear()
    assert np.array_equal(model_columns(path, entry.sha256).top, measured.top + 1, equal_nan=True)  # read, not measured

    kept.write_bytes(kept.read_bytes()[:100])
    model_columns.cache_clear()
    assert same(model_columns(path, entry.sha256), measured)
    with np.load(kept) as saved:  # and written whole again
        assert np.array_equal(saved["top"], measured.top, equal_nan=True)
