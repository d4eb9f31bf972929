"""Composite mode (no bpy here): render the layers the selection needs that the cache lacks, then
compose every scene from them in parallel processes; a scene whose objects would touch in the
image is path-traced directly instead, and its record says so (`render.mode`).

A scene's objects stand exactly where direct mode puts them, so its layers are the objects of its
scene spec, each alone, plus the empty table; their measured `center_px`/`bbox_px` are the ones
Blender reported when it rendered the layer.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from itertools import combinations

from tabletest.compose.composer import touching
from tabletest.compose.layers import Layer, LayerSet, LoadedLayer
from tabletest.compose.pool import ComposeJob, compose_all
from tabletest.compose.view import ViewTransform
from tabletest.errors import UserError
from tabletest.extras import require_render_extra
from tabletest.layout.selection import Scene
from tabletest.layout.spec import SceneSpec
from tabletest.render.context import Recorder, RunContext
from tabletest.render.supervisor import Outcome

DirectRenderer = Callable[[RunContext, Iterable[SceneSpec], Recorder, Callable[[], None]], dict]
ProgressFactory = Callable[[str, int], AbstractContextManager[Callable[[], None]]]


class _Layers:
    """The run's view of the layer set: each scene's layers, placed once per object and slot."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self.set = LayerSet(run.options.layer_cache, run.config)
        self.set.clean_stale_temps()
        self.background = self.set.background()
        self.failed: dict[str, Outcome] = {}  # stem -> the layer render that failed
        self._placed: dict[tuple[str, int], SceneSpec] = {}
        self._object_layers: dict[tuple[str, int, int], Layer] = {}
        self._loaded: dict[str, LoadedLayer] = {}
        self._touching: dict[tuple[str, str], bool] = {}

    def placed(self, name: str, n_objects: int) -> SceneSpec:
        """`name` at every slot of an n-object scene: direct mode's own placement."""
        if (name, n_objects) not in self._placed:
            self._placed[name, n_objects] = self.run.spec(Scene(n_objects, 0, (name,) * n_objects))
        return self._placed[name, n_objects]

    def spec(self, scene: Scene) -> SceneSpec:
        """The scene's spec as direct mode would make it, with the layers' noise seed."""
        objects = tuple(self.placed(name, scene.n_objects).objects[p] for p, name in enumerate(scene.objects))
        return SceneSpec(scene.id, scene.index, scene.n_objects, objects, self.set.seed)

    def of(self, scene: Scene) -> list[Layer]:
        """The scene's object layers, left to right."""
        return [self._object_layer(name, scene.n_objects, p) for p, name in enumerate(scene.objects)]

    def _object_layer(self, name: str, n_objects: int, position: int) -> Layer:
        key = (name, n_objects, position)
        if key not in self._object_layers:
            obj = self.placed(name, n_objects).objects[position]
            self._object_layers[key] = self.set.object_layer(obj, self.run.entries[name].sha256)
        return self._object_layers[key]

    def failure(self, layers: list[Layer]) -> Outcome | None:
        """The failed layer render that stops a scene with these object layers, if any."""
        stems = [self.background.stem] + [layer.stem for layer in layers]
        return next((self.failed[stem] for stem in stems if stem in self.failed), None)

    def load(self, stem: str) -> LoadedLayer:
        if stem not in self._loaded:
            self._loaded[stem] = self.set.load(stem)
        return self._loaded[stem]

    def touch(self, layers: list[Layer]) -> bool:
        """Whether any two of the scene's objects overlap or touch in the image."""
        for a, b in combinations(layers, 2):
            if (a.stem, b.stem) not in self._touching:
                self._touching[a.stem, b.stem] = touching(self.load(a.stem), self.load(b.stem))
            if self._touching[a.stem, b.stem]:
                return True
        return False


def render_composite(
    run: RunContext, recorder: Recorder, progress: ProgressFactory, pending: int, direct: DirectRenderer
) -> dict:
    """Compose the pending scenes (rendering missing layers first); return the run facts for run.json."""
    layers = _Layers(run)
    needed = {layers.background.stem: layers.background}
    for scene in run.pending_scenes():
        needed.update((layer.stem, layer) for layer in layers.of(scene))
    missing = [layer for layer in needed.values() if not layers.set.is_cached(layer)]
    if missing:
        require_render_extra("render", "bpy")  # a warm cache composes without Blender
    layer_facts = (
        _render_layers(run, layers, missing, progress) if missing else {"rendered": 0, "blender_render_s": 0.0}
    )
    background = {} if layers.background.stem in layers.failed else layers.set.background_info()
    render = run.render_info("composite", device=background.get("device"))
    with progress("render", pending) as advance:
        composed = _compose(run, layers, recorder, render, advance)
        touching = (s for s in run.pending_scenes() if not layers.failure(layers.of(s)) and layers.touch(layers.of(s)))
        before = recorder.rendered + recorder.failed
        direct_facts = direct(run, (run.spec(scene) for scene in touching), recorder, advance)
        rendered_directly = recorder.rendered + recorder.failed - before
    return {
        "device": render["device"] or direct_facts["device"],
        "blender": background.get("blender") or direct_facts["blender"],
        "layers": {
            "cache": str(layers.set.folder),
            "key": layers.set.key,
            "needed": len(needed),
            "cached": len(needed) - len(missing),
            "failed": len(layers.failed),
            **layer_facts,
        },
        "images_composed": composed,
        "images_rendered_directly": rendered_directly,
    }


