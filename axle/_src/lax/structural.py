"""Structural primitives: operations that move, copy or create elements without arithmetic.

Primitives (JAX's names and params): ``broadcast_in_dim``, ``reshape``,
``squeeze``, ``transpose``, ``rev``, ``concatenate``, ``pad``, ``slice``,
``dynamic_slice``, ``dynamic_update_slice``, ``iota`` and ``split``, plus the
lax functions built on them (``broadcast``, ``expand_dims``, ``full``,
``slice_in_dim``, ``dynamic_index_in_dim``, ...).

As in JAX, ``expand_dims`` is not a primitive: it binds ``broadcast_in_dim``
with size-1 dimensions at the new positions; ``broadcast`` and ``full`` bind
``broadcast_in_dim`` too, and ``collapse`` binds ``reshape``.

Eager kernels are NumPy views where possible (``np.broadcast_to``, reshape,
transpose, basic slicing). That is safe because an Array's value is never
written to; the kernels that write (``pad``, ``dynamic_update_slice``) write
only into arrays they have just allocated.

Dynamic slices follow XLA: each start index is clamped to
``[0, operand_dim - slice_size]`` so the slice stays in bounds. The lax
functions first wrap negative indices (``allow_negative_indices``), exactly
as JAX does, which is what the printed jaxprs show.
"""
from __future__ import annotations

import math
import operator
from typing import Sequence

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.array import Array
from axle._src.core import ShapedArray, Tracer
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import staging
from axle._src.lax import elementwise
from axle._src.xla import spmd_jit
from axle._src.lax import elementwise_convert
from axle._src.lax import utils

__all__ = [
    "broadcast", "broadcast_in_dim", "broadcast_to_rank", "reshape", "squeeze", "expand_dims",
    "transpose", "rev", "concatenate", "pad", "slice", "slice_in_dim", "index_in_dim",
    "dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_slice",
    "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "iota", "broadcasted_iota",
    "full", "full_like", "split", "collapse",
    "broadcast_in_dim_p", "reshape_p", "squeeze_p", "transpose_p", "rev_p", "concatenate_p",
    "pad_p", "slice_p", "dynamic_slice_p", "dynamic_update_slice_p", "iota_p", "split_p",
]

_builtin_slice = slice


# ---------------------------------------------------------------------------
# Helpers


def _is_array(x) -> bool:
  """JAX's ``isinstance(x, Array)``: concrete Arrays and tracers (not NumPy values)."""
  return isinstance(x, (Array, Tracer))


def _aval(x) -> ShapedArray:
  """``core.get_aval``, except that NumPy scalars (np.float64 is a Python float subclass) are
  strongly typed values of their canonical dtype, as in JAX."""
  if isinstance(x, (np.ndarray, np.generic)):
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), False)
  return core.get_aval(x)


def _shape(x) -> tuple[int, ...]:
  return _aval(x).shape


def _is_weakly_typed(x) -> bool:
  """JAX's rule: Python int/float/complex scalars (not bool) and weakly typed arrays."""
  if type(x) in (int, float, complex):
    return True
  return _is_array(x) and x.aval.weak_type


def _canonicalize_shape(shape, context: str = "") -> tuple[int, ...]:
  """A shape argument as a tuple of Python ints.

  Traced or non-integer sizes raise through ``core.canonicalize_shape``. Negative sizes pass
  through so that the primitive's shape rule rejects them with JAX's message."""
  if type(shape) is tuple and all(type(d) is int for d in shape):
    return shape
  try:
    items = tuple(shape) if not isinstance(shape, (int, np.integer)) else (shape,)
  except TypeError:
    return core.canonicalize_shape(shape, context)
  if all(isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) for d in items):
    return tuple(int(d) for d in items)
  return core.canonicalize_shape(shape, context)


def _check_shapelike(fun_name: str, arg_name: str, obj) -> None:
  """``obj`` must be a tuple/list of non-negative integers (JAX's check and messages)."""
  if not isinstance(obj, (tuple, list, np.ndarray)):
    raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, got {type(obj)}.")
  if not len(obj):
    return
  if np.ndim(obj) != 1:
    raise TypeError(f"{fun_name} {arg_name} must be 1-dimensional, got {np.ndim(obj)}.")
  if not all(isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) for d in obj):
    raise TypeError(f"{fun_name} {arg_name} must have every element be an integer type, "
                    f"got {tuple(map(type, obj))}.")
  if not all(d >= 0 for d in obj):
    raise TypeError(f"{fun_name} {arg_name} must have every element be nonnegative, got {obj}.")


def _check_no_sharding(name: str, sharding) -> None:
  if sharding is not None:
    raise NotImplementedError(
        f"{name}: sharding arguments are not supported by axle (single device); pass None, "
        f"got {sharding!r}.")


def _int_index_tuple(name: str, arg_name: str, values) -> tuple[int, ...]:
  """Static integer arguments (axes, indices) as a tuple of Python ints; tracers raise."""
  out = []
  for v in values:
    if isinstance(v, Tracer):
      core.concrete_or_error(None, v, f"The {arg_name} argument of lax.{name} must be static.")
    out.append(operator.index(v))
  return tuple(out)


def _reduce_sum(x, axes):
  """The sum the transposes of broadcast_in_dim and pad reduce cotangents with."""
  from axle._src.lax import reductions  # call time: reductions is built on this family
  return reductions.reduce_sum(x, tuple(axes))


def _undefined_or_shape(x) -> tuple[int, ...]:
  """The shape of a transpose-rule operand, linear (UndefinedPrimal) or not."""
  return x.aval.shape if ad.is_undefined_primal(x) else _shape(x)


def _zero_cotangents(operands) -> list:
  """Symbolic zero cotangents for the linear operands of a transpose rule, None for the rest."""
  return [ad.Zero(o.aval) if ad.is_undefined_primal(o) else None for o in operands]


# ---------------------------------------------------------------------------
# broadcast_in_dim

broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


def _broadcast_in_dim_abstract_eval(operand: ShapedArray, *, shape, broadcast_dimensions,
                                    sharding) -> ShapedArray:
  _check_shapelike("broadcast_in_dim", "shape", shape)
  _check_shapelike("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
  ndim = operand.ndim
  if ndim != len(broadcast_dimensions):
    raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; "
                    f"got broadcast_dimensions {broadcast_dimensions} for operand ndim {ndim}.")
  if len(shape) < ndim:
    raise TypeError("broadcast_in_dim target broadcast shape must have equal or higher rank to the "
                    f"operand shape; got operand ndim {ndim} and target broadcast ndim {len(shape)}.")
  if not set(broadcast_dimensions).issubset(range(len(shape))):
    raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, "
                    f"got {broadcast_dimensions} for operand ndim {ndim} and shape {shape}.")
  if not all(operand.shape[i] in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)):
    raise TypeError(
        "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
        "corresponding dimensions in the target broadcast shape; got operand of shape "
        f"{operand.shape}, target broadcast shape {shape}, broadcast_dimensions "
        f"{broadcast_dimensions} ")
  if len(set(broadcast_dimensions)) != len(broadcast_dimensions):
    raise TypeError("broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
                    f"broadcast_dimensions {broadcast_dimensions}")
  return ShapedArray(tuple(shape), operand.dtype, operand.weak_type)


broadcast_in_dim_p.def_abstract_eval(_broadcast_in_dim_abstract_eval)
staging.forwarding_rules[broadcast_in_dim_p] = lambda avals, params: [
    0 if tuple(avals[0].shape) == tuple(params["shape"]) and params["sharding"] is None else None]


# Broadcasts to at most this many elements are copied (cheaper than ``np.broadcast_to``'s view
# for small arrays); larger ones stay read-only views.
_COPIED_BROADCAST_SIZE = 4096


