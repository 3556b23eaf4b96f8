"""Structured control flow: cond, switch, while_loop, fori_loop, scan, map (being written)."""
__all__ = []
