"""Rendering: the only package that talks to Blender, and only in its worker modules.

`supervisor` (no bpy) owns a run and hands scene specs to `worker` processes (bpy), which turn them
into pixels and report measured facts back.
"""
