"""Selection, sorting, searching and set operations in axle.numpy.

Functions whose output shape depends on the input's values (nonzero, unique, compress, set
operations...) need a concrete input, or a static ``size`` (with ``fill_value`` for the padding)
to work under ``jit``: then they are computed with cumulative sums and scatters, as in JAX.
"""
from __future__ import annotations

import builtins
import functools
import operator
from typing import NamedTuple

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import loops as lax_loops
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import slicing as lax_slicing
from axle._src.lax import sorting as lax_sorting
from axle._src.lax import structural as lax_structural
from axle._src.lax import structural_extra as lax_structural_extra
from axle._src.numpy import creation
from axle._src.numpy import indexing
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.vmap import vmap

__all__ = ["take", "take_along_axis", "put_along_axis", "put", "place", "extract", "compress",
           "choose", "select", "argwhere", "flatnonzero", "sort",
           "argsort", "lexsort", "partition", "argpartition", "sort_complex", "searchsorted",
           "digitize", "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
           "intersect1d", "union1d", "setdiff1d", "setxor1d", "isin"]

_UNIQUE_SIZE_HINT = ("The error arose for the first argument of jnp.unique(). To make jnp.unique() compatible with JIT and other transforms, you can "
                     "specify a concrete value for the size argument, which will determine the "
                     "output size.")


# Shared argument helpers (numpy/util.py).
_arr = creation.arraylike_operands
_shape = util.shape_of
_dtype = util.dtype_of




def _int_dtype():
  return dtypes.default_int_dtype()


def _iota(n, dtype=None):
  return lax_structural.iota(np.dtype(dtype or _int_dtype()), n)


# ---------------------------------------------------------------------------
# take / take_along_axis / put


def take(a, indices, axis=None, out=None, mode=None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value=None):
  """Elements of ``a`` at ``indices`` along ``axis`` (flattened ``a`` when None) (``jnp.take``).

  ``mode`` None/'fill' gives ``fill_value`` (NaN for inexact types) for out-of-bounds indices;
  'clip' clamps; 'wrap' wraps around. Negative indices count from the end."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
  a, indices = _arr("take", a, indices)
  if not (dtypes.issubdtype(_dtype(indices), np.integer)):
    raise TypeError(f"take requires integer indices, got {_dtype(indices)}")
  if mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
  if mode not in (None, "fill", "wrap", "clip"):
    raise ValueError(f"Invalid mode '{mode}' for np.take")
  return _take(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value)


@util.jit_when_tracing(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted",
                                        "fill_value"))
def _take(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value):
  # As JAX's _take: the flattening, index normalization and gather all inside one jit equation.
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, len(_shape(a)))
  size = _shape(a)[axis]
  if mode == "wrap":
    indices = ufuncs.remainder(indices, lax_elementwise._convert_element_type(size, _dtype(indices), False))
    gather_mode = "promise_in_bounds"
  elif mode == "clip":
    gather_mode = "clip"  # negative indices clamp to 0 (they are not counted from the end)
  else:
    gather_mode = "fill"
    if not dtypes.issubdtype(_dtype(indices), np.unsignedinteger):
      size_value = lax_elementwise._convert_element_type(size, _dtype(indices), False)
      indices = ufuncs._where(lax_elementwise.lt(indices, lax_elementwise._convert_element_type(0, _dtype(indices), False)),
                              lax_elementwise.add(indices, size_value), indices)
  index = (slice(None),) * axis + (indices,)
  return indexing.rewriting_take(a, index, mode=gather_mode, fill_value=fill_value,
                                 unique_indices=unique_indices,
                                 indices_are_sorted=indices_are_sorted, normalize_indices=False)


def _along_axis_index(arr_shape, indices, axis):
  """An index tuple that pairs ``indices`` along ``axis`` with every position of the other axes:
  an iota per axis, shaped to broadcast against the others (the iota of ``axis`` itself is built
  too and then replaced, as in JAX's program)."""
  rank = len(arr_shape)
  index = []
  for i, size in enumerate(arr_shape):
    iota = lax_structural.iota(_int_dtype(), size)
    shape = tuple(size if d == i else 1 for d in range(rank))
    iota = lax_structural.broadcast_in_dim(iota, shape, (i,))
    index.append(indices if i == axis else iota)
  return tuple(index)


def _check_along_axis(name, arr, indices, axis):
  if not dtypes.issubdtype(_dtype(indices), np.integer):
    raise TypeError(f"{name} indices must be of integer type, got {_dtype(indices)}")
  if axis is None:
    if len(_shape(indices)) != 1:
      raise ValueError(f"when axis=None, indices must have a single dimension; got "
                       f"indices.shape={_shape(indices)}")
    return lax_numpy.ravel(arr), 0
  if len(_shape(indices)) != len(_shape(arr)):
    raise ValueError(f"indices and arr must have the same number of dimensions; "
                     f"{len(_shape(indices))} vs. {len(_shape(arr))}")
  return arr, util.canonicalize_axis(axis, len(_shape(arr)))


@util.jit_when_tracing(static_argnames=("axis", "mode", "fill_value"))
def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
  """``arr`` indexed by ``indices`` along ``axis``, as NumPy's ``take_along_axis``; out-of-bounds
  indices give ``fill_value`` (NaN for inexact types) unless ``mode='clip'``."""
  arr, indices = _arr("take_along_axis", arr, indices)
  arr, axis = _check_along_axis("take_along_axis", arr, indices, axis)
  arr_shape, idx_shape = _shape(arr), _shape(indices)
  for i, (d_arr, d_idx) in enumerate(zip(arr_shape, idx_shape)):
    if i != axis and d_arr != d_idx and d_arr != 1 and d_idx != 1:
      raise ValueError(f"indices and arr must be broadcast-compatible on non-axis dimensions; got "
                       f"arr.shape={arr_shape}, indices.shape={idx_shape}, axis={axis}")
  mode = "fill" if mode is None else mode
  index_dtype = _int_dtype()
  if _dtype(indices) != index_dtype:
    indices = lax_elementwise._convert_element_type(indices, index_dtype, False)
  if mode != "promise_in_bounds":
    size = np.array(arr_shape[axis], index_dtype)
    indices = lax_elementwise.select_n(lax_elementwise.lt(indices, np.zeros((), index_dtype)),
                                       indices, lax_elementwise.add(indices, size))
  # One gather: ``axis`` is indexed; a dimension where ``indices`` has size 1 is read whole (an
  # offset dimension); one where ``arr`` has size 1 is squeezed away (``indices`` then just
  # batches); the others pair up as batch dimensions.
  offset_dims, squeezed, batch_dims = [], [], []
  kept_index_shape = []
  for i in range(len(arr_shape)):
    if i == axis:
      kept_index_shape.append(idx_shape[i])
    elif idx_shape[i] == 1:
      offset_dims.append(i)
    elif arr_shape[i] == 1:
      squeezed.append(i)
      kept_index_shape.append(idx_shape[i])
    else:
      batch_dims.append(i)
      kept_index_shape.append(idx_shape[i])
  indices = lax_structural.reshape(indices, tuple(kept_index_shape) + (1,))
  if squeezed:
    arr = lax_structural.squeeze(arr, tuple(squeezed))

  def operand_dim(i):
    return i - builtins.sum(1 for d in squeezed if d < i)

  def index_dim(i):
    return i - builtins.sum(1 for d in offset_dims if d < i)

  dnums = lax_slicing.GatherDimensionNumbers(
      offset_dims=tuple(offset_dims), collapsed_slice_dims=(operand_dim(axis),),
      start_index_map=(operand_dim(axis),),
      operand_batching_dims=tuple(operand_dim(i) for i in batch_dims),
      start_indices_batching_dims=tuple(index_dim(i) for i in batch_dims))
  slice_sizes = tuple(arr_shape[i] if i in offset_dims else 1
                      for i in range(len(arr_shape)) if i not in squeezed)
  return lax_slicing.gather(arr, indices, dnums, slice_sizes, mode=mode, fill_value=fill_value)


def _no_inplace(name):
  raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
                   "immutable. Pass inplace=False to instead return an updated array.")


