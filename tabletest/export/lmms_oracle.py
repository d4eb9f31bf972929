"""An lmms-eval model that answers every question with its gold answer: the check that an export, as it
stands, scores 1.0 in lmms-eval (its tasks load from where the export lies, each doc's pictures are read,
and its answers are judged as the study judges them). lmms-eval's own `dummy` model answers one constant.

lmms-eval finds it through the `lmms_eval.models` entry point TableTest installs:
`lmms-eval --model tabletest_oracle --include_path exports/lmms --tasks <group>`. lmms-eval is imported only
when lmms-eval itself loads the model, so this module imports anywhere.
"""

from __future__ import annotations

from functools import lru_cache

MODEL = "tabletest_oracle"


def manifests() -> list:
    """The entry point's payload: the model's name and where its class lies."""
    from lmms_eval.models.registry_v2 import ModelManifest

    return [ModelManifest(MODEL, simple_class_path=f"{__name__}.Oracle")]


def __getattr__(name: str) -> type:
    if name == "Oracle":
        return _oracle()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _oracle() -> type:
    from lmms_eval.api.model import lmms

    class Oracle(lmms):
        """Answers each doc's `gold`, after reading its pictures through the task's own `doc_to_visual`."""

        def __init__(self, **_run_options: object) -> None:  # batch size, device: nothing to run on
            super().__init__()

        def generate_until(self, requests: list) -> list[str]:
            answers = []
            for _context, _kwargs, doc_to_visual, doc_id, task, split in (request.args for request in requests):
                doc = self.task_dict[task][split][doc_id]
                doc_to_visual(doc)  # the pictures load from the export, as a real model's would
                answers.append(str(doc["gold"]))
            return answers

        def generate_until_multi_round(self, requests: list) -> list[str]:
            return self.generate_until(requests)

        def loglikelihood(self, requests: list) -> list[tuple[float, bool]]:
            raise NotImplementedError("the TableTest tasks ask for generated answers only")

    Oracle.__module__ = __name__
    return Oracle
