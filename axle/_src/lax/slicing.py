"""Gather and scatter: XLA's general indexed reads and writes (``lax.gather``, ``lax.scatter*``).

Both primitives address ``operand`` through an integer ``indices`` array whose last dimension
is the *index vector*: each index vector gives the start of one window (slice) of the operand.
The dimension numbers say which operand dimensions the index vector addresses
(``start_index_map`` / ``scatter_dims_to_operand_dims``), which window dimensions have size 1 and
are dropped from (gather) or absent in (scatter) the windows (``collapsed_slice_dims`` /
``inserted_window_dims``), where the window dimensions go in the output/updates
(``offset_dims`` / ``update_window_dims``), and which operand dimensions are batch dimensions
paired with dimensions of ``indices`` (``operand_batching_dims``).

Out-of-bounds windows follow ``mode`` (:class:`GatherScatterMode`):

- gather, ``CLIP`` and ``PROMISE_IN_BOUNDS``: start indices are clamped so that the whole window
  is in bounds (what XLA's gather does natively);
- gather, ``FILL_OR_DROP``: a window that is not entirely in bounds reads ``fill_value``;
- scatter, ``CLIP``: start indices are clamped as for gather;
- scatter, ``FILL_OR_DROP`` and ``PROMISE_IN_BOUNDS``: a window that is not entirely in bounds is
  skipped (XLA's native scatter semantics).

Repeated indices accumulate for scatter-add/-sub/-mul/-min/-max; for ``scatter`` (replace) the
last update in index order wins, as on XLA:CPU.
"""
from __future__ import annotations

import enum
from typing import Callable, NamedTuple, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.lax import elementwise
from axle._src.lax import structural
from axle._src.lax import utils

__all__ = [
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers",
    "gather", "gather_p", "index_take", "scatter", "scatter_p", "scatter_add", "scatter_add_p",
    "scatter_sub", "scatter_sub_p", "scatter_mul", "scatter_mul_p", "scatter_min",
    "scatter_min_p", "scatter_max", "scatter_max_p", "scatter_apply",
]


# ---------------------------------------------------------------------------
# Parameters


class GatherDimensionNumbers(NamedTuple):
  """How a gather reads its windows (XLA's GatherDimensionNumbers).

  offset_dims: the output dimensions that hold window dimensions (sorted).
  collapsed_slice_dims: operand dimensions whose window size is 1 and that are dropped (sorted).
  start_index_map: for each entry of an index vector, the operand dimension it addresses.
  operand_batching_dims: operand dimensions that are batch dimensions (sorted).
  start_indices_batching_dims: the ``indices`` dimensions paired with ``operand_batching_dims``.
  """
  offset_dims: tuple[int, ...]
  collapsed_slice_dims: tuple[int, ...]
  start_index_map: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
  """How a scatter writes its windows (XLA's ScatterDimensionNumbers).

  update_window_dims: the dimensions of ``updates`` that are window dimensions (sorted).
  inserted_window_dims: operand dimensions that the windows lack (size 1 there; sorted).
  scatter_dims_to_operand_dims: for each entry of an index vector, the operand dimension it
    addresses.
  operand_batching_dims: operand dimensions that are batch dimensions (sorted).
  scatter_indices_batching_dims: the ``indices`` dimensions paired with ``operand_batching_dims``.
  """
  update_window_dims: tuple[int, ...]
  inserted_window_dims: tuple[int, ...]
  scatter_dims_to_operand_dims: tuple[int, ...]
  operand_batching_dims: tuple[int, ...] = ()
  scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
  """What gather and scatter do with out-of-bounds indices.

  CLIP: clamp start indices so the whole window is in bounds.
  FILL_OR_DROP: a gathered window that is not entirely in bounds is filled with ``fill_value``;
    a scattered window that is not entirely in bounds is discarded.
  PROMISE_IN_BOUNDS: the caller promises indices are in bounds; in practice out-of-bounds gathers
    are clamped and out-of-bounds scatters are discarded.
  ONE_HOT: accepted for compatibility; evaluated like PROMISE_IN_BOUNDS.
  """
  CLIP = enum.auto()
  FILL_OR_DROP = enum.auto()
  PROMISE_IN_BOUNDS = enum.auto()
  ONE_HOT = enum.auto()

  @staticmethod
  def from_any(s) -> "GatherScatterMode":
    """Parses a mode: a GatherScatterMode, ``'clip'``, ``'fill'``/``'drop'``/None (FILL_OR_DROP),
    ``'promise_in_bounds'`` or ``'one_hot'``."""
    if isinstance(s, GatherScatterMode):
      return s
    if s == "clip":
      return GatherScatterMode.CLIP
    if s is None or s == "fill" or s == "drop":
      return GatherScatterMode.FILL_OR_DROP
    if s == "promise_in_bounds":
      return GatherScatterMode.PROMISE_IN_BOUNDS
    if s == "one_hot":
      return GatherScatterMode.ONE_HOT
    raise ValueError(f'Unknown gather mode "{s}"')


def _int_tuple(values) -> tuple[int, ...]:
  return tuple(int(v) for v in values)


def _canonical_gather_dnums(dnums) -> GatherDimensionNumbers:
  if not isinstance(dnums, GatherDimensionNumbers):
    raise TypeError("gather: dimension_numbers must be a lax.GatherDimensionNumbers, "
                    f"got {type(dnums).__name__}")
  return GatherDimensionNumbers(*(_int_tuple(field) for field in dnums))


def _canonical_scatter_dnums(dnums) -> ScatterDimensionNumbers:
  if not isinstance(dnums, ScatterDimensionNumbers):
    raise TypeError("scatter: dimension_numbers must be a lax.ScatterDimensionNumbers, "
                    f"got {type(dnums).__name__}")
  return ScatterDimensionNumbers(*(_int_tuple(field) for field in dnums))


def _pp_mode_params(params: dict) -> dict:
  # JAX prints the mode as ``GatherScatterMode.CLIP`` (the enum's str, not its repr).
  shown = dict(params)
  shown["mode"] = str(params["mode"])
  return shown


def _check_sorted_unique(name: str, dims: Sequence[int], what: str) -> None:
  if list(dims) != sorted(dims):
    raise TypeError(f"{what} in {name} op must be sorted; got {tuple(dims)}")
  if len(set(dims)) != len(dims):
    raise TypeError(f"{what} in {name} op must not repeat; got {tuple(dims)}")


def _check_in_range(name: str, dims: Sequence[int], rank: int, what: str) -> None:
  for d in dims:
    if not 0 <= d < rank:
      raise TypeError(f"Invalid {what} set in {name} op; valid range is [0, {rank}); got: {d}.")


def _check_indices_aval(indices: ShapedArray) -> None:
  if not dtypes.issubdtype(indices.dtype, np.integer):
    raise ValueError("indices must have an integer type")


# ---------------------------------------------------------------------------
# gather


gather_p = core.Primitive("gather")