@util.jit_when_tracing(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis, inplace: bool = True, *, mode=None):
  """A copy of ``arr`` with ``values`` put at ``indices`` along ``axis``; JAX arrays are
  immutable, so ``inplace=False`` is required (``jnp.put_along_axis``)."""
  if inplace:  # JAX's message, its missing space included
    raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays"
                     "are immutable. Pass inplace=False to instead return an updated array.")
  arr, indices = _arr("put_along_axis", arr, indices)
  util.check_arraylike("put_along_axis", values)
  original_shape = _shape(arr)
  arr2, axis2 = _check_along_axis("put_along_axis", arr, indices, axis)
  values = creation.broadcast_to(values, _shape(indices))
  index = _along_axis_index(_shape(arr2), indices, axis2)
  out = arr2.at[index].set(values, mode=mode)
  return lax_numpy.reshape(out, original_shape) if axis is None else out


def put(a, ind, v, mode=None, *, inplace: bool = True):
  """A copy of ``a`` with the flat positions ``ind`` set to ``v`` (``jnp.put``, needs
  ``inplace=False``)."""
  if inplace:
    _no_inplace("put")
  a, ind, v = _arr("put", a, ind, v)
  size = core.get_aval(a).size
  ind = lax_numpy.ravel(ind)
  v = lax_numpy.ravel(v)
  n = _shape(ind)[0]
  if _shape(v)[0] != n:
    v = _tile_to_size(v, n)
  if mode is None:
    scatter_mode = None  # out-of-range flat positions unravel to the nearest edge
  elif mode == "clip":
    ind = lax_numpy.clip(ind, 0, size - 1)
    scatter_mode = "promise_in_bounds"
  elif mode == "wrap":
    ind = ufuncs.remainder(ind, size)
    scatter_mode = "promise_in_bounds"
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  else:
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
  return a.at[unravel_coordinates(ind, _shape(a))].set(v, mode=scatter_mode)


def unravel_coordinates(flat, shape):
  """Coordinates in ``shape`` of the flat positions ``flat``, out-of-range ones clamped to the
  nearest edge (zeros for an empty shape): JAX's program of ``jnp.unravel_index``, which
  shape_ops (above this module) calls after checking its arguments. Divides by each dimension
  from the last; a final quotient above 0 (past the end) or below -1 (before -total) clamps."""
  if 0 in shape:
    return tuple(lax_structural.full_like(flat, 0) for _ in shape)
  quotient, coords = flat, []
  for d in reversed(shape):
    quotient, r = ufuncs.divmod(quotient, d)
    coords.append(r)
  too_big = ufuncs.greater(quotient, 0)
  too_small = ufuncs.less(quotient, -1)
  return tuple(lax_numpy.where(too_big, d - 1, lax_numpy.where(too_small, 0, r))
               for r, d in zip(coords[::-1], shape))


