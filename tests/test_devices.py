"""Device choice and worker layout: the GPU logic, tested on the CPU with Blender's device lists as data."""

import pytest

from tabletest.errors import UserError
from tabletest.render.devices import choose_device, parse_gpus, worker_env
from tabletest.render.run_options import RenderOptions, worker_slots

H200 = {"CPU": ["CPU"], "OPTIX": ["NVIDIA H200"], "CUDA": ["NVIDIA H200"], "HIP": []}


def test_auto_prefers_optix_then_cuda_then_cpu():
    assert choose_device("auto", H200) == ("OPTIX", ["NVIDIA H200"])
    assert choose_device("auto", {"CPU": ["CPU"], "CUDA": ["GTX"], "OPTIX": []}) == ("CUDA", ["GTX"])
    assert choose_device("auto", {"CPU": ["CPU"], "HIP": ["Radeon"]}) == ("HIP", ["Radeon"])
    assert choose_device("auto", {"CPU": ["CPU"]}) == ("CPU", ["CPU"])


def test_explicit_choices():
    assert choose_device("cuda", H200) == ("CUDA", ["NVIDIA H200"])
    assert choose_device("CPU", H200) == ("CPU", ["CPU"])
    with pytest.raises(UserError, match="--device optix: Blender finds no OPTIX device .*use --device auto or cpu"):
        choose_device("optix", {"CPU": ["CPU"]})
    with pytest.raises(UserError, match="is not one of auto, optix"):
        choose_device("tpu", H200)


def test_gpu_lists():
    assert parse_gpus(None, ["0", "1"]) == ["0", "1"]
    assert parse_gpus("1", ["0", "1"]) == ["1"]
    with pytest.raises(UserError, match="this machine has 0, 1"):
        parse_gpus("0,5", ["0", "1"])
    with pytest.raises(UserError, match="not a comma-separated list"):
        parse_gpus("all", ["0"])
    assert worker_env("3")["CUDA_VISIBLE_DEVICES"] == "3" and worker_env(None) == {}


def test_one_worker_per_gpu_and_cpu_workers_share_cores(tmp_path, monkeypatch):
    monkeypatch.setattr("tabletest.render.run_options.detect_nvidia_gpus", lambda: ["0", "1", "2", "3"])
    gpu_slots = worker_slots(RenderOptions(out=tmp_path, assets=tmp_path, build_missing_assets=False, gpus="0,2"))
    assert [(s.gpu, s.threads) for s in gpu_slots] == [("0", None), ("2", None)]
    cpu_slots = worker_slots(RenderOptions(out=tmp_path, assets=tmp_path, build_missing_assets=False, device="cpu", workers=2))
    assert all(s.gpu is None and s.threads >= 1 for s in cpu_slots) and len(cpu_slots) == 2
