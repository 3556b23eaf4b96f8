"""NumPy-style indexing of arrays (``x[idx]``) and indexed updates (``x.at[idx].set(y)``...).

An index is parsed into a list of typed entries (int, slice, None, Ellipsis, integer array,
boolean mask). Reads then take the simplest route that JAX 0.10.2 takes, so jaxprs match:

1. all entries static ints/slices/None/Ellipsis and ints in bounds: ``slice`` (+ ``rev`` for
   negative steps, ``squeeze`` for ints, ``broadcast_in_dim`` for None);
2. otherwise, scalar (possibly traced) ints and unit-step slices: ``dynamic_slice``, whose
   start indices are clamped, so ``x[1000]`` reads the last row as JAX does;
3. otherwise a ``gather``: integer arrays are advanced indices placed with NumPy's rules
   (broadcast together; their dimensions replace the indexed axes when the advanced entries are
   adjacent, and go first otherwise); concrete boolean masks become integer arrays
   (``np.nonzero``); out-of-bounds reads follow ``mode`` (default: clamped).

Updates (``.at[idx].set/add/...``) build the same gather description and transpose it into a
scatter; out-of-bounds updates are dropped by default (``mode='drop'``).
"""
from __future__ import annotations

import builtins
import enum
import math
import operator
from typing import Any, Callable, NamedTuple, Sequence

import warnings

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import Tracer
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import slicing as lax_slicing
from axle._src.lax import structural as lax_structural
from axle._src.lax.slicing import GatherScatterMode
from axle._src.numpy import creation
from axle._src.numpy import ufuncs
from axle._src.numpy import util

_INDEX_DTYPE = np.dtype(np.int32)


def _asarray(x, dtype=None):
  return creation.asarray(x, dtype=dtype)


# ---------------------------------------------------------------------------
# Parsing


class IndexType(enum.Enum):
  """The kinds of entries an index expression can hold."""
  NONE = "none"
  SLICE = "slice"
  ELLIPSIS = "ellipsis"
  INTEGER = "integer"
  BOOLEAN = "boolean"
  ARRAY = "array"


class ParsedIndex(NamedTuple):
  """One entry of an index expression: the entry, its kind and the operand axes it consumes."""
  index: Any
  typ: IndexType
  consumed_axes: tuple[int, ...]


def _is_integer_index(idx) -> bool:
  return isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_))


def _dtype_of(x):
  """The (uncanonicalised for NumPy, canonical for axle values) dtype of an index-like value."""
  if isinstance(x, (Array, Tracer)):
    return x.dtype
  if isinstance(x, (np.ndarray, np.generic)):
    return x.dtype
  if isinstance(x, bool):
    return np.dtype(np.bool_)
  if isinstance(x, int):
    return np.dtype(np.int64)
  if isinstance(x, float):
    return np.dtype(np.float64)
  if isinstance(x, complex):
    return np.dtype(np.complex128)
  return None


def _is_scalar(x) -> bool:
  return np.isscalar(x) or (isinstance(x, (np.ndarray, Array, Tracer)) and np.ndim(x) == 0)


def _is_boolean_index(idx) -> bool:
  dtype = _dtype_of(idx)
  if dtype is not None:
    return dtype == np.bool_
  return (isinstance(idx, list) and bool(idx)
          and all(_is_scalar(e) and _dtype_of(e) == np.bool_ for e in idx))


def _sequence_dtype(seq) -> np.dtype:
  """The dtype ``jnp.asarray(seq)`` would have."""
  leaves: list = []

  def walk(obj):
    if isinstance(obj, (list, tuple)):
      for item in obj:
        walk(item)
    else:
      leaves.append(obj)

  walk(seq)
  if any(isinstance(leaf, (Array, Tracer)) for leaf in leaves):
    return dtypes.result_type(*leaves)
  return dtypes.canonicalize_dtype(np.asarray(seq).dtype)