def _tile_to_size(x, n):
  """``x`` (1-D) repeated to length ``n``, as NumPy fills with a shorter value array."""
  m = _shape(x)[0]
  if m == 0:
    return x if n == 0 else lax_structural.full((n,), 0, _dtype(x))
  reps = -(-n // m)
  if reps > 1:
    x = lax_structural_extra.tile(x, (reps,))
  return x if reps * m == n else lax_structural.slice(x, (0,), (n,))


def place(arr, mask, vals, *, inplace: bool = True):
  """A copy of ``arr`` with the positions where ``mask`` is true set to successive ``vals``
  (repeated as needed) (``jnp.place``, needs ``inplace=False``)."""
  if inplace:
    _no_inplace("place")
  arr, mask, vals = _arr("place", arr, mask, vals)
  mask, vals = lax_numpy.ravel(mask), lax_numpy.ravel(vals)
  size = _shape(mask)[0]
  indices = lax_numpy.nonzero(mask, size=size, fill_value=size)[0]
  vals = _tile_to_size(vals, _shape(indices)[0])
  data = lax_numpy.ravel(arr)
  return lax_numpy.reshape(data.at[indices].set(vals, mode="drop"), _shape(arr))


# ---------------------------------------------------------------------------
# nonzero and friends


def _concrete_size(name, x, context):
  return core.concrete_or_error(None, x, context)



def flatnonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements of flattened ``a`` (``jnp.flatnonzero``)."""
  util.check_arraylike("flatnonzero", a)
  return lax_numpy.nonzero(lax_numpy.ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements as a (N, a.ndim) array (``jnp.argwhere``)."""
  util.check_arraylike("argwhere", a)
  a = util.asarray_operand(a)
  ndim = np.ndim(a)
  result = lax_numpy.nonzero(lax_numpy.atleast_1d(a), size=size, fill_value=fill_value)
  result = (lax_numpy.transpose(lax_numpy.concatenate([lax_numpy.atleast_2d(r) for r in result], 0))
            if result else lax_structural.full((0, 0), 0, _int_dtype()))
  if ndim == 0:  # one row per nonzero entry of the scalar, no columns
    return lax_structural.full((_shape(result)[0], 0), 0, _int_dtype())
  return lax_numpy.reshape(result, (_shape(result)[0], ndim))


def _compress_with_size(arr, condition, size, fill_value):
  """The rows of ``arr`` where ``condition``, padded with ``fill_value`` to ``size`` rows."""
  n = _shape(arr)[0]
  if size > n:
    raise ValueError("size must be positive and not greater than the size of the array axis; "
                     f"got size={size} for a.shape[axis]={n}")
  # JAX's program: fill the rows where condition is false, move the true rows first with a
  # stable descending argsort of condition, keep the first size rows
  rows = lax_numpy.expand_dims(condition, tuple(range(1, len(_shape(arr)))))
  fill = lax_elementwise._convert_element_type(lax_numpy.copy(creation.asarray(fill_value)),
                                               _dtype(arr), False)
  arr = lax_numpy.where(rows, arr, fill)
  order = argsort(condition, descending=True)
  return arr[order][:size]


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  """The slices of ``a`` along ``axis`` where ``condition`` is true (``jnp.compress``)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  condition, a = _arr("compress", condition, a)
  condition = ufuncs._to_bool(condition)
  if len(_shape(condition)) != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    axis = 0
    a = lax_numpy.ravel(a)
  else:
    a = lax_numpy.moveaxis(a, axis, 0)
  n = _shape(a)[0]
  condition, extra = condition[:n], condition[n:]
  a = a[:_shape(condition)[0]]
  if size is None:
    # As in JAX, the bounds check needs concrete values: under jit it is a traced boolean and
    # raises TracerBoolConversionError, even for a NumPy condition (pass size= under jit).
    if extra.any():
      raise ValueError("condition contains entries that are out of bounds")
    result = a[np.asarray(condition)]
  else:
    result = _compress_with_size(a, condition, size, fill_value)
  return lax_numpy.moveaxis(result, 0, axis) if axis else result


def extract(condition, arr, *, size=None, fill_value=0):
  """The elements of ``arr`` where ``condition`` is true, flattened (``jnp.extract``)."""
  util.check_arraylike("extract", condition, arr)
  return compress(lax_numpy.ravel(condition), lax_numpy.ravel(arr), size=size, fill_value=fill_value)


def choose(a, choices, out=None, mode: str = "raise"):
  """Builds an array by picking, at each position, from ``choices[a]`` (``jnp.choose``)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  util.check_arraylike("choose", a, *choices)
  a = util.asarray_operand(a)
  if not dtypes.issubdtype(core.get_aval(a).dtype, np.integer):
    raise ValueError("`a` array must be integer typed")
  n = len(choices)
  if mode == "raise":
    value = core.concrete_or_error(np.asarray, a, "The error occurred because jnp.choose was "
                                   "jit-compiled with mode='raise'. Use mode='wrap' or "
                                   "mode='clip' instead.")
    if np.any((value < 0) | (value >= n)):
      raise ValueError("invalid entry in choice array")
  elif mode == "wrap":
    a = ufuncs.remainder(a, n)
  elif mode == "clip":
    a = lax_numpy.clip(a, 0, n - 1)
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  arrays = lax_numpy.broadcast_arrays(a, *util.promote_dtypes(*choices))
  a, choices = arrays[0], arrays[1:]
  return lax_elementwise.select_n(lax_elementwise._convert_element_type(a, np.int32, False), *choices) if n > 1 \
      else choices[0]


def select(condlist, choicelist, default=0):
  """The element of the first ``choicelist`` entry whose ``condlist`` entry is true, else
  ``default`` (``jnp.select``)."""
  if len(condlist) != len(choicelist):
    raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                     f"{len(choicelist)})")
  if len(condlist) == 0:
    raise ValueError("condlist must be non-empty")
  util.check_arraylike("select", *condlist, *choicelist, default)
  for c in condlist:
    if _dtype(util.asarray_operand(c) if not isinstance(c, bool) else np.bool_(c)) != np.bool_:
      raise ValueError(f"condlist must contain boolean arrays; got dtype "
                       f"{_dtype(util.asarray_operand(c))}")
  # JAX's program: the index of the first true condition (0, the default, when none is) picks
  # among the broadcast choices
  conds = [util.asarray_operand(c) for c in condlist]
  choices = util.promote_dtypes(default, *choicelist)
  shape = np.broadcast_shapes(*(np.shape(c) for c in conds), *(np.shape(c) for c in choices))
  conds = [creation.broadcast_to(c, shape) for c in [False, *conds]]
  index = lax_reductions.argmax(lax_structural_extra.stack(conds, 0), 0, np.dtype(np.int32))
  return lax_elementwise.select_n(index, *(creation.broadcast_to(c, shape) for c in choices))


# ---------------------------------------------------------------------------
# Sorting


@util.jit_when_tracing(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
  """A sorted copy of ``a`` along ``axis`` (flattened when None); NaNs sort last
  (``jnp.sort``)."""
  if order is not None:
    raise ValueError("'order' argument to sort is not supported.")
  a = _arr("sort", a)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, len(_shape(a)))
  result = lax_sorting.sort(a, dimension=axis, is_stable=stable)
  return lax_structural.rev(result, (axis,)) if descending else result


@util.jit_when_tracing(static_argnames=("axis", "kind", "order", "stable", "descending"))
def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False):
  """Indices that sort ``a`` along ``axis`` (``jnp.argsort``); stable by default, also when
  ``descending``."""
  if order is not None:
    raise ValueError("'order' argument to argsort is not supported.")
  a = _arr("argsort", a)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, len(_shape(a)))
  iota = lax_structural.broadcasted_iota(_int_dtype(), _shape(a), axis)
  if descending:
    a = lax_structural.rev(a, (axis,))
    iota = lax_structural.rev(iota, (axis,))
  _, indices = lax_sorting.sort_key_val(a, iota, dimension=axis, is_stable=stable)
  return lax_structural.rev(indices, (axis,)) if descending else indices


