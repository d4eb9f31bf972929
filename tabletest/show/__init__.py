"""Pictures of the data: a scene's labels drawn on its image (`tabletest show`)."""