def _broadcast_in_dim_impl(operand, *, shape, broadcast_dimensions, sharding):
  operand = np.asarray(operand)
  dims = tuple(broadcast_dimensions)
  if list(dims) != sorted(dims):  # unsorted: bring operand dims into output order
    order = sorted(range(len(dims)), key=dims.__getitem__)
    operand = np.transpose(operand, order)
    dims = tuple(dims[i] for i in order)
  expanded = [1] * len(shape)
  for size, d in zip(operand.shape, dims):
    expanded[d] = size
  shape = tuple(shape)
  if tuple(expanded) == shape:  # only unit dimensions added
    return operand.reshape(shape)
  if math.prod(shape) <= _COPIED_BROADCAST_SIZE:
    out = np.empty(shape, operand.dtype)
    out[...] = operand.reshape(expanded)
    return out
  return np.broadcast_to(operand.reshape(expanded), shape)


broadcast_in_dim_p.def_impl(_broadcast_in_dim_impl)


def _broadcast_in_dim_lowering(ctx, operand, *, shape, broadcast_dimensions, sharding):
  return mlir.broadcast_in_dim(ctx, operand, ctx.avals_out[0], broadcast_dimensions)


mlir.register(broadcast_in_dim_p, _broadcast_in_dim_lowering)


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions, sharding):
  # Sum over the new dimensions and over the size-1 dimensions that were broadcast, then put
  # the size-1 dimensions back.
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  unit_dims = [i for i, s in enumerate(operand.aval.shape) if s == 1]
  kept_dims = tuple(np.delete(broadcast_dimensions, unit_dims))
  summed = tuple(np.delete(range(len(shape)), kept_dims))
  return [expand_dims(_reduce_sum(ct, summed), unit_dims)]


ad.deflinear2(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _broadcast_in_dim_batcher(values, dims, *, shape, broadcast_dimensions, sharding):
  (operand,), (bdim,) = values, dims
  operand = batching.moveaxis(operand, bdim, 0)
  new_shape = (_shape(operand)[0],) + tuple(shape)
  new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))
  return broadcast_in_dim_p.bind(operand, shape=new_shape, broadcast_dimensions=new_dims,
                                 sharding=sharding), 0


batching.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_batcher


def _broadcast_in_dim_forward(trace, args, params):
  # Staging a broadcast that changes nothing forwards its operand, and a scalar constant
  # operand becomes a literal of the trace (as JAX: full_like of a tracer stages no equation).
  (operand,) = args
  shape = params["shape"]
  if params["broadcast_dimensions"] != tuple(range(len(shape))) or params["sharding"] is not None:
    return None
  if isinstance(operand, Tracer):
    if operand._trace is trace and operand.aval.shape == shape and staging._forwarding[-1]:
      return operand
    return None
  if shape:
    return None
  atom = trace.to_atom(operand)
  if type(atom) is not ir.Literal:
    return None
  return trace.literal_tracer(atom.val, atom.aval)


staging.folding_rules[broadcast_in_dim_p] = _broadcast_in_dim_forward


def _broadcast_in_dim_pp_params(params: dict) -> dict:
  # JAX shows only non-empty broadcast_dimensions: the shape is in the binder's type.
  dims = params["broadcast_dimensions"]
  return {"broadcast_dimensions": dims} if dims else {}


ir.pp_param_rules[broadcast_in_dim_p] = _broadcast_in_dim_pp_params


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
  """Broadcasts ``operand`` to ``shape`` (``lax.broadcast_in_dim``, XLA's BroadcastInDim).

  Dimension ``i`` of ``operand`` becomes dimension ``broadcast_dimensions[i]`` of the result;
  its size must be 1 or equal to ``shape[broadcast_dimensions[i]]``. The other result
  dimensions are new. ``shape`` must be static.
  """
  _check_no_sharding("broadcast_in_dim", out_sharding)
  shape = _canonicalize_shape(shape)
  broadcast_dimensions = tuple(broadcast_dimensions)
  if _is_array(operand) and operand.shape == shape and broadcast_dimensions == tuple(range(len(shape))):
    return operand  # JAX forwards the operand of a broadcast that changes nothing
  return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=broadcast_dimensions,
                                 sharding=None)


def broadcast(operand, sizes, *, out_sharding=None):
  """Adds leading dimensions of sizes ``sizes`` to ``operand`` (``lax.broadcast``).

  The result has shape ``(*sizes, *operand.shape)``; binds ``broadcast_in_dim``.
  """
  _check_no_sharding("broadcast", out_sharding)
  sizes = _canonicalize_shape(sizes)
  if not sizes:
    return _asarray(operand)
  operand_shape = _shape(operand)
  dims = tuple(range(len(sizes), len(sizes) + len(operand_shape)))
  return broadcast_in_dim(operand, sizes + operand_shape, dims)


def broadcast_to_rank(x, rank: int):
  """Adds leading dimensions of size 1 to give ``x`` rank ``rank`` (``lax.broadcast_to_rank``)."""
  ndim = len(_shape(x))
  if ndim == rank:
    return _asarray(x)
  return broadcast(x, (1,) * (rank - ndim))


def _asarray(x):
  """lax's ``asarray``: an Array or tracer unchanged, anything else converted to an Array of its
  own (canonical) dtype and weak type."""
  if _is_array(x):
    return x
  aval = _aval(x)
  if core.is_extended(aval):  # a concrete key array: already an array of its dtype
    return x
  if isinstance(x, (bool, int, float, complex, np.generic)):
    return Array(np.asarray(x, aval.dtype), aval=aval)
  return elementwise_convert._convert_element_type(x, aval.dtype, aval.weak_type)


# ---------------------------------------------------------------------------
# reshape

reshape_p = core.Primitive("reshape")


def _reshape_abstract_eval(operand: ShapedArray, *, new_sizes, dimensions, sharding) -> ShapedArray:
  if not all(d >= 0 for d in new_sizes):
    raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
  if dimensions is not None and (len(dimensions) != operand.ndim
                                 or set(dimensions) != set(range(operand.ndim))):
    raise TypeError("reshape dimensions must be a permutation of operand dimensions, got "
                    f"dimensions {dimensions} for shape {operand.shape}.")
  if math.prod(new_sizes) != operand.size:
    # JAX 0.10.2 defers this check to XLA's verifier; the message is JAX's earlier one.
    raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of total "
                    f"size {math.prod(new_sizes)}) for shape {operand.shape} (of total size "
                    f"{operand.size}).")
  return ShapedArray(tuple(new_sizes), operand.dtype, operand.weak_type)


reshape_p.def_abstract_eval(_reshape_abstract_eval)


def _reshape_impl(operand, *, new_sizes, dimensions, sharding):
  operand = np.asarray(operand)
  if dimensions is not None:
    operand = np.transpose(operand, dimensions)
  return operand.reshape(new_sizes)


reshape_p.def_impl(_reshape_impl)


def _reshape_lowering(ctx, operand, *, new_sizes, dimensions, sharding):
  if dimensions is not None:  # XLA's Reshape-with-transpose: transpose first
    operand = mlir.transpose(ctx, operand, dimensions)
  return mlir.op(ctx, "stablehlo.reshape", [operand], ctx.avals_out[0])


mlir.register(reshape_p, _reshape_lowering)


def _reshape_transpose(ct, operand, *, new_sizes, dimensions, sharding):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  if dimensions is None:
    return [reshape(ct, operand.aval.shape)]
  permuted = reshape(ct, tuple(np.take(operand.aval.shape, dimensions)))
  return [transpose(permuted, tuple(np.argsort(dimensions)))]


ad.deflinear2(reshape_p, _reshape_transpose)


def _reshape_batcher(values, dims, *, new_sizes, dimensions, sharding):
  (operand,), (bdim,) = values, dims
  operand = batching.moveaxis(operand, bdim, 0)
  if dimensions is not None:
    dimensions = (0,) + tuple(np.add(1, dimensions))
  return reshape(operand, (_shape(operand)[0],) + tuple(new_sizes), dimensions), 0


