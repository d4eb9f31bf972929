"""Density plots of per-object-A accuracy, one panel per prompt (the paper's Figures 2 and 3)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

MODALITY_TITLE = {"image": "Multimodal", "text": "Text-only"}
GRID = np.linspace(0.0, 1.0, 201)
MIN_BANDWIDTH = 0.02  # keeps a model at ceiling on every object visible as a spike, not a division by zero


def density(values: list[float]) -> np.ndarray:
    """Gaussian kernel density on [0, 1], Silverman's bandwidth (floored at MIN_BANDWIDTH).

    The data are reflected at 0 and 1 so that a model at ceiling keeps its whole mass inside the axis.
    """
    data = np.asarray(values, dtype=float)
    bandwidth = max(1.06 * data.std() * len(data) ** -0.2, MIN_BANDWIDTH)
    reflected = np.concatenate([data, -data, 2.0 - data])
    z = (GRID[:, None] - reflected[None, :]) / bandwidth
    return np.exp(-0.5 * z**2).sum(axis=1) / (len(data) * bandwidth * np.sqrt(2 * np.pi))


def density_figure(per_object: list[dict], overall: dict[tuple, float], modality: str, path: Path) -> None:
    """`per_object`: rows of one modality (model, prompt_type, accuracy); `overall`: (model, prompt) -> accuracy."""
    models = sorted({r["model"] for r in per_object})
    prompts = sorted({r["prompt_type"] for r in per_object})
    colors = {m: plt.cm.tab10(i % 10) for i, m in enumerate(models)}
    columns = min(4, len(prompts))
    rows = -(-len(prompts) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.6 * rows + 0.6), squeeze=False, sharex=True)
    for ax, ptype in zip(axes.flat, prompts):
        for model in models:
            values = [r["accuracy"] for r in per_object if r["model"] == model and r["prompt_type"] == ptype]
            if not values:
                continue
            curve = density(values)
            ax.plot(GRID, curve, color=colors[model], label=model)
            ax.fill_between(GRID, curve, color=colors[model], alpha=0.15)
            ax.axvline(overall[(model, ptype)], color=colors[model], linestyle="--", linewidth=1)
        ax.set_title(f"Prompt {ptype}")
        ax.set_xlim(0, 1)
        ax.set_yticks([])
    for ax in axes.flat[len(prompts) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("accuracy per object A")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(models), 6), frameon=False)
    fig.suptitle(f"{MODALITY_TITLE.get(modality, modality)}: accuracy over objects A (dashed: overall)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
