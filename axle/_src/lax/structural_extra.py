"""More of lax's primitives that JAX defines on their own: ``tile``, ``stack``, ``unstack``,
``empty``, ``mulhi``, ``optimization_barrier`` and ``rng_bit_generator`` (JAX's names and
params). (``ragged_dot`` is in ``ragged.py``.)

They are separate primitives in JAX's jaxprs (``tile[reps=(2, 1)]``, ``stack[axis=1]``, ...),
so they are here too, lowered to the StableHLO JAX emits: ``tile`` as reshape, broadcast and
reshape; ``stack`` as one ``broadcast_in_dim`` per operand and a ``concatenate``; ``unstack`` as
one slice and reshape per piece; ``empty`` as a broadcast zero; ``mulhi`` as ``chlo.mulhi``;
``optimization_barrier`` as ``stablehlo.optimization_barrier``. None has a NumPy kernel: eagerly
they run as single-primitive XLA executables, so the numbers are XLA's.
"""
from __future__ import annotations

import enum
import operator
from typing import Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src import tree_util
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import structural
from axle._src.lax import utils
from axle._src.xla import deferred

__all__ = ["tile", "stack", "unstack", "empty", "mulhi", "optimization_barrier",
           "rng_bit_generator", "RandomAlgorithm", "rng_bit_generator_p",
           "tile_p", "stack_p", "unstack_p", "empty_p", "mulhi_p", "optimization_barrier_p"]


def _aval(x) -> ShapedArray:
  return core.get_aval(x)


# ---------------------------------------------------------------------------
# tile

tile_p = core.Primitive("tile")


def _tile_abstract_eval(operand: ShapedArray, *, reps) -> ShapedArray:
  shape = tuple(d * r for d, r in zip(operand.shape, reps))
  return ShapedArray(shape, operand.dtype, operand.weak_type)


tile_p.def_abstract_eval(_tile_abstract_eval)


def _tile_interleaved_shape(shape, reps):
  # (r0, d0, r1, d1, ...): the operand repeated along each even axis.
  return tuple(v for pair in zip(reps, shape) for v in pair)


def _tile_lowered(operand, *, reps):
  shape = _aval(operand).shape
  ones = tuple(v for d in shape for v in (1, d))
  x = structural.reshape(operand, ones)
  x = structural.broadcast_in_dim(x, _tile_interleaved_shape(shape, reps), tuple(range(len(ones))))
  return structural.reshape(x, tuple(d * r for d, r in zip(shape, reps)))


mlir.register(tile_p, mlir.lower_fun(_tile_lowered))


def _tile_transpose(ct, operand, *, reps):
  if type(ct) is ad.Zero:
    return [ad.Zero(operand.aval)]
  shape = operand.aval.shape
  x = structural.reshape(ct, _tile_interleaved_shape(shape, reps))
  return [structural._reduce_sum(x, tuple(range(0, 2 * len(shape), 2)))]


ad.deflinear2(tile_p, _tile_transpose)


def _tile_batcher(values, dims, *, reps):
  (operand,), (bdim,) = values, dims
  reps = list(reps)
  reps.insert(bdim, 1)
  return tile_p.bind(operand, reps=tuple(reps)), bdim


batching.primitive_batchers[tile_p] = _tile_batcher


def tile(operand, reps: Sequence[int]):
  """Tiles ``operand``: repeats it ``reps[i]`` times along axis ``i`` (``lax.tile``).
  ``reps`` needs one non-negative entry per axis of ``operand``."""
  operand = structural._asarray(operand)
  reps = tuple(operator.index(r) for r in reps)
  ndim = _aval(operand).ndim
  if len(reps) != ndim:
    raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                    f"and x.ndim={ndim}.")
  if any(r < 0 for r in reps):
    raise ValueError(f"reps must be non-negative, got {reps}")
  return tile_p.bind(operand, reps=reps)


# ---------------------------------------------------------------------------
# stack / unstack

stack_p = core.Primitive("stack")


def _stack_abstract_eval(*operands: ShapedArray, axis) -> ShapedArray:
  first = operands[0]
  for o in operands[1:]:
    if o.shape != first.shape or o.dtype != first.dtype:
      raise TypeError("stack requires operands of one shape and dtype, got "
                      f"{[f'{a.dtype}{list(a.shape)}' for a in operands]}")
  shape = list(first.shape)
  shape.insert(axis, len(operands))
  return ShapedArray(tuple(shape), first.dtype, all(o.weak_type for o in operands))


