"""Sorting primitives: sort (several operands, lexicographic on the first ``num_keys``) and top_k.

XLA's orders, reproduced by the NumPy kernels:
- ``sort`` compares floats with -0.0 equal to +0.0 and every NaN (either sign) after +inf;
  complex numbers compare by real part, then imaginary part, each in that order; with
  ``is_stable`` equal keys keep their input order (without it, eager sorting runs XLA, whose
  unstable sort orders ties its own way).
- ``top_k`` uses the IEEE total order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN) and
  puts the lower index first among equal values.

Lowerings, as JAX's: ``stablehlo.sort`` whose comparator canonicalises zeros and NaNs and then
compares in total order, lexicographically over the keys; ``chlo.top_k`` on the last dimension
(other axes are transposed there and back).
"""
from __future__ import annotations

import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import slicing
from axle._src.lax import structural
from axle._src.lax import utils

__all__ = ["sort", "sort_key_val", "top_k", "approx_max_k", "approx_min_k", "approx_top_k_p",
           "eq_to_p", "lt_to_p", "le_to_p"]

_int_of_width = {2: np.int16, 4: np.int32, 8: np.int64}


def _total_order_key(x: np.ndarray, canonicalize: bool) -> np.ndarray:
  """Signed integers ordered like the floats ``x`` in IEEE total order.

  With ``canonicalize``, -0.0 becomes +0.0 and every NaN the positive quiet NaN first (sort's
  comparator, which treats those as equal)."""
  if x.dtype == dtypes.bfloat16:
    x = x.astype(np.float32)
  if canonicalize:
    x = np.where(x == 0, np.zeros((), x.dtype), x)
    x = np.where(np.isnan(x), np.array(np.nan, x.dtype), x)
  bits = np.ascontiguousarray(x).view(_int_of_width[x.dtype.itemsize])
  width = 8 * x.dtype.itemsize
  # Negative floats have their magnitude bits reversed so larger magnitudes sort lower.
  return bits ^ ((bits >> (width - 1)) & np.array(2 ** (width - 1) - 1, bits.dtype))


def _sort_keys(x: np.ndarray, canonicalize: bool = True) -> list[np.ndarray]:
  """Arrays whose lexicographic order is XLA's order of ``x`` (one for real, two for complex)."""
  if x.dtype.kind == "c":
    return [_total_order_key(x.real, canonicalize), _total_order_key(x.imag, canonicalize)]
  if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16:
    return [_total_order_key(x, canonicalize)]
  if x.dtype == np.bool_:
    return [x.astype(np.uint8)]
  return [x]


# ---------------------------------------------------------------------------
# sort


def _sort_rule(*operands: ShapedArray, dimension, is_stable, num_keys) -> list[ShapedArray]:
  if not operands:
    raise TypeError("Sort requires at least one operand")
  shapes = [a.shape for a in operands]
  if len(set(shapes)) != 1:
    raise TypeError("Arguments to sort must have equal shapes, got: "
                    + " ".join(str(s) for s in shapes))
  if not 0 <= dimension < len(shapes[0]):
    raise ValueError(f"axis {dimension} is out of bounds for array of dimension {len(shapes[0])}")
  if not 1 <= num_keys <= len(operands):
    raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
  return list(operands)


def _sort_impl(*operands, dimension, is_stable, num_keys):
  if not is_stable:
    # XLA's unstable sort leaves equal keys in an order of its own (not the input order), and
    # that order is JAX's answer: run it.
    return eval_interpreter.run_on_xla(sort_p, operands, {"dimension": dimension,
                                                    "is_stable": is_stable, "num_keys": num_keys})
  first = np.asarray(operands[0])
  if num_keys == 1 and first.dtype.kind in "biuf":
    # NumPy's stable sort already orders real numbers as XLA does: -0.0 == +0.0, NaNs last.
    if len(operands) == 1:
      return [np.sort(first, axis=dimension, kind="stable")]
    perm = np.argsort(first, axis=dimension, kind="stable")
    return [np.take_along_axis(np.asarray(x), perm, axis=dimension) for x in operands]
  arrays = [np.moveaxis(np.asarray(x), dimension, -1) for x in operands]
  keys = [k for x in arrays[:num_keys] for k in _sort_keys(x)]
  if len(keys) == 1:
    perm = np.argsort(keys[0], axis=-1, kind="stable")
  else:
    # np.lexsort sorts by its last key first, and is stable.
    perm = np.lexsort(keys[::-1], axis=-1)
  return [np.ascontiguousarray(np.moveaxis(np.take_along_axis(x, perm, axis=-1), -1, dimension))
          for x in arrays]