def _gather_abstract_eval(operand: ShapedArray, indices: ShapedArray, *, dimension_numbers,
                          slice_sizes, indices_are_sorted, unique_indices, mode, fill_value):
  dn = dimension_numbers
  _check_indices_aval(indices)
  rank = operand.ndim
  if indices.ndim == 0:
    raise TypeError("gather indices must have rank >= 1: the last dimension holds the index "
                    f"vectors; got indices of shape {indices.shape}")
  batch_shape = indices.shape[:-1]
  index_vector_size = indices.shape[-1]
  output_rank = len(dn.offset_dims) + len(batch_shape)

  _check_sorted_unique("gather", dn.offset_dims, "offset_dims")
  for i, d in enumerate(dn.offset_dims):
    if not 0 <= d < output_rank:
      raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but should "
                      f"have been in [0, {output_rank})")
  _check_sorted_unique("gather", dn.collapsed_slice_dims, "collapsed_slice_dims")
  _check_in_range("gather", dn.collapsed_slice_dims, rank, "collapsed_slice_dims")
  _check_sorted_unique("gather", dn.operand_batching_dims, "operand_batching_dims")
  _check_in_range("gather", dn.operand_batching_dims, rank, "operand_batching_dims")
  if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
    raise TypeError("collapsed_slice_dims and operand_batching_dims in gather op must be "
                    f"disjoint; got {dn.collapsed_slice_dims} and {dn.operand_batching_dims}")
  if len(dn.start_indices_batching_dims) != len(dn.operand_batching_dims):
    raise TypeError("operand_batching_dims and start_indices_batching_dims in gather op must "
                    f"have the same length; got {dn.operand_batching_dims} and "
                    f"{dn.start_indices_batching_dims}")
  for d in dn.start_indices_batching_dims:
    if not 0 <= d < indices.ndim - 1:
      raise TypeError(f"Invalid start_indices_batching_dims set in gather op; valid range is "
                      f"[0, {indices.ndim - 1}); got: {d}.")
  if len(set(dn.start_indices_batching_dims)) != len(dn.start_indices_batching_dims):
    raise TypeError(f"start_indices_batching_dims in gather op must not repeat; got "
                    f"{dn.start_indices_batching_dims}")

  if len(dn.start_index_map) != index_vector_size:
    raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map and "
                    f"the bound of dimension index_vector_dim={indices.ndim - 1} of indices is "
                    f"{index_vector_size}. These two numbers must be equal.")
  for i, d in enumerate(dn.start_index_map):
    if not 0 <= d < rank:
      raise TypeError(f"Invalid start_index_map; domain is [0, {rank}), got: {i}->{d}.")
  if len(set(dn.start_index_map)) != len(dn.start_index_map):
    raise TypeError(f"Repeated dimensions are not allowed in start_index_map; got: "
                    f"{dn.start_index_map}.")
  if set(dn.start_index_map) & set(dn.operand_batching_dims):
    raise TypeError("start_index_map and operand_batching_dims in gather op must be disjoint; "
                    f"got {dn.start_index_map} and {dn.operand_batching_dims}")

  if len(slice_sizes) != rank:
    raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                    f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={rank}")
  for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape)):
    if not 0 <= size <= bound:
      raise TypeError(f"Slice size at index {i} in gather op is out of range, must be within "
                      f"[0, {bound} + 1), got {size}.")
  for position, d in enumerate(dn.collapsed_slice_dims):
    if slice_sizes[d] != 1:
      raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                      f"{slice_sizes[d]} for index {d} at position {position}.")
  for position, d in enumerate(dn.operand_batching_dims):
    if slice_sizes[d] != 1 and not (slice_sizes[d] == 0 and operand.shape[d] == 0):
      raise TypeError(f"Gather op can only have operand batching dims with bound 0/1, but bound "
                      f"is {slice_sizes[d]} for index {d} at position {position}.")
  for d_operand, d_indices in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
    if operand.shape[d_operand] != indices.shape[d_indices]:
      raise TypeError(f"Gather op requires operand batching dimension {d_operand} (size "
                      f"{operand.shape[d_operand]}) and start_indices batching dimension "
                      f"{d_indices} (size {indices.shape[d_indices]}) to have equal sizes.")

  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  window_sizes = [s for d, s in enumerate(slice_sizes) if d not in dropped]
  if len(window_sizes) != len(dn.offset_dims):
    raise TypeError("All components of the offset index in a gather op must either be a offset "
                    "dimension or explicitly collapsed/batching; got "
                    f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                    f"{tuple(dn.offset_dims)}, collapsed_slice_dims={dn.collapsed_slice_dims}, "
                    f"operand_batching_dims={dn.operand_batching_dims}.")
  out_shape = []
  windows = iter(window_sizes)
  batches = iter(batch_shape)
  offset = set(dn.offset_dims)
  for d in range(output_rank):
    out_shape.append(next(windows) if d in offset else next(batches))
  return ShapedArray(tuple(out_shape), operand.dtype, operand.weak_type)


gather_p.def_abstract_eval(_gather_abstract_eval)


def _default_fill_value(dtype: np.dtype):
  """What a FILL_OR_DROP gather reads out of bounds when no fill_value is given."""
  if dtypes.issubdtype(dtype, np.inexact):
    return np.nan
  if dtypes.issubdtype(dtype, np.signedinteger):
    return int(np.iinfo(dtype).min)
  if dtypes.issubdtype(dtype, np.unsignedinteger):
    return int(np.iinfo(dtype).max)
  if dtype == np.bool_:
    return True
  raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def _window_starts(operand_shape, indices, index_map, operand_batching_dims,
                   indices_batching_dims):
  """(N, rank) int64 start coordinates of every window; N = number of index vectors."""
  batch_shape = indices.shape[:-1]
  n = int(np.prod(batch_shape, dtype=np.int64))
  starts = np.zeros((n, len(operand_shape)), np.int64)
  flat = indices.reshape(n, indices.shape[-1]).astype(np.int64)
  for k, d in enumerate(index_map):
    starts[:, d] = flat[:, k]
  if operand_batching_dims:
    grids = np.indices(batch_shape, dtype=np.int64).reshape(len(batch_shape), n)
    for d_operand, d_indices in zip(operand_batching_dims, indices_batching_dims):
      starts[:, d_operand] = grids[d_indices]
  return starts


def _window_coordinates(starts, window_shape, order):
  """Index arrays addressing the windows: for operand dims in ``order`` (the non-full dims), an
  array of shape (N, *window sizes of those dims) per dim."""
  n = starts.shape[0]
  k = len(order)
  coords = []
  for j, d in enumerate(order):
    shape = [n] + [1] * k
    shape[1 + j] = window_shape[d]
    coords.append((starts[:, d][:, None] + np.arange(window_shape[d])[None, :]).reshape(shape))
  return coords


def _read_windows(operand, starts, window_shape):
  """operand windows, shape (N, *window_shape); ``starts`` are already in bounds."""
  rank = operand.ndim
  partial_dims = [d for d in range(rank) if window_shape[d] != operand.shape[d]]
  full_dims = [d for d in range(rank) if d not in partial_dims]
  if not partial_dims:
    out = np.broadcast_to(operand, (starts.shape[0],) + operand.shape)
    return out
  moved = np.moveaxis(operand, partial_dims, range(len(partial_dims)))
  coords = _window_coordinates(starts, window_shape, partial_dims)
  got = moved[tuple(coords)]  # (N, *partial windows, *full dims)
  # back to operand dimension order after the leading N
  layout = partial_dims + full_dims
  if layout == list(range(rank)):
    return got
  return np.moveaxis(got, range(1, rank + 1), [1 + d for d in layout])


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_max_element = np.maximum.reduce


