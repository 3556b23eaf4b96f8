"""Array manipulation in axle.numpy: stacking, splitting, flipping, rolling, tiling, padding,
diagonals and triangles, index helpers (``ix_``, ``unravel_index``, ``r_``/``c_``...).

Everything is a composition of lax structural operations (slice, concatenate, pad, rev,
broadcast_in_dim, gather/scatter through indexing)."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import conditionals as lax_conditionals
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import structural as lax_structural
from axle._src.lax import structural_extra as lax_structural_extra
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import selection
from axle._src.numpy import statistics
from axle._src.numpy import ufuncs
from axle._src.numpy import util

__all__ = ["hstack", "vstack", "dstack",
           "column_stack", "concat", "permute_dims", "unstack", "split", "array_split", "hsplit",
           "vsplit", "dsplit", "flip", "fliplr", "flipud", "rot90", "roll", "rollaxis", "tile",
           "repeat", "resize", "append", "insert", "delete", "pad", "block", "diagonal", "diag",
           "diagflat", "trace", "tril", "triu", "tri", "fill_diagonal", "trim_zeros",
           "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from",
           "triu_indices", "triu_indices_from", "mask_indices", "unravel_index",
           "ravel_multi_index", "ix_", "apply_over_axes", "vander", "packbits", "unpackbits",
           "diff", "ediff1d", "index_exp", "s_", "r_", "c_"]


# Shared argument helpers (numpy/util.py).
_arr = creation.arraylike_operands
_shape = util.shape_of
_ndim = util.ndim_of
_dtype = util.dtype_of




# ---------------------------------------------------------------------------
# Rank and stacking


def _sequence(name, tup):
  if isinstance(tup, (Array, Tracer, np.ndarray)):
    return [tup[i] for i in range(_shape(tup)[0] if not isinstance(tup, np.ndarray)
                                  else tup.shape[0])]
  return list(tup)


def hstack(tup, dtype=None):
  """Stacks arrays horizontally: along axis 1, or axis 0 for 1-D arrays (``jnp.hstack``)."""
  arrs = [lax_numpy.atleast_1d(a) for a in _sequence("hstack", tup)]
  axis = 0 if arrs and _ndim(arrs[0]) == 1 else 1
  return lax_numpy.concatenate(arrs, axis, dtype=dtype)


def vstack(tup, dtype=None):
  """Stacks arrays vertically (along axis 0, after ``atleast_2d``) (``jnp.vstack``)."""
  return lax_numpy.concatenate([lax_numpy.atleast_2d(a) for a in _sequence("vstack", tup)], 0, dtype=dtype)


def dstack(tup, dtype=None):
  """Stacks arrays depth-wise (along axis 2, after ``atleast_3d``) (``jnp.dstack``)."""
  return lax_numpy.concatenate([lax_numpy.atleast_3d(a) for a in _sequence("dstack", tup)], 2, dtype=dtype)


def column_stack(tup):
  """Stacks 1-D arrays as columns of a 2-D array (``jnp.column_stack``)."""
  arrs = []
  for a in _sequence("column_stack", tup):
    a = _arr("column_stack", a)
    arrs.append(lax_numpy.transpose(lax_numpy.atleast_2d(a)) if _ndim(a) < 2 else a)
  return lax_numpy.concatenate(arrs, 1)


def concat(arrays, /, *, axis: int | None = 0):
  """Joins arrays along ``axis`` (the array API's ``concat``)."""
  util.check_arraylike("concat", *arrays)
  return lax_numpy.concatenate(arrays, axis=axis)


def permute_dims(a, /, axes):
  """``a`` with its axes permuted (the array API's ``permute_dims``)."""
  util.check_arraylike("permute_dims", a)
  return lax_numpy.transpose(a, axes)


def unstack(x, /, *, axis: int = 0):
  """The slices of ``x`` along ``axis`` as a tuple (``jnp.unstack``): one ``unstack``
  equation, as in JAX."""
  util.check_arraylike("unstack", x)
  x = creation.asarray(x)
  axis = util.canonicalize_axis(axis, _ndim(x))
  return lax_structural_extra.unstack(x, axis)


# ---------------------------------------------------------------------------
# Splitting


def _split(name, ary, indices_or_sections, axis, strict):
  ary = _arr(name, ary)
  axis = util.canonicalize_axis(axis, _ndim(ary))
  size = _shape(ary)[axis]
  if isinstance(indices_or_sections, (tuple, list, np.ndarray, Array)) or (
      isinstance(indices_or_sections, Tracer) and np.ndim(indices_or_sections) > 0):
    split_indices = [core.concrete_or_error(operator.index, i, f"in jax.numpy.{name} argument 1")
                     for i in indices_or_sections]
    split_indices = [0] + [i if i >= 0 else builtins.max(i + size, 0) for i in split_indices] + [size]
  else:
    sections = core.concrete_or_error(operator.index, indices_or_sections,
                                      f"in jax.numpy.{name} argument 1")
    if sections <= 0:
      raise ValueError("number sections must be larger than 0.")
    if strict and size % sections != 0:
      raise ValueError(f"array split does not result in an equal division: rest is "
                       f"{size % sections}")
    quotient, remainder = divmod(size, sections)
    sizes = [quotient + 1] * remainder + [quotient] * (sections - remainder)
    split_indices = [0] + list(np.cumsum(sizes))
  bounds = []
  for start, stop in zip(split_indices[:-1], split_indices[1:]):
    start = builtins.min(start, size)
    stop = builtins.min(builtins.max(stop, start), size)
    bounds.append((int(start), int(stop)))
  if all(b[1] == nb[0] for b, nb in zip(bounds, bounds[1:])) and bounds[-1][1] == size:
    # Contiguous pieces: one split equation (its sizes are np.int64, as JAX's np.diff gives them).
    sizes = tuple(np.int64(stop - start) for start, stop in bounds)
    return list(lax_structural.split_p.bind(ary, sizes=sizes, axis=axis))
  return [lax_structural.slice_in_dim(ary, start, stop, axis=axis) for start, stop in bounds]


def split(ary, indices_or_sections, axis: int = 0):
  """Splits ``ary`` into equal sections, or at the given indices, along ``axis``
  (``jnp.split``)."""
  return _split("split", ary, indices_or_sections, axis, strict=True)


def array_split(ary, indices_or_sections, axis: int = 0):
  """Like ``split``, allowing sections of unequal size (``jnp.array_split``)."""
  return _split("array_split", ary, indices_or_sections, axis, strict=False)


def hsplit(ary, indices_or_sections):
  """Splits along axis 1 (axis 0 for 1-D arrays) (``jnp.hsplit``)."""
  ary = _arr("hsplit", ary)
  return _split("hsplit", ary, indices_or_sections, 0 if _ndim(ary) == 1 else 1, strict=True)


def vsplit(ary, indices_or_sections):
  """Splits along axis 0 (``jnp.vsplit``)."""
  ary = _arr("vsplit", ary)
  if _ndim(ary) < 2:
    raise ValueError("vsplit only works on arrays of 2 or more dimensions")
  return _split("vsplit", ary, indices_or_sections, 0, strict=True)


def dsplit(ary, indices_or_sections):
  """Splits along axis 2 (``jnp.dsplit``)."""
  ary = _arr("dsplit", ary)
  if _ndim(ary) < 3:
    raise ValueError("dsplit only works on arrays of 3 or more dimensions")
  return _split("dsplit", ary, indices_or_sections, 2, strict=True)


# ---------------------------------------------------------------------------
# Flipping, rolling, tiling


def flip(m, axis=None):
  """``m`` with the order of elements reversed along ``axis`` (all axes when None)
  (``jnp.flip``)."""
  m = _arr("flip", m)
  return lax_numpy._flip(m, tuple(axis) if isinstance(axis, list) else axis)


def fliplr(m):
  """``m`` reversed along axis 1 (``jnp.fliplr``)."""
  m = _arr("fliplr", m)
  if _ndim(m) < 2:
    raise ValueError("Input must be >= 2-d.")
  return flip(m, 1)


def flipud(m):
  """``m`` reversed along axis 0 (``jnp.flipud``)."""
  m = _arr("flipud", m)
  if _ndim(m) < 1:
    raise ValueError("Input must be >= 1-d.")
  return flip(m, 0)


@util.jit_when_tracing(static_argnames=("k", "axes"))
def rot90(m, k: int = 1, axes=(0, 1)):
  """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (``jnp.rot90``)."""
  m = _arr("rot90", m)
  if np.ndim(axes) != 1 or len(axes) != 2:
    raise ValueError("len(axes) must be 2.")
  if _ndim(m) < 2:
    raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                     f"first argument of shape {_shape(m)}, which has ndim {_ndim(m)}")
  ax1, ax2 = (util.canonicalize_axis(a, _ndim(m)) for a in axes)
  if ax1 == ax2:
    raise ValueError("Axes must be different")
  k = operator.index(k) % 4
  if k == 0:
    return m
  if k == 2:
    return flip(flip(m, ax1), ax2)
  perm = list(range(_ndim(m)))
  perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
  if k == 1:
    return lax_numpy.transpose(flip(m, ax2), perm)
  return flip(lax_numpy.transpose(m, perm), ax2)


