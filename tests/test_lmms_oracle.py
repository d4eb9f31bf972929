"""The gold-answering model lmms-eval finds where TableTest is installed (lmms-eval itself, which pulls in
torch, is no test dependency: the docs record the run with it)."""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import entry_points

import pytest


def test_lmms_eval_finds_the_oracle_through_tabletests_entry_point():
    (point,) = [p for p in entry_points(group="lmms_eval.models") if p.name == "tabletest_oracle"]
    assert point.value == "tabletest.export.lmms_oracle:manifests"
    oracle = importlib.import_module(point.module)  # imports without lmms-eval ...
    assert callable(getattr(oracle, point.attr)) and oracle.MODEL == point.name
    if importlib.util.find_spec("lmms_eval") is None:
        with pytest.raises(ModuleNotFoundError, match="lmms_eval"):  # ... which only its model class needs
            oracle.Oracle