batching.primitive_batchers[reshape_p] = _reshape_batcher


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
  """Reshapes ``operand`` to ``new_sizes`` in row-major order (``lax.reshape``).

  ``dimensions``, if given, is a permutation of ``operand``'s dimensions applied before the
  reshape (XLA's Reshape with a transpose). The total size must not change; sizes are static.
  ``out_sharding`` lays the result out over the mesh (needed where a split dimension's layout
  cannot follow the reshape).
  """
  if out_sharding is not None:
    with spmd_jit.out_sharding_given():
      return spmd_jit.reshard(reshape(operand, new_sizes, dimensions), out_sharding)
  new_sizes = _canonicalize_shape(new_sizes)
  operand_shape = _shape(operand)
  if dimensions is None:
    dims = None
    same_dims = True
  else:
    dims = _int_index_tuple("reshape", "dimensions", dimensions)
    same_dims = dims == tuple(range(len(operand_shape)))
  if operand_shape and operand_shape == new_sizes and same_dims and _is_array(operand):
    return operand
  return reshape_p.bind(operand, new_sizes=new_sizes,
                        dimensions=None if dims is None or same_dims else dims, sharding=None)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
  """Merges dimensions ``[start_dimension, stop_dimension)`` of ``operand`` into one
  (``lax.collapse``), row-major; ``stop_dimension=None`` means through the last dimension."""
  shape = _shape(operand)
  lo, hi, _ = _builtin_slice(start_dimension, stop_dimension).indices(len(shape))
  if hi < lo:
    raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                     f"[{start_dimension}:{stop_dimension}]")
  size = math.prod(shape[lo:hi])
  return reshape(operand, shape[:lo] + (size,) + shape[hi:])


# ---------------------------------------------------------------------------
# squeeze / expand_dims

squeeze_p = core.Primitive("squeeze")


def _squeeze_abstract_eval(operand: ShapedArray, *, dimensions) -> ShapedArray:
  shape = operand.shape
  dims_set = set(dimensions)
  if len(dims_set) != len(dimensions):
    raise ValueError(f"dimensions are not unique: {dimensions}")
  if not all(0 <= d < len(shape) for d in dims_set):
    raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
  if any(shape[d] != 1 for d in dimensions):
    raise ValueError("cannot select an axis to squeeze out which has size not equal to one, "
                     f"got shape={shape} and dimensions={dimensions}")
  return ShapedArray(tuple(s for i, s in enumerate(shape) if i not in dims_set), operand.dtype,
                     operand.weak_type)


squeeze_p.def_abstract_eval(_squeeze_abstract_eval)


def _squeeze_impl(operand, *, dimensions):
  operand = np.asarray(operand)
  return operand.reshape(tuple(s for i, s in enumerate(operand.shape) if i not in dimensions))


squeeze_p.def_impl(_squeeze_impl)

mlir.register(squeeze_p, lambda ctx, operand, *, dimensions: mlir.op(
    ctx, "stablehlo.reshape", [operand], ctx.avals_out[0]))


def _squeeze_transpose(ct, operand, *, dimensions):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  return [expand_dims(ct, dimensions)]


ad.deflinear2(squeeze_p, _squeeze_transpose)


def _squeeze_batcher(values, dims, *, dimensions):
  (operand,), (bdim,) = values, dims
  operand = batching.moveaxis(operand, bdim, 0)
  return squeeze(operand, tuple(np.add(1, dimensions))), 0


batching.primitive_batchers[squeeze_p] = _squeeze_batcher


def squeeze(array, dimensions):
  """Removes the size-1 dimensions ``dimensions`` (negative counts from the end) from ``array``
  (``lax.squeeze``)."""
  ndim = len(_shape(array))
  dimensions = tuple(sorted(utils.canonicalize_axis(d, ndim) for d in dimensions))
  if not dimensions and _is_array(array):
    return array
  return squeeze_p.bind(array, dimensions=dimensions)


def expand_dims(array, dimensions):
  """Inserts size-1 dimensions at positions ``dimensions`` of the result (``lax.expand_dims``).

  Not a primitive: like JAX, it binds ``broadcast_in_dim``.
  """
  if len(set(dimensions)) != len(dimensions):
    raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
  shape = _shape(array)
  ndim_out = len(shape) + len(dimensions)
  dims = [utils.canonicalize_axis(d, ndim_out) for d in dimensions]
  if len(set(dims)) != len(dims):
    raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
  dims_set = frozenset(dims)
  result_shape = list(shape)
  for i in sorted(dims_set):
    result_shape.insert(i, 1)
  kept = tuple(i for i in range(ndim_out) if i not in dims_set)
  return broadcast_in_dim(array, tuple(result_shape), kept)


# ---------------------------------------------------------------------------
# transpose / rev

transpose_p = core.Primitive("transpose")


def _transpose_abstract_eval(operand: ShapedArray, *, permutation) -> ShapedArray:
  if not isinstance(permutation, (tuple, list, np.ndarray)):
    raise TypeError(f"transpose permutation must be a tuple/list/ndarray, got {type(permutation)}.")
  if tuple(sorted(permutation)) != tuple(range(operand.ndim)):
    raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                    f"permutation {permutation} for operand shape {operand.shape}.")
  return ShapedArray(tuple(operand.shape[i] for i in permutation), operand.dtype, operand.weak_type)


transpose_p.def_abstract_eval(_transpose_abstract_eval)
transpose_p.def_impl(lambda operand, *, permutation: np.transpose(operand, permutation))


def _transpose_lowering(ctx, operand, *, permutation):
  return mlir.transpose(ctx, operand, permutation)


mlir.register(transpose_p, _transpose_lowering)


def _transpose_transpose(ct, operand, *, permutation):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  return [transpose(ct, tuple(np.argsort(permutation)))]


ad.deflinear2(transpose_p, _transpose_transpose)


def _transpose_batcher(values, dims, *, permutation):
  (operand,), (bdim,) = values, dims
  # The batch axis stays in front; the other axes shift past it.
  perm = (bdim,) + tuple(i if i < bdim else i + 1 for i in permutation)
  return transpose(operand, perm), 0


batching.primitive_batchers[transpose_p] = _transpose_batcher


def transpose(operand, permutation):
  """Permutes the dimensions of ``operand``: result dimension ``i`` is operand dimension
  ``permutation[i]`` (``lax.transpose``)."""
  permutation = tuple(operator.index(d) for d in permutation)
  if permutation == tuple(range(len(_shape(operand)))) and _is_array(operand):
    return operand
  return transpose_p.bind(operand, permutation=permutation)


rev_p = core.Primitive("rev")


def _rev_abstract_eval(operand: ShapedArray, *, dimensions) -> ShapedArray:
  _check_shapelike("rev", "dimensions", dimensions)
  if len(set(dimensions)) != len(dimensions):
    raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
  if dimensions and not max(dimensions) < operand.ndim:
    raise TypeError("rev dimensions must all be less than operand ndim, got dimensions "
                    f"{dimensions} for operand ndim {operand.ndim}.")
  return operand


rev_p.def_abstract_eval(_rev_abstract_eval)
rev_p.def_impl(lambda operand, *, dimensions: np.flip(operand, dimensions) if dimensions else operand)

mlir.register(rev_p, lambda ctx, operand, *, dimensions: mlir.op(
    ctx, "stablehlo.reverse", [operand], ctx.avals_out[0],
    {"dimensions": mlir.dense_array(dimensions)}))


def _rev_transpose(ct, operand, *, dimensions):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  return [rev(ct, dimensions)]


ad.deflinear2(rev_p, _rev_transpose)


def _rev_batcher(values, dims, *, dimensions):
  (operand,), (bdim,) = values, dims
  new_dimensions = tuple(i + 1 if i >= bdim else i for i in dimensions)
  return rev(operand, new_dimensions), bdim


batching.primitive_batchers[rev_p] = _rev_batcher


def rev(operand, dimensions):
  """Reverses ``operand`` along each dimension in ``dimensions`` (``lax.rev``)."""
  return rev_p.bind(operand, dimensions=tuple(dimensions))


# ---------------------------------------------------------------------------
# concatenate / split

concatenate_p = core.Primitive("concatenate")