def roll(a, shift, axis=None):
  """``a`` with elements shifted cyclically by ``shift`` along ``axis`` (flattened when None)
  (``jnp.roll``); ``shift`` may be traced."""
  a = _arr("roll", a)
  if axis is None:
    return lax_numpy.reshape(roll(lax_numpy.ravel(a), shift, 0), _shape(a))
  axes = axis if isinstance(axis, (tuple, list)) else (axis,)
  if isinstance(shift, (Tracer, Array)) and _ndim(shift) == 1:  # one shift per axis, traced
    if len(axes) == 1:
      axes = axes * _shape(shift)[0]
    if _shape(shift)[0] != len(axes):
      raise ValueError("Mismatched shifts and axis: the sizes must be equal or broadcastable.")
    return _roll_dynamic(a, shift, tuple(axes))
  shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
  if len(shifts) == 1:
    shifts = shifts * len(axes)
  if len(axes) == 1:
    axes = axes * len(shifts)
  if len(shifts) != len(axes):
    raise ValueError("Mismatched shifts and axis: the sizes must be equal or broadcastable.")
  if any(isinstance(s, (Tracer, Array)) and not isinstance(s, int) for s in shifts):
    shift = shifts[0] if len(shifts) == 1 else creation.asarray(list(shifts))
    return _roll_dynamic(a, shift, tuple(axes))
  return _roll_static(a, tuple(operator.index(s) for s in shifts), tuple(axes))


@util.jit_when_tracing(static_argnames=("shifts", "axes"))
def _roll_static(a, shifts, axes):
  for s, ax in zip(shifts, axes):
    ax = util.canonicalize_axis(ax, _ndim(a))
    n = _shape(a)[ax]
    if n == 0:
      continue
    split = (n - operator.index(s) % n) % n  # a zero shift still slices and joins, as JAX
    a = lax_numpy.concatenate([lax_structural.slice_in_dim(a, split, n, axis=ax),
                               lax_structural.slice_in_dim(a, 0, split, axis=ax)], ax)
  return a


@util.jit_when_tracing(static_argnames=("axes",))
def _roll_dynamic(a, shift, axes):
  # As JAX: the shifts as one array (one per axis), each read out, taken modulo the axis length
  # and applied by slicing the array joined to itself.
  shift = lax_structural.broadcast_in_dim(shift, (len(axes),), ()) if _ndim(shift) == 0 else shift
  for i, ax in enumerate(axes):
    ax = util.canonicalize_axis(ax, _ndim(a))
    n = _shape(a)[ax]
    if n == 0:
      continue
    s = lax_structural.squeeze(lax_structural.slice(shift, (i,), (i + 1,), (1,)), (0,))
    offset = ufuncs.remainder(s, lax_elementwise.max(np.array(n, _dtype(s)), np.array(1, _dtype(s))))
    doubled = lax_numpy.concatenate([a, a], ax)
    a = lax_structural.dynamic_slice_in_dim(doubled, lax_elementwise.sub(
        lax_elementwise._convert_element_type(n, _dtype(offset), False), offset), n, axis=ax)
  return a


@util.jit_when_tracing(static_argnames=("axis", "start"))
def rollaxis(a, axis: int, start: int = 0):
  """``a`` with ``axis`` moved to position ``start`` (``jnp.rollaxis``)."""
  a = _arr("rollaxis", a)
  n = _ndim(a)
  axis = util.canonicalize_axis(axis, n)
  if not -n <= start <= n:
    raise ValueError(f"start={start} must satisfy {-n}<=start<={n}")
  if start < 0:
    start += n
  if start > axis:
    start -= 1
  return lax_numpy.moveaxis(a, axis, start)