def _point_gather(operand, indices, dn, slice_sizes, mode, fill_value):
  """The gather of whole trailing slices at index points (``x[i]``, ``jnp.take``,
  ``take_along_axis`` of a vector): the first k operand dimensions indexed by the k columns of
  ``indices`` and collapsed, the rest kept whole after the batch dimensions. None for any
  other form of gather."""
  k = indices.shape[-1] if indices.ndim else 0
  rank = operand.ndim
  batch = indices.ndim - 1
  if not 0 < k <= rank or dn.operand_batching_dims or tuple(dn.start_index_map) != tuple(range(k)) \
      or tuple(dn.collapsed_slice_dims) != tuple(range(k)) \
      or tuple(slice_sizes) != (1,) * k + operand.shape[k:] \
      or tuple(dn.offset_dims) != tuple(range(batch, batch + rank - k)) \
      or indices.dtype.kind not in "iu" or 0 in operand.shape[:k]:
    return None
  # (as unsigned integers, a negative index is out of bounds above)
  columns = [indices[..., j].view(_UNSIGNED[indices.dtype.itemsize]) for j in range(k)]
  in_bounds = None
  if mode == GatherScatterMode.FILL_OR_DROP and columns[0].size and any(
      _max_element(column, axis=None) >= operand.shape[j] for j, column in enumerate(columns)):
    in_bounds = columns[0] < operand.shape[0]
    for j in range(1, k):
      in_bounds &= columns[j] < operand.shape[j]
  if k == 1:  # (clipped: indices[..., 0] is signed again)
    result = operand.take(indices[..., 0], axis=0, mode="clip")
  else:
    result = operand[tuple(np.minimum(np.maximum(indices[..., j], 0), operand.shape[j] - 1)
                           for j in range(k))]
  if type(result) is not np.ndarray:  # (a 0-d result comes back as a NumPy scalar)
    result = np.asarray(result)
  if in_bounds is not None:
    fill = _default_fill_value(operand.dtype) if fill_value is None else fill_value
    with np.errstate(invalid="ignore", over="ignore"):
      fill = np.array(fill).astype(operand.dtype)
    if not result.shape:
      return fill
    result[~in_bounds] = fill
  return result


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value):
  dn = dimension_numbers
  operand = np.asarray(operand)
  indices = np.asarray(indices)
  result = _point_gather(operand, indices, dn, slice_sizes, mode, fill_value)
  if result is not None:
    return result
  out_aval = _gather_abstract_eval(core.get_aval(operand), core.get_aval(indices),
                                   dimension_numbers=dn, slice_sizes=slice_sizes,
                                   indices_are_sorted=indices_are_sorted,
                                   unique_indices=unique_indices, mode=mode, fill_value=fill_value)
  if 0 in out_aval.shape:
    return np.zeros(out_aval.shape, operand.dtype)
  shape = np.array(operand.shape, np.int64)
  sizes = np.array(slice_sizes, np.int64)
  starts = _window_starts(operand.shape, indices, dn.start_index_map, dn.operand_batching_dims,
                          dn.start_indices_batching_dims)
  in_bounds = None
  if mode == GatherScatterMode.FILL_OR_DROP:
    mapped = list(dn.start_index_map)
    upper = (shape - sizes)[mapped]
    in_bounds = np.all((starts[:, mapped] >= 0) & (starts[:, mapped] <= upper), axis=1)
  starts = np.clip(starts, 0, shape - sizes)
  windows = _read_windows(operand, starts, tuple(slice_sizes))
  if in_bounds is not None and not in_bounds.all():
    fill = _default_fill_value(operand.dtype) if fill_value is None else fill_value
    with np.errstate(invalid="ignore", over="ignore"):
      fill = np.array(fill).astype(operand.dtype)
    windows = np.array(windows)
    windows[~in_bounds] = fill
  # (N, *slice_sizes) -> (*batch, *window dims) -> output layout
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  window_sizes = tuple(s for d, s in enumerate(slice_sizes) if d not in dropped)
  batch_shape = indices.shape[:-1]
  result = np.reshape(windows, batch_shape + window_sizes)
  nb = len(batch_shape)
  if dn.offset_dims and tuple(dn.offset_dims) != tuple(range(nb, nb + len(window_sizes))):
    result = np.moveaxis(result, range(nb, nb + len(window_sizes)), dn.offset_dims)
  return np.asarray(result, dtype=operand.dtype)


gather_p.def_impl(_gather_impl)
ir.pp_param_rules[gather_p] = _pp_mode_params


def _dims_text(name: str, dims) -> str:
  return f"{name} = [{', '.join(str(int(d)) for d in dims)}]"


def _gather_dnums_text(dn: GatherDimensionNumbers, index_vector_dim: int) -> str:
  fields = [_dims_text(k, getattr(dn, k)) for k in
            ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
             "start_indices_batching_dims", "start_index_map")]
  fields.append(f"index_vector_dim = {index_vector_dim}")
  return f"#stablehlo.gather<{', '.join(fields)}>"


def _emit_gather(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out_aval):
  return mlir.op(ctx, "stablehlo.gather", [operand, indices], out_aval, {
      "dimension_numbers": _gather_dnums_text(dn, indices.aval.ndim - 1),
      "slice_sizes": mlir.dense_array(slice_sizes),
      "indices_are_sorted": "true" if indices_are_sorted else "false"})


def _and_reduce_last(ctx, mask):
  """``all`` over the last dimension of a boolean ``mask``."""
  bool_scalar = ShapedArray((), np.dtype(np.bool_))
  true = mlir.constant(ctx, np.array(True))
  body = mlir.region(ctx, [bool_scalar, bool_scalar],
                     lambda ctx, a, b: mlir.op(ctx, "stablehlo.and", [a, b], bool_scalar))
  out_aval = ShapedArray(mask.aval.shape[:-1], np.dtype(np.bool_))
  return mlir.op(ctx, "stablehlo.reduce", [mask, true], out_aval,
                 {"dimensions": mlir.dense_array([mask.aval.ndim - 1])}, regions=[body])


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, unique_indices, mode, fill_value):
  dn = dimension_numbers
  out_aval = ctx.avals_out[0]
  # Indices of exact wide types (XLA gets bounds wrong in narrow index types, see
  # structural.exact_index_dtype); every bound and in-bounds test below is then exact.
  indices = structural.exact_indices(ctx, indices)
  if mode != GatherScatterMode.FILL_OR_DROP:
    # CLIP, PROMISE_IN_BOUNDS (and ONE_HOT, evaluated alike): XLA's gather clamps natively.
    return _emit_gather(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out_aval)
  # FILL_OR_DROP: which windows are entirely in bounds, the gather (clamped), then the fill
  # value in the others -- in JAX's order.
  if not dn.start_index_map or 0 in out_aval.shape:
    return _emit_gather(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out_aval)
  index_aval = indices.aval
  bounds = np.array([operand.aval.shape[d] - slice_sizes[d] for d in dn.start_index_map],
                    index_aval.dtype)
  upper = mlir.constant(ctx, bounds)
  zero = mlir.full_like_aval(ctx, 0, index_aval)
  above_zero = mlir.compare(ctx, indices, zero, "GE")
  ranked = ShapedArray((1,) * (index_aval.ndim - 1) + bounds.shape, bounds.dtype)
  if ranked.shape != upper.aval.shape:  # the bounds gain the leading unit dimensions first
    upper = mlir.broadcast_in_dim(ctx, upper, ranked, [index_aval.ndim - 1])
  if upper.aval.shape != index_aval.shape:
    upper = mlir.broadcast_in_dim(ctx, upper, index_aval, list(range(index_aval.ndim)))
  in_bounds = mlir.op(ctx, "stablehlo.and", [above_zero, mlir.compare(ctx, indices, upper, "LE")],
                      ShapedArray(index_aval.shape, np.dtype(np.bool_)))
  window_in_bounds = _and_reduce_last(ctx, in_bounds)
  gathered = _emit_gather(ctx, operand, indices, dn, slice_sizes, indices_are_sorted, out_aval)
  batch_dims = [d for d in range(out_aval.ndim) if d not in dn.offset_dims]
  mask = window_in_bounds
  if mask.aval.shape != out_aval.shape:
    mask = mlir.broadcast_in_dim(ctx, mask, ShapedArray(out_aval.shape, np.bool_), batch_dims)
  fill = _default_fill_value(operand.aval.dtype) if fill_value is None else fill_value
  with np.errstate(invalid="ignore", over="ignore"):
    fill = np.array(fill).astype(operand.aval.dtype)
  return mlir.select(ctx, mask, gathered, mlir.full_like_aval(ctx, fill, out_aval))


mlir.register(gather_p, _gather_lowering)


def _gather(operand, indices, dimension_numbers, slice_sizes, *, indices_are_sorted=False,
            unique_indices=False, mode=None, fill_value=None):
  """``lax.gather`` for the transformation rules: binds the dimension numbers as given (JAX
  prints the NumPy integers its rules compute) and ``mode`` None is PROMISE_IN_BOUNDS."""
  mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
  if mode == GatherScatterMode.FILL_OR_DROP:
    if fill_value is None:
      fill_value = _default_fill_value(core.get_aval(operand).dtype)
  else:
    fill_value = None
  return gather_p.bind(operand, indices, dimension_numbers=dimension_numbers,
                       slice_sizes=core.canonicalize_shape(slice_sizes),
                       indices_are_sorted=bool(indices_are_sorted),
                       unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


def _gather_jvp(g, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
  # Out-of-bounds windows of a FILL_OR_DROP gather are constants: their tangent is 0.
  return _gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                 indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
  # The adjoint of reading windows is adding the cotangent windows back (repeated indices
  # accumulate); the scatter uses the gather's mode so clamped windows land where they were read.
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval), None]
  dn = dimension_numbers
  zeros = structural.full(operand.aval.shape, 0, core.get_aval(ct).dtype)
  scatter_dnums = ScatterDimensionNumbers(
      update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
      scatter_dims_to_operand_dims=dn.start_index_map,
      operand_batching_dims=dn.operand_batching_dims,
      scatter_indices_batching_dims=dn.start_indices_batching_dims)
  out = _scatter(scatter_add_p, "add", zeros, indices, ct, scatter_dnums,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, mode=mode,
                 jaxpr_key=_TRANSPOSE_JAXPR)
  return [out, None]