sort_p = core.Primitive("sort")
sort_p.multiple_results = True
sort_p.def_abstract_eval(_sort_rule)
sort_p.def_impl(_sort_impl)


def _take_along(x, indices, axis: int):
  """``x`` gathered at ``indices`` (in bounds) along ``axis``."""
  # What ``jnp.take_along_axis(x, indices, axis, mode="clip")`` binds: one index array per
  # dimension (``indices`` along ``axis``, an iota elsewhere, zeros for a size-1 dimension),
  # negative indices wrapped, stacked into one gather.
  shape = core.get_aval(indices).shape
  x_shape = core.get_aval(x).shape
  int_dtype = dtypes.default_int_dtype()
  columns = []
  for i, size in enumerate(x_shape):
    if i == axis:
      index = indices
    elif size == 1:
      index = structural.full(shape, 0, int_dtype)
    else:
      index = structural.broadcasted_iota(int_dtype, shape, i)
    index_dtype = core.get_aval(index).dtype
    index = elementwise.select_n(elementwise.lt(index, np.array(0, index_dtype)), index,
                                 elementwise.add(index, np.array(size, index_dtype)))
    columns.append(index)
  columns = [structural.broadcast_in_dim(c, shape + (1,), tuple(range(len(shape))))
             for c in columns]
  stacked = columns[0] if len(columns) == 1 else structural.concatenate(columns, len(shape))
  dims = tuple(range(len(x_shape)))
  dnums = slicing.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=dims,
                                         start_index_map=dims)
  if 0 in x_shape:  # nothing to gather from: zeros of the result's shape (as jnp indexing)
    return structural.full(shape, 0, core.get_aval(x).dtype)
  return slicing.gather(x, stacked, dnums, (1,) * len(x_shape), mode="clip")