def tile(A, reps):
  """``A`` repeated ``reps`` times along each axis (``jnp.tile``): a ``tile`` equation, after
  leading unit axes are added to ``A`` or ``reps`` so that their lengths agree, as in JAX."""
  util.check_arraylike("tile", A)
  A = creation.asarray(A)
  try:
    iter(reps)
  except TypeError:
    reps = (reps,)
  reps = tuple(reps)
  if any(isinstance(r, Tracer) for r in reps):
    reps = tuple(core.concrete_or_error(operator.index, r, "The error arose in jnp.tile().")
                 for r in reps)
  reps = core.canonicalize_shape(reps)
  shape = _shape(A)
  if len(reps) > len(shape):
    new_shape = (1,) * (len(reps) - len(shape)) + shape
    A = lax_structural.broadcast_in_dim(A, new_shape, tuple(range(len(new_shape) - len(shape),
                                                                  len(new_shape))))
  reps = (1,) * (len(shape) - len(reps)) + reps
  return lax_structural_extra.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
  """Each element of ``a`` repeated ``repeats`` times along ``axis`` (``jnp.repeat``); traced
  ``repeats`` need a static ``total_repeat_length``."""
  a = _arr("repeat", a)
  util.check_arraylike("repeat", repeats)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, _ndim(a))
  n = _shape(a)[axis]
  if np.ndim(repeats) == 0 and not isinstance(repeats, Tracer):
    r = operator.index(np.asarray(repeats).item() if isinstance(repeats, Array) else repeats)
    if total_repeat_length is not None and total_repeat_length != r * n:
      repeats = np.full((n,), r)
    else:
      shape = _shape(a)
      expanded = lax_structural.broadcast_in_dim(
          a, shape[:axis + 1] + (r,) + shape[axis + 1:],
          tuple(range(axis + 1)) + tuple(range(axis + 2, len(shape) + 1)))
      return lax_numpy.reshape(expanded, shape[:axis] + (n * r,) + shape[axis + 1:])
  if total_repeat_length is None:
    value = core.concrete_or_error(np.asarray, repeats, "When jit-compiling jnp.repeat, the total "
                                   "number of repeats must be static. To fix this, either specify "
                                   "a static value for `repeats`, or pass a static value to "
                                   "`total_repeat_length`.")
    value = np.broadcast_to(value, (n,))
    index = np.repeat(np.arange(n), value)
    return selection.take(a, Array(index.astype(dtypes.default_int_dtype())), axis=axis)
  repeats = lax_numpy.ravel(creation.asarray(repeats))
  repeats = creation.broadcast_to(repeats, (n,))
  if total_repeat_length == 0 or n == 0:
    shape = list(_shape(a))
    shape[axis] = total_repeat_length
    return lax_structural.full(tuple(shape), 0, _dtype(a))
  # JAX's program: each element's first output position (an exclusive cumsum of the repeats)
  # marks where a new element starts; the running count of marks, less one, is the element
  # each output position takes.
  exclusive = roll(repeats, 1).at[0].set(0)
  starts = reductions.cumsum(exclusive)
  marks = creation.zeros((total_repeat_length,), dtypes.default_int_dtype()).at[starts].add(1)
  return selection.take(a, ufuncs.subtract(reductions.cumsum(marks), 1), axis=axis)


@util.jit_when_tracing(static_argnames=("new_shape",))
def resize(a, new_shape):
  """``a`` reshaped to ``new_shape``, repeating its elements as needed (``jnp.resize``)."""
  a = _arr("resize", a)
  new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("all elements of `new_shape` must be non-negative")
  flat = lax_numpy.ravel(a)
  size = math.prod(new_shape)
  n = _shape(flat)[0]
  if size == 0 or n == 0:
    return creation.zeros(new_shape, _dtype(a))
  flat = tile(flat, -(-size // n))
  return lax_numpy.reshape(flat[:size], new_shape)


@util.jit_when_tracing(static_argnames=("axis",))
def append(arr, values, axis=None):
  """``arr`` with ``values`` appended along ``axis`` (flattened when None) (``jnp.append``)."""
  arr, values = _arr("append", arr, values)
  if axis is None:
    return lax_numpy.concatenate([lax_numpy.ravel(arr), lax_numpy.ravel(values)], 0)
  return lax_numpy.concatenate([arr, values], axis=axis)


def _index_positions(name, obj, size):
  if isinstance(obj, slice):
    return np.arange(size)[obj]
  value = core.concrete_or_error(np.asarray, obj, f"jnp.{name}(): the indices must be static "
                                 "(concrete).")
  if value.dtype.kind not in "iub":
    raise ValueError(f"jnp.{name}(): index should be integer or slice, got dtype {value.dtype}")
  return value


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
  """``arr`` without the entries ``obj`` along ``axis`` (``jnp.delete``)."""
  arr = _arr("delete", arr)
  if axis is None:
    arr = lax_numpy.ravel(arr)
    axis = 0
  axis = util.canonicalize_axis(axis, _ndim(arr))
  n = _shape(arr)[axis]
  if assume_unique_indices and not isinstance(obj, slice):
    obj = creation.asarray(obj) if not isinstance(obj, (Array, Tracer)) else obj
    obj = lax_numpy.ravel(obj)
    k = core.get_aval(obj).size
    # Sorted positions, each minus the number of positions before it: output slot i reads
    # input i plus the number of deleted positions at or before it.
    obj = lax_numpy.clip(lax_numpy.where(ufuncs.less(obj, 0), ufuncs.add(obj, n), obj), 0, n)
    obj = ufuncs.subtract(selection.sort(obj), creation.arange(k, dtype=_dtype(obj)))
    keep = creation.arange(n - k)
    keep = ufuncs.add(keep, reductions.sum(ufuncs.greater_equal(keep[None, :], obj[:, None]),
                                          axis=0, dtype=_dtype(keep)))
    return arr[(slice(None),) * axis + (keep,)]  # indexing (a gather), as in JAX's program
  if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)):
    if not -n <= obj < n:  # a ValueError, as JAX raises for a single out-of-bounds index
      raise ValueError(f"jnp.delete: index {obj} is out of bounds for axis {axis} with size {n}")
    i = int(obj) % n
    shape = _shape(arr)
    start, limit = [0] * len(shape), list(shape)
    limit[axis] = i
    head = lax_structural.slice(arr, tuple(start), tuple(limit))
    start[axis], limit[axis] = i + 1, n
    tail = lax_structural.slice(arr, tuple(start), tuple(limit))
    return lax_numpy.concatenate([head, tail], axis)  # JAX slices around a single static index
  index = _index_positions("delete", obj, n)
  if index.dtype == np.bool_:
    if index.shape != (n,):
      raise ValueError("np.delete(arr, obj): for boolean indices, obj must be one-dimensional "
                       "with length matching specified axis.")
    keep = np.nonzero(~index)[0]
  else:
    index = np.ravel(index)
    if np.any((index < -n) | (index >= n)):
      raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    mask = np.ones(n, bool)
    mask[index % n if n else index] = False
    keep = np.nonzero(mask)[0]
  return selection.take(arr, Array(keep.astype(dtypes.default_int_dtype())), axis=axis)


def insert(arr, obj, values, axis=None):
  """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis``
  (``jnp.insert``).

  JAX's program: the insertion positions (wrapped, clipped, shifted by the values inserted
  before them) are scattered into a mask of the result's entries; the kept entries' positions
  come from ``nonzero`` of that mask, and two scatters fill the result."""
  util.check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
  a = creation.asarray(arr)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, _ndim(a))
  n = _shape(a)[axis]
  if isinstance(obj, slice):
    start, stop, step = obj.indices(n)
    count = len(range(start, stop, step))
    indices = ufuncs.add(start, ufuncs.multiply(step, creation.arange(count)))
  else:
    indices = creation.asarray(obj)
  values = creation.array(values, ndmin=_ndim(a), dtype=_dtype(a), copy=False)
  if _ndim(indices) > 1:
    raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; "
                     f"got {obj}")
  if not (dtypes.issubdtype(_dtype(indices), np.integer) or isinstance(obj, slice)):
    if _shape(indices) == (0,) and not isinstance(obj, (Array, Tracer)):
      indices = indices.astype(int)
    else:
      raise ValueError("jnp.insert(): index array must be integer typed")
  if _ndim(indices) == 0:
    indices = lax_numpy.squeeze(lax_numpy.ravel(indices), 0)
    values = lax_numpy.moveaxis(values, 0, axis)
    count = _shape(values)[axis]
    indices = creation.broadcast_to(indices, (count,))
  else:
    count = util.broadcast_shapes(_shape(indices), (_shape(values)[axis],))[0]
    if _shape(indices)[0] != count:
      indices = creation.broadcast_to(indices, (count,))
  out_shape = list(_shape(a))
  out_shape[axis] += count
  out = creation.zeros(tuple(out_shape), _dtype(a))
  indices = lax_numpy.where(ufuncs.less(indices, 0), ufuncs.add(indices, n), indices)
  indices = lax_numpy.clip(indices, 0, n)
  value_positions = indices.at[selection.argsort(indices)].add(
      creation.arange(count, dtype=dtypes.default_int_dtype()))
  kept = creation.ones(n + count, dtype=np.bool_).at[value_positions].set(False)
  kept_positions = lax_numpy.nonzero(kept, size=n)[0]
  lead = (slice(None),) * axis
  out = out.at[lead + (value_positions,)].set(values)
  return out.at[lead + (kept_positions,)].set(a)