ad.defjvp(gather_p, _gather_jvp, None)
ad.primitive_transposes[gather_p] = _gather_transpose


def gather_batcher(values, dims, *, dimension_numbers, slice_sizes, unique_indices,
                   indices_are_sorted, mode, fill_value):
  """vmap of gather: a batched operand gets a full window along its batch axis; batched indices
  add a batch dimension of the indices; both batched pair the two batch axes as gather batching
  dimensions (``operand_batching_dims``/``start_indices_batching_dims``)."""
  operand, indices = values
  operand_bdim, indices_bdim = dims
  dn = dimension_numbers
  slice_sizes = tuple(slice_sizes)
  if indices_bdim is None:
    operand = batching.moveaxis(operand, operand_bdim, 0)
    dnums = GatherDimensionNumbers(
        offset_dims=(0,) + tuple(np.add(1, dn.offset_dims)),
        collapsed_slice_dims=tuple(np.add(1, dn.collapsed_slice_dims)),
        start_index_map=tuple(np.add(1, dn.start_index_map)),
        operand_batching_dims=tuple(np.add(1, dn.operand_batching_dims)),
        start_indices_batching_dims=dn.start_indices_batching_dims)
    return _gather(operand, indices, dnums, (core.get_aval(operand).shape[0],) + slice_sizes,
                   unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                   mode=mode, fill_value=fill_value), 0
  indices = batching.moveaxis(indices, indices_bdim, 0)
  if operand_bdim is None:
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(1 + d for d in dn.offset_dims),
        collapsed_slice_dims=dn.collapsed_slice_dims, start_index_map=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=tuple(np.add(1, dn.start_indices_batching_dims)))
    # Different examples may read the same rows: the promises no longer hold.
    return _gather(operand, indices, dnums, slice_sizes, unique_indices=False,
                   indices_are_sorted=False, mode=mode, fill_value=fill_value), 0
  operand = batching.moveaxis(operand, operand_bdim, 0)
  batch_window = 0 if core.get_aval(operand).shape[0] == 0 else 1
  dnums = GatherDimensionNumbers(
      offset_dims=tuple(np.add(1, dn.offset_dims)),
      collapsed_slice_dims=tuple(np.add(1, dn.collapsed_slice_dims)),
      start_index_map=tuple(np.add(1, dn.start_index_map)),
      operand_batching_dims=(0,) + tuple(np.add(1, dn.operand_batching_dims)),
      start_indices_batching_dims=(0,) + tuple(np.add(1, dn.start_indices_batching_dims)))
  return _gather(operand, indices, dnums, (batch_window,) + slice_sizes,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 mode=mode, fill_value=fill_value), 0


batching.primitive_batchers[gather_p] = gather_batcher


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes, *,
           unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
           fill_value=None):
  """XLA's Gather (``lax.gather``): reads one window of ``operand`` per index vector.

  ``start_indices``' last dimension holds the index vectors; ``dimension_numbers`` (a
  :class:`GatherDimensionNumbers`) says how they address ``operand`` and where window dimensions
  go in the output; ``slice_sizes`` gives the window size along every operand dimension.
  ``mode`` (default ``PROMISE_IN_BOUNDS``, i.e. clamped) and ``fill_value`` (for ``'fill'``;
  default NaN for inexact dtypes, the minimum for signed, the maximum for unsigned integers and
  True for bool) decide out-of-bounds behaviour. ``indices_are_sorted``/``unique_indices`` are
  promises that allow faster code on some backends.

  Most users want NumPy-style indexing (``x[idx]``, ``x.at[idx].get(...)``) instead.
  """
  dimension_numbers = _canonical_gather_dnums(dimension_numbers)
  slice_sizes = core.canonicalize_shape(slice_sizes)
  if mode is None:
    mode = GatherScatterMode.PROMISE_IN_BOUNDS
  parsed_mode = GatherScatterMode.from_any(mode)
  if parsed_mode == GatherScatterMode.FILL_OR_DROP:
    if fill_value is None:
      fill_value = _default_fill_value(core.get_aval(operand).dtype)
  else:
    fill_value = None
  return gather_p.bind(operand, start_indices, dimension_numbers=dimension_numbers,
                       slice_sizes=slice_sizes, indices_are_sorted=bool(indices_are_sorted),
                       unique_indices=bool(unique_indices), mode=parsed_mode,
                       fill_value=fill_value)


def index_take(src, idxs, axes):
  """Takes ``src`` at the integer arrays ``idxs`` (one per axis in ``axes``, broadcast together);
  negative and out-of-range indices wrap modulo the axis size (``lax.index_take``)."""
  axes = tuple(int(a) for a in axes)
  if len(idxs) != len(axes):
    raise ValueError(f"index_take: got {len(idxs)} index arrays for {len(axes)} axes")
  src_aval = core.get_aval(src)
  # JAX's program: one column per index array, concatenated, wrapped with the array's ``%``
  # (jnp.remainder, a jit of its own) by the axis sizes, then a gather.
  indices = structural.concatenate(
      [structural.expand_dims(_asarray_index(i), (1,)) for i in idxs], 1)
  indices = indices % structural.expand_dims(np.array([src_aval.shape[axis] for axis in axes]), (0,))
  slice_sizes = tuple(1 if d in axes else s for d, s in enumerate(src_aval.shape))
  batch_ndim = core.get_aval(indices).ndim - 1
  offset_dims = tuple(range(batch_ndim, batch_ndim + src_aval.ndim - len(axes)))
  dnums = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=axes,
                                 start_index_map=axes)
  return gather(src, indices, dnums, slice_sizes)


def _asarray_index(i):
  """An index argument as an Array (``jnp.asarray``'s result for lists, NumPy values and
  Python scalars: the canonical dtype, weakly typed for a Python scalar)."""
  if structural._is_array(i):
    return i
  if type(i) in (bool, int, float, complex):
    return structural._asarray(i)
  value = np.asarray(i)
  return Array(value.astype(dtypes.canonicalize_dtype(value.dtype)))


# ---------------------------------------------------------------------------
# scatter family