@util.jit_when_tracing(static_argnames=("axis",))
def lexsort(keys, axis: int = -1):
  """Indices that sort by the last key, then the one before, ... (``jnp.lexsort``)."""
  if isinstance(keys, (list, tuple)):
    key_arrays = tuple(_arr("lexsort", *keys)) if len(keys) > 1 else \
        (_arr("lexsort", *keys),) if len(keys) == 1 else ()
  else:
    # An array of keys is iterated as JAX iterates an array: a unit-strided slice per row.
    keys = _arr("lexsort", keys)
    shape = _shape(keys)
    if not shape:
      raise TypeError("iteration over a 0-d array")
    ones = (1,) * len(shape)
    key_arrays = tuple(
        lax_structural.squeeze(lax_structural.slice(keys, (i,) + (0,) * (len(shape) - 1),
                                                    (i + 1,) + shape[1:], ones), (0,))
        for i in range(shape[0]))
  if len(key_arrays) == 0:
    raise TypeError("need sequence of keys with len > 0 in lexsort")
  if len({_shape(k) for k in key_arrays}) > 1:
    raise ValueError("all keys need to be the same shape")
  shape = _shape(key_arrays[0])
  if len(shape) == 0:
    return lax_structural.full((), 0, _int_dtype())
  axis = util.canonicalize_axis(axis, len(shape))
  iota = lax_structural.broadcasted_iota(_int_dtype(), shape, axis)
  return lax_sorting.sort((*key_arrays[::-1], iota), dimension=axis,
                          num_keys=len(key_arrays))[-1]


@util.jit_when_tracing(static_argnames=("kth", "axis"))
def partition(a, kth: int, axis: int = -1):
  """A copy of ``a`` with its ``kth`` smallest element in place, smaller ones before it and
  larger ones after it along ``axis`` (``jnp.partition``)."""
  a = _arr("partition", a)
  if len(_shape(a)) == 0:
    raise TypeError("partition requires an array with at least one dimension")
  axis = util.canonicalize_axis(axis, len(_shape(a)))
  kth = util.canonicalize_axis(kth, _shape(a)[axis])
  arr = lax_numpy.swapaxes(a, axis, -1)
  n = _shape(arr)[-1]
  bottom = ufuncs.negative(lax_sorting.top_k(ufuncs.negative(arr), kth + 1)[0])
  top = lax_sorting.top_k(arr, n - kth - 1)[0]
  out = lax_structural.concatenate([bottom, top], len(_shape(arr)) - 1)
  return lax_numpy.swapaxes(out, -1, axis)


@util.jit_when_tracing(static_argnames=("kth", "axis"))
def argpartition(a, kth: int, axis: int = -1):
  """Indices that partition ``a`` around its ``kth`` element along ``axis``
  (``jnp.argpartition``)."""
  a = _arr("argpartition", a)
  if len(_shape(a)) == 0:
    raise TypeError("argpartition requires an array with at least one dimension")
  axis = util.canonicalize_axis(axis, len(_shape(a)))
  kth = util.canonicalize_axis(kth, _shape(a)[axis])
  arr = lax_numpy.swapaxes(a, axis, -1)
  n = _shape(arr)[-1]
  bottom_ind = lax_sorting.top_k(ufuncs.negative(arr), kth + 1)[1]
  # Zeros where the bottom k+1 are, ones elsewhere: the rest are the top entries of that mask.
  set_to_zero = _set_to_zero
  for _ in range(len(_shape(arr)) - 1):
    set_to_zero = vmap(set_to_zero)
  proxy = set_to_zero(creation.ones_like(arr), bottom_ind)
  top_ind = lax_sorting.top_k(proxy, n - kth - 1)[1]
  out = lax_structural.concatenate([bottom_ind, top_ind], len(_shape(arr)) - 1)
  return lax_numpy.swapaxes(out, -1, axis)


def _set_to_zero(row, indices):
  return row.at[indices].set(0)


@util.jit_when_tracing
def sort_complex(a):
  """``a`` sorted (by real part, then imaginary part) as a complex array (``jnp.sort_complex``)."""
  a = lax_sorting.sort(_arr("sort_complex", a), dimension=0, is_stable=True)
  return lax_elementwise._convert_element_type(a, dtypes.to_complex_dtype(_dtype(a)), False)


def _sort_lt(x, y):
  """``x < y`` in the total order sorting uses (NaNs last)."""
  if _dtype(x).kind in "fc":
    isnan = ufuncs.isnan
    return ufuncs.logical_or(lax_elementwise.lt(x, y) if _dtype(x).kind == "f" else _complex_lt(x, y),
                            ufuncs.logical_and(isnan(y), ufuncs.logical_not(isnan(x))))
  return lax_elementwise.lt(x, y)


def _complex_lt(x, y):
  xr, yr = lax_elementwise.real(x), lax_elementwise.real(y)
  return ufuncs.logical_or(lax_elementwise.lt(xr, yr),
                          ufuncs.logical_and(lax_elementwise.eq(xr, yr), lax_elementwise.lt(lax_elementwise.imag(x), lax_elementwise.imag(y))))


def _order_canonical(x):
  """``x`` with -0.0 made +0.0 and every NaN the canonical NaN, as sort's comparator sees it."""
  is_zero = lax_elementwise.eq(x, np.zeros((), _dtype(x)))
  zeroed = lax_elementwise.select_n(is_zero, x, lax_structural.full_like(x, 0))
  is_nan = lax_elementwise.ne(x, x)
  return lax_elementwise.select_n(is_nan, zeroed, lax_structural.full_like(x, np.nan))


def _order_parts(x):
  """The canonicalised parts of ``x`` that sort's order compares, most significant first."""
  kind = _dtype(x).kind
  if kind == "c":
    return [_order_canonical(lax_elementwise.real(x)), _order_canonical(lax_elementwise.imag(x))]
  if kind == "f" or _dtype(x) == dtypes.bfloat16:
    return [_order_canonical(x)]
  return [x]


def _order_compare(x_parts, y_parts, strict: bool, broadcast=None):
  """``x < y`` (``strict``) or ``x <= y`` in sort's order, from the parts of ``_order_parts``.

  ``broadcast(x_part, y_part)``, when given, shapes each pair just before it is compared."""
  def compare(primitive, x, y):
    if broadcast is not None:
      x, y = broadcast(x, y)
    return primitive.bind(x, y)

  last = compare(lax_sorting.lt_to_p if strict else lax_sorting.le_to_p, x_parts[-1], y_parts[-1])
  if len(x_parts) == 1:
    return last
  (xr, _), (yr, _) = x_parts, y_parts
  return ufuncs.logical_or(compare(lax_sorting.lt_to_p, xr, yr),
                           ufuncs.logical_and(compare(lax_sorting.eq_to_p, xr, yr), last))