stack_p.def_abstract_eval(_stack_abstract_eval)


def _stack_impl(*operands, axis):
  return np.stack(operands, axis)


stack_p.def_impl(_stack_impl)
eval_interpreter.exact_kernels(stack_p)  # moves bits: NumPy's stack is XLA's


def _stack_lowered(*operands, axis):
  shape = list(_aval(operands[0]).shape)
  dims = tuple(i for i in range(len(shape) + 1) if i != axis)
  shape.insert(axis, 1)
  pieces = [structural.broadcast_in_dim(o, tuple(shape), dims) for o in operands]
  return structural.concatenate(pieces, axis)


mlir.register(stack_p, mlir.lower_fun(_stack_lowered))


def _stack_transpose(ct, *operands, axis):
  if type(ct) is ad.Zero:
    return [ad.Zero(o.aval) if ad.is_undefined_primal(o) else None for o in operands]
  pieces = unstack_p.bind(ct, axis=axis)
  return [p if ad.is_undefined_primal(o) else None for p, o in zip(pieces, operands)]


ad.deflinear2(stack_p, _stack_transpose)


def _stack_batcher(values, dims, *, axis):
  size, bdim = next((_aval(v).shape[d], d) for v, d in zip(values, dims) if d is not None)
  if all(d == bdim for d in dims):
    # The new axis goes where the unbatched stack puts it; the batch axis moves past it.
    new_axis = axis if axis <= bdim else axis + 1
    out_bdim = bdim + 1 if axis <= bdim else bdim
    return stack_p.bind(*values, axis=new_axis), out_bdim
  # As JAX's, with some operands unbatched: every batch axis goes first (an unbatched operand
  # is broadcast, with plain int dimensions) and the stack is along axis + 1.

  def at_front(v, d):
    if d is not None:
      return batching.moveaxis(v, d, 0)
    shape = _aval(v).shape
    return structural.broadcast_in_dim(v, (size, *shape), tuple(range(1, len(shape) + 1)))

  values = [at_front(v, d) for v, d in zip(values, dims)]
  return stack_p.bind(*values, axis=axis + 1), 0


batching.primitive_batchers[stack_p] = _stack_batcher


def stack(operands: Sequence, axis: int = 0):
  """Stacks ``operands`` (arrays of one shape and dtype) along a new axis ``axis``
  (``lax.stack``)."""
  operands = [structural._asarray(o) for o in operands]
  if not operands:
    raise ValueError("stack requires at least one operand")
  axis = utils.canonicalize_axis(axis, _aval(operands[0]).ndim + 1)
  return stack_p.bind(*operands, axis=axis)


unstack_p = core.Primitive("unstack")
unstack_p.multiple_results = True


def _unstack_abstract_eval(operand: ShapedArray, *, axis) -> list[ShapedArray]:
  shape = tuple(d for i, d in enumerate(operand.shape) if i != axis)
  return [ShapedArray(shape, operand.dtype, operand.weak_type)] * operand.shape[axis]


unstack_p.def_abstract_eval(_unstack_abstract_eval)


def _unstack_lowered(operand, *, axis):
  shape = _aval(operand).shape
  out_shape = tuple(d for i, d in enumerate(shape) if i != axis)
  outs = []
  for i in range(shape[axis]):
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = i, i + 1
    outs.append(structural.reshape(structural.slice(operand, starts, limits), out_shape))
  return outs


mlir.register(unstack_p, mlir.lower_fun(_unstack_lowered, multiple_results=True))


def _unstack_transpose(cts, operand, *, axis):
  if all(type(ct) is ad.Zero for ct in cts):
    return [ad.Zero(operand.aval)]
  return [stack_p.bind(*[ad.instantiate_zeros(ct) for ct in cts], axis=axis)]


ad.deflinear2(unstack_p, _unstack_transpose)


def _unstack_batcher(values, dims, *, axis):
  (operand,), (bdim,) = values, dims
  new_axis = axis + 1 if bdim <= axis else axis
  out_bdim = bdim if bdim < new_axis else bdim - 1
  outs = unstack_p.bind(operand, axis=new_axis)
  return outs, [out_bdim] * len(outs)