def _scatter_abstract_eval(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *,
                           dimension_numbers, indices_are_sorted, unique_indices, mode,
                           update_jaxpr, update_consts):
  dn = dimension_numbers
  _check_indices_aval(indices)
  if operand.dtype != updates.dtype:
    raise TypeError(f"lax.scatter requires arguments to have the same dtypes, got "
                    f"{operand.dtype.name}, {updates.dtype.name}.")
  rank = operand.ndim
  if indices.ndim == 0:
    raise TypeError("scatter indices must have rank >= 1: the last dimension holds the index "
                    f"vectors; got indices of shape {indices.shape}")
  _check_sorted_unique("scatter", dn.update_window_dims, "update_window_dims")
  for d in dn.update_window_dims:
    if not 0 <= d < updates.ndim:
      raise TypeError(f"Invalid update_window_dims set in scatter op; valid range is "
                      f"[0, {updates.ndim}); got: {d}.")
  _check_sorted_unique("scatter", dn.inserted_window_dims, "inserted_window_dims")
  _check_in_range("scatter", dn.inserted_window_dims, rank, "inserted_window_dims")
  _check_sorted_unique("scatter", dn.operand_batching_dims, "operand_batching_dims")
  _check_in_range("scatter", dn.operand_batching_dims, rank, "operand_batching_dims")
  if len(dn.scatter_indices_batching_dims) != len(dn.operand_batching_dims):
    raise TypeError("operand_batching_dims and scatter_indices_batching_dims in scatter op must "
                    f"have the same length; got {dn.operand_batching_dims} and "
                    f"{dn.scatter_indices_batching_dims}")
  for d in dn.scatter_indices_batching_dims:
    if not 0 <= d < indices.ndim - 1:
      raise TypeError(f"Invalid scatter_indices_batching_dims set in scatter op; valid range is "
                      f"[0, {indices.ndim - 1}); got: {d}.")
  window_size = len(dn.update_window_dims) + len(dn.inserted_window_dims) + \
      len(dn.operand_batching_dims)
  if rank != window_size:
    raise TypeError(f"Scatter op has window of size {window_size}; doesn't match operand of "
                    f"rank {rank}.")
  if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
    raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                    f"scatter_dims_to_operand_dims and the bound of dimension "
                    f"index_vector_dim={indices.ndim - 1} of indices is {indices.shape[-1]}. "
                    f"These two numbers must be equal.")
  for i, d in enumerate(dn.scatter_dims_to_operand_dims):
    if not 0 <= d < rank:
      raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is [0, {rank}), "
                      f"got: {i}->{d}.")
  if len(set(dn.scatter_dims_to_operand_dims)) != len(dn.scatter_dims_to_operand_dims):
    raise TypeError(f"Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: "
                    f"{dn.scatter_dims_to_operand_dims}.")
  expected_updates_rank = len(dn.update_window_dims) + indices.ndim - 1
  if updates.ndim != expected_updates_rank:
    raise TypeError(f"Updates tensor must be of rank {expected_updates_rank}; got "
                    f"{updates.ndim}.")
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  window_operand_dims = [d for d in range(rank) if d not in dropped]
  for i, d in enumerate(dn.update_window_dims):
    if updates.shape[d] > operand.shape[window_operand_dims[i]]:
      raise TypeError(f"Bounds of the window dimensions of updates must not exceed the bounds of "
                      f"the corresponding dimensions of operand. For dimension {d}, updates "
                      f"bound is {updates.shape[d]}, operand bound is "
                      f"{operand.shape[window_operand_dims[i]]}.")
  scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  for i, d in enumerate(scatter_dims):
    if updates.shape[d] != indices.shape[i]:
      raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as the "
                      f"bounds of the corresponding dimensions of scatter indices. For scatter "
                      f"dimension {d}, updates bound is {updates.shape[d]}, indices bound is "
                      f"{indices.shape[i]}.")
  for d_operand, d_indices in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
    if operand.shape[d_operand] != indices.shape[d_indices]:
      raise TypeError(f"Scatter op requires operand batching dimension {d_operand} (size "
                      f"{operand.shape[d_operand]}) and scatter_indices batching dimension "
                      f"{d_indices} (size {indices.shape[d_indices]}) to have equal sizes.")
  return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _scatter_targets(operand_shape, indices, updates, dn, mode):
  """Flat operand positions and update values of every in-bounds window element, in index order.

  Returns (flat_positions, values), both 1-D and of equal length."""
  rank = len(operand_shape)
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  window_operand_dims = [d for d in range(rank) if d not in dropped]
  window = [1] * rank
  for i, d in enumerate(dn.update_window_dims):
    window[window_operand_dims[i]] = updates.shape[d]
  n = int(np.prod(indices.shape[:-1], dtype=np.int64))
  # updates -> (N, *window in operand dim order)
  scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  values = np.transpose(updates, scatter_dims + list(dn.update_window_dims))
  values = values.reshape((n,) + tuple(window))
  shape = np.array(operand_shape, np.int64)
  sizes = np.array(window, np.int64)
  starts = _window_starts(operand_shape, indices, dn.scatter_dims_to_operand_dims,
                          dn.operand_batching_dims, dn.scatter_indices_batching_dims)
  if mode == GatherScatterMode.CLIP:
    starts = np.clip(starts, 0, shape - sizes)
  else:
    keep = np.all((starts >= 0) & (starts <= shape - sizes), axis=1)
    if not keep.all():
      starts = starts[keep]
      values = values[keep]
  coords = _window_coordinates(starts, tuple(window), list(range(rank)))
  flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*coords)), tuple(operand_shape)) \
      if rank else np.zeros(values.shape, np.int64)
  return flat.reshape(-1), values.reshape(-1)


_combine_ufuncs = {"scatter-add": np.add, "scatter-sub": np.subtract, "scatter-mul": np.multiply,
                   "scatter-min": np.minimum, "scatter-max": np.maximum}


def _make_scatter_impl(name: str):
  ufunc = _combine_ufuncs.get(name)

  def impl(operand, indices, updates, *, dimension_numbers, indices_are_sorted, unique_indices,
           mode, update_jaxpr, update_consts):
    operand = np.asarray(operand)
    out = np.array(operand, copy=True, order="C")  # reshape(-1) below must be a view
    if out.size == 0 or np.size(updates) == 0:
      return out
    if name == "scatter-mul" and operand.dtype.kind == "c":
      # XLA's scatter combines complex products differently from NumPy's complex multiply
      # (results at overflow differ: inf vs nan, and in the last bit); run JAX's computation.
      return eval_interpreter.run_on_xla(scatter_mul_p, [operand, indices, updates], dict(
          dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
          unique_indices=unique_indices, mode=mode, update_jaxpr=update_jaxpr,
          update_consts=update_consts))
    flat_out = out.reshape(-1)
    positions, values = _scatter_targets(operand.shape, np.asarray(indices), np.asarray(updates),
                                         dimension_numbers, mode)
    if positions.size == 0:
      return out
    values = values.astype(out.dtype, copy=False)
    if ufunc is not None:
      with np.errstate(all="ignore"):
        ufunc.at(flat_out, positions, values)
    elif update_jaxpr is None:
      flat_out[positions] = values  # NumPy assigns repeated positions in order: the last wins
    else:
      _apply_update_jaxpr(flat_out, positions, values, update_jaxpr, update_consts)
    return out

  return impl


def _apply_update_jaxpr(flat_out, positions, values, jaxpr, consts):
  """Combines old and new values with ``jaxpr`` (a scalar function), repeated positions applied
  one after another in index order."""
  order = np.argsort(positions, kind="stable")
  sorted_positions = positions[order]
  first = np.r_[True, sorted_positions[1:] != sorted_positions[:-1]]
  group_start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
  rank_in_group = np.empty(len(order), np.int64)
  rank_in_group[order] = np.arange(len(order)) - group_start
  with core.set_current_trace(core.eval_trace):
    for r in range(int(rank_in_group.max()) + 1):
      chosen = rank_in_group == r
      where = positions[chosen]
      old = Array(np.ascontiguousarray(flat_out[where]))
      new = Array(np.ascontiguousarray(values[chosen]))
      result, = ir.eval_jaxpr(jaxpr, list(consts), old, new)
      flat_out[where] = np.asarray(result)


def _define_scatter(name: str) -> core.Primitive:
  primitive = core.Primitive(name)
  primitive.def_abstract_eval(_scatter_abstract_eval)
  primitive.def_impl(_make_scatter_impl(name))
  ir.pp_param_rules[primitive] = _pp_mode_params
  return primitive


scatter_p = _define_scatter("scatter")
scatter_add_p = _define_scatter("scatter-add")
scatter_sub_p = _define_scatter("scatter-sub")
scatter_mul_p = _define_scatter("scatter-mul")
scatter_min_p = _define_scatter("scatter-min")
scatter_max_p = _define_scatter("scatter-max")