@util.jit_when_tracing(static_argnames=("side", "dtype", "unrolled"))
def _searchsorted_scan_impl(sorted_arr, query, side, dtype, unrolled):
  # A binary search per query element: the search of a scalar, vmapped one query axis at a time
  # (each level its own jit equation, as in JAX).
  n = _shape(sorted_arr)[0]
  if n == 0:
    return lax_structural.full(_shape(query), 0, dtype)
  if _shape(query):
    scalar_search = functools.partial(_searchsorted_scan_impl, side=side, dtype=dtype,
                                      unrolled=unrolled)
    return vmap(scalar_search, in_axes=(None, 0))(sorted_arr, query)
  unsigned = np.dtype(np.uint32 if np.dtype(dtype) == np.int32 else np.uint64)

  def step(carry, _):
    low, high = carry
    mid = lax_elementwise.add(low, ufuncs.floor_divide(lax_elementwise.sub(high, low), 2))
    value = lax_structural.squeeze(lax_structural.dynamic_slice(sorted_arr, (mid,), (1,)), (0,))
    # left: go left while query <= a[mid]; right: while query < a[mid].
    go_left = _order_compare(_order_parts(query), _order_parts(value), strict=side == "right")
    return (lax_elementwise.select_n(go_left, mid, low),
            lax_elementwise.select_n(go_left, high, mid)), ()

  levels = int(np.ceil(np.log2(n + 1)))
  init = (np.zeros((), unsigned), np.array(n, unsigned))
  (_, high), _ = lax_loops.scan(step, init, (), length=levels,
                                unroll=levels if unrolled else 1)
  return lax_elementwise._convert_element_type(high, dtype, False)


def _rank_in_sorted_order(x, dtype):
  """The position each element of the 1-D ``x`` takes in ``x`` stably sorted."""
  positions = lax_structural.iota(np.dtype(dtype), _shape(x)[0])
  zeros = creation.zeros_like(positions)
  _, permutation = lax_sorting.sort_key_val(x, positions)
  return zeros.at[permutation].set(positions)


@util.jit_when_tracing(static_argnames=("side", "dtype"))
def _searchsorted_sort_impl(sorted_arr, query, side, dtype):
  # Sorting the search keys together with the queries: a query's position there, less its own
  # rank among the queries, is its insertion point.
  n, m = _shape(sorted_arr)[0], int(np.prod(_shape(query), dtype=np.int64))
  work_dtype = np.int32 if n + m < np.iinfo(np.int32).max else dtypes.default_int_dtype()
  if side == "left":
    combined = lax_structural.concatenate([lax_numpy.ravel(query), sorted_arr], 0)
    start, stop = 0, m
  else:
    combined = lax_structural.concatenate([sorted_arr, lax_numpy.ravel(query)], 0)
    start, stop = n, n + m
  in_combined = _rank_in_sorted_order(combined, work_dtype)
  if (start, stop) != (0, n + m):  # a static slice of the whole array is no operation
    in_combined = lax_structural.slice(in_combined, (start,), (stop,))
  among_queries = _rank_in_sorted_order(lax_numpy.ravel(query), work_dtype)
  result = lax_structural.reshape(lax_elementwise.sub(in_combined, among_queries), _shape(query))
  return lax_elementwise._convert_element_type(result, dtype, False)


@util.jit_when_tracing(static_argnames=("side", "dtype"))
def _searchsorted_compare_all_impl(sorted_arr, query, side, dtype):
  # Counts the keys before each query: an (n, *query.shape) comparison summed over the keys.
  rank = len(_shape(query))

  def outer(key, query):  # keys down the first axis, queries across the others
    query = lax_structural.broadcast_in_dim(query, (1,) + _shape(query),
                                            tuple(np.int64(d + 1) for d in range(rank)))
    return lax_structural.broadcast_in_dim(key, _shape(key) + (1,) * rank, (0,)), query

  before = _order_compare(_order_parts(sorted_arr), _order_parts(query), strict=side == "left",
                          broadcast=outer)
  return reductions.sum(before, axis=0, dtype=dtype)


@util.jit_when_tracing(static_argnames=("side", "method"))
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
  """Where ``v``'s elements would be inserted into the sorted 1-D ``a`` to keep it sorted
  (``jnp.searchsorted``); NaNs sort last.

  ``method`` picks the algorithm, as in JAX: ``'scan'`` (a binary search, the default),
  ``'scan_unrolled'`` (the same, unrolled), ``'sort'`` (one sort of ``a`` and ``v`` together)
  or ``'compare_all'`` (every element of ``a`` against every element of ``v``)."""
  a, v = _arr("searchsorted", a, v)
  if len(_shape(a)) != 1:
    raise ValueError("a should be 1-dimensional")
  if side not in ("left", "right"):
    raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
  if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
    raise ValueError(f"method={method!r} not recognized; should be one of 'scan', "
                     "'scan_unrolled', 'sort', or 'compare_all'")
  a, v = util.promote_dtypes(a, v)
  if sorter is not None:
    a = a[sorter]
  n = _shape(a)[0]
  dtype = np.int32 if n <= np.iinfo(np.int32).max // 2 else dtypes.default_int_dtype()
  if method in ("scan", "scan_unrolled"):
    return _searchsorted_scan_impl(a, v, side=side, dtype=dtype,
                                   unrolled=method == "scan_unrolled")
  if method == "sort":
    return _searchsorted_sort_impl(a, v, side=side, dtype=dtype)
  return _searchsorted_compare_all_impl(a, v, side=side, dtype=dtype)


@util.jit_when_tracing(static_argnames=("right", "method"))
def digitize(x, bins, right: bool = False, *, method=None):
  """Indices of the ``bins`` intervals the elements of ``x`` fall in (``jnp.digitize``)."""
  x, bins = _arr("digitize", x, bins)
  if len(_shape(bins)) != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  if _shape(bins)[0] == 0:
    return lax_structural.full(_shape(x), 0, np.int32)
  side = "right" if not right else "left"
  kwargs = {} if method is None else {"method": method}
  is_increasing = ufuncs.greater_equal(bins[-1], bins[0])
  increasing = searchsorted(bins, x, side=side, **kwargs)
  decreasing = ufuncs.subtract(_shape(bins)[0],
                              searchsorted(lax_structural.rev(bins, (0,)), x, side=side, **kwargs))
  return lax_numpy.where(is_increasing, increasing, decreasing)


# ---------------------------------------------------------------------------
# Unique values and set operations


class _UniqueAllResult(NamedTuple):
  """``jnp.unique_all``'s result."""
  values: Array
  indices: Array
  inverse_indices: Array
  counts: Array