def _index_type(idx) -> IndexType:
  if idx is None:
    return IndexType.NONE
  if idx is Ellipsis:
    return IndexType.ELLIPSIS
  if isinstance(idx, slice):
    return IndexType.SLICE
  if _is_integer_index(idx):
    return IndexType.INTEGER
  if _is_boolean_index(idx):
    return IndexType.BOOLEAN
  if isinstance(idx, (Array, Tracer, np.ndarray)):
    if dtypes.issubdtype(idx.dtype, np.integer):
      return IndexType.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                    f"{idx.dtype}")
  if isinstance(idx, str):
    raise TypeError(f"JAX does not support string indexing; got idx={idx!r}")
  if isinstance(idx, Sequence):
    if not idx:
      return IndexType.ARRAY
    dtype = _sequence_dtype(idx)
    if dtype == np.bool_:
      return IndexType.BOOLEAN
    if dtypes.issubdtype(dtype, np.integer):
      return IndexType.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")
  if isinstance(idx, (float, complex, np.generic)):
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                    f"{np.dtype(type(idx))}")
  raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`)"
                   f" and integer or boolean arrays are valid indices. Got {idx}")


def _should_unpack_list_index(x) -> bool:
  return ((isinstance(x, (np.ndarray, Array, Tracer)) and np.ndim(x) != 0)
          or isinstance(x, (Sequence, slice)) or x is Ellipsis or x is None)


def _as_index_tuple(idx) -> tuple:
  """The index as a tuple; non-tuple sequences are refused as JAX does."""
  if isinstance(idx, tuple):
    return idx
  if isinstance(idx, Sequence) and not isinstance(idx, str):
    if any(_should_unpack_list_index(i) for i in idx):
      fix = "use `arr[tuple(seq)]` instead of `arr[seq]`"
    else:
      fix = "use `arr[array(seq)]` instead of `arr[seq]`"
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                    f"{fix}. See https://github.com/jax-ml/jax/issues/4564 for more information.")
  return (idx,)


def _parse(idx, shape: tuple[int, ...]) -> list[ParsedIndex]:
  indices = _as_index_tuple(idx)
  types = [_index_type(i) for i in indices]
  consumed = []
  ellipses = []
  for position, (i, typ) in enumerate(zip(indices, types)):
    if typ in (IndexType.NONE, IndexType.ELLIPSIS):
      consumed.append(0)
      if typ == IndexType.ELLIPSIS:
        ellipses.append(position)
    elif typ == IndexType.BOOLEAN:
      consumed.append(np.ndim(i))
    else:
      consumed.append(1)
  if len(ellipses) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  total = sum(consumed)
  if total > len(shape):
    raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} were "
                     f"indexed")
  if ellipses:
    consumed[ellipses[0]] = len(shape) - total
  parsed = []
  axis = 0
  for i, typ, n in zip(indices, types, consumed):
    parsed.append(ParsedIndex(i, typ, tuple(range(axis, axis + n))))
    axis += n
  return parsed


def _expand_ellipses(parsed: list[ParsedIndex], ndim: int) -> list[ParsedIndex]:
  """Ellipsis and implicit trailing axes become explicit ``slice(None)`` entries."""
  out = []
  consumed = 0
  for p in parsed:
    consumed += len(p.consumed_axes)
    if p.typ == IndexType.ELLIPSIS:
      out.extend(ParsedIndex(slice(None), IndexType.SLICE, (a,)) for a in p.consumed_axes)
    else:
      out.append(p)
  out.extend(ParsedIndex(slice(None), IndexType.SLICE, (a,)) for a in range(consumed, ndim))
  return out


def _slice_is_static(s: slice) -> bool:
  return not any(isinstance(e, Tracer) for e in (s.start, s.stop, s.step))


def _validate_slices(parsed: list[ParsedIndex]) -> None:
  for position, p in enumerate(parsed):
    if p.typ == IndexType.SLICE and not _slice_is_static(p.index):
      raise IndexError(f"Slice entries must be static integers. Got {p.index} at position "
                       f"{position}")


def _slice_entry(e):
  if e is None:
    return None
  try:
    return operator.index(e)
  except TypeError:
    raise TypeError(f"'{type(e).__name__}' object cannot be interpreted as an integer") from None


def _slice_indices(s: slice, size: int) -> tuple[int, int, int]:
  """``s.indices(size)`` for static slices whose entries may be NumPy or axle scalars."""
  start, stop, step = _slice_entry(s.start), _slice_entry(s.stop), _slice_entry(s.step)
  if step == 0:
    raise ValueError("slice step cannot be zero")
  return slice(start, stop, step).indices(size)


def _validate_static_ints(parsed, shape, normalize_indices: bool) -> None:
  for p in parsed:
    if p.typ == IndexType.INTEGER:
      i = operator.index(p.index)
      axis, = p.consumed_axes
      size = shape[axis]
      normed = i + size if normalize_indices and i < 0 else i
      if not 0 <= normed < size:
        raise IndexError(f"index {i} out of bounds for axis {axis} with size {size} "
                         f"(normalize_indices={normalize_indices})")


class _NotThisWay(Exception):
  """Raised when a read cannot be done by the strategy being tried."""


# ---------------------------------------------------------------------------
# Strategy 1: static slice


def _static_slice(arr, parsed, shape, mode, normalize_indices):
  parsed_mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else \
      GatherScatterMode.from_any(mode)
  if parsed_mode not in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
    raise _NotThisWay
  try:
    if parsed_mode == GatherScatterMode.PROMISE_IN_BOUNDS:
      _validate_static_ints(parsed, shape, normalize_indices)
    _validate_slices(parsed)
  except IndexError:
    raise _NotThisWay from None
  if any(p.typ not in (IndexType.INTEGER, IndexType.ELLIPSIS, IndexType.SLICE, IndexType.NONE)
         for p in parsed):
    raise _NotThisWay
  starts, limits, strides, rev_axes, squeeze_axes, newaxis_dims = [], [], [], [], [], []
  for p in _expand_ellipses(parsed, len(shape)):
    if p.typ == IndexType.NONE:
      newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
    elif p.typ == IndexType.INTEGER:
      axis, = p.consumed_axes
      if shape[axis] == 0:
        raise _NotThisWay
      start = int(p.index)
      if normalize_indices and start < 0:
        start += shape[axis]
      start = min(max(start, 0), shape[axis] - 1)
      starts.append(start)
      limits.append(start + 1)
      strides.append(1)
      squeeze_axes.append(axis)
    else:
      axis, = p.consumed_axes
      size = shape[axis]
      try:
        start, stop, stride = _slice_indices(p.index, size)
      except (TypeError, ValueError):
        raise _NotThisWay from None
      if stride < 0:
        new_start = min(size, stop + 1 + abs(start - stop - 1) % abs(stride))
        starts.append(new_start)
        limits.append(max(new_start, start + 1))
        strides.append(abs(stride))
        rev_axes.append(axis)
      else:
        starts.append(start)
        limits.append(max(start, stop))
        strides.append(stride)
  result = arr
  trivial = all(s == 1 for s in strides) and len(starts) == len(shape) and all(
      (b, e) == (0, d) for b, e, d in zip(starts, limits, shape))
  if not trivial:
    result = lax_structural.slice(result, starts, limits,
                              None if all(s == 1 for s in strides) else strides)
  if rev_axes:
    result = lax_structural.rev(result, tuple(rev_axes))
  if squeeze_axes:
    result = lax_structural.squeeze(result, tuple(squeeze_axes))
  if newaxis_dims:
    result = lax_structural.expand_dims(result, tuple(newaxis_dims))
  return result


# ---------------------------------------------------------------------------
# Strategy 2: dynamic slice


def _dynamic_slice(arr, parsed, shape, mode, normalize_indices):
  if mode is not None:
    if GatherScatterMode.from_any(mode) not in (GatherScatterMode.PROMISE_IN_BOUNDS,
                                                GatherScatterMode.CLIP):
      raise _NotThisWay
  for p in parsed:
    if p.typ in (IndexType.INTEGER, IndexType.ELLIPSIS, IndexType.NONE):
      continue
    if p.typ == IndexType.SLICE:
      if p.index.step is not None and not isinstance(p.index.step, Tracer) and \
          p.index.step in (-1, 1):
        continue
      if p.index.step is None:
        continue
      raise _NotThisWay
    if p.typ == IndexType.ARRAY and not isinstance(p.index, Sequence) and np.ndim(p.index) == 0:
      continue
    raise _NotThisWay
  starts, sizes, rev_axes, squeeze_axes, newaxis_dims = [], [], [], [], []
  trivial = True
  for p in _expand_ellipses(parsed, len(shape)):
    if p.typ == IndexType.NONE:
      newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
    elif p.typ in (IndexType.INTEGER, IndexType.ARRAY):
      trivial = False
      axis, = p.consumed_axes
      if shape[axis] == 0:
        raise _NotThisWay
      starts.append(_asarray(p.index))
      sizes.append(1)
      squeeze_axes.append(axis)
    else:
      if p.index != slice(None):
        trivial = False
      axis, = p.consumed_axes
      size = shape[axis]
      try:
        start, stop, stride = _slice_indices(p.index, size)
      except (TypeError, ValueError):
        raise _NotThisWay from None
      if stride < 0:
        new_start = stop + 1 + abs(start - stop - 1) % abs(stride)
        starts.append(new_start)
        sizes.append(max(0, start + 1 - new_start))
        rev_axes.append(axis)
      else:
        starts.append(start)
        sizes.append(max(0, stop - start))
  if len(starts) > 1:
    starts = [_convert_index(i, _INDEX_DTYPE) for i in starts]
  result = arr
  if not trivial:
    result = lax_structural.dynamic_slice(result, starts, sizes,
                                      allow_negative_indices=normalize_indices)
  if rev_axes:
    result = lax_structural.rev(result, tuple(rev_axes))
  if squeeze_axes:
    result = lax_structural.squeeze(result, tuple(squeeze_axes))
  if newaxis_dims:
    result = lax_structural.expand_dims(result, tuple(newaxis_dims))
  return result


# ---------------------------------------------------------------------------
# Strategy 3: gather (shared with scatter)


def _expand_bool_indices(parsed: list[ParsedIndex], shape) -> list[ParsedIndex]:
  """Boolean masks become integer index arrays (``np.nonzero``); scalar booleans stay."""
  out = []
  for position, p in enumerate(parsed):
    if p.typ != IndexType.BOOLEAN:
      out.append(p)
      continue
    if isinstance(p.index, Tracer) or (isinstance(p.index, list)
                                       and any(isinstance(e, Tracer) for e in p.index)):
      tracer = p.index if isinstance(p.index, Tracer) else next(
          e for e in p.index if isinstance(e, Tracer))
      raise errors.NonConcreteBooleanIndexError(tracer)
    mask = np.asarray(p.index)
    if mask.ndim == 0:
      out.append(ParsedIndex(bool(mask), p.typ, ()))
      continue
    expected = [shape[a] for a in p.consumed_axes]
    if not all(s1 in (0, s2) for s1, s2 in zip(mask.shape, expected)):
      raise IndexError("boolean index did not match shape of indexed array in index "
                       f"{position}: got {mask.shape}, expected {expected}")
    out.extend(ParsedIndex(i, IndexType.ARRAY, (a,))
               for i, a in zip(np.nonzero(mask), p.consumed_axes))
  return out


class _GatherIndexer(NamedTuple):
  slice_shape: tuple[int, ...]          # shape of x[idx] before None axes are removed
  gather_slice_shape: tuple[int, ...]   # slice_sizes of the gather
  gather_indices: Any                   # the index vectors (last dim) as an array
  dnums: lax_slicing.GatherDimensionNumbers
  unique_indices: bool
  indices_are_sorted: bool
  reversed_y_dims: tuple[int, ...]
  newaxis_dims: tuple[int, ...]
  scalar_bool_dims: tuple[int, ...]


def _convert_index(index, dtype):
  """``convert_element_type`` of an index; a concrete scalar is converted right away, as JAX's
  constant folding of scalar conversions does (no equation is staged for it)."""
  convert = lax_elementwise.convert_element_type
  if not isinstance(index, Tracer) and np.ndim(index) == 0:
    with core.set_current_trace(core.eval_trace):
      return convert(index, dtype)
  return convert(index, dtype)


def _lt_zero(index):
  if isinstance(index, np.ndarray):
    return index < 0
  return lax_elementwise.lt(index, np.zeros((), index.dtype) if not index.aval.weak_type else 0)


def _normalize(index, size: int):
  """``index + size`` where ``index < 0`` (unsigned indices are left alone)."""
  if dtypes.issubdtype(_dtype_of(index), np.unsignedinteger):
    return index
  # Like JAX's ``lax._const``: a weakly typed index gets a (weak) Python int.
  weak = isinstance(index, (Array, Tracer)) and index.aval.weak_type
  size_const = int(size) if weak else np.array(size, dtype=_dtype_of(index))[()]
  return lax_elementwise.select_n(_lt_zero(index), index, lax_elementwise.add(index, size_const))


def _broadcast_shapes(shapes):
  return util.broadcast_shapes(*shapes)


def _broadcast_to(arr, shape):
  """``lax.broadcast_to``: leading axes added, size-1 axes stretched (JAX's messages)."""
  aval = core.get_aval(arr)
  shape = tuple(shape)
  if aval.shape == shape:
    return arr
  if len(shape) < len(aval.shape):
    raise ValueError(f"Cannot broadcast to shape with fewer dimensions: "
                     f"arr_shape={aval.shape} shape={shape}")
  lead = len(shape) - len(aval.shape)
  if not all(d in (1, s) for d, s in zip(aval.shape, shape[lead:])):
    requested = core.ShapedArray(shape, aval.dtype).str_short(short_dtypes=False)
    raise ValueError(f"Incompatible types for broadcasting: input type="
                     f"{aval.str_short(short_dtypes=False)} and requested type={requested}")
  return lax_structural.broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def _broadcast_arrays(arrays):
  shapes = [core.get_aval(a).shape for a in arrays]
  if all(s == shapes[0] for s in shapes):
    return list(arrays)
  shape = _broadcast_shapes(shapes)
  return [_broadcast_to(a, shape) for a in arrays]


def _index_to_gather(parsed: list[ParsedIndex], shape: tuple[int, ...],
                     normalize_indices: bool = True) -> _GatherIndexer:
  _validate_slices(parsed)
  parsed = [ParsedIndex(_asarray(p.index), p.typ, p.consumed_axes)
            if isinstance(p.index, Sequence) and not isinstance(p.index, str) else p
            for p in parsed]
  advanced_positions = [n for n, p in enumerate(parsed)
                        if p.typ in (IndexType.ARRAY, IndexType.INTEGER)]
  advanced_contiguous = all(b - a == 1 for a, b in zip(advanced_positions,
                                                        advanced_positions[1:]))
  parsed = _expand_ellipses(parsed, len(shape))

  # Scalar booleans: a new axis of size 1 (True) or 0 (False), indexed by arange.
  scalar_bool_dims = tuple(n for n, p in enumerate(parsed) if p.typ == IndexType.BOOLEAN)
  shape = list(shape)
  expanded = []
  current = 0
  for n, p in enumerate(parsed):
    if p.typ == IndexType.BOOLEAN:
      shape.insert(n, 1)
      expanded.append(ParsedIndex(np.arange(int(p.index)), IndexType.ARRAY, (current,)))
      current += 1
    else:
      expanded.append(ParsedIndex(p.index, p.typ, tuple(range(current,
                                                              current + len(p.consumed_axes)))))
      current += len(p.consumed_axes)
  parsed = expanded
  shape = tuple(shape)

  if normalize_indices:
    normalized = []
    for p in parsed:
      if p.typ == IndexType.INTEGER:
        axis, = p.consumed_axes
        index = p.index
        if not isinstance(index, np.unsignedinteger) and index < 0:
          index = index + shape[axis]
        normalized.append(ParsedIndex(index, p.typ, p.consumed_axes))
      elif p.typ == IndexType.ARRAY:
        axis, = p.consumed_axes
        normalized.append(ParsedIndex(_normalize(p.index, shape[axis]), p.typ, p.consumed_axes))
      else:
        normalized.append(p)
    parsed = normalized

  advanced = any(p.typ == IndexType.ARRAY and np.ndim(p.index) > 0 for p in parsed)
  advanced_indexes, idx_advanced_axes, x_advanced_axes = [], [], []
  advanced_is_integer = []
  if advanced:
    without_none = [(n, p) for n, p in enumerate(parsed) if p.typ != IndexType.NONE]
    for j, (n, p) in enumerate(without_none):
      if p.typ in (IndexType.ARRAY, IndexType.INTEGER):
        advanced_indexes.append(_asarray(p.index))
        advanced_is_integer.append(p.typ == IndexType.INTEGER)
        idx_advanced_axes.append(n)
        x_advanced_axes.append(j)

  convert = _convert_index
  x_axis = y_axis = collapsed_y_axis = 0
  offset_dims, collapsed_slice_dims, start_index_map = [], [], []
  gather_indices: list = []   # (array, first dimension in gather_indices_shape)
  gather_indices_shape: list[int] = []
  slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []

  for n, p in enumerate(parsed):
    if advanced_indexes and ((advanced_contiguous and n == idx_advanced_axes[0])
                             or (not advanced_contiguous and n == 0)):
      arrays = _broadcast_arrays(advanced_indexes)
      adv_shape = core.get_aval(arrays[0]).shape
      start_dim = len(gather_indices_shape)
      # An index array already of the index dtype is used as is, weak or not; an integer
      # index broadcast against the arrays is converted (JAX's equations).
      gather_indices.extend(
          (a if not is_integer and core.get_aval(a).dtype == _INDEX_DTYPE
           else convert(a, _INDEX_DTYPE), start_dim)
          for a, is_integer in zip(arrays, advanced_is_integer))
      gather_indices_shape.extend(adv_shape)
      start_index_map.extend(x_advanced_axes)
      collapsed_slice_dims.extend(x_advanced_axes)
      slice_shape.extend(adv_shape)
      y_axis += len(adv_shape)
      collapsed_y_axis += len(adv_shape)

    if n in idx_advanced_axes:
      x_axis += 1
      gather_slice_shape.append(1)
      continue

    if p.typ in (IndexType.INTEGER, IndexType.ARRAY) and np.ndim(p.index) == 0:
      if shape[x_axis] == 0:
        raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
      gather_indices.append((convert(p.index, _INDEX_DTYPE), len(gather_indices_shape)))
      collapsed_slice_dims.append(x_axis)
      gather_slice_shape.append(1)
      start_index_map.append(x_axis)
      x_axis += 1
    elif p.typ == IndexType.NONE:
      slice_shape.append(1)
      newaxis_dims.append(y_axis)
      y_axis += 1
    elif p.typ == IndexType.SLICE:
      start, stop, step = _slice_indices(p.index, shape[x_axis])
      size = len(range(start, stop, step))
      slice_shape.append(size)
      if step == 1:
        if size != shape[x_axis]:
          gather_indices.append((convert(start, _INDEX_DTYPE), len(gather_indices_shape)))
          start_index_map.append(x_axis)
        gather_slice_shape.append(size)
        offset_dims.append(collapsed_y_axis)
      else:
        indices = _asarray(np.array(start, _INDEX_DTYPE)) + _asarray(
            np.array(step, _INDEX_DTYPE)) * lax_structural.iota(_INDEX_DTYPE, size)
        if step < 0:
          reversed_y_dims.append(collapsed_y_axis)
          indices = lax_structural.rev(indices, (0,))
        gather_slice_shape.append(1)
        gather_indices.append((indices, len(gather_indices_shape)))
        start_index_map.append(x_axis)
        gather_indices_shape.append(size)
        collapsed_slice_dims.append(x_axis)
      collapsed_y_axis += 1
      y_axis += 1
      x_axis += 1
    else:
      raise IndexError(f"Got unsupported indexer at position {n}: {p.index!r}")

  if not gather_indices:
    gather_indices_array = np.zeros((0,), dtype=_INDEX_DTYPE)
  elif len(gather_indices) == 1:
    g, _ = gather_indices[0]
    ndim = len(core.get_aval(g).shape)
    gather_indices_array = lax_structural.expand_dims(g, (ndim,))
  else:
    last_dim = len(gather_indices_shape)
    full_shape = tuple(gather_indices_shape) + (1,)
    gather_indices_array = lax_structural.concatenate(
        [lax_structural.broadcast_in_dim(g, full_shape,
                                     tuple(range(i, i + len(core.get_aval(g).shape))))
         for g, i in gather_indices], last_dim)

  dnums = lax_slicing.GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                         collapsed_slice_dims=tuple(sorted(collapsed_slice_dims)),
                                         start_index_map=tuple(start_index_map))
  return _GatherIndexer(slice_shape=tuple(slice_shape),
                        gather_slice_shape=tuple(gather_slice_shape),
                        gather_indices=gather_indices_array, dnums=dnums,
                        unique_indices=not advanced_indexes,
                        indices_are_sorted=not advanced_indexes,
                        reversed_y_dims=tuple(reversed_y_dims),
                        newaxis_dims=tuple(newaxis_dims), scalar_bool_dims=scalar_bool_dims)


def _gather(arr, parsed, shape, indices_are_sorted, unique_indices, mode, fill_value,
            normalize_indices):
  indexer = _index_to_gather(parsed, shape, normalize_indices)
  if fill_value is not None:
    core.concrete_or_error(None, fill_value, "fill_value argument to indexed get()")
    if np.ndim(fill_value) != 0:
      raise ValueError("fill_value argument to indexed get() must be a scalar")
    if isinstance(fill_value, (np.ndarray, Array)):
      fill_value = np.asarray(fill_value).item()
  y = arr
  if indexer.scalar_bool_dims:
    y = lax_structural.expand_dims(y, indexer.scalar_bool_dims)
  if 0 in indexer.slice_shape:
    return lax_structural.full_like(y, 0, shape=indexer.slice_shape)
  if 0 not in core.get_aval(indexer.gather_indices).shape:
    y = lax_slicing.gather(y, indexer.gather_indices, indexer.dnums, indexer.gather_slice_shape,
                       unique_indices=unique_indices or indexer.unique_indices,
                       indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
  if indexer.reversed_y_dims:
    y = lax_structural.rev(y, indexer.reversed_y_dims)
  return lax_structural.expand_dims(y, indexer.newaxis_dims) if indexer.newaxis_dims else y


# ---------------------------------------------------------------------------
# Public entry points


_fast_scalar_types = (int, np.integer)


def _fast_entry(entry, size):
  """A NumPy index entry equivalent to ``entry`` on an axis of ``size`` under JAX's default
  (clamped) semantics, or None when the eager shortcut does not apply."""
  if isinstance(entry, _fast_scalar_types) and not isinstance(entry, (bool, np.bool_)):
    i = int(entry)
    if i < 0 and not isinstance(entry, np.unsignedinteger):
      i += size
    return min(max(i, 0), size - 1)
  if isinstance(entry, (np.ndarray, Array)):
    value = entry._value if isinstance(entry, Array) else entry
    if value is None or value.ndim == 0:
      return None
    if value.dtype == np.bool_:
      return value
    if value.dtype.kind not in "iu":
      return None
    if value.dtype.kind == "i":
      value = np.where(value < 0, value + size, value)
    return np.clip(value, 0, size - 1)
  return None


def _is_bool_array(e) -> bool:
  return isinstance(e, (np.ndarray, Array)) and e.dtype == np.bool_


def _eager_take(arr, idx):
  """``arr[idx]`` computed directly with NumPy for the common eager cases (ints, static slices,
  None, Ellipsis, concrete integer arrays): the same values as the lax route, far fewer
  dispatches. Returns None when the index needs the general route."""
  value = arr._value
  if value is None or value.size == 0:
    return None
  entries = idx if isinstance(idx, tuple) else (idx,)
  if isinstance(idx, list):
    return None
  shape = value.shape
  ellipsis = sum(1 for e in entries if e is Ellipsis)
  consumed = sum(np.ndim(e) if _is_bool_array(e) else 1
                 for e in entries if e is not None and e is not Ellipsis)
  if ellipsis > 1 or consumed > len(shape):
    return None
  out = []
  axis = 0
  for e in entries:
    if e is None:
      out.append(None)
    elif e is Ellipsis:
      out.append(Ellipsis)
      axis += len(shape) - consumed
    elif type(e) is slice:
      if not _is_static_slice(e):
        return None
      out.append(e)
      axis += 1
    else:
      if axis >= len(shape):
        return None
      converted = _fast_entry(e, shape[axis])
      if converted is None:
        return None
      out.append(converted)
      axis += np.ndim(e) if _is_bool_array(e) else 1
  try:
    result = value[tuple(out)]
  except (IndexError, ValueError):  # let the general route raise JAX's error
    return None
  aval = arr._aval
  return Array(np.asarray(result), aval=core.ShapedArray(np.shape(result), aval.dtype,
                                                          aval.weak_type))


def rewriting_take(arr, idx, *, indices_are_sorted: bool = False, unique_indices: bool = False,
                   mode=None, fill_value=None, normalize_indices: bool = True):
  """``arr[idx]`` with JAX's options (what ``x.at[idx].get(...)`` calls)."""
  if (mode is None and normalize_indices and type(arr) is Array
      and core._context.trace is core.eval_trace):
    result = _eager_take(arr, idx)
    if result is not None:
      return result
  shape = core.get_aval(arr).shape
  parsed = _parse(idx, shape)
  try:
    return _static_slice(arr, parsed, shape, mode, normalize_indices)
  except _NotThisWay:
    pass
  try:
    return _dynamic_slice(arr, parsed, shape, mode, normalize_indices)
  except _NotThisWay:
    pass
  parsed = _expand_bool_indices(parsed, shape)
  return _gather(arr, parsed, shape, indices_are_sorted, unique_indices, mode, fill_value,
                 normalize_indices)


def getitem(arr, index):
  """``arr[index]`` with NumPy's indexing rules (JAX's ``jax.Array.__getitem__``).

  Supports ints (negative count from the end), slices with any step, None, Ellipsis, integer
  arrays and lists (advanced indexing, broadcast together), and concrete boolean masks.
  Out-of-bounds integer indices are clamped (``x[10000]`` is the last element); use
  ``x.at[idx].get(mode='fill')`` for other behaviour. A traced boolean mask raises
  ``NonConcreteBooleanIndexError`` because the result's shape would depend on its values.
  """
  return rewriting_take(arr, index)


def _scatter_update(x, idx, y, scatter_op: Callable, indices_are_sorted: bool,
                    unique_indices: bool, mode=None, normalize_indices: bool = True):
  """``x[idx] op= y`` computed functionally: the scatter that transposes ``x[idx]``."""
  x = _asarray(x)
  x_aval = core.get_aval(x)
  # Scalars stay Python/NumPy scalars so that promotion converts them right away (JAX folds
  # conversions of scalar constants: ``x.at[0].set(1.)`` stages no convert_element_type).
  if (isinstance(y, int) and not isinstance(y, bool)
      and dtypes.issubdtype(x_aval.dtype, np.integer)
      and np.iinfo(x_aval.dtype).min <= y <= np.iinfo(x_aval.dtype).max):
    y = np.array(y, dtype=x_aval.dtype)[()]
  elif not isinstance(y, (bool, int, float, complex, np.generic)):
    y = _asarray(y)
  if not dtypes.safe_to_cast(y, x_aval.dtype):
    warnings.warn(
        f"scatter inputs have incompatible types: cannot safely cast value from "
        f"dtype={dtypes.dtype(y, canonicalize=True).name} to dtype={x_aval.dtype.name} with "
        f"jax_numpy_dtype_promotion={config.jax_numpy_dtype_promotion}. In future JAX releases "
        f"this will result in an error.", FutureWarning, stacklevel=4)
  parsed = _expand_bool_indices(_parse(idx, x_aval.shape), x_aval.shape)
  dtype, weak_type = x_aval.dtype, x_aval.weak_type
  indexer = _index_to_gather(parsed, x_aval.shape, normalize_indices)
  if 0 in indexer.slice_shape:
    return x
  x, y = util.promote_dtypes(x, y)
  y = _broadcast_to(y, indexer.slice_shape)
  if indexer.newaxis_dims:
    y = lax_structural.squeeze(y, indexer.newaxis_dims)
  if indexer.reversed_y_dims:
    y = lax_structural.rev(y, indexer.reversed_y_dims)
  if indexer.scalar_bool_dims:
    x = lax_structural.expand_dims(x, indexer.scalar_bool_dims)
  dnums = lax_slicing.ScatterDimensionNumbers(
      update_window_dims=indexer.dnums.offset_dims,
      inserted_window_dims=indexer.dnums.collapsed_slice_dims,
      scatter_dims_to_operand_dims=indexer.dnums.start_index_map,
      operand_batching_dims=indexer.dnums.operand_batching_dims,
      scatter_indices_batching_dims=indexer.dnums.start_indices_batching_dims)
  out = scatter_op(x, indexer.gather_indices, y, dnums,
                   indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
                   unique_indices=indexer.unique_indices or unique_indices, mode=mode)
  if indexer.scalar_bool_dims:
    out = lax_structural.squeeze(out, indexer.scalar_bool_dims)
  return lax_elementwise._convert_element_type(out, dtype, weak_type)


_SET_SCALAR_TYPES = {"f": (int, float), "i": (int,), "u": (int,)}


def _set_one_position(array, index, value):
  """Eager ``x.at[i].set(v)`` of a strongly typed real Array with a host value, where ``i`` is
  an in-bounds Python int or a slice of Python ints (along the first axis) and ``v`` a Python
  number of the array's kind or an Array of the same dtype with a host value whose shape
  broadcasts to ``x[i]``: a copy with ``v`` (converted to the dtype) written there -- the
  scatter moves bits, no arithmetic. None for anything else, and for values the conversion
  would overflow or make subnormal and subnormal Array values (the general path decides
  those)."""
  if type(array) is not Array or core._context.trace is not core.eval_trace \
      or eval_interpreter.special_checks.enabled:
    return None
  host = array._value
  aval = array._aval
  if host is None or type(host) is not np.ndarray or not aval.shape or aval.weak_type:
    return None
  dtype = aval.dtype
  kinds = _SET_SCALAR_TYPES.get(dtype.kind)
  if kinds is None:
    return None
  index_type = type(index)
  if index_type is int:
    if not -aval.shape[0] <= index < aval.shape[0]:
      return None
  elif index_type is not slice or not _is_static_slice(index):
    return None
  value_type = type(value)
  if value_type is Array:
    update = value._value
    if value._aval.dtype != dtype or type(update) is not np.ndarray \
        or update.ndim > (aval.ndim if index_type is slice else aval.ndim - 1) \
        or (dtype in eval_interpreter.MIN_NORMAL_EXPONENT and update.size
            and eval_interpreter.exponent_bound(update) is None):
      return None
    out = host.copy()
    try:
      out[index] = update
    except ValueError:  # shapes that do not broadcast: the general path reports them
      return None
    return Array(out, False, aval)
  if value_type not in kinds:
    return None
  if value_type is int and not -0x80000000 <= value < 0x80000000:
    return None  # (Python ints beyond int32 raise without x64)
  if dtype.kind == "f":
    magnitude = abs(value)
    info = dtypes.finfo(dtype)
    if 0 < magnitude < float(info.tiny) or float(info.max) < magnitude < float("inf"):
      return None
  else:
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
      return None
  out = host.copy()
  out[index] = value
  return Array(out, False, aval)


def _is_static_slice(index: slice) -> bool:
  """Whether a slice has only Python-int (or absent) start, stop and a nonzero step."""
  for part in (index.start, index.stop, index.step):
    if part is not None and type(part) is not int:
      return False
  return index.step != 0


_quiet_floating_point = lax_convert._ignore_fp
_ADD_AT_DTYPES = {np.dtype(np.float32): 24, np.dtype(np.float64): 53}  # -> significand bits


def _add_at_positions(array, index, value):
  """Eager ``x.at[idx].add(v)`` of a strongly typed float32/float64 Array with a host value,
  in-bounds positions along the first axis (a Python int, or a 1-D integer Array or NumPy array
  with a host value) and a Python number ``v``: ``np.add.at`` on a copy. Each position gets
  ``v`` added once per occurrence, as XLA's scatter-add does (the same ``v`` each time, so the
  order of repeats does not matter). None where the sums could be subnormal (XLA flushes them)
  and for anything else."""
  if type(array) is not Array or core._context.trace is not core.eval_trace:
    return None
  host = array._value
  aval = array._aval
  precision = _ADD_AT_DTYPES.get(aval.dtype)
  if host is None or type(host) is not np.ndarray or precision is None or not aval.shape \
      or aval.weak_type or (type(value) is not float and type(value) is not int) \
      or eval_interpreter.special_checks.enabled or not eval_interpreter.eager_mode.exact:
    return None
  if type(value) is int and not -0x80000000 <= value < 0x80000000:
    return None
  length = aval.shape[0]
  if type(index) is int:
    if not -length <= index < length:
      return None
    positions = index
  else:
    positions = index._value if type(index) is Array else index
    if type(positions) is not np.ndarray or positions.ndim != 1 or positions.dtype.kind not in "iu" \
        or not positions.size:
      return None
    low, high = int(positions.min()), int(positions.max())
    if low < -length or high >= length:
      return None  # (out-of-bounds updates are dropped by the general path)
    if low < 0:
      positions = np.where(positions < 0, positions + length, positions)
  dtype = aval.dtype
  with _quiet_floating_point():
    addend = dtype.type(value)
  magnitude = abs(float(addend))
  if (magnitude == float("inf") and abs(value) != float("inf")) or magnitude != magnitude:
    return None  # overflow in the conversion, or a NaN (which NaN a sum of two NaNs keeps
    #             depends on the order XLA adds them in): the general path decides
  exponent = eval_interpreter.exponent_bound(host) if host.size else None
  if exponent is None:
    return None
  # Sums of x's elements and v are multiples of the smaller quantum (as the add kernel's bound).
  bound = builtins.min(exponent, math.frexp(magnitude)[1] if magnitude else exponent) \
      - precision + 1
  if bound < eval_interpreter.MIN_NORMAL_EXPONENT[dtype]:
    return None
  out = host.copy()
  with _quiet_floating_point():
    np.add.at(out, positions, addend)
  eval_interpreter.remember_exponent_bound(out, bound)
  return Array(out, False, aval)



class _IndexUpdateHelper:
  """The ``x.at`` property: functionally pure indexed updates.

  ==============================  ================================
  ``x.at[idx].set(y)``            ``x[idx] = y``
  ``x.at[idx].add(y)``            ``x[idx] += y``
  ``x.at[idx].subtract(y)``       ``x[idx] -= y``
  ``x.at[idx].multiply(y)``       ``x[idx] *= y``
  ``x.at[idx].divide(y)``         ``x[idx] /= y``
  ``x.at[idx].power(y)``          ``x[idx] **= y``
  ``x.at[idx].min(y)``            ``x[idx] = minimum(x[idx], y)``
  ``x.at[idx].max(y)``            ``x[idx] = maximum(x[idx], y)``
  ``x.at[idx].apply(ufunc)``      ``ufunc.at(x, idx)``
  ``x.at[idx].get()``             ``x[idx]``
  ==============================  ================================

  None of these modify ``x``; they return a new array. Unlike NumPy's ``x[idx] += y``, repeated
  indices all contribute. ``mode`` selects out-of-bounds behaviour: ``'promise_in_bounds'``
  (default: reads clamp, updates are dropped), ``'clip'``, ``'drop'`` or ``'fill'`` (with
  ``fill_value`` for ``get``). ``indices_are_sorted`` and ``unique_indices`` are promises that
  may speed up some backends; ``wrap_negative_indices=False`` treats negative indices as out of
  bounds.
  """
  __slots__ = ("array",)

  def __init__(self, array):
    self.array = array

  def __getitem__(self, index) -> "_IndexUpdateRef":
    return _IndexUpdateRef(self.array, index)

  def __repr__(self):
    return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
  """``x.at[idx]``: a reference to the positions ``idx`` of ``x``, with update methods."""
  __slots__ = ("array", "index")

  def __init__(self, array, index):
    self.array = array
    self.index = index

  def __repr__(self):
    return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

  def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode=None,
          fill_value=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx]`` with control over out-of-bounds reads (``mode``, ``fill_value``)."""
    return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                          normalize_indices=wrap_negative_indices)

  def _update(self, values, op, indices_are_sorted, unique_indices, mode, wrap_negative_indices):
    return _scatter_update(self.array, self.index, values, op, indices_are_sorted,
                           unique_indices, mode=mode, normalize_indices=wrap_negative_indices)

  def set(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
          mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] = values``; with repeated indices the last value wins."""
    if mode is None and out_sharding is None and wrap_negative_indices:
      out = _set_one_position(self.array, self.index, values)
      if out is not None:
        return out
    return self._update(values, lax_slicing.scatter, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  def add(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
          mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] += values``; repeated indices accumulate."""
    if mode is None and out_sharding is None and wrap_negative_indices:
      out = _add_at_positions(self.array, self.index, values)
      if out is not None:
        return out
    return self._update(values, lax_slicing.scatter_add, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  def subtract(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
               mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] -= values``; repeated indices accumulate."""
    return self._update(values, lax_slicing.scatter_sub, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  def multiply(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
               mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] *= values``; repeated indices accumulate."""
    return self._update(values, lax_slicing.scatter_mul, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  mul = multiply

  def divide(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
             mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] /= values`` (x divided by a scatter-multiplied array of ones)."""
    return ufuncs.divide(self.array, _scatter_update(
        creation.ones_like(self.array), self.index, values, lax_slicing.scatter_mul,
        indices_are_sorted, unique_indices, mode=mode, normalize_indices=wrap_negative_indices))

  def power(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] **= values`` (x to the power of a scatter-multiplied array of ones)."""
    return ufuncs.power(self.array, _scatter_update(
        creation.ones_like(self.array), self.index, values, lax_slicing.scatter_mul,
        indices_are_sorted, unique_indices, mode=mode, normalize_indices=wrap_negative_indices))

  def min(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
          mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] = minimum(x[idx], values)``; repeated indices all take part."""
    return self._update(values, lax_slicing.scatter_min, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  def max(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False,
          mode=None, out_sharding=None, wrap_negative_indices: bool = True):
    """``x[idx] = maximum(x[idx], values)``; repeated indices all take part."""
    return self._update(values, lax_slicing.scatter_max, indices_are_sorted, unique_indices, mode,
                        wrap_negative_indices)

  def apply(self, func: Callable, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode=None, wrap_negative_indices: bool = True):
    """``func.at(x, idx)``: applies the unary ``func`` at ``idx``; a repeated index applies it
    repeatedly."""
    def scatter_apply(x, indices, y, dims, **kwargs):
      return lax_slicing.scatter_apply(x, indices, func, dims, update_shape=core.get_aval(y).shape,
                                   **kwargs)
    zero = np.zeros((), core.get_aval(self.array).dtype)
    return _scatter_update(self.array, self.index, zero, scatter_apply, indices_are_sorted,
                           unique_indices, mode=mode, normalize_indices=wrap_negative_indices)
