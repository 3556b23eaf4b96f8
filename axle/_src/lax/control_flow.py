"""Structured control flow (``lax.cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``,
``map``, ``associative_scan``): re-exports of ``cond.py`` and ``loops.py``."""
from axle._src.lax.conditionals import (composite, cond, cond_p, platform_dependent,  # noqa: F401
                                        switch)
from axle._src.lax.loops import (associative_scan, fori_loop, map, scan, scan_p,  # noqa: F401,A004
                                 while_loop, while_p)

__all__ = ["cond", "switch", "platform_dependent", "composite", "while_loop", "fori_loop", "scan", "map", "associative_scan"]
