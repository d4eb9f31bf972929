"""Render farms: one render split into scheduler tasks (SLURM job arrays), followed, resubmitted and merged.

Each task renders one shard (`--shard auto/N`) into its own folder, `OUT/parts/shard-<i>-of-<N>/`,
so tasks never share a file; `tabletest merge` makes the one dataset afterwards.
"""