batching.primitive_batchers[unstack_p] = _unstack_batcher


def unstack(x, axis: int = 0):
  """Splits ``x`` along ``axis`` into a tuple of ``x.shape[axis]`` arrays without that axis
  (``lax.unstack``)."""
  x = structural._asarray(x)
  axis = utils.canonicalize_axis(axis, _aval(x).ndim)
  return tuple(unstack_p.bind(x, axis=axis))


# ---------------------------------------------------------------------------
# empty

empty_p = core.Primitive("empty")


def _empty_abstract_eval(*, shape, dtype, out_sharding) -> ShapedArray:
  return ShapedArray(shape, dtypes.canonicalize_dtype(dtype))


empty_p.def_abstract_eval(_empty_abstract_eval)


def _empty_lowering(ctx, *, shape, dtype, out_sharding):
  return mlir.full_like_aval(ctx, 0, ctx.avals_out[0])


def _empty_batcher(axis_data, values, dims, *, shape, dtype, out_sharding):
  # JAX's empty is batched even though it has no operands: one new leading axis of the vmap's
  # size (vmap(lambda x: lax.empty((3,), f32)) stages empty[shape=(B, 3)]).
  return empty_p.bind(shape=(axis_data.size, *shape), dtype=dtype, out_sharding=out_sharding), 0


def _empty_dtype_text(dtype) -> str:
  """The dtype as JAX prints empty's parameter: the object the caller passed, as ``str`` shows
  it (``<class 'jax.numpy.float32'>`` for jnp.float32, ``<class 'numpy.int64'>``, ``float32``)."""
  if isinstance(dtype, np.dtype):
    return dtype.name
  if isinstance(dtype, type) and dtype.__module__ == "axle.numpy":  # jnp's scalar types
    return f"<class 'jax.numpy.{dtype.__name__}'>"
  return str(dtype)


mlir.register(empty_p, _empty_lowering)
batching.collective_batchers[empty_p] = _empty_batcher
ad.defjvp_zero(empty_p)
ir.pp_param_rules[empty_p] = lambda params: {
    **params, "dtype": pp.text(_empty_dtype_text(params["dtype"]))}


def empty(shape, dtype, *, out_sharding=None):
  """An array of ``shape`` and ``dtype`` whose contents are unspecified (``lax.empty``); XLA
  fills it with zeros."""
  structural._check_no_sharding("empty", out_sharding)
  shape = structural._canonicalize_shape(shape, "empty")
  dtypes.canonicalize_dtype(dtype)  # rejects what is not a dtype
  # The parameter keeps the dtype object as given (JAX prints jnp.float32 as its class).
  return empty_p.bind(shape=shape, dtype=dtype, out_sharding=out_sharding)


# ---------------------------------------------------------------------------
# mulhi

mulhi_p = utils.binop("mulhi", (np.integer,), None)
mlir.register(mulhi_p, mlir.elementwise("chlo.mulhi"))
ad.defjvp_zero(mulhi_p)
batching.defbroadcasting(mulhi_p)


def mulhi(x, y, /):
  """The high half of the double-width product of integers ``x`` and ``y`` (``lax.mulhi``):
  for 32-bit operands, ``(x * y) >> 32`` computed in 64 bits."""
  return mulhi_p.bind(x, y)


# ---------------------------------------------------------------------------
# optimization_barrier

optimization_barrier_p = core.Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))


def _optimization_barrier_lowering(ctx, *operands):
  if not operands:
    return []
  return mlir.op(ctx, "stablehlo.optimization_barrier", list(operands), list(ctx.avals_out))


mlir.register(optimization_barrier_p, _optimization_barrier_lowering)
deferred.barrier_primitive = optimization_barrier_p  # it keeps fused eager ops apart


def _optimization_barrier_jvp(primals, tangents):
  # Two barriers, as JAX binds them, so that partial evaluation keeps the primal one.
  tangents = [ad.instantiate_zeros(t) for t in tangents]
  return optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents)


ad.primitive_jvps[optimization_barrier_p] = _optimization_barrier_jvp


def _optimization_barrier_transpose(cts, *operands):
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  return optimization_barrier_p.bind(*cts)