# ---------------------------------------------------------------------------
# Padding


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty")


def _simple_pad_widths(pad_width, ndim):
  """``_pad_widths`` for the common spellings (non-negative Python ints: ``n``, ``(n,)``,
  ``(before, after)``, one pair per axis), or None for anything else."""
  kind = type(pad_width)
  if kind is int:
    return [(pad_width, pad_width)] * ndim if pad_width >= 0 else None
  if kind is not tuple and kind is not list:
    return None
  if len(pad_width) == 1 and type(pad_width[0]) is int and pad_width[0] >= 0:
    return [(pad_width[0], pad_width[0])] * ndim
  if len(pad_width) == 2 and type(pad_width[0]) is int and type(pad_width[1]) is int:
    return [tuple(pad_width)] * ndim if pad_width[0] >= 0 and pad_width[1] >= 0 else None
  if len(pad_width) != ndim:
    return None
  widths = []
  for pair in pad_width:
    if (type(pair) is not tuple and type(pair) is not list) or len(pair) != 2:
      return None
    before, after = pair
    if type(before) is not int or type(after) is not int or before < 0 or after < 0:
      return None
    widths.append((before, after))
  return widths


def _pad_widths(pad_width, ndim):
  simple = _simple_pad_widths(pad_width, ndim)
  if simple is not None:
    return simple
  if isinstance(pad_width, (Tracer,)):
    core.concrete_or_error(None, pad_width, "The error arose in jnp.pad's pad_width argument.")
  value = np.asarray(pad_width.tolist() if isinstance(pad_width, Array) else pad_width)
  if value.dtype.kind not in "iu" and value.size:
    if value.dtype.kind == "O" or value.dtype.kind == "f":
      raise TypeError("`pad_width` must be of integral type.")
  value = value.astype(np.int64) if value.size else np.zeros((ndim, 2), np.int64)
  try:
    widths = np.broadcast_to(value, (ndim, 2))
  except ValueError:
    raise ValueError(f"jnp.pad: pad_width with shape={value.shape} is invalid for an array of "
                     f"ndim={ndim}") from None
  if np.any(widths < 0):
    raise ValueError("index can't contain negative values")
  return [tuple(int(x) for x in w) for w in widths]


def pad(array, pad_width, mode="constant", **kwargs):
  """``array`` padded by ``pad_width`` (per axis (before, after)) in NumPy's ``mode``
  (``jnp.pad``): constant, edge, reflect, symmetric, wrap, linear_ramp, maximum, minimum, mean,
  median, empty, or a callable."""
  array = _arr("pad", array)
  ndim = _ndim(array)
  widths = _pad_widths(pad_width, ndim)
  if callable(mode):
    raise NotImplementedError("jnp.pad with a callable mode needs vmap")
  if mode not in _PAD_MODES:
    raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
  allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
             "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
             "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"},
             "median": {"stat_length"}}.get(mode, set())
  unsupported = set(kwargs) - allowed
  if unsupported:
    raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
  # As JAX's _pad: the constant is an operand, everything else is static.
  return _pad(array, tuple(widths), mode, kwargs.get("constant_values", 0),
              _hashable(kwargs.get("stat_length")), _hashable(kwargs.get("end_values", 0)),
              kwargs.get("reflect_type", "even"))


def _hashable(value):
  if isinstance(value, (Array, np.ndarray)) and not isinstance(value, Tracer):
    value = np.asarray(value).tolist()
  if isinstance(value, (list, tuple)):
    return tuple(_hashable(v) for v in value)
  return value


@util.jit_when_tracing(static_argnames=("widths", "mode", "stat_length", "end_values",
                                        "reflect_type"))
def _pad(array, widths, mode, constant_values, stat_length, end_values, reflect_type):
  if mode in ("constant", "empty"):
    values = constant_values if mode == "constant" else 0
    return _pad_constant(array, widths, values)
  for axis, (before, after) in enumerate(widths):
    size = _shape(array)[axis]
    if size == 0 and (before or after):
      raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or "
                       "'empty'")
    # JAX's equations: edge, linear_ramp and the statistics modes treat every axis and side
    # (a zero width gives an empty piece); reflect and symmetric skip an axis with nothing to
    # add; wrap adds only the pieces it needs.
    if mode == "edge":
      array = _pad_edge(array, axis, before, after)
    elif mode == "wrap":
      array = _pad_wrap(array, axis, before, after)
    elif mode in ("reflect", "symmetric"):
      if before or after:
        array = _pad_reflect(array, axis, before, after, mode, reflect_type)
    elif mode == "linear_ramp":
      array = _pad_linear_ramp(array, axis, before, after, end_values)
    else:
      array = _pad_stats(array, axis, before, after, mode, stat_length)
  return array


def _pad_constant(array, widths, values):
  values = creation.asarray(values) if not isinstance(values, (Array, Tracer)) else values
  values = lax_elementwise._convert_element_type(values, _dtype(array), False)
  if np.ndim(values) == 0:
    # The widths are np.int64 in JAX's padding_config (they come from a NumPy array there).
    return lax_structural.pad(array, values, [(np.int64(b), np.int64(a), 0) for b, a in widths])
  # Per-axis (before, after) constants: NumPy's broadcasting of constant_values to (ndim, 2).
  values = creation.broadcast_to(values, (len(widths), 2))
  for axis, (before, after) in enumerate(widths):
    for side, width in ((0, before), (1, after)):
      if width == 0:
        continue
      config = [(0, 0, 0)] * len(widths)
      config[axis] = (np.int64(width), 0, 0) if side == 0 else (0, np.int64(width), 0)
      value = lax_numpy.reshape(lax_structural.slice(values, (axis, side), (axis + 1, side + 1)), ())
      array = lax_structural.pad(array, value, config)
  return array


def _slice_axis(a, start, stop, axis):
  return lax_structural.slice_in_dim(a, start, stop, axis=axis)


def _pad_edge(a, axis, before, after):
  n = _shape(a)[axis]
  head = repeat(_slice_axis(a, 0, 1, axis), before, axis=axis)
  tail = repeat(_slice_axis(a, n - 1, n, axis), after, axis=axis)
  return lax_numpy.concatenate([head, a, tail], axis)