class _UniqueCountsResult(NamedTuple):
  """``jnp.unique_counts``'s result."""
  values: Array
  counts: Array


class _UniqueInverseResult(NamedTuple):
  """``jnp.unique_inverse``'s result."""
  values: Array
  inverse_indices: Array


def _differs(x, y, equal_nan):
  """Elementwise ``x != y`` along rows (the last axis), NaNs equal when ``equal_nan``."""
  ne = lax_elementwise.ne(x, y)
  if equal_nan and _dtype(x).kind in "fc":
    both_nan = ufuncs.logical_and(ufuncs.isnan(x), ufuncs.isnan(y))
    ne = ufuncs.logical_and(ne, ufuncs.logical_not(both_nan))
  return ne


def _unique_sorted(rows, keep, equal_nan, size, fill_value, name="unique"):
  """The unique rows of ``rows`` (n, m) among those where ``keep`` (or all when None).

  Returns (values (k, m), first index, inverse (n,), counts, n_unique) with k the number of
  unique rows (concrete), or ``size``."""
  n, m = _shape(rows)
  iota = _iota(n)
  columns = [rows[:, j] for j in range(m)]
  operands = ([lax_elementwise._convert_element_type(ufuncs.logical_not(keep), np.int32, False)]
              if keep is not None else []) + columns + [iota]
  sorted_ops = lax_sorting.sort(tuple(operands), dimension=0, num_keys=len(operands) - 1)
  perm = sorted_ops[-1]
  sorted_keep = (ufuncs.equal(sorted_ops[0], 0) if keep is not None else None)
  sorted_cols = sorted_ops[1:-1] if keep is not None else sorted_ops[:-1]
  if n == 0:
    first = lax_structural.full((0,), True, np.bool_)
  else:
    change = None
    for col in sorted_cols:
      d = _differs(col[1:], col[:-1], equal_nan)
      change = d if change is None else ufuncs.logical_or(change, d)
    if change is None:
      change = lax_structural.full((n - 1,), False, np.bool_)
    first = lax_numpy.concatenate([lax_structural.full((1,), True, np.bool_), change])
  if sorted_keep is not None:
    first = ufuncs.logical_and(first, sorted_keep)
  n_unique = reductions.sum(first, dtype=_int_dtype())
  if size is None:
    k = core.concrete_or_error(int, n_unique, _UNIQUE_SIZE_HINT.replace("jnp.unique", f"jnp.{name}"))
  else:
    k = core.concrete_or_error(operator.index, size, f"The size argument of jnp.{name} must be "
                               "static.")
  starts = lax_numpy.nonzero(first, size=k, fill_value=n)[0] if n else lax_structural.full((k,), 0,
                                                                                    _int_dtype())
  sorted_rows = lax_numpy.stack(sorted_cols, axis=1) if n else rows
  values = indexing.rewriting_take(sorted_rows, starts, mode="clip") if n else \
      lax_structural.full((k, m), 0, _dtype(rows))
  valid = ufuncs.less(_iota(k), n_unique)
  if size is not None:
    if fill_value is None:
      fill = values[:1] if k else values
    else:
      fill = lax_elementwise._convert_element_type(fill_value, _dtype(rows), False)
    values = lax_numpy.where(valid[:, None], values, fill)
  first_index = indexing.rewriting_take(perm, starts, mode="clip") if n else \
      lax_structural.full((k,), 0, _int_dtype())
  group = lax_elementwise.sub(reductions.cumsum(first, dtype=_int_dtype()), lax_elementwise._convert_element_type(
      1, _int_dtype(), False))
  inverse = lax_structural.full((n,), 0, _int_dtype()).at[perm].set(group)
  # Each group ends where the next starts (one start past the k kept, in case size < n_unique).
  ends = lax_numpy.nonzero(first, size=k + 1, fill_value=n)[0][1:] if n else starts
  ends = lax_numpy.where(ufuncs.less(_iota(k) + 1, n_unique), ends,
                      reductions.sum(sorted_keep, dtype=_int_dtype()) if sorted_keep is not None
                      else n)
  counts = lax_numpy.where(valid, lax_elementwise.sub(ends, starts), 0)
  if size is not None:
    first_index = lax_numpy.where(valid, first_index, 0)
  return values, first_index, inverse, counts


@util.jit_when_tracing(static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar, axis, equal_nan):
  # The slices along ``axis`` sorted lexicographically, a mask of where each new value starts,
  # and the sorting permutation (JAX's helper of the same name).
  aux = lax_numpy.moveaxis(ar, axis, 0)
  n = _shape(aux)[0]
  rows = lax_numpy.reshape(aux, (n, int(np.prod(_shape(aux)[1:], dtype=np.int64))))
  perm = lexsort(lax_structural.rev(lax_structural.transpose(rows, (1, 0)), (0,)))
  aux = aux[perm]
  if n:
    mask = creation.ones(n, dtype=np.bool_)
    later, earlier = aux[1:], aux[:-1]
    differs = lax_elementwise.ne(later, earlier)
    if equal_nan and dtypes.issubdtype(_dtype(aux), np.inexact):
      both_nan = ufuncs.logical_and(lax_elementwise.ne(later, later),
                                    lax_elementwise.ne(earlier, earlier))
      differs = ufuncs.logical_and(differs, ufuncs.logical_not(both_nan))
    mask = mask.at[1:].set(reductions.any(differs, axis=tuple(range(1, len(_shape(aux))))))
  else:
    mask = creation.zeros(n, dtype=np.bool_)
  return aux, mask, perm


def _first_difference(a):
  return lax_elementwise.sub(a[1:], a[:-1])


# The program of jnp.diff(a) (shape_ops, which holds diff, imports this module), under its name.
_first_difference.__name__ = _first_difference.__qualname__ = "diff"
_first_difference = util.jit_when_tracing(_first_difference)