def _concatenate_abstract_eval(*operands: ShapedArray, dimension) -> ShapedArray:
  if not operands:
    raise TypeError("concatenate expects at least one operand, got 0.")
  if len({o.ndim for o in operands}) != 1:
    raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                    f"{', '.join(str(o.shape) for o in operands)}.")
  if not 0 <= dimension < operands[0].ndim:
    raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes "
                    f"{', '.join(str(o.shape) for o in operands)}.")
  others = [o.shape[:dimension] + o.shape[dimension + 1:] for o in operands]
  if any(s != others[0] for s in others[1:]):
    raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other than the "
                    f"one being concatenated: concatenating along dimension {dimension} for shapes "
                    f"{', '.join(str(o.shape) for o in operands)}.")
  utils.check_same_dtypes("concatenate", *operands)
  first = operands[0].shape
  size = sum(o.shape[dimension] for o in operands)
  return ShapedArray(first[:dimension] + (size,) + first[dimension + 1:], operands[0].dtype,
                     all(o.weak_type for o in operands))


concatenate_p.def_abstract_eval(_concatenate_abstract_eval)
concatenate_p.def_impl(lambda *operands, dimension: np.concatenate(operands, axis=dimension))

mlir.register(concatenate_p, lambda ctx, *operands, dimension: mlir.op(
    ctx, "stablehlo.concatenate", list(operands), ctx.avals_out[0],
    {"dimension": f"{int(dimension)} : i64"}))


def _concatenate_transpose(ct, *operands, dimension):
  if type(ct) is ad.Zero:
    return _zero_cotangents(operands)
  sizes = tuple(_undefined_or_shape(o)[dimension] for o in operands)
  pieces = split(ct, sizes, axis=dimension)
  return [p if ad.is_undefined_primal(o) else None for p, o in zip(pieces, operands)]


ad.deflinear2(concatenate_p, _concatenate_transpose)


def _concatenate_batcher(values, dims, *, dimension):
  size = next(_shape(v)[d] for v, d in zip(values, dims) if d is not None)
  operands = [batching.moveaxis(v, d, 0) if d is not None else broadcast(v, (size,))
              for v, d in zip(values, dims)]
  return concatenate(operands, dimension + 1), 0


batching.primitive_batchers[concatenate_p] = _concatenate_batcher


def concatenate(operands, dimension: int):
  """Concatenates ``operands`` along ``dimension`` (``lax.concatenate``).

  The operands must have equal dtypes and equal shapes except along ``dimension``;
  lax does not promote (``jnp.concatenate`` does).
  """
  if len(operands) == 0:
    raise ValueError("concatenate requires a non-empty sequences of arrays")
  if len(operands) == 1 and _is_array(operands[0]):
    return operands[0]
  return concatenate_p.bind(*operands, dimension=dimension)


split_p = core.Primitive("split")
split_p.multiple_results = True


def _split_abstract_eval(operand: ShapedArray, *, sizes, axis) -> list[ShapedArray]:
  if any(s < 0 for s in sizes):
    raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
  if not 0 <= axis < operand.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
  if operand.shape[axis] != sum(sizes):
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand "
                     f"shape {list(operand.shape)}")
  shape = list(operand.shape)
  out = []
  for size in sizes:
    shape[axis] = int(size)  # sizes may be np.int64 (jnp.split passes them so, as JAX)
    out.append(ShapedArray(tuple(shape), operand.dtype, operand.weak_type))
  return out


split_p.def_abstract_eval(_split_abstract_eval)


def _split_impl(operand, *, sizes, axis):
  operand = np.asarray(operand)
  offsets = np.cumsum(sizes)[:-1].tolist()
  return np.split(operand, offsets, axis=axis)


split_p.def_impl(_split_impl)


def _split_lowering(ctx, operand, *, sizes, axis):
  # One static slice per piece (what JAX emits).
  outs = []
  start = 0
  for size, aval in zip(map(int, sizes), ctx.avals_out):
    starts = [0] * operand.aval.ndim
    limits = list(operand.aval.shape)
    starts[axis], limits[axis] = start, start + size
    outs.append(_static_slice(ctx, operand, starts, limits, None, aval))
    start += size
  return outs


mlir.register(split_p, _split_lowering)


def _split_transpose(cts, operand, *, sizes, axis):
  if all(type(ct) is ad.Zero for ct in cts):
    return [ad.Zero(operand.aval)]
  return [concatenate([ad.instantiate_zeros(ct) for ct in cts], axis)]


ad.deflinear2(split_p, _split_transpose)


def _split_batcher(values, dims, *, sizes, axis):
  (operand,), (bdim,) = values, dims
  new_axis = axis + 1 if bdim <= axis else axis
  return split_p.bind(operand, sizes=sizes, axis=new_axis), [bdim] * len(sizes)


batching.primitive_batchers[split_p] = _split_batcher


def split(operand, sizes: Sequence[int], axis: int = 0):
  """Splits ``operand`` along ``axis`` into pieces of sizes ``sizes`` (``lax.split``); the
  sizes must add up to the size of that axis. Returns a list of arrays."""
  operand = _asarray(operand)
  sizes = tuple(operator.index(s) for s in sizes)
  axis = utils.canonicalize_axis(axis, len(_shape(operand)))
  return split_p.bind(operand, sizes=sizes, axis=axis)


# ---------------------------------------------------------------------------
# pad

pad_p = core.Primitive("pad")


def _pad_abstract_eval(operand: ShapedArray, padding_value: ShapedArray, *, padding_config):
  if padding_value.ndim != 0:
    raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)={padding_value.shape}")
  if len(padding_config) != operand.ndim:
    raise ValueError("length of padding_config must equal the number of axes of operand, got "
                     f"padding_config {padding_config} for operand shape {operand.shape}")
  if not all(i >= 0 for _, _, i in padding_config):
    raise ValueError(f"interior padding in padding_config must be nonnegative, got padding_config "
                     f"{padding_config}")
  result = tuple(int(lo + hi + (0 if d == 0 else d + (d - 1) * i))
                 for (lo, hi, i), d in zip(padding_config, operand.shape))
  if not all(d >= 0 for d in result):
    raise ValueError(f"Dimension size after padding is not at least 0, got result shape {result}, "
                     f"for padding_config {padding_config} and operand shape {operand.shape}")
  if operand.dtype != padding_value.dtype:
    raise TypeError("pad operand and padding_value must be same dtype: got "
                    f"{operand.dtype.name} and {padding_value.dtype.name}.")
  return ShapedArray(result, operand.dtype, operand.weak_type and padding_value.weak_type)


pad_p.def_abstract_eval(_pad_abstract_eval)


