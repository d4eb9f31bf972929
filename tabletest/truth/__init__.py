"""Facts from geometry only, never from pixels: the relations (one table of them, `relation_table.py`) and
each scene's true ones, table sides and vignettes; a random scene's camera, 3D boxes and relations with
margins (`geometry.py`); contact relations and the gaps between meshes (`contact.py`); a record as it
describes itself (`described.py`); every fact a question asks of a record (`scene_facts.py`); counterfactual
partners' differences and camera motion between views; visible fractions from the Object Index pass."""