def _unique(ar, axis, return_index, return_inverse, return_counts, equal_nan, size, fill_value,
            name="unique", return_true_size=False):
  aux, mask, perm = _unique_sorted_mask(ar, axis=axis, equal_nan=equal_nan)
  if size is None:
    concrete = core.concrete_or_error(None, mask, _UNIQUE_SIZE_HINT.replace("jnp.unique",
                                                                             f"jnp.{name}"))
    ind = lax_numpy.nonzero(concrete)[0]
    size = _shape(ind)[0]
  else:
    size = core.concrete_or_error(operator.index, size, f"The size argument of jnp.{name} must "
                                  "be static.")
    ind = lax_numpy.nonzero(mask, size=size)[0]
  result = aux[ind] if core.get_aval(aux).size else aux
  if fill_value is not None:
    fill_value = creation.asarray(fill_value, dtype=_dtype(result))
    if _shape(result)[0]:
      valid = ufuncs.less(creation.arange(size), reductions.sum(mask))
      valid = lax_structural.expand_dims(valid, tuple(range(1, len(_shape(result)))))
      result = lax_numpy.where(valid, result, fill_value)
    else:
      result = lax_structural.full((size,) + _shape(result)[1:], fill_value, _dtype(result))
  result = lax_numpy.moveaxis(result, 0, axis)
  outs = [result]
  if return_index:
    outs.append(perm[ind] if core.get_aval(aux).size else perm)
  if return_inverse:
    if core.get_aval(aux).size:
      # jnp.cumsum(mask) staged as nonzero stages it (one shared program, as in JAX's jaxprs)
      group = lax_elementwise.sub(lax_numpy._cumsum_int(mask, None), np.array(1, _int_dtype()))
      inverse = creation.zeros(_shape(mask), dtype=_int_dtype()).at[perm].set(group)
    else:
      inverse = creation.zeros(_shape(ar)[axis], dtype=_int_dtype())
    outs.append(inverse)
  if return_counts:
    if core.get_aval(aux).size:
      ends = lax_numpy.nonzero(mask, size=size + 1)[0]
      ends = ends.at[1:].set(lax_numpy.where(ends[1:], ends[1:], _shape(mask)[0]))
      outs.append(_first_difference(ends))
    elif _shape(ar)[axis]:
      outs.append(creation.asarray([_shape(ar)[axis]], dtype=_int_dtype()))
    else:
      outs.append(creation.zeros(0, dtype=_int_dtype()))
  if return_true_size:
    outs.append(reductions.sum(mask))
  return outs[0] if len(outs) == 1 else tuple(outs)


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True, size=None,
           fill_value=None, sorted: bool = True):
  """The sorted unique elements of ``ar`` (rows/slices along ``axis`` when given), optionally
  with first indices, inverse indices and counts (``jnp.unique``).

  Under ``jit`` pass ``size``; missing entries are ``fill_value`` (default: the smallest
  value)."""
  arr = _arr("unique", ar)
  shape = _shape(arr)
  if axis is None:
    arr = lax_numpy.ravel(arr)
    axis = 0
  else:
    if len(shape) == 0:
      raise ValueError("axis must be None for a 0-d array")
    axis = util.canonicalize_axis(axis, len(shape))
  outs = _unique(arr, axis, return_index, return_inverse, return_counts, equal_nan, size,
                 fill_value)
  if return_inverse and len(shape) != 1 and axis == 0 and len(_shape(arr)) == 1:
    outs = list(outs)
    outs[1 + return_index] = lax_numpy.reshape(outs[1 + return_index], shape)
    outs = tuple(outs)
  return outs


def unique_all(x, /, *, size=None, fill_value=None):
  """Unique values, first indices, inverse indices and counts (``jnp.unique_all``)."""
  values, indices, inverse, counts = unique(x, True, True, True, equal_nan=False, size=size,
                                            fill_value=fill_value)
  return _UniqueAllResult(values, indices, inverse, counts)


def unique_counts(x, /, *, size=None, fill_value=None):
  """Unique values and their counts (``jnp.unique_counts``)."""
  values, counts = unique(x, return_counts=True, equal_nan=False, size=size,
                          fill_value=fill_value)
  return _UniqueCountsResult(values, counts)


def unique_inverse(x, /, *, size=None, fill_value=None):
  """Unique values and the inverse indices that rebuild ``x`` (``jnp.unique_inverse``)."""
  values, inverse = unique(x, return_inverse=True, equal_nan=False, size=size,
                           fill_value=fill_value)
  return _UniqueInverseResult(values, inverse)


def unique_values(x, /, *, size=None, fill_value=None):
  """The sorted unique values of ``x`` (``jnp.unique_values``)."""
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto"):
  """Whether each element of ``element`` is in ``test_elements`` (``jnp.isin``)."""
  element, test_elements = _arr("isin", element, test_elements)
  found = _in1d(element, test_elements, invert=invert, assume_unique=assume_unique, method=method)
  return lax_numpy.reshape(found, _shape(element))


def _in1d(ar1, ar2, invert, *, assume_unique=False, method="auto"):
  ar1, ar2 = util.promote_dtypes(ar1, ar2)
  ar1, ar2 = lax_numpy.ravel(ar1), lax_numpy.ravel(ar2)
  if _shape(ar2)[0] == 0:
    return lax_structural.full(_shape(ar1), invert, np.bool_)
  if invert:
    return reductions.all(ufuncs.not_equal(lax_numpy.expand_dims(ar1, -1), ar2), axis=-1)
  return reductions.any(ufuncs.equal(lax_numpy.expand_dims(ar1, -1), ar2), axis=-1)


_in1d_inline = _in1d  # unstaged, for the set functions whose JAX programs do not stage it
_in1d = util.jit_when_tracing(static_argnames=("invert", "assume_unique", "method"))(_in1d_inline)


def _masked_unique(name, values, keep, size, fill_value):
  rows = lax_numpy.reshape(values, (-1, 1))
  out, index, _, _ = _unique_sorted(rows, keep, True, size, fill_value, name)
  return out[:, 0], index


