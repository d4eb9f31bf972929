"""Checking a render's labels against its own pixels (`tabletest verify`): the audit, the image and family
matches, labels derived again from the geometry, and the visible fractions measured again from the models."""