def _gather_along(x, indices, dimension: int, batch_dims):
  """``x`` gathered along ``dimension`` at ``indices`` (its shape plus a trailing 1), whose other
  dimensions are batch dimensions ``batch_dims``; the indices are promised in bounds."""
  dnums = slicing.GatherDimensionNumbers(
      offset_dims=(), collapsed_slice_dims=(dimension,), start_index_map=(dimension,),
      operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
  return slicing.gather_p.bind(
      x, indices, dimension_numbers=dnums, slice_sizes=(1,) * core.get_aval(x).ndim,
      indices_are_sorted=False, unique_indices=False,
      mode=slicing.GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
  """Sorts an iota along with the operands; the permutation it ends up in gathers the tangents."""
  shape = core.get_aval(primals[0]).shape
  index_dtype = np.uint32 if shape[dimension] < np.iinfo(np.uint32).max else np.uint64
  iota = structural.broadcasted_iota(index_dtype, shape, dimension)
  outs = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
  indices = structural.broadcast_in_dim(outs[-1], shape + (1,), tuple(range(len(shape))))
  # JAX's params hold these as NumPy integers (and print them as np.int64(...)).
  batch_dims = tuple(np.int64(d) for d in range(len(shape)) if d != dimension)
  if 0 in shape:
    # Nothing to permute (axle's gather shape rule rejects unit slices of empty dimensions,
    # which JAX lets through when there are no indices).
    return list(outs[:-1]), list(tangents)
  tangents_out = [t if type(t) is ad.Zero else _gather_along(t, indices, dimension, batch_dims)
                  for t in tangents]
  return list(outs[:-1]), tangents_out


ad.primitive_jvps[sort_p] = _sort_jvp


def _sort_batcher(values, dims, *, dimension, is_stable, num_keys):
  """Every operand gets the batch axis where the first batched one has it (unbatched operands
  are broadcast); the sorted dimension shifts past it."""
  prototype, bdim = next((v, d) for v, d in zip(values, dims) if d is not None)
  shape = core.get_aval(prototype).shape
  new_values = []
  for v, d in zip(values, dims):
    if d is None:
      kept = tuple(i for i in range(len(shape)) if i != bdim)
      new_values.append(structural.broadcast_in_dim(v, shape, kept))
    else:
      new_values.append(batching.moveaxis(v, d, bdim))
  new_dimension = dimension + (1 if bdim <= dimension else 0)
  outs = sort_p.bind(*new_values, dimension=new_dimension, is_stable=is_stable, num_keys=num_keys)
  return outs, [bdim] * len(outs)


batching.primitive_batchers[sort_p] = _sort_batcher


def _comparator_keys(ctx, x: mlir.Value) -> list[tuple[mlir.Value, str]]:
  """The scalar keys (and comparison types) that order one operand's element ``x``: floats with
  -0.0 made +0.0 and every NaN the positive quiet NaN, then compared in IEEE total order (so
  NaNs sort last); complex numbers by real part, then imaginary part."""
  dtype = x.aval.dtype
  if dtype.kind == "c":
    part = ShapedArray((), np.dtype(dtype.type(0).real.dtype))
    parts = [mlir.op(ctx, "stablehlo.real", [x], part), mlir.op(ctx, "stablehlo.imag", [x], part)]
    return [key for p in parts for key in _comparator_keys(ctx, p)]
  kind = mlir.compare_type(dtype)
  if kind != "FLOAT":
    return [(x, kind)]
  is_zero = mlir.compare(ctx, x, mlir.constant(ctx, np.zeros((), dtype)), "EQ")
  zeroed = mlir.select(ctx, is_zero, mlir.constant(ctx, np.zeros((), dtype)), x)
  is_nan = mlir.compare(ctx, x, x, "NE")  # of the operand itself, as JAX's comparator
  x = mlir.select(ctx, is_nan, mlir.constant(ctx, np.array(np.nan, dtype)), zeroed)
  return [(x, "TOTALORDER")]


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
  scalar_avals = [ShapedArray((), a.dtype) for a in ctx.avals_in]

  def comparator(ctx, *args):
    # Lexicographic "less than" over the keys of the first num_keys operands.
    pairs = []
    for i in range(num_keys):
      lhs_keys = _comparator_keys(ctx, args[2 * i])
      rhs_keys = _comparator_keys(ctx, args[2 * i + 1])
      pairs.extend((l, r, kind) for (l, kind), (r, _) in zip(lhs_keys, rhs_keys))
    boolean = ShapedArray((), np.dtype(np.bool_))
    result = None
    for lhs, rhs, kind in reversed(pairs):
      less = mlir.compare(ctx, lhs, rhs, "LT", kind)
      if result is None:
        result = less
      else:
        equal = mlir.compare(ctx, lhs, rhs, "EQ", kind)
        result = mlir.op(ctx, "stablehlo.or",
                         [less, mlir.op(ctx, "stablehlo.and", [equal, result], boolean)], boolean)
    return result

  arg_avals = [a for a in scalar_avals for _ in range(2)]
  return mlir.op(ctx, "stablehlo.sort", list(operands), list(ctx.avals_out),
                 {"dimension": f"{dimension} : i64", "is_stable": "true" if is_stable else "false"},
                 regions=[mlir.region(ctx, arg_avals, comparator)])


mlir.register(sort_p, _sort_lowering)


def _canonical_dimension(dimension, ndim: int) -> int:
  dimension = operator.index(dimension)
  if not -ndim <= dimension < ndim:
    raise ValueError(f"axis {dimension} is out of bounds for array of dimension {ndim}")
  return dimension % ndim if ndim else dimension


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
  """Sorts ``operand`` along ``dimension`` (``lax.sort``).

  ``operand`` is an array or a sequence of equally-shaped arrays; the first ``num_keys`` of them
  are the keys, compared lexicographically, and the rest are permuted alongside. Returns an array
  for an array and a tuple for a sequence. NaNs sort last; -0.0 and +0.0 compare equal.
  """
  if isinstance(operand, (list, tuple)):
    if not operand:
      raise TypeError("Sort requires at least one operand")
    if not 1 <= num_keys <= len(operand):
      raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operand)}")
    ndim = core.get_aval(operand[0]).ndim
    dimension = _canonical_dimension(dimension, ndim)
    return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                             num_keys=operator.index(num_keys)))
  if num_keys != 1:
    raise ValueError(f"num_keys={num_keys} must be 1 when sorting a single operand")
  dimension = _canonical_dimension(dimension, core.get_aval(operand).ndim)
  return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
  """Sorts ``keys`` along ``dimension`` and permutes ``values`` the same way (``lax.sort_key_val``).

  Returns ``(sorted_keys, permuted_values)``.
  """
  dimension = _canonical_dimension(dimension, core.get_aval(keys).ndim)
  k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
  return k, v