def union1d(ar1, ar2, *, size=None, fill_value=None):
  """The sorted unique values in either array (``jnp.union1d``)."""
  ar1, ar2 = _arr("union1d", ar1, ar2)
  both = lax_numpy.concatenate([lax_numpy.ravel(ar1), lax_numpy.ravel(ar2)])
  return unique(both, size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
  """The sorted unique values of ``ar1`` that are not in ``ar2`` (``jnp.setdiff1d``); with a
  static ``size``, padded with ``fill_value`` (default 0)."""
  ar1, ar2 = _arr("setdiff1d", ar1, ar2)
  ar1, ar2 = util.promote_dtypes(lax_numpy.ravel(ar1), lax_numpy.ravel(ar2))
  if size is None:
    if not assume_unique:
      ar1 = unique(ar1)
    keep = _in1d(ar1, ar2, invert=True)
    keep = core.concrete_or_error(None, keep, "The error arose in setdiff1d()")
    return ar1[keep]
  size = core.concrete_or_error(operator.index, size, "The size argument of jnp.setdiff1d must "
                                "be static.")
  n = _shape(ar1)[0]
  fill_value = creation.asarray(0 if fill_value is None else fill_value, dtype=_dtype(ar1))
  if n == 0:
    return lax_structural.full((size,), fill_value, _dtype(ar1))
  if not assume_unique:
    ar1 = unique(ar1, size=n)
  keep = _in1d(ar1, ar2, invert=True)
  if not assume_unique:
    # unique pads with copies of its first value: only the first n_unique entries count.
    n_unique = ufuncs.subtract(n + 1, reductions.sum(ufuncs.equal(ar1, ar1[0])))
    keep = lax_numpy.where(ufuncs.less(creation.arange(n), n_unique), keep, False)
  valid = ufuncs.less(creation.arange(size), reductions.sum(keep))
  ind = lax_numpy.nonzero(keep, size=size)[0]
  return lax_numpy.where(valid, ar1[ind], fill_value)


@util.jit_when_tracing(static_argnames=("size",))
def _setxor1d_size(arr1, arr2, fill_value, *, size):
  # JAX's program: both arrays' unique values side by side in one buffer, sorted with the unused
  # tail last; a value is kept when it differs from both neighbours.
  n1, n2 = _shape(arr1)[0], _shape(arr2)[0]
  arr1, count1 = _unique(arr1, 0, False, False, False, True, n1, None, return_true_size=True)
  arr2, count2 = _unique(arr2, 0, False, False, False, True, n2, None, return_true_size=True)
  arr = creation.zeros(n1 + n2, dtype=_dtype(arr1))
  arr = lax_structural.dynamic_update_slice(arr, arr1, (0,))
  arr = lax_structural.dynamic_update_slice(arr, arr2, (count1,))
  count = ufuncs.add(count1, count2)
  in_use = ufuncs.less(creation.arange(n1 + n2 + 1), ufuncs.add(count, 1))
  _, arr = lax_sorting.sort((ufuncs.logical_not(in_use[1:]), arr), dimension=0, num_keys=2)
  differs = ufuncs.not_equal(arr[1:], arr[:-1])
  unique_here = lax_numpy.concatenate([True, differs, False], axis=None)
  unique_here = unique_here.at[count].set(True)
  unique_here = ufuncs.logical_and(in_use, unique_here)
  keep = ufuncs.logical_and(unique_here[1:], unique_here[:-1])
  return _kept_with_size(arr, keep, _shape(keep)[0], size, fill_value)


def _kept_with_size(arr, keep, past_end: int, size: int, fill_value):
  """The elements of ``arr`` where ``keep`` holds, as ``size`` values: the gap first filled with
  the largest kept value, then with ``fill_value`` (default: the smallest), as JAX's
  ``size=`` set programs do; ``past_end`` is the index nonzero pads with."""
  n_kept = reductions.sum(keep)
  indices = lax_numpy.nonzero(keep, size=size, fill_value=past_end)[0]
  out = arr.at[indices].get(mode="fill", fill_value=0)
  out = lax_numpy.where(ufuncs.less(creation.arange(size), n_kept), out, reductions.max(out))
  valid = ufuncs.less(creation.arange(size), n_kept)
  return lax_numpy.where(valid, out, reductions.min(out) if fill_value is None else fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
  """The sorted values in exactly one of the arrays (``jnp.setxor1d``)."""
  ar1, ar2 = _arr("setxor1d", ar1, ar2)
  ar1, ar2 = util.promote_dtypes(lax_numpy.ravel(ar1), lax_numpy.ravel(ar2))
  if size is not None:
    size = core.concrete_or_error(operator.index, size, "The size argument of jnp.setxor1d must "
                                  "be static.")
    if _shape(ar1)[0] and _shape(ar2)[0]:
      return _setxor1d_size(ar1, ar2, fill_value, size=size)
  both = lax_numpy.concatenate([ar1, ar2])
  # JAX's setxor1d has its own program; membership is not staged as _in1d there
  keep = lax_numpy.concatenate([_in1d_inline(ar1, ar2, True), _in1d_inline(ar2, ar1, True)])
  return _masked_unique("setxor1d", both, keep, size, fill_value)[0]


@util.jit_when_tracing(static_argnames=("size",))
def _intersect1d_size(arr1, arr2, fill_value, *, size):
  # JAX's program: both arrays' unique values side by side in one buffer, sorted with the unused
  # tail last; a value equal to its predecessor is in both arrays.
  n1, n2 = _shape(arr1)[0], _shape(arr2)[0]
  arr1, _, count1 = _unique(arr1, 0, True, False, False, True, n1, 0, return_true_size=True)
  arr2, _, count2 = _unique(arr2, 0, True, False, False, True, n2, 0, return_true_size=True)
  arr = creation.zeros(n1 + n2, dtype=_dtype(arr1))
  arr = lax_structural.dynamic_update_slice(arr, arr1, (0,))
  arr = lax_structural.dynamic_update_slice(arr, arr2, (count1,))
  in_use = ufuncs.less(creation.arange(n1 + n2), ufuncs.add(count1, count2))
  _, arr, _ = lax_sorting.sort((ufuncs.logical_not(in_use), arr, creation.arange(n1 + n2)),
                               dimension=0, num_keys=2)
  in_both = ufuncs.logical_and(ufuncs.equal(arr[1:], arr[:-1]), in_use[1:])
  return _kept_with_size(arr, in_both, _shape(arr)[0], size, fill_value)


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size=None, fill_value=None):
  """The sorted values in both arrays, optionally with their first indices in each
  (``jnp.intersect1d``)."""
  ar1, ar2 = _arr("intersect1d", ar1, ar2)
  ar1, ar2 = util.promote_dtypes(lax_numpy.ravel(ar1), lax_numpy.ravel(ar2))
  if size is not None and not return_indices and _shape(ar1)[0] and _shape(ar2)[0]:
    size = core.concrete_or_error(operator.index, size, "The size argument of jnp.intersect1d "
                                  "must be static.")
    return _intersect1d_size(ar1, ar2, fill_value, size=size)
  # JAX's intersect1d has its own program; membership is not staged as _in1d there
  values, index1 = _masked_unique("intersect1d", ar1, _in1d_inline(ar1, ar2, False), size, fill_value)
  if not return_indices:
    return values
  if _shape(ar2)[0] == 0:
    index2 = lax_structural.full(_shape(values), 0, _int_dtype())
  else:
    index2 = reductions.argmax(ufuncs.equal(lax_numpy.expand_dims(values, -1), ar2), axis=-1)
  return values, index1, index2