def _pad_impl(operand, padding_value, *, padding_config):
  operand = np.asarray(operand)
  out_shape, dst, src = [], [], []
  for (lo, hi, interior), d in zip(padding_config, operand.shape):
    step = interior + 1
    size = lo + hi + (0 if d == 0 else d + (d - 1) * interior)
    out_shape.append(size)
    # Operand element j lands at position lo + j * step; keep the j with 0 <= position < size.
    j_start = 0 if lo >= 0 else -(lo // step)  # ceil(-lo / step)
    j_stop = min(d, (size - 1 - lo) // step + 1) if size - 1 - lo >= 0 else 0
    count = max(j_stop - j_start, 0)
    first = lo + j_start * step
    src.append(_builtin_slice(j_start, j_start + count))
    dst.append(_builtin_slice(first, first + (count - 1) * step + 1 if count else first, step))
  out = np.full(out_shape, padding_value, dtype=operand.dtype)
  if out.size and all(s.stop > s.start for s in src):
    out[tuple(dst)] = operand[tuple(src)]
  return out


pad_p.def_impl(_pad_impl)


def _pad_lowering(ctx, operand, padding_value, *, padding_config):
  # stablehlo.pad takes negative edge padding (it crops), like lax.pad.
  low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
  return mlir.op(ctx, "stablehlo.pad", [operand, padding_value], ctx.avals_out[0],
                 {"edge_padding_low": mlir.dense_array(low),
                  "edge_padding_high": mlir.dense_array(high),
                  "interior_padding": mlir.dense_array(interior)})


mlir.register(pad_p, _pad_lowering)


def _pad_transpose(ct, operand, padding_value, *, padding_config):
  if type(ct) is ad.Zero:
    return _zero_cotangents([operand, padding_value])
  lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())

  def operand_cotangent():
    # Undo the edge padding (negative padding crops), then take every (interior + 1)-th element.
    unpad_config = tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
    unpadded = pad_p.bind(ct, np.array(0, ct.dtype), padding_config=unpad_config)
    return slice(unpadded, np.zeros_like(lo), _shape(unpadded), np.add(interior, 1))

  t_operand = operand_cotangent() if ad.is_undefined_primal(operand) else None
  t_padding_value = None
  if ad.is_undefined_primal(padding_value):
    # Every output element that is not an operand element is the padding value.
    total = lambda x: _reduce_sum(x, range(len(_shape(x))))
    from_operand = t_operand if t_operand is not None else operand_cotangent()
    t_padding_value = elementwise.sub(total(ct), total(from_operand))
  return [t_operand, t_padding_value]


ad.deflinear2(pad_p, _pad_transpose)


def _pad_batcher(values, dims, *, padding_config):
  operand, padding_value = values
  operand_bdim, padding_value_bdim = dims
  if operand_bdim is None:
    operand_bdim = 0
    operand = broadcast(operand, (_shape(padding_value)[padding_value_bdim],))
  config = list(padding_config)
  config.insert(operand_bdim, (0, 0, 0))
  config = tuple(config)
  if padding_value_bdim is None:
    return pad_p.bind(operand, padding_value, padding_config=config), operand_bdim
  # A batched padding value: pad with zeros, then select the padding positions by a mask.
  aval = _aval(operand)
  padded = pad_p.bind(operand, np.zeros((), aval.dtype), padding_config=config)
  mask = pad_p.bind(full(aval.shape, True, np.bool_), False, padding_config=config)
  padding = broadcast_in_dim(padding_value, _shape(padded), (operand_bdim,))
  return elementwise.select(mask, padded, padding), operand_bdim


batching.primitive_batchers[pad_p] = _pad_batcher


def pad(operand, padding_value, padding_config):
  """Pads ``operand`` with ``padding_value`` (``lax.pad``, XLA's Pad).

  ``padding_config`` has one ``(low, high, interior)`` triple per dimension: ``low``/``high``
  elements at each end (negative values remove elements) and ``interior`` elements between
  neighbours (must be non-negative). ``padding_value`` is a scalar of ``operand``'s dtype.
  """
  config = []
  for item in padding_config:
    item = tuple(item)
    if len(item) != 3:
      raise ValueError("padding_config must be a sequence of (low, high, interior) triples, got "
                       f"{tuple(padding_config)!r}")
    # NumPy integers are kept as given (JAX's params print them as np.int64(...)).
    config.append(tuple(v if isinstance(v, np.integer) else operator.index(v) for v in item))
  return pad_p.bind(operand, padding_value, padding_config=tuple(config))


# ---------------------------------------------------------------------------
# slice

slice_p = core.Primitive("slice")


def _slice_abstract_eval(operand: ShapedArray, *, start_indices, limit_indices, strides):
  _check_shapelike("slice", "start_indices", start_indices)
  _check_shapelike("slice", "limit_indices", limit_indices)
  if operand.ndim != len(start_indices):
    raise TypeError("slice start_indices must have length equal to the number of dimensions of the "
                    f"operand, got indices {start_indices} for operand shape {operand.shape}.")
  if len(start_indices) != len(limit_indices):
    raise TypeError("slice limit_indices must have the same length as start_indices, got "
                    f"start_indices {start_indices} and limit_indices {limit_indices}.")
  if not all(d >= l for d, l in zip(operand.shape, limit_indices)):
    raise TypeError("slice limit_indices must be less than or equal to operand shape, got "
                    f"limit_indices {limit_indices} for operand shape {operand.shape}.")
  if not all(l >= s for s, l in zip(start_indices, limit_indices)):
    raise TypeError("slice limit_indices must be greater than or equal to start_indices, got "
                    f"start_indices {start_indices} and limit_indices {limit_indices}.")
  diff = tuple(int(l - s) for s, l in zip(start_indices, limit_indices))
  if strides is None or tuple(strides) == (1,) * operand.ndim:
    return ShapedArray(diff, operand.dtype, operand.weak_type)
  _check_shapelike("slice", "strides", strides)
  if len(strides) != operand.ndim:
    raise TypeError("slice strides must have length equal to the number of dimensions of the "
                    f"operand, got strides {strides} for operand shape {operand.shape}.")
  if not all(s > 0 for s in strides):
    raise TypeError(f"slice strides must be positive, got {strides}")
  shape = tuple(0 if d == 0 else int((d - 1) // s + 1) for d, s in zip(diff, strides))
  return ShapedArray(shape, operand.dtype, operand.weak_type)


slice_p.def_abstract_eval(_slice_abstract_eval)


def _slice_impl(operand, *, start_indices, limit_indices, strides):
  if strides is None:
    index = tuple(_builtin_slice(s, l) for s, l in zip(start_indices, limit_indices))
  else:
    index = tuple(_builtin_slice(s, l, st) for s, l, st in zip(start_indices, limit_indices, strides))
  return np.asarray(operand)[index]


slice_p.def_impl(_slice_impl)


def _static_slice(ctx, operand, start_indices, limit_indices, strides, aval):
  strides = (1,) * len(start_indices) if strides is None else strides
  return mlir.op(ctx, "stablehlo.slice", [operand], aval,
                 {"start_indices": mlir.dense_array(start_indices),
                  "limit_indices": mlir.dense_array(limit_indices),
                  "strides": mlir.dense_array(strides)})


mlir.register(slice_p, lambda ctx, operand, *, start_indices, limit_indices, strides: _static_slice(
    ctx, operand, start_indices, limit_indices, strides, ctx.avals_out[0]))


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
  # The cotangent padded back to the operand's shape with zeros (interior padding for strides).
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  operand_shape = operand.aval.shape
  ct_shape = _shape(ct)
  if strides is None or np.all(np.equal(strides, 1)):
    config = zip(start_indices, np.subtract(operand_shape, limit_indices),
                 (0,) * len(start_indices))
  else:
    real_limits = np.add(start_indices, np.where(
        np.array(ct_shape) == 0, 0, np.add(1, np.multiply(np.subtract(ct_shape, 1), strides))))
    config = zip(start_indices, np.subtract(operand_shape, real_limits), np.subtract(strides, 1))
  return [pad_p.bind(ct, np.array(0, _aval(ct).dtype), padding_config=tuple(config))]


ad.deflinear2(slice_p, _slice_transpose)


def _slice_batcher(values, dims, *, start_indices, limit_indices, strides):
  (operand,), (bdim,) = values, dims
  starts = list(start_indices)
  starts.insert(bdim, 0)
  limits = list(limit_indices)
  limits.insert(bdim, _shape(operand)[bdim])
  if strides is not None:
    strides = list(strides)
    strides.insert(bdim, 1)
  return slice(operand, starts, limits, strides), bdim


batching.primitive_batchers[slice_p] = _slice_batcher


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001  (lax's name)
  """The static slice ``operand[start:limit:stride]`` in every dimension (``lax.slice``).

  Indices must lie within the operand (no negative indices, no clamping); ``strides``
  defaults to 1 everywhere.
  """
  return slice_p.bind(operand, start_indices=tuple(start_indices),
                      limit_indices=tuple(limit_indices),
                      strides=None if strides is None else tuple(strides))


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
  """``lax.slice`` along one ``axis``: ``start_index``/``limit_index`` may be None (the ends)
  or negative (counted from the end), ``stride`` is static (``lax.slice_in_dim``)."""
  shape = _shape(operand)
  ndim = len(shape)
  start_indices = [0] * ndim
  limit_indices = list(shape)
  strides = [1] * ndim
  axis = int(axis)
  axis_size = shape[axis]
  start = _static_int(start_index, "start_index") if start_index is not None else 0
  limit = _static_int(limit_index, "limit_index") if limit_index is not None else axis_size
  if start < 0:
    start += axis_size
  if limit < 0:
    limit += axis_size
  start_indices[axis] = start
  limit_indices[axis] = limit
  strides[axis] = _static_int(stride, "stride")
  return slice(operand, start_indices, limit_indices, strides)


def _static_int(value, name: str) -> int:
  if isinstance(value, Tracer):
    core.concrete_or_error(None, value, f"The {name} argument must be a static integer.")
  return operator.index(value)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
  """Selects the static position ``index`` along ``axis`` (``lax.index_in_dim``); negative
  indices count from the end; ``keepdims=False`` removes the axis."""
  index, axis = _static_int(index, "index"), int(axis)
  axis_size = _shape(operand)[axis]
  wrapped = index + axis_size if index < 0 else index
  if not 0 <= wrapped < axis_size:
    raise IndexError(f"index {index} is out of bounds for axis {axis} with size {axis_size}")
  result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
  return result if keepdims else squeeze(result, (axis,))


# ---------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice


def _check_index_dtypes(name: str, start_indices, sep: str) -> None:
  if any(i.dtype != start_indices[0].dtype or not np.issubdtype(i.dtype, np.integer)
         for i in start_indices):
    raise TypeError(f"index arguments to {name} must be integers of the same type, got{sep} "
                    f"{', '.join(i.dtype.name for i in start_indices)}")


def _clamped_starts(shape, sizes, start_indices) -> list[int]:
  """XLA's rule: each start is clamped to [0, dim - size] so the slice lies in bounds."""
  return [min(max(int(i), 0), d - s) for i, d, s in zip(start_indices, shape, sizes)]


dynamic_slice_p = core.Primitive("dynamic_slice")


def _dynamic_slice_abstract_eval(operand: ShapedArray, *start_indices: ShapedArray, slice_sizes):
  if len(slice_sizes) != operand.ndim:
    raise TypeError("dynamic_slice slice_sizes must have length equal to the rank of operand, got "
                    f"slice_sizes {slice_sizes} for operand shape {operand.shape}.")
  if not all(d >= s for d, s in zip(operand.shape, slice_sizes)):
    raise TypeError("slice slice_sizes must be less than or equal to operand shape, got "
                    f"slice_sizes {slice_sizes} for operand shape {operand.shape}.")
  if not all(s >= 0 for s in slice_sizes):
    raise TypeError(f"slice slice_sizes must be greater than or equal to zero, got slice_sizes of "
                    f"{slice_sizes}.")
  if len(start_indices) != operand.ndim:
    raise TypeError("dynamic_slice start_indices must have length equal to the rank of operand, "
                    f"got {len(start_indices)} indices for operand shape {operand.shape}.")
  if any(i.ndim != 0 for i in start_indices):
    raise TypeError("start_indices arguments to dynamic_slice must be scalars,  got indices "
                    f"{start_indices}")
  if start_indices:
    _check_index_dtypes("dynamic_slice", start_indices, ":")
  return ShapedArray(tuple(slice_sizes), operand.dtype, operand.weak_type)


dynamic_slice_p.def_abstract_eval(_dynamic_slice_abstract_eval)


def _dynamic_slice_impl(operand, *start_indices, slice_sizes):
  operand = np.asarray(operand)
  starts = _clamped_starts(operand.shape, slice_sizes, start_indices)
  return operand[tuple(_builtin_slice(s, s + n) for s, n in zip(starts, slice_sizes))]


dynamic_slice_p.def_impl(_dynamic_slice_impl)


def exact_index_dtype(dtype: np.dtype) -> np.dtype:
  """The index type the lowerings hand XLA for indices of ``dtype``: int32 for 8/16-bit
  indices, int64 for uint32, others unchanged (all conversions exact).

  XLA:CPU computes clamp bounds and in-bounds tests in the index type. Where a bound does not
  fit (dimension 300 with an int8/uint8 index) or unsigned values are read as signed (uint32
  constants past 2**31), XLA's dynamic-slice/update-slice, and the scatters and gathers it
  rewrites into them, give wrong answers -- differently for constant and runtime indices
  (JAX shows the same inconsistencies). Exact wider indices give the kernels' answers."""
  dtype = np.dtype(dtype)
  if dtype.itemsize < 4:
    return np.dtype(np.int32)
  if dtype == np.uint32:
    return np.dtype(np.int64)
  return dtype


def exact_indices(ctx, indices):
  """``indices`` (an mlir.Value) converted to ``exact_index_dtype``."""
  return mlir.convert(ctx, indices, exact_index_dtype(indices.aval.dtype))


def _dynamic_slice_lowering(ctx, operand, *start_indices, slice_sizes):
  # XLA clamps each start to [0, dim - size], as the kernel does.
  start_indices = [exact_indices(ctx, i) for i in start_indices]
  return mlir.op(ctx, "stablehlo.dynamic_slice", [operand, *start_indices], ctx.avals_out[0],
                 {"slice_sizes": mlir.dense_array(slice_sizes)})


mlir.register(dynamic_slice_p, _dynamic_slice_lowering)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
  operand, *start_indices = primals
  t_out = tangents[0]
  if type(t_out) is not ad.Zero:  # the tangent first, as JAX's jaxprs show
    t_out = dynamic_slice_p.bind(t_out, *start_indices, slice_sizes=slice_sizes)
  out = dynamic_slice_p.bind(operand, *start_indices, slice_sizes=slice_sizes)
  if type(t_out) is ad.Zero:
    t_out = ad.Zero.from_primal_value(out)
  return out, t_out


def _dynamic_slice_transpose(ct, operand, *start_indices, slice_sizes):
  # Clamping of the starts is the same in the slice and in the update: the cotangent lands
  # exactly where the slice was read.
  none = [None] * len(start_indices)
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)] + none
  zeros = full(operand.aval.shape, 0, operand.aval.dtype)
  return [dynamic_update_slice_p.bind(zeros, ct, *start_indices)] + none


ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose


# The batching rule (a gather) is registered in slicing.py.


dynamic_update_slice_p = core.Primitive("dynamic_update_slice")


def _dynamic_update_slice_abstract_eval(operand: ShapedArray, update: ShapedArray,
                                        *start_indices: ShapedArray):
  if operand.ndim != update.ndim:
    raise TypeError("dynamic_update_slice update must have the same rank as operand, got update "
                    f"shape {update.shape} for operand shape {operand.shape}.")
  if operand.ndim != len(start_indices):
    raise TypeError("dynamic_update_slice start_indices must have length equal to the rank of "
                    f"operand, got indices {start_indices} for operand shape {operand.shape}.")
  if not all(d >= u for d, u in zip(operand.shape, update.shape)):
    raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, got "
                    f"update shape {update.shape} for operand shape {operand.shape}.")
  if any(i.ndim != 0 for i in start_indices):
    raise TypeError("start_indices arguments to dynamic_update_slice must be scalars, got indices "
                    f"{start_indices}")
  if operand.dtype != update.dtype:  # JAX gives no jnp tip for this one
    raise TypeError("lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                    f"{operand.dtype.name}, {update.dtype.name}.")
  if start_indices:
    _check_index_dtypes("dynamic_update_slice", start_indices, "")
  weak = operand.weak_type and update.weak_type and all(i.weak_type for i in start_indices)
  return ShapedArray(operand.shape, operand.dtype, weak)


dynamic_update_slice_p.def_abstract_eval(_dynamic_update_slice_abstract_eval)


def _dynamic_update_slice_impl(operand, update, *start_indices):
  operand = np.asarray(operand)
  update = np.asarray(update)
  starts = _clamped_starts(operand.shape, update.shape, start_indices)
  out = operand.copy()
  out[tuple(_builtin_slice(s, s + n) for s, n in zip(starts, update.shape))] = update
  return out


dynamic_update_slice_p.def_impl(_dynamic_update_slice_impl)


def _dynamic_update_slice_lowering(ctx, operand, update, *start_indices):
  # Exact wide indices: with a uint8 index 200 into a dimension of 300, XLA would write at 41.
  start_indices = [exact_indices(ctx, i) for i in start_indices]
  return mlir.op(ctx, "stablehlo.dynamic_update_slice", [operand, update, *start_indices],
                 ctx.avals_out[0])


mlir.register(dynamic_update_slice_p, _dynamic_update_slice_lowering)


def _dynamic_update_slice_jvp(primals, tangents):
  operand, update, *start_indices = primals
  t_operand, t_update = tangents[:2]
  out = dynamic_update_slice_p.bind(operand, update, *start_indices)
  if type(t_operand) is ad.Zero and type(t_update) is ad.Zero:
    return out, ad.Zero.from_primal_value(out)
  t_out = dynamic_update_slice_p.bind(ad.instantiate_zeros(t_operand),
                                      ad.instantiate_zeros(t_update), *start_indices)
  return out, t_out


def _dynamic_update_slice_transpose(ct, operand, update, *start_indices):
  none = [None] * len(start_indices)
  if type(ct) is ad.Zero:
    return _zero_cotangents([operand, update]) + none
  update_shape = _undefined_or_shape(update)
  t_operand = t_update = None
  if ad.is_undefined_primal(operand):
    # The operand's elements under the update are overwritten: their cotangent is zero.
    zeros = full_like(ct, 0, shape=update_shape)
    t_operand = dynamic_update_slice_p.bind(ct, zeros, *start_indices)
  if ad.is_undefined_primal(update):
    t_update = dynamic_slice_p.bind(ct, *start_indices, slice_sizes=tuple(update_shape))
  return [t_operand, t_update] + none


ad.primitive_jvps[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.primitive_transposes[dynamic_update_slice_p] = _dynamic_update_slice_transpose


# The batching rule (a scatter) is registered in slicing.py.


def _index_dtype(i) -> np.dtype:
  return _aval(i).dtype


def _dynamic_slice_indices(operand_shape, start_indices, allow_negative_indices) -> list:
  """Start indices with negative values wrapped (``i + dim`` when ``i < 0``), as JAX does.

  Static Python/NumPy integers are wrapped here and become literals of their dtype; traced
  indices get ``select_n(i < 0, i, i + dim)`` in the jaxpr. Unsigned indices pass unchanged.
  """
  if len(start_indices) != len(operand_shape):
    raise ValueError("Length of slice indices must match number of operand dimensions "
                     f"({len(start_indices)} vs {operand_shape})")
  if not isinstance(start_indices, (list, tuple)):
    if np.ndim(start_indices) != 1:
      raise ValueError(f"Slice indices must be a 1D sequence, got {np.shape(start_indices)}")
    start_indices = list(start_indices)
  if isinstance(allow_negative_indices, (bool, np.bool_)):
    allow_negative_indices = [bool(allow_negative_indices)] * len(start_indices)
  result = []
  for i, d, allow_negative in zip(start_indices, operand_shape, allow_negative_indices):
    dtype = _index_dtype(i)
    if np.issubdtype(dtype, np.unsignedinteger):
      result.append(i)
      continue
    if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
      if i < 0 and not allow_negative:
        raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                         "allow_negative_indices=False")
      value = int(i) + d if i < 0 else int(i)
      try:
        result.append(dtype.type(value))  # a strongly typed literal
      except OverflowError:
        result.append(np.asarray(value).astype(dtype))  # wraps, as JAX's conversion does
      continue
    if not allow_negative:
      result.append(i)
    elif (isinstance(i, Array) and np.issubdtype(dtype, np.integer) and not i.shape
          and core.current_trace() is core.eval_trace):
      # Concrete index: the same arithmetic as the traced path, done once in NumPy.
      value = int(i._host_value())
      result.append(np.asarray(value + d if value < 0 else value).astype(dtype))
    else:
      d_arr = np.asarray(d).astype(dtype)
      result.append(elementwise.select(i < 0, i + d_arr, i))
  return result


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
  """The slice of ``operand`` of static size ``slice_sizes`` starting at ``start_indices``
  (``lax.dynamic_slice``, XLA's DynamicSlice).

  The start indices may be traced. A negative index counts from the end (unless
  ``allow_negative_indices`` is False); then, as in XLA, each start is clamped to
  ``[0, operand.shape[i] - slice_sizes[i]]`` so the slice always lies inside the operand.
  """
  start_indices = _dynamic_slice_indices(_shape(operand), start_indices, allow_negative_indices)
  sizes = _canonicalize_shape(slice_sizes)
  return dynamic_slice_p.bind(operand, *start_indices, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
  """``operand`` with the block ``update`` written at ``start_indices``
  (``lax.dynamic_update_slice``). Indices may be traced; negative ones count from the end, then
  each is clamped (XLA) so the whole update lands inside the operand."""
  start_indices = _dynamic_slice_indices(_shape(operand), start_indices, allow_negative_indices)
  return dynamic_update_slice_p.bind(operand, update, *start_indices)


def _zero_index_like(index):
  """JAX's ``_const(index, 0)``: a Python 0 for a Python index, else a 0 of the index dtype."""
  if isinstance(index, (int, float, complex)) and not isinstance(index, bool):
    return type(index)(0)
  return np.asarray(0, _index_dtype(index))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
  """``dynamic_slice`` along one ``axis``: ``slice_size`` elements from ``start_index``
  (``lax.dynamic_slice_in_dim``); the other dimensions are kept whole."""
  shape = _shape(operand)
  axis = int(axis)
  start_indices = [_zero_index_like(start_index)] * len(shape)
  start_indices[axis] = start_index
  slice_sizes = list(shape)
  slice_sizes[axis] = _static_int(slice_size, "slice_size")
  allow_negative = [False] * len(shape)
  allow_negative[axis] = allow_negative_indices
  return dynamic_slice(operand, start_indices, slice_sizes, allow_negative_indices=allow_negative)


def _dynamic_index_in_dim(operand, index, axis=0, keepdims=True, allow_negative_indices=True):
  result = dynamic_slice_in_dim(operand, index, 1, axis,
                                allow_negative_indices=allow_negative_indices)
  return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
  """``dynamic_update_slice`` at ``start_index`` along one ``axis`` (start 0 elsewhere)
  (``lax.dynamic_update_slice_in_dim``)."""
  axis = int(axis)
  ndim = len(_shape(operand))
  start_indices = [_zero_index_like(start_index)] * ndim
  start_indices[axis] = start_index
  allow_negative = [False] * ndim
  allow_negative[axis] = allow_negative_indices
  return dynamic_update_slice(operand, update, start_indices, allow_negative_indices=allow_negative)


def _dynamic_update_index_in_dim(operand, update, index, axis, allow_negative_indices=True):
  axis = int(axis)
  if len(_shape(update)) != len(_shape(operand)):
    if len(_shape(update)) + 1 != len(_shape(operand)):
      raise TypeError("dynamic_update_index_in_dim update must have the rank of operand or one "
                      f"less, got update shape {_shape(update)} for operand shape {_shape(operand)}.")
    update = expand_dims(update, (axis,))
  return dynamic_update_slice_in_dim(operand, update, index, axis,
                                     allow_negative_indices=allow_negative_indices)


# JAX runs these two under jit (a `jit[name=...]` equation in jaxprs).
_dynamic_index_in_dim.__name__ = "dynamic_index_in_dim"
_dynamic_update_index_in_dim.__name__ = "dynamic_update_index_in_dim"
_dynamic_index_in_dim = api.jit_when_tracing(
    _dynamic_index_in_dim, static_argnames=("axis", "keepdims", "allow_negative_indices"))
_dynamic_update_index_in_dim = api.jit_when_tracing(
    _dynamic_update_index_in_dim, static_argnames=("axis", "allow_negative_indices"))


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
  """The slice at (possibly traced) ``index`` along ``axis`` (``lax.dynamic_index_in_dim``);
  ``keepdims=False`` drops the axis. Out-of-range indices clamp, as in ``dynamic_slice``."""
  return _dynamic_index_in_dim(operand, index, axis=axis, keepdims=keepdims,
                               allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
  """Writes ``update`` at (possibly traced) position ``index`` along ``axis``
  (``lax.dynamic_update_index_in_dim``); ``update`` may lack that axis."""
  return _dynamic_update_index_in_dim(operand, update, index, axis=axis,
                                      allow_negative_indices=allow_negative_indices)


# ---------------------------------------------------------------------------
# iota

iota_p = core.Primitive("iota")


def _iota_abstract_eval(*, dtype, shape, dimension, sharding) -> ShapedArray:
  _check_shapelike("iota", "shape", shape)
  if not utils.dtype_in(dtype, utils._num):
    raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are "
                    "subtypes of integer, floating, complexfloating.")
  if not 0 <= dimension < len(shape):
    raise ValueError("iota dimension must be between 0 and len(shape), got "
                     f"dimension={dimension} for shape={shape}")
  return ShapedArray(tuple(shape), dtype, False)


iota_p.def_abstract_eval(_iota_abstract_eval)


# (dtype, shape, dimension) -> a read-only iota of at most _COPIED_BROADCAST_SIZE elements
_small_iotas: dict = {}


def _iota_impl(*, dtype, shape, dimension, sharding):
  key = (dtype, tuple(shape), dimension)
  out = _small_iotas.get(key)
  if out is not None:
    return out
  values = np.arange(shape[dimension]).astype(dtype)
  expanded = [1] * len(shape)
  expanded[dimension] = shape[dimension]
  out = np.broadcast_to(values.reshape(expanded), shape)
  if out.size <= _COPIED_BROADCAST_SIZE:
    out = out.copy()
    out.flags.writeable = False
    if len(_small_iotas) >= 1024:
      _small_iotas.clear()
    _small_iotas[key] = out
  return out


iota_p.def_impl(_iota_impl)

mlir.register(iota_p, lambda ctx, *, dtype, shape, dimension, sharding: mlir.op(
    ctx, "stablehlo.iota", [], ctx.avals_out[0], {"iota_dimension": f"{int(dimension)} : i64"}))


# iota has no operands: it is never differentiated and never batched (a vmapped function
# binds it unbatched); the rules make that explicit.
ad.defjvp_zero(iota_p)


def _iota_batcher(values, dims, **params):
  return iota_p.bind(**params), None


batching.primitive_batchers[iota_p] = _iota_batcher


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
  """An array of ``shape`` whose values count 0, 1, 2, ... along ``dimension``
  (``lax.broadcasted_iota``)."""
  _check_no_sharding("broadcasted_iota", out_sharding)
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "broadcasted_iota")
  shape = _canonicalize_shape(shape)
  dimension = core.concrete_or_error(int, dimension, "dimension argument of lax.broadcasted_iota")
  return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension, sharding=None)


def iota(dtype, size: int):
  """``[0, 1, ..., size - 1]`` with dtype ``dtype`` (``lax.iota``, XLA's Iota)."""
  return broadcasted_iota(dtype, (size,), 0)


# ---------------------------------------------------------------------------
# full


def _is_python_scalar(x) -> bool:
  return type(x) in (bool, int, float, complex)


def _fill_scalar(fill_value, dtype: np.dtype, weak_type: bool):
  """``fill_value`` as a scalar of ``dtype`` (JAX's ``_convert_element_type``).

  A concrete scalar is converted with NumPy and becomes a literal. Traced values, and the
  conversions where NumPy and XLA differ (complex to real, non-finite to integer, integers
  out of range), go through the ``convert_element_type`` primitive."""
  if _is_array(fill_value):
    aval = fill_value.aval
    if aval.dtype == dtype and aval.weak_type == weak_type:
      return fill_value
    return elementwise_convert._convert_element_type(fill_value, dtype, weak_type)
  if weak_type and _is_python_scalar(fill_value):
    # A weak result of a Python scalar's dtype is that Python scalar (a weakly typed literal).
    for python_type in (int, float, complex):
      if dtypes.python_scalar_dtype(python_type) == dtype:
        try:
          return python_type(fill_value)
        except (TypeError, ValueError, OverflowError):
          break
  if not weak_type and isinstance(fill_value, (bool, int, float, complex, np.generic, np.ndarray)):
    try:
      source = np.asarray(fill_value)
      if source.dtype.kind == "c" and dtype.kind != "c":
        raise ValueError("complex to real")
      if _is_inexact(source.dtype) and dtype.kind in "iub" and not np.all(np.isfinite(source)):
        raise ValueError("non-finite to integer")
      if source.dtype.kind in "iuO" and dtype.kind in "iu":
        return np.asarray(int(source), dtype)  # OverflowError when out of range
      with np.errstate(over="ignore", invalid="ignore"):
        return source.astype(dtype)
    except (OverflowError, ValueError, TypeError):
      pass
  return elementwise_convert._convert_element_type(fill_value, dtype, weak_type)


def _is_inexact(dtype: np.dtype) -> bool:
  return dtype.kind in "fc" or dtype == dtypes.bfloat16


def full(shape, fill_value, dtype=None, *, sharding=None):
  """An array of ``shape`` filled with the scalar ``fill_value`` (``lax.full``), converted to
  ``dtype`` when given. Binds ``broadcast_in_dim`` of the (literal) scalar."""
  _check_no_sharding("full", sharding)
  shape = _canonicalize_shape(shape)
  fill_shape = fill_value.shape if _is_array(fill_value) else np.shape(fill_value)
  if fill_shape:
    raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {fill_shape}.")
  if dtype is None and type(fill_value) in (int, float, complex):
    return broadcast(fill_value, shape)  # a weakly typed literal
  if dtype is None:
    weak_type = _is_weakly_typed(fill_value)
    fill_dtype = _aval(fill_value).dtype
  else:
    weak_type = False
    fill_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
  return broadcast(_fill_scalar(fill_value, fill_dtype, weak_type), shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  """An array like ``x`` (its shape and dtype unless ``shape``/``dtype`` are given) filled with
  ``fill_value`` (``lax.full_like``). Keeps ``x``'s weak type when ``dtype`` is None."""
  _check_no_sharding("full_like", sharding)
  if shape is None:
    fill_shape = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
  else:
    fill_shape = _canonicalize_shape(shape)
  weak_type = dtype is None and _is_weakly_typed(x)
  if dtype is not None:
    fill_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full_like")
  elif hasattr(x, "dtype"):
    fill_dtype = dtypes.canonicalize_dtype(x.dtype)
  else:
    fill_dtype = _aval(x).dtype
  fill = _fill_scalar(fill_value, fill_dtype, weak_type)
  if shape is None and isinstance(x, Tracer):
    # Like a tracer: the fill is bound to the current trace even when no broadcast is needed,
    # so that under jit it is a tracer (a literal of the jaxpr), as in JAX.
    return broadcast_in_dim_p.bind(fill, shape=fill_shape, broadcast_dimensions=(), sharding=None)
  return full(fill_shape, fill)


ad.full_like = full_like


def zeros_like_array(x):
  """Zeros with the shape, dtype and weak type of ``x`` (JAX's internal ``zeros_like_array``)."""
  return full_like(x, 0)


def _zeros_like_aval(aval: ShapedArray):
  if aval.weak_type:  # zeros keep the weak type, as JAX's zeros_like does
    zero = Array(np.zeros((), aval.dtype), weak_type=True)
    return broadcast_in_dim(zero, aval.shape, ()) if aval.shape else zero
  return full(aval.shape, 0, aval.dtype)


ad.broadcast_zeros = _zeros_like_aval


batching.lax_transpose, batching.lax_broadcast_in_dim, batching.lax_reshape = (
    transpose, broadcast_in_dim, reshape)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

eval_interpreter.exact_kernels(broadcast_in_dim_p, reshape_p, squeeze_p, transpose_p, rev_p,
                               concatenate_p, split_p, pad_p, slice_p, dynamic_slice_p,
                               dynamic_update_slice_p, iota_p)
