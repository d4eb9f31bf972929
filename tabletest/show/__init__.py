"""Pictures of the data: each scene's labels drawn on its image (`pictures.py`, for `tabletest show` and
`tabletest verify --show`), and a static site of a whole render folder (`gallery.py`; the page in `site/`)."""