# ---------------------------------------------------------------------------
# Total-order comparisons (eq_to, lt_to, le_to): floats compare in IEEE total order
# (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), other dtypes as eq/lt/le. jnp's sorted
# searches canonicalise zeros and NaNs first and then compare with these, as sort's comparator.

_total_order_operands = (np.integer, np.floating, np.bool_)


def _total_order_kernel(compare):
  def kernel(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16:
      x, y = _total_order_key(x, False), _total_order_key(y, False)
    return compare(x, y)
  return kernel


def _total_order_lowering(direction: str):
  def rule(ctx, x, y):
    shape = ctx.avals_out[0].shape
    dtype = ctx.avals_in[0].dtype
    kind = "TOTALORDER" if mlir.compare_type(dtype) == "FLOAT" else None
    return mlir.compare(ctx, mlir.broadcast_to(ctx, x, shape), mlir.broadcast_to(ctx, y, shape),
                        direction, kind)
  rule.__name__ = f"_total_order_{direction.lower()}_lowering"
  return rule


eq_to_p = utils.binop("eq_to", _total_order_operands, _total_order_kernel(np.equal),
                      utils.bool_result)
mlir.register(eq_to_p, _total_order_lowering("EQ"))
lt_to_p = utils.binop("lt_to", _total_order_operands, _total_order_kernel(np.less),
                      utils.bool_result)
mlir.register(lt_to_p, _total_order_lowering("LT"))
le_to_p = utils.binop("le_to", _total_order_operands, _total_order_kernel(np.less_equal),
                      utils.bool_result)
mlir.register(le_to_p, _total_order_lowering("LE"))
for _comparison in (eq_to_p, lt_to_p, le_to_p):
  ad.defjvp_zero(_comparison)
  batching.defbroadcasting(_comparison)


# ---------------------------------------------------------------------------
# top_k


def _top_k_rule(operand: ShapedArray, *, k, axis) -> list[ShapedArray]:
  if operand.dtype.kind == "c":
    raise ValueError("top_k is not compatible with complex inputs.")
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  if not 0 <= axis < operand.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
  if operand.shape[axis] < k:
    raise ValueError(f"k argument to top_k must be no larger than size along axis; got k={k} with "
                     f"shape={list(operand.shape)} and axis={axis}")
  shape = list(operand.shape)
  shape[axis] = k
  return [ShapedArray(shape, operand.dtype), ShapedArray(shape, np.int32)]


def _top_k_impl(operand, *, k, axis):
  x = np.asarray(operand)
  last = axis in (-1, x.ndim - 1)
  if not last:
    x = np.moveaxis(x, axis, -1)
  key, = _sort_keys(x, canonicalize=False)
  # ~key reverses the order of any integer type without overflow; a stable sort then puts the
  # lower index first among equal values.
  order = np.argsort(~key, axis=-1, kind="stable")[..., :k]
  values = x[order] if x.ndim == 1 else np.take_along_axis(x, order, axis=-1)
  indices = order.astype(np.int32)
  if last:
    return [values, indices]
  return [np.ascontiguousarray(np.moveaxis(values, -1, axis)),
          np.ascontiguousarray(np.moveaxis(indices, -1, axis))]


top_k_p = core.Primitive("top_k")
top_k_p.multiple_results = True
top_k_p.def_abstract_eval(_top_k_rule)
top_k_p.def_impl(_top_k_impl)


def _top_k_lowering(ctx, x, *, k, axis):
  # chlo.top_k works on the last dimension: swap ``axis`` with it and back.
  last = len(ctx.avals_in[0].shape) - 1
  permutation = list(range(last + 1))
  permutation[axis], permutation[last] = last, axis
  if axis != last:
    x = mlir.transpose(ctx, x, permutation)
  shape = list(x.aval.shape)
  shape[-1] = k
  values, indices = mlir.op(ctx, "chlo.top_k", [x],
                            [ShapedArray(shape, x.aval.dtype), ShapedArray(shape, np.int32)],
                            {"k": f"{k} : i64"})
  if axis != last:
    values = mlir.transpose(ctx, values, permutation)
    indices = mlir.transpose(ctx, indices, permutation)
  return [values, indices]


mlir.register(top_k_p, _top_k_lowering)


def _top_k_jvp(primals, tangents, *, k, axis):
  (operand,), (tangent,) = primals, tangents
  values, indices = top_k_p.bind(operand, k=k, axis=axis)
  shape = core.get_aval(indices).shape
  gather_indices = structural.reshape(indices, shape + (1,))
  batch_dims = tuple(d for d in range(len(shape)) if d != axis)
  tangent_out = _gather_along(ad.instantiate_zeros(tangent), gather_indices, axis, batch_dims)
  return [values, indices], [tangent_out, ad.Zero.from_primal_value(indices)]


ad.primitive_jvps[top_k_p] = _top_k_jvp


def _top_k_batcher(values, dims, *, k, axis):
  (x,), (bdim,) = values, dims
  axis = axis + 1 if bdim <= axis else axis
  return top_k_p.bind(x, k=k, axis=axis), [bdim, bdim]


batching.primitive_batchers[top_k_p] = _top_k_batcher


def top_k(operand, k: int, *, axis: int = -1):
  """The ``k`` largest entries of ``operand`` along ``axis`` and their int32 indices (``lax.top_k``).

  Returns ``[values, indices]``, largest first; among equal values the lower index comes first.
  NaN counts as larger than +inf (a negative NaN as smaller than -inf).
  """
  if isinstance(k, float) and k.is_integer():
    k = int(k)
  k = operator.index(k)
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  axis = _canonical_dimension(axis, core.get_aval(operand).ndim)
  return top_k_p.bind(operand, k=k, axis=axis)


# ---------------------------------------------------------------------------
# approx_top_k (approx_max_k / approx_min_k)

approx_top_k_p = core.Primitive("approx_top_k")
approx_top_k_p.multiple_results = True


def _approx_output_size(operand: ShapedArray, k, reduction_dimension, aggregate_to_topk) -> int:
  size = operand.shape[reduction_dimension]
  if aggregate_to_topk:
    return k
  # Without aggregation XLA keeps a reduced window whose size depends on TPU tiling (1024 for
  # rank 1, 128 otherwise); inputs within one tile are kept whole, which is all axle models.
  tile = 1024 if operand.ndim == 1 else 128
  if size <= tile:
    return size
  raise NotImplementedError(
      f"approx_max_k/approx_min_k with aggregate_to_topk=False on a reduction dimension of size "
      f"{size} (over {tile}) is not supported by axle; pass aggregate_to_topk=True")


def _approx_top_k_rule(operand: ShapedArray, *, k, reduction_dimension, recall_target, is_max_k,
                       reduction_input_size_override, aggregate_to_topk):
  if not dtypes.issubdtype(operand.dtype, np.floating):
    raise ValueError(f"approx_max_k/approx_min_k: operand must be a floating type, got "
                     f"{operand.dtype}")
  dim = _canonical_dimension(reduction_dimension, operand.ndim)
  if not 0 <= k <= operand.shape[dim]:
    raise ValueError(f"k must be in [0, operand.shape[reduction_dimension]] = "
                     f"[0, {operand.shape[dim]}], got k={k}")
  shape = list(operand.shape)
  shape[dim] = _approx_output_size(operand, k, dim, aggregate_to_topk)
  return [ShapedArray(tuple(shape), operand.dtype), ShapedArray(tuple(shape), np.int32)]


approx_top_k_p.def_abstract_eval(_approx_top_k_rule)


def _order_reversed(x):
  # Negation reverses the order exactly and is its own inverse.
  return elementwise.neg(x)


def _approx_top_k_lowered(operand, *, k, reduction_dimension, recall_target, is_max_k,
                          reduction_input_size_override, aggregate_to_topk):
  # On CPU and GPU XLA's ApproxTopK falls back to an exact sort-and-slice: the exact top-k.
  aval = core.get_aval(operand)
  dim = _canonical_dimension(reduction_dimension, aval.ndim)
  size = _approx_output_size(aval, k, dim, aggregate_to_topk)
  if is_max_k:
    return top_k(operand, size, axis=dim)
  values, indices = top_k(_order_reversed(operand), size, axis=dim)
  return [_order_reversed(values), indices]


mlir.register(approx_top_k_p, mlir.lower_fun(_approx_top_k_lowered, multiple_results=True))


def _approx_top_k_jvp(primals, tangents, **params):
  (operand,), (tangent,) = primals, tangents
  values, indices = approx_top_k_p.bind(operand, **params)
  dim = _canonical_dimension(params["reduction_dimension"], core.get_aval(operand).ndim)
  tangent_out = _take_along(ad.instantiate_zeros(tangent), indices, dim)
  return [values, indices], [tangent_out, ad.Zero.from_primal_value(indices)]


ad.primitive_jvps[approx_top_k_p] = _approx_top_k_jvp


def _approx_top_k_batcher(values, dims, *, reduction_dimension, **params):
  (x,), (bdim,) = values, dims
  ndim = core.get_aval(x).ndim - 1
  dim = _canonical_dimension(reduction_dimension, ndim)
  dim = dim + 1 if bdim <= dim else dim
  return approx_top_k_p.bind(x, reduction_dimension=dim, **params), [bdim, bdim]


batching.primitive_batchers[approx_top_k_p] = _approx_top_k_batcher


def _approx_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
              aggregate_to_topk, is_max_k):
  k = operator.index(k)
  reduction_dimension = operator.index(reduction_dimension)
  _canonical_dimension(reduction_dimension, core.get_aval(operand).ndim)
  return approx_top_k_p.bind(operand, k=k, reduction_dimension=reduction_dimension,
                             recall_target=float(recall_target), is_max_k=is_max_k,
                             reduction_input_size_override=int(reduction_input_size_override),
                             aggregate_to_topk=bool(aggregate_to_topk))


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The (approximately) ``k`` largest entries of ``operand`` along ``reduction_dimension`` and
  their int32 indices (``lax.approx_max_k``). On TPU this is an approximate search with the given
  ``recall_target``; on CPU and GPU, as in JAX, the result is the exact top-k, largest first."""
  return _approx_k(operand, k, reduction_dimension, recall_target,
                   reduction_input_size_override, aggregate_to_topk, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The (approximately) ``k`` smallest entries of ``operand`` along ``reduction_dimension`` and
  their int32 indices (``lax.approx_min_k``); exact on CPU and GPU, smallest first."""
  return _approx_k(operand, k, reduction_dimension, recall_target,
                   reduction_input_size_override, aggregate_to_topk, False)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

eval_interpreter.exact_kernels(sort_p, top_k_p, when=eval_interpreter.no_complex, subnormals=True)
# Total-order comparisons compare bit patterns: exact on every operand, subnormals included.
eval_interpreter.exact_kernels(eq_to_p, lt_to_p, le_to_p)
