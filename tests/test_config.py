"""Config and catalog validation: every mistake is one line naming the file, the entry and the fix."""

from pathlib import Path

import pytest
import yaml

from tabletest.config import DEFAULT_CATALOG, DEFAULT_CONFIG, load_catalog, load_config
from tabletest.errors import UserError


def test_defaults_load():
    catalog = load_catalog()
    assert len(catalog) == 64 and catalog.names[0] == "tomato" and catalog.names[-1] == "padlock"
    assert all(o.size_m > 0 and len(o.candidates) >= 1 for o in catalog.objects)
    config = load_config()
    assert config.render.resolution == (1024, 768) and config.render.slot_offset_px == 200


def _catalog_with(tmp_path: Path, change) -> Path:
    data = yaml.safe_load(DEFAULT_CATALOG.read_text())
    change(data["objects"])
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda o: o[3].update(colour="yellow"), "objects[3] ('lemon').colour: unknown key 'colour'; remove it"),
        (lambda o: o[3].update(size_m=-0.08), "objects[3] ('lemon').size_m: Input should be greater than 0"),
        (lambda o: o[3].update(size_m="big"), "objects[3] ('lemon').size_m: Input should be a valid number"),
        (lambda o: o[4].update(name="lemon"), "duplicate name 'lemon'"),
        (lambda o: o[4].update(name="  "), "objects[4] ('  ').name: name is empty"),
        (lambda o: o[4].update(candidates=["xyz"]), "uid 'xyz' is not 32 lower-case hex characters"),
        (lambda o: o[4].pop("kind"), "objects[4] ('orange').kind: required key 'kind' is missing; add it"),
    ],
)
def test_bad_catalog_entries(tmp_path, change, expected):
    path = _catalog_with(tmp_path, change)
    with pytest.raises(UserError) as err:
        load_catalog(path)
    message = str(err.value)
    assert message.startswith(str(path)) and expected in message and "\n" not in message


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda c: c["render"].update(samplez=3), "render.samplez: unknown key 'samplez'"),
        (lambda c: c["render"].update(samples="many"), "render.samples: Input should be a valid integer"),
        (lambda c: c["render"].update(resolution=[4, 4]), "render.resolution: resolution 4x4 is too small"),
        (lambda c: c["camera"].update(focal_mm=0), "camera.focal_mm: Input should be greater than 0"),
        (lambda c: c["render"].update(engine="povray"), "render.engine: Input should be 'cycles', 'eevee' or 'workbench'"),
    ],
)
def test_bad_config_values(tmp_path, change, expected):
    data = yaml.safe_load(DEFAULT_CONFIG.read_text())
    change(data)
    path = tmp_path / "default.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        load_config(path)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(UserError, match="not found: check the path given to --catalog"):
        load_catalog(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("objects: [\n")
    with pytest.raises(UserError, match="not valid YAML"):
        load_catalog(broken)


def test_nested_aliases_are_refused_before_they_expand(tmp_path):
    """A few hundred bytes of nested aliases ("billion laughs") would expand to 10^9 values."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\nobjects: *a8\n")
    for load in (load_catalog, load_config):
        with pytest.raises(UserError) as err:
            load(bomb)
        assert str(err.value) == (
            f"{bomb}: its aliases (*name) expand to more than 1,000,000 values; write the entries out, or use fewer nested aliases"
        )


def test_an_error_shows_a_short_excerpt_of_a_large_value(tmp_path):
    """Nested aliases within the bound still make a large value: the message quotes a few characters of it."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 5)]
    path = tmp_path / "big.yaml"
    path.write_text("\n".join(lines) + "\nobjects: *a4\n")
    with pytest.raises(UserError) as err:
        load_catalog(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 400, message[:500]
