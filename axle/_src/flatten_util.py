"""``ravel_pytree``: a pytree of arrays as one flat 1-D array, and the function that undoes it."""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import tree_util
from axle._src.lax import elementwise_convert
from axle._src.lax import structural
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy


def ravel_pytree(pytree):
  """Ravels a pytree of arrays into one 1-D array.

  Returns ``(flat, unravel)``: ``flat`` is the leaves raveled and concatenated in
  ``tree_leaves`` order, promoted to their common dtype; ``unravel(flat)`` rebuilds a pytree of
  the same structure, shapes and dtypes from a 1-D array of the same size."""
  leaves, treedef = tree_util.tree_flatten(pytree)
  flat, unravel_list = _ravel_list(leaves)
  return flat, _Unravel(treedef, unravel_list)


class _Unravel:
  """The inverse of one ravel_pytree call (a pytree of arrays from a flat array)."""

  def __init__(self, treedef, unravel_list):
    self.treedef = treedef
    self.unravel_list = unravel_list

  def __call__(self, flat):
    return tree_util.tree_unflatten(self.treedef, self.unravel_list(flat))


def _ravel_list(leaves):
  if not leaves:
    return creation.zeros((0,), np.float32), lambda flat: []
  from_dtypes = [dtypes.dtype(leaf, canonicalize=True) for leaf in leaves]
  to_dtype = dtypes.result_type(*from_dtypes)
  sizes = [int(np.prod(np.shape(x), dtype=np.int64)) for x in leaves]
  shapes = [tuple(np.shape(x)) for x in leaves]
  raveled = [lax_numpy.ravel(elementwise_convert.convert_element_type(x, to_dtype))
             for x in leaves]
  flat = lax_numpy.concatenate(raveled) if len(raveled) > 1 else raveled[0]
  total = sum(sizes)
  offsets = np.cumsum([0] + sizes)
  single_dtype = all(d == to_dtype for d in from_dtypes)

  def unravel_list(arr):
    aval = core.get_aval(arr)
    if aval.shape != (total,):
      raise ValueError(f"The unravel function expected an array of shape {(total,)}, got "
                       f"shape {aval.shape}.")
    if not single_dtype and aval.dtype != to_dtype:
      raise TypeError(f"unravel function given array of dtype {aval.dtype} but expected "
                      f"dtype {to_dtype}")
    pieces = []
    for start, size, shape, dtype in zip(offsets, sizes, shapes, from_dtypes):
      piece = lax_numpy.reshape(structural.slice(arr, (int(start),), (int(start + size),)), shape)
      if not single_dtype:
        piece = elementwise_convert.convert_element_type(piece, dtype)
      pieces.append(piece)
    return pieces

  return flat, unravel_list