def _compose(run: RunContext, layers: _Layers, recorder: Recorder, render: dict, advance: Callable[[], None]) -> int:
    """Compose every pending scene whose layers are there and whose objects keep apart; return how many."""
    view = run.config.render.view_transform
    in_flight: dict[str, tuple[SceneSpec, list[Layer]]] = {}

    def jobs() -> Iterator[ComposeJob]:
        """The scenes to compose, as jobs; a scene whose layer failed is recorded as failed on the way."""
        for scene in run.pending_scenes():
            scene_layers = layers.of(scene)
            if failed := layers.failure(scene_layers):
                error = f"its layer {failed.spec.id} failed: {failed.error}"
                recorder(
                    Outcome(layers.spec(scene), False, error=error, stderr=failed.stderr, attempts=failed.attempts),
                    render,
                )
                advance()
            elif not layers.touch(scene_layers):
                in_flight[scene.id] = (layers.spec(scene), scene_layers)
                mask = str(run.output.tmp_mask(scene.id)) if run.options.masks else None
                depth = str(run.output.tmp_depth(scene.id)) if run.options.masks else None
                stems = tuple(layer.stem for layer in scene_layers)
                yield ComposeJob(scene.id, stems, str(run.output.tmp_image(scene.id)), mask, depth)

    if layers.background.stem not in layers.failed:
        _check_view(layers.set, view)
    processes = run.options.compose_jobs or os.cpu_count() or 1
    run.console.print(f"composing with {processes} process(es); {len(run.done)} image(s) already done")
    composed = 0
    for result in compose_all(jobs(), layers.set, view, processes):
        spec, scene_layers = in_flight.pop(result.scene_id)
        facts = {"objects": [layers.load(layer.stem).facts for layer in scene_layers]}
        recorder(Outcome(spec, not result.error, facts, error=result.error), render)
        composed += not result.error
        advance()
    return composed


def _check_view(layers: LayerSet, view: str) -> None:
    """Fail early, in this process, if the cached colour config cannot apply the view transform."""
    try:
        ViewTransform(layers.ocio_config, view)
    except Exception as err:  # OpenColorIO's own exception types
        raise UserError(
            f"cannot apply view transform {view!r} with {layers.ocio_config} ({err}); "
            f"delete {layers.folder} to render its layers again"
        ) from None


def _render_layers(run: RunContext, layers: _Layers, missing: list[Layer], progress: ProgressFactory) -> dict:
    """Render the missing layers in Blender workers and store them. The background is stored first:
    object layers that finish before it wait for it (what is stored is their difference from it)."""
    layer_set = layers.set
    layer_set.write_description()
    layer_set.ensure_space()
    by_stem = {layer.stem: layer for layer in missing}
    background = layers.background.stem
    supervisor = run.supervisor(
        lambda spec: {"op": "layer", "spec": spec.to_json(), "out": str(layer_set.tmp_exr(spec.id))}, hands_over=False
    )
    waiting: list[Outcome] = []
    rendered, blender_s = 0, 0.0
    run.console.print(f"rendering {len(missing)} layer(s) into {layer_set.folder}")
    with progress("layers", len(missing)) as advance:
        for outcome in supervisor.run(layer.spec for layer in missing):
            advance()
            if not outcome.ok:
                _fail(run, layers, outcome)
                continue
            rendered += 1
            blender_s += outcome.facts["render_s"]
            waiting.append(outcome)
            if background in by_stem and not layer_set.is_cached(by_stem[background]):
                if outcome.spec.id != background:
                    continue
                waiting.sort(key=lambda o: o.spec.id != background)
            for ready in waiting:
                _store(run, layers, by_stem[ready.spec.id], ready, supervisor.started[0])
            waiting.clear()
    for orphan in waiting:  # the background failed: nothing to store them against
        layer_set.tmp_exr(orphan.spec.id).unlink(missing_ok=True)
    return {"rendered": rendered, "blender_render_s": round(blender_s, 3)}


def _store(run: RunContext, layers: _Layers, layer: Layer, outcome: Outcome, worker: dict) -> None:
    facts = {
        "objects": outcome.facts["objects"],
        "render_s": outcome.facts["render_s"],
        "device": worker["device"],
        "blender": worker["blender"],
    }
    try:
        layers.set.store(layer, layers.set.tmp_exr(layer.stem), facts, worker["ocio_config"])
    except (OSError, ValueError, KeyError) as err:  # an unreadable render: fail its scenes, keep going
        if isinstance(err, OSError) and err.errno == errno.ENOSPC:
            layers.set.tmp_exr(layer.stem).unlink(missing_ok=True)
            raise
        _fail(
            run,
            layers,
            Outcome(outcome.spec, False, error=f"cannot store the layer render: {type(err).__name__}: {err}"),
        )


def _fail(run: RunContext, layers: _Layers, outcome: Outcome) -> None:
    """Fail a layer's scenes; a layer that failed because the cache's disk is full stops the run instead."""
    layers.set.tmp_exr(outcome.spec.id).unlink(missing_ok=True)
    layers.set.ensure_space()
    layers.failed[outcome.spec.id] = outcome
    run.console.print(f"[red]failed[/red] layer {outcome.spec.id}: {outcome.error}")