def _scatter_dnums_text(dn: ScatterDimensionNumbers, index_vector_dim: int) -> str:
  fields = [_dims_text("update_window_dims", dn.update_window_dims),
            _dims_text("inserted_window_dims", dn.inserted_window_dims),
            _dims_text("input_batching_dims", dn.operand_batching_dims),
            _dims_text("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
            _dims_text("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims),
            f"index_vector_dim = {index_vector_dim}"]
  return f"#stablehlo.scatter<{', '.join(fields)}>"


def _clip_scatter_indices(ctx, operand, indices, updates, dn):
  """CLIP: clamp every start index to [0, operand dim - window size] (in the index dtype; a bound
  the index dtype cannot hold is capped at its maximum, which every index satisfies)."""
  rank = operand.aval.ndim
  dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  window_operand_dims = [d for d in range(rank) if d not in dropped]
  window = [1] * rank
  for i, d in enumerate(dn.update_window_dims):
    window[window_operand_dims[i]] = updates.aval.shape[d]
  index_aval = indices.aval
  cap = int(np.iinfo(index_aval.dtype).max)
  bounds = np.array([min(operand.aval.shape[d] - window[d], cap)
                     for d in dn.scatter_dims_to_operand_dims], index_aval.dtype)
  upper = mlir.broadcast_in_dim(ctx, mlir.constant(ctx, bounds), index_aval, [index_aval.ndim - 1])
  zero = mlir.full_like_aval(ctx, 0, index_aval)
  return mlir.op(ctx, "stablehlo.clamp", [zero, indices, upper], index_aval)


def _scatter_lowering(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                      unique_indices, mode, update_jaxpr, update_consts):
  dn = dimension_numbers
  indices = structural.exact_indices(ctx, indices)  # see structural.exact_index_dtype
  if mode == GatherScatterMode.CLIP and indices.aval.size:
    indices = _clip_scatter_indices(ctx, operand, indices, updates, dn)
  # FILL_OR_DROP and PROMISE_IN_BOUNDS: XLA's scatter skips windows that are out of bounds.
  scalar = ShapedArray((), operand.aval.dtype)

  def combine(ctx, old, new):
    if update_jaxpr is None:  # plain scatter: the update replaces
      return new
    return mlir.jaxpr_subcomp(ctx, update_jaxpr, list(update_consts), [old, new])

  body = mlir.region(ctx, [scalar, scalar], combine)
  return mlir.op(ctx, "stablehlo.scatter", [operand, indices, updates], ctx.avals_out[0], {
      "scatter_dimension_numbers": _scatter_dnums_text(dn, indices.aval.ndim - 1),
      "indices_are_sorted": "true" if indices_are_sorted else "false",
      "unique_indices": "true" if unique_indices else "false"}, regions=[body])


for _primitive in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
                   scatter_max_p):
  mlir.register(_primitive, _scatter_lowering)


# ---------------------------------------------------------------------------
# scatter transformation rules


# Transpose rules combine with update jaxprs of their own: one shared by the scatters transposes
# make, another by the scatters user code and JVP rules make, so that a program that has both
# prints two jaxprs (``let jaxpr = ... in let jaxpr1 = ...``) where JAX's does.
_TRANSPOSE_JAXPR = "transpose"


def _scatter(primitive, combiner_name, operand, indices, updates, dimension_numbers, *,
             indices_are_sorted=False, unique_indices=False, mode=None, jaxpr_key=None):
  """Binds a scatter primitive with the dimension numbers as given (see ``_gather``)."""
  if combiner_name is None:
    jaxpr, consts = None, ()
  else:
    jaxpr, consts = _scalar_update_jaxpr(_combiners[combiner_name], _scalar_aval(operand),
                                         key=(combiner_name, jaxpr_key))
  return primitive.bind(operand, indices, updates, dimension_numbers=dimension_numbers,
                        indices_are_sorted=bool(indices_are_sorted),
                        unique_indices=bool(unique_indices),
                        mode=GatherScatterMode.from_any(mode), update_jaxpr=jaxpr,
                        update_consts=consts)


def _inverse_gather(dn: ScatterDimensionNumbers, operand_rank: int, updates_shape):
  """The dimension numbers and slice sizes of the gather that reads back, from the operand, the
  windows a scatter with ``dn`` writes."""
  gather_dnums = GatherDimensionNumbers(
      offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
      start_index_map=dn.scatter_dims_to_operand_dims,
      operand_batching_dims=dn.operand_batching_dims,
      start_indices_batching_dims=dn.scatter_indices_batching_dims)
  slice_sizes = []
  pos = 0
  for i in range(operand_rank):
    if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
      slice_sizes.append(1)
    else:
      slice_sizes.append(updates_shape[dn.update_window_dims[pos]])
      pos += 1
  return gather_dnums, tuple(slice_sizes)


def _shape_of(x):
  return x.aval.shape if ad.is_undefined_primal(x) else core.get_aval(x).shape


def _zeros_like(x):
  return structural.full_like(x, 0)


def _ones_like(x, dtype=None):
  return structural.full_like(x, 1, dtype)


def _make_scatter_addsub_jvp(primitive):
  def jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
          indices_are_sorted, unique_indices, mode):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts,
                  dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    out = primitive.bind(operand, indices, updates, **params)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
      return out, ad.Zero.from_primal_value(out)
    t_out = primitive.bind(ad.instantiate_zeros(t_operand), indices,
                           ad.instantiate_zeros(t_updates), **params)
    return out, t_out
  return jvp


def _make_scatter_addsub_transpose(primitive):
  def transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                dimension_numbers, indices_are_sorted, unique_indices, mode):
    if type(ct) is ad.Zero:
      return [ad.Zero(operand.aval) if ad.is_undefined_primal(operand) else None, None,
              ad.Zero(updates.aval) if ad.is_undefined_primal(updates) else None]
    t_operand = ct if ad.is_undefined_primal(operand) else None
    t_updates = None
    if ad.is_undefined_primal(updates):
      gather_dnums, slice_sizes = _inverse_gather(dimension_numbers, core.get_aval(ct).ndim,
                                                  _shape_of(updates))
      # Dropped (out-of-bounds) windows read 0, matching the updates that had no effect.
      t_updates = _gather(ct, indices, gather_dnums, slice_sizes, mode=mode, fill_value=0)
      if primitive is scatter_sub_p:
        t_updates = elementwise.neg(t_updates)
    return [t_operand, None, t_updates]
  return transpose


for _primitive in (scatter_add_p, scatter_sub_p):
  ad.primitive_jvps[_primitive] = _make_scatter_addsub_jvp(_primitive)
  ad.primitive_transposes[_primitive] = _make_scatter_addsub_transpose(_primitive)


_UNIQUE_MUL_MESSAGE = "scatter_mul gradients are only implemented if `unique_indices=True`"


def _scatter_mul_jvp_updates(g, operand, indices, updates, *, dimension_numbers,
                             indices_are_sorted, unique_indices, mode, **params):
  if not unique_indices:
    raise NotImplementedError(_UNIQUE_MUL_MESSAGE)
  spread = _scatter(scatter_add_p, "add", _zeros_like(operand), indices, g, dimension_numbers,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode)
  return elementwise.mul(operand, spread)


def _scatter_mul_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval) if ad.is_undefined_primal(operand) else None, None,
            ad.Zero(updates.aval) if ad.is_undefined_primal(updates) else None]
  t_operand = t_updates = None
  if ad.is_undefined_primal(operand):
    t_operand = _scatter(scatter_mul_p, "mul", ct, indices, updates, dimension_numbers,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                         mode=mode, jaxpr_key=_TRANSPOSE_JAXPR)
  if ad.is_undefined_primal(updates):
    if not unique_indices:
      raise NotImplementedError(_UNIQUE_MUL_MESSAGE)
    gather_dnums, slice_sizes = _inverse_gather(dimension_numbers, core.get_aval(ct).ndim,
                                                _shape_of(updates))
    t_updates = _gather(elementwise.mul(ct, operand), indices, gather_dnums, slice_sizes,
                        mode=mode, fill_value=0)
  return [t_operand, None, t_updates]


ad.defjvp(scatter_mul_p, lambda g, x, i, y, **params: scatter_mul_p.bind(g, i, y, **params),
          None, _scatter_mul_jvp_updates)
ad.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose


