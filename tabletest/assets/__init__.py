"""Assets: where each catalog object's 3D model comes from, normalised to one canonical frame.

Every source (built-in procedural, Objaverse, a user's folder) ends in the same place: a GLB per
object under the assets folder and one entry per object in its `manifest.json`, so the renderer
never cares where a model came from. Beside them: the models of a kind's looks (`variants.py`), a model as
columns (`columns.py`) and the models a run needs, checked before it starts (`needed.py`).
"""