ad.primitive_transposes[optimization_barrier_p] = _optimization_barrier_transpose
batching.primitive_batchers[optimization_barrier_p] = lambda values, dims: (
    optimization_barrier_p.bind(*values), list(dims))


def optimization_barrier(operand, /):
  """Returns ``operand`` (any pytree of arrays) unchanged, but keeps XLA from moving
  computations across this point (``lax.optimization_barrier``, XLA's OptimizationBarrier)."""
  leaves, treedef = tree_util.tree_flatten(operand)
  leaves = [structural._asarray(x) for x in leaves]
  outs = optimization_barrier_p.bind(*leaves)
  return tree_util.tree_unflatten(treedef, outs)


# ---------------------------------------------------------------------------
# rng_bit_generator


class RandomAlgorithm(enum.IntEnum):
  """The bit-generation algorithm of ``rng_bit_generator`` (XLA's RandomAlgorithm)."""
  RNG_DEFAULT = 0
  RNG_THREE_FRY = 1
  RNG_PHILOX = 2

  def __repr__(self):
    return self.name

  __str__ = __repr__


_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                    RandomAlgorithm.RNG_PHILOX: "PHILOX"}

rng_bit_generator_p = core.Primitive("rng_bit_generator")
rng_bit_generator_p.multiple_results = True


def _rng_bit_generator_abstract_eval(key: ShapedArray, *, shape, dtype, algorithm, out_sharding):
  if key.dtype != np.uint32 or key.ndim != 1 or key.shape[0] % 2:
    raise TypeError(f"rng_bit_generator: key must be a uint32 vector of even length (4 for the "
                    f"default algorithm), got {key.dtype}{list(key.shape)}")
  return [ShapedArray(key.shape, key.dtype), ShapedArray(shape, np.dtype(dtype))]


rng_bit_generator_p.def_abstract_eval(_rng_bit_generator_abstract_eval)


def _rng_bit_generator_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding):
  # XLA's state is u64[n/2]: the u32 key is viewed as pairs, as JAX lowers it.
  n = ctx.avals_in[0].shape[0]
  pairs = ShapedArray((n // 2, 2), np.uint32)
  state = ShapedArray((n // 2,), np.uint64)
  x = mlir.op(ctx, "stablehlo.reshape", [key], pairs)
  x = mlir.op(ctx, "stablehlo.bitcast_convert", [x], state)
  new_state, bits = mlir.op(
      ctx, "stablehlo.rng_bit_generator", [x], [state, ctx.avals_out[1]],
      {"rng_algorithm": f"#stablehlo<rng_algorithm {_ALGORITHM_NAMES[algorithm]}>"})
  y = mlir.op(ctx, "stablehlo.bitcast_convert", [new_state], pairs)
  y = mlir.op(ctx, "stablehlo.reshape", [y], ctx.avals_out[0])
  return [y, bits]


mlir.register(rng_bit_generator_p, _rng_bit_generator_lowering)
ad.defjvp_zero(rng_bit_generator_p)


def _rng_bit_generator_batcher(values, dims, **params):
  # One generator call per batch element, stacked (the keys are independent states).
  (key,), (bdim,) = values, dims
  keys = unstack(key, bdim)
  outs = [rng_bit_generator_p.bind(k, **params) for k in keys]
  return [stack([o[0] for o in outs]), stack([o[1] for o in outs])], [0, 0]


batching.primitive_batchers[rng_bit_generator_p] = _rng_bit_generator_batcher


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
  """Random bits from XLA's stateless generator (``lax.rng_bit_generator``, XLA's
  RngBitGenerator): returns ``(new_key, bits)``, ``bits`` of ``shape`` and unsigned ``dtype``.
  ``key`` is a uint32 vector (4 words for the default algorithm). The bits are XLA's, so the
  same as JAX's under jit for the same key and algorithm."""
  structural._check_no_sharding("rng_bit_generator", out_sharding)
  shape = structural._canonicalize_shape(shape, "rng_bit_generator")
  dtype = np.dtype(dtype)
  if dtype not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32),
                   np.dtype(np.uint64)):
    raise TypeError(f"rng_bit_generator: dtype must be an unsigned integer type, got {dtype}")
  algorithm = RandomAlgorithm(algorithm)
  key = structural._asarray(key)
  return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype, algorithm=algorithm,
                                        out_sharding=out_sharding))