def _make_scatter_extremal_jvp(primitive):
  def jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
          indices_are_sorted, unique_indices, mode):
    # JAX's rule: where several values (updates and the original operand value) tie for the
    # extremum at one position, the tangent there is the average of their tangents.
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    dn = dimension_numbers
    out = primitive.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                         update_consts=update_consts, dimension_numbers=dn,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                         mode=mode)
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
      return out, ad.Zero.from_primal_value(out)
    t_operand = ad.instantiate_zeros(t_operand)
    t_updates = ad.instantiate_zeros(t_updates)
    gather_dnums, slice_sizes = _inverse_gather(dn, core.get_aval(operand).ndim,
                                                core.get_aval(updates).shape)
    # A CLIP scatter clamps its windows, so the reads clamp too: CLIP keeps the gathers'
    # transposes (scatter-adds) clamping rather than dropping (JAX reads PROMISE_IN_BOUNDS).
    read_mode = GatherScatterMode.CLIP if mode == GatherScatterMode.CLIP else None
    read = lambda x: _gather(x, indices, gather_dnums, slice_sizes, mode=read_mode)
    # JAX counts with the default mode (FILL_OR_DROP); the scatter's own mode counts the
    # updates a CLIP scatter clamps into bounds too (same jaxpr for FILL_OR_DROP scatters).
    add_at = lambda x, u: _scatter(scatter_add_p, "add", x, indices, u, dn, mode=mode)
    initial_vals = read(operand)
    target_vals = read(out)
    successful_updates = elementwise.eq(updates, target_vals)
    retained_values = elementwise.eq(initial_vals, target_vals)
    num_updates = read(add_at(_zeros_like(operand), elementwise.select(
        successful_updates, _ones_like(updates), _zeros_like(updates))))
    num_refs = read(add_at(_zeros_like(operand), _ones_like(updates)))
    updates_normalizer = elementwise.select(retained_values, 1.0 / (num_updates + 1),
                                            1.0 / num_updates)
    updates_coef = elementwise.select(successful_updates, updates_normalizer, _zeros_like(updates))
    operand_normalizer = elementwise.select(retained_values, 1.0 / (num_updates + 1),
                                   _zeros_like(num_updates))
    operand_coef = (-1.0 + operand_normalizer) / num_refs
    target_tangents = read(t_operand)
    tangent_updates = target_tangents * operand_coef + t_updates * updates_coef
    t_out = _scatter(scatter_add_p, "add", t_operand, indices, tangent_updates, dn,
                     indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                     mode=mode)
    return out, t_out
  return jvp


ad.primitive_jvps[scatter_min_p] = _make_scatter_extremal_jvp(scatter_min_p)
ad.primitive_jvps[scatter_max_p] = _make_scatter_extremal_jvp(scatter_max_p)


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
  if update_jaxpr is not None:
    raise NotImplementedError("scatter_apply JVP not implemented")
  operand, indices, updates = primals
  t_operand, _, t_updates = tangents
  dn = dimension_numbers
  params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts, dimension_numbers=dn,
                indices_are_sorted=indices_are_sorted, mode=mode)
  if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
    out = scatter_p.bind(operand, indices, updates, unique_indices=unique_indices, **params)
    return out, ad.Zero.from_primal_value(out)
  t_operand = ad.instantiate_zeros(t_operand)
  t_updates = ad.instantiate_zeros(t_updates)
  if unique_indices:
    out = scatter_p.bind(operand, indices, updates, unique_indices=True, **params)
    return out, scatter_p.bind(t_operand, indices, t_updates, unique_indices=True, **params)
  # Overlapping windows: which update wins is decided by scattering positive ids (one per
  # index vector) and reading them back; only the winners (and the operand elements no update
  # touched) contribute, and the result is a scatter-add of the masked values, so the
  # primal and tangent agree on the winner and no transpose of `scatter` is needed.
  updates_shape = core.get_aval(updates).shape
  ids_shape = list(updates_shape)
  for d in dn.update_window_dims:
    ids_shape[d] = 1
  num_ids = int(np.prod(ids_shape, dtype=np.int64))
  id_dtype = np.dtype(np.uint64 if num_ids > np.iinfo(np.uint32).max else np.uint32)
  update_ids = elementwise.add(structural.reshape(structural.iota(id_dtype, num_ids), ids_shape),
                               _ones_like(updates, id_dtype))
  operand_shape = core.get_aval(operand).shape
  scattered_ids = _scatter(scatter_p, None, structural.full(operand_shape, 0, id_dtype),
                           indices, update_ids, dn, indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode)
  gather_dnums, slice_sizes = _inverse_gather(dn, len(operand_shape), updates_shape)
  gathered_update_ids = _gather(scattered_ids, indices, gather_dnums, slice_sizes)
  untouched = lambda: elementwise.eq(scattered_ids, _zeros_like(scattered_ids))
  won = lambda: elementwise.eq(update_ids, gathered_update_ids)
  masked_operand = elementwise.select(untouched(), operand, _zeros_like(operand))
  masked_updates = elementwise.select(won(), updates, _zeros_like(updates))
  masked_t_operand = elementwise.select(untouched(), t_operand, _zeros_like(t_operand))
  masked_t_updates = elementwise.select(won(), t_updates, _zeros_like(t_updates))
  add = lambda x, u: _scatter(scatter_add_p, "add", x, indices, u, dn,
                              indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode)
  return add(masked_operand, masked_updates), add(masked_t_operand, masked_t_updates)


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
  # Only reached from the unique-indices JVP above (linear in operand and updates jointly).
  if not unique_indices:
    raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval) if ad.is_undefined_primal(operand) else None, None,
            ad.Zero(updates.aval) if ad.is_undefined_primal(updates) else None]
  updates_shape = _shape_of(updates)
  ct_aval = core.get_aval(ct)
  t_operand = t_updates = None
  if ad.is_undefined_primal(operand):
    # The overwritten elements get no cotangent.
    t_operand = _scatter(scatter_p, None, ct, indices,
                         structural.full(updates_shape, 0, ct_aval.dtype),
                         dimension_numbers, indices_are_sorted=indices_are_sorted,
                         unique_indices=True, mode=mode)
  if ad.is_undefined_primal(updates):
    gather_dnums, slice_sizes = _inverse_gather(dimension_numbers, ct_aval.ndim, updates_shape)
    t_updates = _gather(ct, indices, gather_dnums, slice_sizes, mode=mode, fill_value=0)
  return [t_operand, None, t_updates]


ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.primitive_transposes[scatter_p] = _scatter_transpose


def scatter_batcher(primitive, values, dims, *, dimension_numbers, indices_are_sorted,
                    unique_indices, mode, update_jaxpr, update_consts):
  """vmap of a scatter: the operand's batch axis goes in front (an unbatched operand is
  broadcast, since the examples write different values into it); unbatched indices make it a
  window dimension, batched indices a pair of scatter batching dimensions."""
  operand, indices, updates = values
  operand_bdim, indices_bdim, updates_bdim = dims
  dn = dimension_numbers
  params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
                update_jaxpr=update_jaxpr, update_consts=update_consts)
  size = next(core.get_aval(x).shape[d] for x, d in zip(values, dims) if d is not None)
  operand = batching.bdim_at_front(operand, operand_bdim, size)
  updates = batching.bdim_at_front(updates, updates_bdim, size)
  if indices_bdim is None:
    dnums = ScatterDimensionNumbers(
        update_window_dims=(0,) + tuple(np.add(1, dn.update_window_dims)),
        inserted_window_dims=tuple(np.add(1, dn.inserted_window_dims)),
        scatter_dims_to_operand_dims=tuple(np.add(1, dn.scatter_dims_to_operand_dims)),
        operand_batching_dims=tuple(np.add(1, dn.operand_batching_dims)),
        scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
    return primitive.bind(operand, indices, updates, dimension_numbers=dnums, **params), 0
  indices = batching.bdim_at_front(indices, indices_bdim, size)
  dnums = ScatterDimensionNumbers(
      update_window_dims=tuple(np.add(1, dn.update_window_dims)),
      inserted_window_dims=tuple(np.add(1, dn.inserted_window_dims)),
      scatter_dims_to_operand_dims=tuple(np.add(1, dn.scatter_dims_to_operand_dims)),
      operand_batching_dims=(0,) + tuple(np.add(1, dn.operand_batching_dims)),
      scatter_indices_batching_dims=(0,) + tuple(np.add(1, dn.scatter_indices_batching_dims)))
  return primitive.bind(operand, indices, updates, dimension_numbers=dnums, **params), 0


for _primitive in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
                   scatter_max_p):
  batching.primitive_batchers[_primitive] = (
      lambda values, dims, _primitive=_primitive, **params: scatter_batcher(
          _primitive, values, dims, **params))


# (combiner name or function, aval) -> (jaxpr, consts): one jaxpr per signature, so the eager
# shape-rule cache (keyed by params) keeps hitting.
_update_jaxpr_cache: dict = {}