def _pad_wrap(a, axis, before, after):
  n = _shape(a)[axis]
  parts = []
  if before % n:
    parts.append(_slice_axis(a, n - before % n, n, axis))
  parts += [a] * (before // n + 1 + after // n)
  if after % n:
    parts.append(_slice_axis(a, 0, after % n, axis))
  return lax_numpy.concatenate(parts, axis)


def _pad_reflect(a, axis, before, after, mode, reflect_type):
  # Each side grows in steps of at most the original length (less one for 'reflect'),
  # mirroring the array built so far; 'odd' reflects through the current outer edge.
  symmetric = mode == "symmetric" or _shape(a)[axis] == 1
  step = _shape(a)[axis] if symmetric else _shape(a)[axis] - 1
  odd = reflect_type == "odd"
  edge = _slice_axis(a, 0, 1, axis)
  while before:
    take = builtins.min(before, step)
    start = 0 if symmetric else 1
    chunk = flip(_slice_axis(a, start, start + take, axis), axis)
    if odd:
      chunk = ufuncs.subtract(ufuncs.multiply(2, edge), chunk)
      edge = _slice_axis(chunk, 0, 1, axis)
    a = lax_numpy.concatenate([chunk, a], axis)
    before -= take
  m = _shape(a)[axis]
  edge = _slice_axis(a, m - 1, m, axis)
  while after:
    take = builtins.min(after, step)
    m = _shape(a)[axis]
    stop = m if symmetric else m - 1
    chunk = flip(_slice_axis(a, stop - take, stop, axis), axis)
    if odd:
      chunk = ufuncs.subtract(ufuncs.multiply(2, edge), chunk)
      edge = _slice_axis(chunk, take - 1, take, axis)
    a = lax_numpy.concatenate([a, chunk], axis)
    after -= take
  return a


def _pad_linear_ramp(a, axis, before, after, end_values):
  ends = np.broadcast_to(np.asarray(end_values), (_ndim(a), 2))[axis]
  n = _shape(a)[axis]
  dtype = _dtype(a)
  first = _slice_axis(a, 0, 1, axis)
  last = _slice_axis(a, n - 1, n, axis)
  head = lax_numpy.linspace(ends[0], lax_numpy.squeeze(first, axis), before,
                            endpoint=False, dtype=dtype, axis=axis)
  tail = lax_numpy.linspace(ends[1], lax_numpy.squeeze(last, axis), after,
                            endpoint=False, dtype=dtype, axis=axis)
  return lax_numpy.concatenate([head, a, flip(tail, axis)], axis)


def _pad_stats(a, axis, before, after, mode, stat_length):
  n = _shape(a)[axis]
  reduce = {"maximum": reductions.max, "minimum": reductions.min, "mean": reductions.mean,
            "median": statistics.median}[mode]
  if stat_length is None:
    # One statistic of the whole axis serves both sides.
    stat_before = stat_after = reduce(a, axis=axis, keepdims=True)
  else:
    lengths = [builtins.max(1, builtins.min(int(x), n)) for x in
               np.broadcast_to(np.asarray(stat_length), (_ndim(a), 2))[axis]]
    part_before = _slice_axis(a, 0, lengths[0], axis)
    part_after = _slice_axis(a, n - lengths[1], n, axis)
    stat_before = reduce(part_before, axis=axis, keepdims=True)
    stat_after = reduce(part_after, axis=axis, keepdims=True)
  if mode in ("mean", "median") and dtypes.issubdtype(_dtype(a), np.integer):
    stat_before, stat_after = lax_numpy.round(stat_before), lax_numpy.round(stat_after)
  stat_before = lax_elementwise._convert_element_type(stat_before, _dtype(a), False)
  stat_after = lax_elementwise._convert_element_type(stat_after, _dtype(a), False)
  return lax_numpy.concatenate([repeat(stat_before, before, axis=axis), a,
                                repeat(stat_after, after, axis=axis)], axis)


# ---------------------------------------------------------------------------
# block


def block(arrays):
  """Assembles an array from nested lists of blocks (``jnp.block``)."""
  def depth(x):
    if isinstance(x, list):
      if not x:
        raise ValueError("Lists cannot be empty")
      depths = {depth(i) for i in x}
      if len(depths) != 1:
        raise ValueError("List depths are mismatched.")
      return depths.pop() + 1
    if isinstance(x, tuple):
      raise ValueError("jax.numpy.block does not allow tuples, got {}".format(x))
    return 0

  return _block(arrays, depth(arrays))


def _block(arrays, list_depth):
  def assemble(x, level):
    if level == list_depth:
      return _arr("block", x)
    parts = [assemble(i, level + 1) for i in x]
    result_ndim = builtins.max(list_depth - level, *(np.ndim(p) for p in parts))
    parts = [lax_numpy.expand_dims(p, tuple(range(result_ndim - _ndim(p)))) if _ndim(p) < result_ndim
             else p for p in parts]
    return lax_numpy.concatenate(parts, axis=-(list_depth - level))

  if list_depth == 0:
    return _arr("block", arrays)
  return assemble(arrays, 0)


_block.__name__ = _block.__qualname__ = "block"  # JAX's block is one jit equation
_block = util.jit_when_tracing(static_argnames=("list_depth",))(_block)


# ---------------------------------------------------------------------------
# Diagonals and triangles


@util.jit_when_tracing(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
  """The ``offset``-th diagonal of the 2-D slices in axes ``axis1``, ``axis2``, as the last axis
  (``jnp.diagonal``)."""
  a = _arr("diagonal", a)
  if _ndim(a) < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  offset = core.concrete_or_error(operator.index, offset, "'offset' argument of jnp.diagonal()")
  axis1 = util.canonicalize_axis(axis1, _ndim(a))
  axis2 = util.canonicalize_axis(axis2, _ndim(a))
  if axis1 == axis2:
    raise ValueError("axis1 and axis2 must be different")
  shape = _shape(a)
  if (len(shape) == 2 and shape[0] == shape[1] and offset == 0 and _dtype(a) != np.bool_):
    # As JAX: a square matrix's main diagonal is platform dependent (a masked sum over the
    # rows on TPU kernels, "mosaic"; the gather elsewhere, which is what runs here).
    eye = creation.eye(shape[0], dtype=_dtype(a))
    return lax_conditionals.platform_dependent(
        eye, a, mosaic=lambda e, x: lax_reductions.reduce_sum(lax_elementwise.mul(e, x), (0,)),
        default=lambda e, x: _gathered_diagonal(x, offset, axis1, axis2))
  return _gathered_diagonal(a, offset, axis1, axis2)


def _gathered_diagonal(a, offset: int, axis1: int, axis2: int):
  a = lax_numpy.moveaxis(a, (axis1, axis2), (-2, -1))
  n, m = _shape(a)[-2:]
  size = builtins.max(0, builtins.min(n + builtins.min(offset, 0), m - builtins.max(offset, 0)))
  if size == 0:
    return lax_structural.full(_shape(a)[:-2] + (0,), 0, _dtype(a))
  return _gather_diagonal(a, size, offset)


def _gather_diagonal(a, size: int, offset: int):
  """The ``offset``-th diagonal (``size`` long) of the last two axes of ``a``, gathered."""
  # Two iotas, the offset added to the second one, as JAX's program does.
  i = lax_structural.iota(np.dtype(np.int32), size)
  j = lax_structural.iota(np.dtype(np.int32), size)
  if offset:
    j = lax_elementwise.add(
        lax_elementwise._convert_element_type(builtins.abs(offset), np.int32, False), j)
  rows, cols = (i, j) if offset >= 0 else (j, i)
  return a[..., rows, cols]


def diag(v, k: int = 0):
  """The ``k``-th diagonal of a 2-D ``v``, or a 2-D array with the 1-D ``v`` on its ``k``-th
  diagonal (``jnp.diag``)."""
  v = _arr("diag", v)
  k = core.concrete_or_error(operator.index, k, "'k' argument of jnp.diag")
  return _diag(v, k)


@util.jit_when_tracing(static_argnames=("k",))
def _diag(v, k):
  if _ndim(v) == 1:
    n = _shape(v)[0] + builtins.abs(k)
    zero = lax_elementwise._convert_element_type(0, _dtype(v), False)
    # Row i of the result holds v_b[i]: pad before for a diagonal below the main one, after above.
    v_b = lax_structural.pad(v, zero, [(builtins.max(0, -k), builtins.max(0, k), 0)])
    return lax_numpy.where(creation.eye(n, k=k, dtype=bool), v_b[:, None], zero)
  if _ndim(v) == 2:
    return diagonal(v, offset=k)
  raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k: int = 0):
  """A 2-D array with the flattened ``v`` on its ``k``-th diagonal (``jnp.diagflat``)."""
  util.check_arraylike("diagflat", v)
  k = core.concrete_or_error(operator.index, k, "'k' argument of jnp.diagflat")
  v = lax_numpy.ravel(creation.asarray(v))
  size = _shape(v)[0]
  n = size + builtins.abs(k)
  # As JAX does: the values scattered at their flat positions in an n*n vector, reshaped.
  out = creation.zeros((n * n,), _dtype(v))
  i = creation.arange(size)
  if k >= 0:
    flat = ufuncs.add(ufuncs.add(i, k), ufuncs.multiply(i, n))
  else:
    flat = ufuncs.add(i, ufuncs.multiply(ufuncs.subtract(i, k), n))
  return lax_numpy.reshape(out.at[flat].set(v), (n, n))


@util.jit_when_tracing(static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
  """Sum along a diagonal (``jnp.trace``). As in JAX, ``offset`` may be traced: a given offset
  is an operand of the staged ``jit[name=trace]``."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
  a = _arr("trace", a)
  a_shape = _shape(a)
  a = lax_numpy.moveaxis(a, (axis1, axis2), (-2, -1))
  # The diagonal is masked (not gathered) and the last two axes summed, as JAX does; the
  # offset is an operand of the jit (traced), as in JAX.
  shape = (a_shape[axis1], a_shape[axis2])
  rows = lax_structural.broadcasted_iota(np.dtype(np.int32), shape, 0)
  cols = lax_structural.broadcasted_iota(np.dtype(np.int32), shape, 1)
  mask = lax_elementwise.eq(
      lax_elementwise.add(rows, lax_elementwise._convert_element_type(offset, np.int32, False)),
      cols)
  a = ufuncs._where(mask, a, creation.zeros_like(a))
  return reductions.sum(a, axis=(-2, -1), dtype=dtype)


def _tri_mask(n, m, k):
  rows = lax_structural.broadcasted_iota(np.dtype(np.int32), (n, m), 0)
  shifted = lax_elementwise.add(rows, lax_elementwise._convert_element_type(k, np.int32, False))
  cols = lax_structural.broadcasted_iota(np.dtype(np.int32), (n, m), 1)
  return lax_elementwise.ge(shifted, cols)


def tri(N, M=None, k: int = 0, dtype=None):
  """An (N, M) array with ones at and below the ``k``-th diagonal (``jnp.tri``)."""
  N = core.concrete_or_error(operator.index, N, "The error arose in jnp.tri for argument N.")
  M = N if M is None else core.concrete_or_error(operator.index, M,
                                                 "The error arose in jnp.tri for argument M.")
  k = core.concrete_or_error(operator.index, k, "The error arose in jnp.tri for argument k.")
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "tri")
  dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
  return lax_elementwise._convert_element_type(_tri_mask(N, M, k), dtype, False)


@util.jit_when_tracing(static_argnames=("k",))
def tril(m, k: int = 0):
  """``m`` with the elements above the ``k``-th diagonal zeroed (``jnp.tril``)."""
  m = _arr("tril", m)
  if _ndim(m) < 2:
    raise ValueError("Argument to jax.numpy.tril must be at least 2D")
  n, p = _shape(m)[-2:]
  mask = creation.broadcast_to(_tri_mask(n, p, k), _shape(m))
  return lax_elementwise.select(mask, m, lax_structural.full_like(m, 0))


@util.jit_when_tracing(static_argnames=("k",))
def triu(m, k: int = 0):
  """``m`` with the elements below the ``k``-th diagonal zeroed (``jnp.triu``)."""
  m = _arr("triu", m)
  if _ndim(m) < 2:
    raise ValueError("Argument to jax.numpy.triu must be at least 2D")
  n, p = _shape(m)[-2:]
  mask = creation.broadcast_to(_tri_mask(n, p, k - 1), _shape(m))
  return lax_elementwise.select(mask, lax_structural.full_like(m, 0), m)


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
  """A copy of ``a`` with its main diagonal set to ``val`` (``jnp.fill_diagonal``, needs
  ``inplace=False``)."""
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  util.check_arraylike("fill_diagonal", a, val)
  a = creation.asarray(a)
  if _ndim(a) < 2:
    raise ValueError("array must be at least 2-d")
  if _ndim(a) > 2 and not all(d == _shape(a)[0] for d in _shape(a)[1:]):
    raise ValueError("All dimensions of input must be of equal length")
  n = builtins.min(_shape(a))
  idx = creation.arange(n)
  if np.ndim(val) > 0:
    # The values are used in order and cycled (NumPy's rule), with no jit around it as in JAX.
    val = lax_numpy.ravel(val)
    size = _shape(val)[0]
    if 0 < size < n:
      val = tile(val, -(-n // size))
    val = val[:n]
  return a.at[(idx,) * _ndim(a)].set(val)


def trim_zeros(filt, trim: str = "fb"):
  """``filt`` without its leading ('f') and/or trailing ('b') zeros (``jnp.trim_zeros``)."""
  filt = _arr("trim_zeros", filt)
  value = core.concrete_or_error(np.asarray, filt, "Error arose in the `filt` argument of "
                                 "trim_zeros()")
  if value.ndim != 1:
    raise TypeError(f"'filt' must be 1-D array, but received {value.ndim}-D array.")
  nonzero = np.nonzero(value)[0]
  if nonzero.size == 0:
    return filt[:0]
  start = nonzero[0] if "f" in trim.lower() else 0
  stop = nonzero[-1] + 1 if "b" in trim.lower() else value.size
  return filt[int(start):int(stop)]


# ---------------------------------------------------------------------------
# Index helpers


def diag_indices(n, ndim: int = 2):
  """Indices of the main diagonal of an (n, ..., n) array (``jnp.diag_indices``)."""
  n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diag_indices()")
  ndim = core.concrete_or_error(operator.index, ndim, "'ndim' argument of jnp.diag_indices()")
  if n < 0:
    raise ValueError("n argument to diag_indices must be nonnegative, got {}".format(n))
  if ndim < 0:
    raise ValueError("ndim argument to diag_indices must be nonnegative, got {}".format(ndim))
  return (lax_structural.iota(dtypes.default_int_dtype(), n),) * ndim


def diag_indices_from(arr):
  """Indices of the main diagonal of ``arr`` (``jnp.diag_indices_from``)."""
  arr = _arr("diag_indices_from", arr)
  shape = _shape(arr)
  if len(shape) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(shape[0], ndim=len(shape))


def _tri_indices(n, k, m, lower):
  n = core.concrete_or_error(operator.index, n, "n argument of jnp.tril_indices")
  k = core.concrete_or_error(operator.index, k, "k argument of jnp.tril_indices")
  m = n if m is None else core.concrete_or_error(operator.index, m, "m argument of "
                                                 "jnp.tril_indices")
  mask = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
  # JAX's program: the nonzero entries, a static count of them, of tril/triu of ones
  ones = creation.ones((n, m))
  return lax_numpy.nonzero(tril(ones, k) if lower else triu(ones, k), size=int(mask.sum()))


def tril_indices(n, k: int = 0, m=None):
  """Indices of the lower triangle of an (n, m) array (``jnp.tril_indices``)."""
  return _tri_indices(n, k, m, True)


def triu_indices(n, k: int = 0, m=None):
  """Indices of the upper triangle of an (n, m) array (``jnp.triu_indices``)."""
  return _tri_indices(n, k, m, False)


def tril_indices_from(arr, k: int = 0):
  """Indices of the lower triangle of the 2-D ``arr`` (``jnp.tril_indices_from``)."""
  shape = np.shape(arr)
  if len(shape) != 2:
    raise ValueError("Only 2-D inputs are accepted")
  return tril_indices(shape[0], k=k, m=shape[1])


def triu_indices_from(arr, k: int = 0):
  """Indices of the upper triangle of the 2-D ``arr`` (``jnp.triu_indices_from``)."""
  shape = np.shape(arr)
  if len(shape) != 2:
    raise ValueError("Only 2-D inputs are accepted")
  return triu_indices(shape[0], k=k, m=shape[1])


def mask_indices(n, mask_func, k: int = 0, *, size=None):
  """Indices where ``mask_func(ones((n, n)), k)`` is nonzero (``jnp.mask_indices``)."""
  a = mask_func(creation.ones((n, n), np.bool_), k)
  return lax_numpy.nonzero(a, size=size)


def unravel_index(indices, shape):
  """Converts flat indices into a tuple of coordinate arrays for ``shape``
  (``jnp.unravel_index``); out-of-bounds indices are clipped."""
  indices = _arr("unravel_index", indices)
  if not dtypes.issubdtype(_dtype(indices), np.integer):
    raise TypeError(f"Only integer indices are allowed; got {_dtype(indices)}")
  shape = core.canonicalize_shape(shape)
  if any(s < 0 for s in shape):
    raise ValueError("unravel_index: shape should be non-negative.")
  return selection.unravel_coordinates(indices, shape)


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C"):
  """Converts a tuple of coordinate arrays into flat indices for ``dims``
  (``jnp.ravel_multi_index``)."""
  if order not in ("C", "F"):
    raise ValueError("only 'C' or 'F' order is permitted")
  dims = core.canonicalize_shape(dims)
  if len(multi_index) != len(dims):
    raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
  util.check_arraylike("ravel_multi_index", *multi_index)
  indices = [_arr("ravel_multi_index", i) for i in multi_index]
  for i in indices:
    if not dtypes.issubdtype(_dtype(i), np.integer):
      raise TypeError("only int indices permitted")
  if mode == "raise":
    for i, d in zip(indices, dims):
      value = core.concrete_or_error(np.asarray, i, "The error occurred because "
                                     "ravel_multi_index was jit-compiled with mode='raise'. Use "
                                     "mode='wrap' or mode='clip' instead.")
      if np.any((value < 0) | (value >= d)):
        raise ValueError("invalid entry in coordinates array")
  elif mode == "clip":
    indices = [lax_numpy.clip(i, 0, d - 1) for i, d in zip(indices, dims)]
  elif mode == "wrap":
    indices = [ufuncs.remainder(i, d) for i, d in zip(indices, dims)]
  else:
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
  if order == "C":
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
  else:
    strides = [math.prod(dims[:i]) for i in range(len(dims))]
  # Summed from a Python 0 in axis order, each term written out even for a unit stride: JAX's
  # equations.
  result = 0
  for index, stride in zip(indices, strides):
    result = ufuncs.add(result, ufuncs.multiply(index, stride))
  return result


def ix_(*args):
  """Open-mesh index arrays from 1-D sequences (``jnp.ix_``)."""
  util.check_arraylike("ix_", *args)
  n = len(args)
  out = []
  for i, a in enumerate(args):
    a = _arr("ix_", a)
    if _ndim(a) != 1:
      raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                       f"{_shape(a)}")
    if _dtype(a) == np.bool_:
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
    shape = [1] * n
    shape[i] = _shape(a)[0]
    out.append(lax_structural.broadcast_in_dim(a, tuple(shape), (i,)))
  return tuple(out)


def apply_over_axes(func, a, axes):
  """``func(a, axis)`` applied repeatedly over ``axes``, keeping dimensions
  (``jnp.apply_over_axes``)."""
  a = _arr("apply_over_axes", a)
  for axis in axes:
    b = func(a, axis)
    if _ndim(b) == _ndim(a):
      a = b
    elif _ndim(b) == _ndim(a) - 1:
      a = lax_numpy.expand_dims(b, axis)
    else:
      raise ValueError("function is not returning an array of the correct shape")
  return a


@util.jit_when_tracing(static_argnames=("N", "increasing"))
def vander(x, N=None, increasing: bool = False):
  """The Vandermonde matrix of the 1-D ``x`` (``jnp.vander``)."""
  x = _arr("vander", x)
  if _ndim(x) != 1:
    raise ValueError("x must be a one-dimensional array")
  N = _shape(x)[0] if N is None else core.concrete_or_error(operator.index, N, "'N' argument of "
                                                            "jnp.vander()")
  if N < 0:
    raise ValueError("N must be nonnegative")
  powers = lax_structural.iota(dtypes.dtype(x, canonicalize=True) if _dtype(x) != np.bool_
                               else dtypes.default_int_dtype(), N)
  if not increasing:
    powers = ufuncs.subtract(N - 1, powers)
  return ufuncs.power(x[:, None], powers[None, :])


@util.jit_when_tracing(static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder: str = "big"):
  """Packs the elements of a boolean/integer array into the bits of uint8s (``jnp.packbits``)."""
  a = _arr("packbits", a)
  if not (dtypes.issubdtype(_dtype(a), np.integer) or _dtype(a) == np.bool_):
    raise TypeError("Expected an input array of integer or boolean data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  zero = lax_elementwise._convert_element_type(0, _dtype(a), False)
  a = lax_elementwise._convert_element_type(lax_elementwise.ne(a, zero), np.uint8, False)
  bits = lax_structural.iota(np.dtype(np.uint8), 8)
  if bitorder == "big":
    bits = lax_structural.rev(bits, (0,))
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  a = lax_numpy.swapaxes(a, axis, -1)
  remainder = (-_shape(a)[-1]) % 8
  if remainder:
    config = [(0, 0, 0)] * (_ndim(a) - 1) + [(0, remainder, 0)]
    a = lax_structural.pad(a, lax_elementwise._convert_element_type(0, np.uint8, False), config)
  a = lax_numpy.reshape(a, _shape(a)[:-1] + (-1, 8))
  packed = reductions.sum(ufuncs.left_shift(a, bits), axis=-1)
  packed = lax_elementwise._convert_element_type(packed, np.uint8, False)
  return lax_numpy.swapaxes(packed, axis, -1)


@util.jit_when_tracing(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis=None, count=None, bitorder: str = "big"):
  """Unpacks the bits of a uint8 array into 0/1 uint8 elements (``jnp.unpackbits``)."""
  a = _arr("unpackbits", a)
  if _dtype(a) != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if bitorder not in ("little", "big"):
    raise ValueError("'order' must be either 'little' or 'big'")
  one = lax_elementwise._convert_element_type(1, np.uint8, False)
  bits = lax_elementwise.shift_left(one, lax_structural.iota(np.dtype(np.uint8), 8))
  if bitorder == "big":
    bits = lax_structural.rev(bits, (0,))
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, _ndim(a))
  a = lax_numpy.swapaxes(a, axis, -1)
  unpacked = ufuncs.greater(ufuncs.bitwise_and(a[..., None], bits), 0)
  bits = lax_elementwise._convert_element_type(unpacked, np.uint8, False)
  bits = lax_numpy.reshape(bits, _shape(bits)[:-2] + (-1,))
  if count is not None:
    n = _shape(bits)[-1]
    if count > n:
      widths = np.zeros((_ndim(bits), 2), dtype=int)
      widths[-1, 1] = count - n
      bits = pad(bits, widths)
    else:
      bits = bits[..., :count]
  bits = lax_numpy.swapaxes(bits, axis, -1)
  return bits


@util.jit_when_tracing(static_argnames=("n", "axis"))
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
  """The ``n``-th discrete difference along ``axis`` (``jnp.diff``)."""
  a = _arr("diff", a)
  n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diff")
  if n < 0:
    raise ValueError(f"order must be non-negative but got {n}")
  if n == 0:
    return a
  if _ndim(a) == 0:
    raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
  axis = util.canonicalize_axis(axis, _ndim(a))
  parts = []
  for value in (prepend, a, append):
    if value is None:
      continue
    if value is a:
      parts.append(a)
      continue
    value = _arr("diff", value)
    if _ndim(value) == 0:
      shape = list(_shape(a))
      shape[axis] = 1
      value = creation.broadcast_to(value, tuple(shape))
    parts.append(value)
  if len(parts) > 1:
    a = lax_numpy.concatenate(parts, axis)
  is_bool = _dtype(a) == np.bool_
  for _ in range(n):
    # a[1:] and a[:-1] along axis: static slices without strides, as JAX's indexing emits them.
    shape = _shape(a)
    size = shape[axis]
    starts = [0] * len(shape)
    starts[axis] = builtins.min(1, size)
    limits = list(shape)
    limits[axis] = builtins.max(size - 1, 0)
    hi = lax_structural.slice(a, starts, shape)
    lo = lax_structural.slice(a, [0] * len(shape), limits)
    a = ufuncs.not_equal(hi, lo) if is_bool else ufuncs.subtract(hi, lo)
  return a


@util.jit_when_tracing
def ediff1d(ary, to_end=None, to_begin=None):
  """Differences between consecutive elements of the flattened ``ary`` (``jnp.ediff1d``)."""
  ary = lax_numpy.ravel(_arr("ediff1d", ary))
  result = ufuncs.subtract(ary[1:], ary[:-1])
  parts = []
  if to_begin is not None:
    parts.append(lax_numpy.ravel(lax_elementwise._convert_element_type(_arr("ediff1d", to_begin),
                                                        _dtype(result), False)))
  parts.append(result)
  if to_end is not None:
    parts.append(lax_numpy.ravel(lax_elementwise._convert_element_type(_arr("ediff1d", to_end),
                                                        _dtype(result), False)))
  return lax_numpy.concatenate(parts) if len(parts) > 1 else result


# ---------------------------------------------------------------------------
# Index expression helpers: s_, index_exp, r_, c_


class _IndexExpression:
  """``s_[...]`` / ``index_exp[...]``: the index expression itself (a tuple for index_exp)."""

  def __init__(self, maketuple: bool):
    self.maketuple = maketuple

  def __getitem__(self, item):
    if self.maketuple and not isinstance(item, tuple):
      return (item,)
    return item


index_exp = _IndexExpression(maketuple=True)
s_ = _IndexExpression(maketuple=False)


class _AxisConcat:
  """``r_`` / ``c_``: concatenation with NumPy's index-expression syntax (slices become
  ``arange``/``linspace``; a leading string sets axis, minimum rank and 1-D placement)."""

  def __init__(self, axis: int, ndmin: int, trans1d: int, name: str):
    self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

  def __getitem__(self, key):
    key = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
    parts = []
    matrix_mode = None
    for position, item in enumerate(key):
      if isinstance(item, str):
        if position != 0:
          raise ValueError("string directive must be placed at the beginning")
        if item in ("r", "c"):
          matrix_mode = item
          continue
        if "," in item or item.lstrip("-").isdigit():
          values = [int(x) for x in item.split(",")]
          axis = values[0]
          if len(values) > 1:
            ndmin = values[1]
          if len(values) > 2:
            trans1d = values[2]
          continue
        raise ValueError(f"unknown directive {item!r}")
      if isinstance(item, slice):
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, complex):
          value = lax_numpy.linspace(start, item.stop, int(abs(step)))
        else:
          value = creation.arange(start, item.stop, step)
      else:
        value = _arr(self.name, item)
      if _ndim(value) < ndmin:
        shape = _shape(value)
        pad_count = ndmin - len(shape)
        new_shape = (1,) * pad_count + shape
        value = lax_numpy.reshape(value, new_shape)
        if trans1d != -1 and len(shape) > 0:
          t = trans1d if trans1d >= 0 else ndmin + trans1d
          src = list(range(pad_count, ndmin))
          dest = list(range(t, t + len(src)))
          value = lax_numpy.moveaxis(value, src, dest) if dest != src else value
      parts.append(value)
    if not parts:
      return creation.zeros((0,))
    result = lax_numpy.concatenate(util.promote_dtypes(*parts) if len(parts) > 1 else parts, axis)
    if matrix_mode == "c":
      result = lax_numpy.reshape(result, (1, -1)) if _ndim(result) == 1 else result
    elif matrix_mode == "r":
      result = lax_numpy.reshape(result, (1, -1)) if _ndim(result) == 1 else result
    return result

  def __len__(self):
    return 0


r_ = _AxisConcat(0, 1, -1, "r_")
c_ = _AxisConcat(-1, 2, 0, "c_")
