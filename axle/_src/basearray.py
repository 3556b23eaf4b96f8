"""The public ``jax.Array`` type: the abstract base class every array value belongs to.

``isinstance(x, axle.Array)`` (and ``isinstance(x, axle.numpy.ndarray)``) holds for concrete
arrays, for tracers standing in for arrays under a transformation, and for typed PRNG key
arrays, as in JAX. The concrete class of eager values is ``axle._src.array.Array``; other
array-like classes register themselves with ``Array.register``.
"""
from __future__ import annotations

import abc

from axle._src import array as _array
from axle._src import core


class Array(abc.ABC):
  """JAX's array type: a concrete array, a tracer, or a typed PRNG key array.

  Use it in ``isinstance`` checks and type annotations; create arrays with
  ``jnp.array``/``jnp.asarray``."""
  __slots__ = ()


Array.__module__ = "axle"
Array.register(_array.Array)
Array.register(core.Tracer)