def _scalar_update_jaxpr(fun: Callable, aval: ShapedArray, key=None):
  """The jaxpr of ``fun(x, y)`` on two scalars of ``aval``'s dtype (a scatter's combiner)."""
  cache_key = (key if key is not None else fun, aval)
  try:
    cached = _update_jaxpr_cache.get(cache_key)
  except TypeError:
    cache_key, cached = None, None
  if cached is not None:
    return cached
  trace = staging.StagingTrace(core.current_trace())
  with core.set_current_trace(trace):
    x = trace.new_arg(aval)
    y = trace.new_arg(aval)
    out = fun(x, y)
  closed = trace.to_jaxpr([out])
  result = (closed.jaxpr, tuple(closed.consts))
  if cache_key is not None and not result[1]:
    if len(_update_jaxpr_cache) > 512:
      _update_jaxpr_cache.clear()
    _update_jaxpr_cache[cache_key] = result
  return result


def _scalar_aval(operand) -> ShapedArray:
  return ShapedArray((), core.get_aval(operand).dtype, False)


def _combiner(lax_name: str) -> Callable:
  def combine(x, y):
    return getattr(elementwise, lax_name)(x, y)
  return combine


_combiners = {name: _combiner(name) for name in ("add", "sub", "mul", "min", "max")}


def _bind_scatter(primitive, combiner_name, operand, scatter_indices, updates, dimension_numbers,
                  indices_are_sorted, unique_indices, mode):
  return _scatter(primitive, combiner_name, operand, scatter_indices, updates,
                  _canonical_scatter_dnums(dimension_numbers),
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                  mode=mode)


_SCATTER_ARGS_DOC = """
  ``scatter_indices``' last dimension holds the index vectors; ``dimension_numbers`` (a
  :class:`ScatterDimensionNumbers`) says how they address ``operand`` and which dimensions of
  ``updates`` are window dimensions. ``mode`` defaults to FILL_OR_DROP: windows that are not
  entirely in bounds are skipped; ``'clip'`` clamps them into bounds.
  ``indices_are_sorted``/``unique_indices`` are promises that allow faster code on some backends.
  Most users want ``x.at[idx]`` instead."""


def scatter(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
            indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """XLA's Scatter with replacement (``lax.scatter``): writes ``updates`` into windows of
  ``operand``; where windows overlap, the last update in index order wins.
  """
  return _bind_scatter(scatter_p, None, operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


def scatter_add(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """Scatter-add (``lax.scatter_add``): adds ``updates`` into windows of ``operand``; repeated
  indices accumulate."""
  return _bind_scatter(scatter_add_p, "add", operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """Scatter-subtract (``lax.scatter_sub``): subtracts ``updates`` from windows of ``operand``;
  repeated indices accumulate."""
  return _bind_scatter(scatter_sub_p, "sub", operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """Scatter-multiply (``lax.scatter_mul``): multiplies windows of ``operand`` by ``updates``;
  repeated indices accumulate."""
  return _bind_scatter(scatter_mul_p, "mul", operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """Scatter-minimum (``lax.scatter_min``): windows of ``operand`` become the elementwise minimum
  of themselves and ``updates`` (NaN propagates)."""
  return _bind_scatter(scatter_min_p, "min", operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
  """Scatter-maximum (``lax.scatter_max``): windows of ``operand`` become the elementwise maximum
  of themselves and ``updates`` (NaN propagates)."""
  return _bind_scatter(scatter_max_p, "max", operand, scatter_indices, updates, dimension_numbers,
                       indices_are_sorted, unique_indices, mode)


for _f in (scatter, scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max):
  _f.__doc__ = (_f.__doc__ or "") + _SCATTER_ARGS_DOC


_scatter_apply_functions: dict = {}


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers:
                  ScatterDimensionNumbers, *, update_shape=(), indices_are_sorted: bool = False,
                  unique_indices: bool = False, mode=None):
  """Applies the unary ``func`` to the windows of ``operand`` addressed by ``scatter_indices``
  (``lax.scatter_apply``); a repeated index applies ``func`` repeatedly. ``update_shape`` is the
  shape the updates of an equivalent scatter would have."""
  dimension_numbers = _canonical_scatter_dnums(dimension_numbers)
  aval = core.get_aval(operand)
  unused = structural.full(core.canonicalize_shape(update_shape), 0, aval.dtype)
  try:
    apply = _scatter_apply_functions.get(func)
    if apply is None:
      if len(_scatter_apply_functions) > 512:
        _scatter_apply_functions.clear()
      apply = _scatter_apply_functions[func] = lambda x, _: func(x)
  except TypeError:  # an unhashable callable
    apply = lambda x, _: func(x)  # noqa: E731
  jaxpr, consts = _scalar_update_jaxpr(apply, ShapedArray((), aval.dtype, False))
  return scatter_p.bind(operand, scatter_indices, unused, dimension_numbers=dimension_numbers,
                        indices_are_sorted=bool(indices_are_sorted),
                        unique_indices=bool(unique_indices),
                        mode=GatherScatterMode.from_any(mode), update_jaxpr=jaxpr,
                        update_consts=consts)


# ---------------------------------------------------------------------------
# Batching rules of structural's dynamic_slice / dynamic_update_slice: a dynamic slice is a
# gather with one window (XLA's clamping of starts is gather's CLIP), an update a scatter.

def _shape_of_value(x):
  return core.get_aval(x).shape


def _batch_dynamic_slice_indices(indices, bdims):
  """Scalar start indices (some batched along axis 0) as one index array for gather/scatter:
  ``(B, n)`` with batch dim 0 when any is batched, else ``(n,)`` unbatched."""
  if not indices:
    return np.array([], np.int32), None
  size = next((_shape_of_value(x)[d] for x, d in zip(indices, bdims) if d is not None), None)
  if size is None:
    return structural.concatenate([structural.broadcast(i, (1,)) for i in indices], 0), None
  columns = [structural.broadcast_in_dim(x, (size, 1), (0,) if d is not None else ())
             for x, d in zip(indices, bdims)]
  return structural.concatenate(columns, 1), 0


def _dynamic_slice_batcher(values, dims, *, slice_sizes):
  operand, *start_indices = values
  operand_bdim, *index_bdims = dims
  rank = len(start_indices)
  all_dims = tuple(range(rank))
  dnums = GatherDimensionNumbers(offset_dims=all_dims, collapsed_slice_dims=(),
                                 start_index_map=all_dims, operand_batching_dims=(),
                                 start_indices_batching_dims=())
  index, index_bdim = _batch_dynamic_slice_indices(start_indices, index_bdims)
  return gather_batcher(
      [operand, index], [operand_bdim, index_bdim], dimension_numbers=dnums,
      slice_sizes=tuple(slice_sizes), unique_indices=True, indices_are_sorted=True,
      mode=GatherScatterMode.CLIP, fill_value=None)


batching.primitive_batchers[structural.dynamic_slice_p] = _dynamic_slice_batcher

def _dynamic_update_slice_batcher(values, dims):
  operand, update, *start_indices = values
  operand_bdim, update_bdim, *index_bdims = dims
  update_shape = _shape_of_value(update)
  if update_bdim is not None:
    update_shape = update_shape[:update_bdim] + update_shape[update_bdim + 1:]
  all_dims = tuple(range(len(update_shape)))
  dnums = ScatterDimensionNumbers(update_window_dims=all_dims, inserted_window_dims=(),
                                  scatter_dims_to_operand_dims=all_dims,
                                  operand_batching_dims=(), scatter_indices_batching_dims=())
  index, index_bdim = _batch_dynamic_slice_indices(start_indices, index_bdims)
  return scatter_batcher(
      scatter_p, [operand, index, update], [operand_bdim, index_bdim, update_bdim],
      dimension_numbers=dnums, indices_are_sorted=True, unique_indices=True,
      mode=GatherScatterMode.CLIP, update_jaxpr=None, update_consts=())


batching.primitive_batchers[structural.dynamic_update_slice_p] = _dynamic_update_slice_batcher


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

eval_interpreter.exact_kernels(gather_p, scatter_p)
eval_interpreter.exact_kernels(scatter_min_p, scatter_max_p, when=eval_interpreter.no_complex,
                               subnormals=True)
eval_interpreter.exact_kernels(scatter_add_p, scatter_sub_p, scatter_mul_p,
                               when=eval_interpreter.integral)
