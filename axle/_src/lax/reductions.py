"""Reduction primitives: reduce_{sum,prod,max,min,and,or,xor}, argmax/argmin, the cumulative
reductions (cumsum/cumprod/cummax/cummin/cumlogsumexp) and lax.reduce.

XLA semantics reproduced by the NumPy kernels:
- integer sums and products wrap modulo 2**bits;
- float16/bfloat16 sums and products accumulate in float32 and round once at the end
  (XLA on CPU accumulates in the narrow type, so results can differ in the last bits);
- reduce_max/reduce_min propagate NaN and order -0.0 below +0.0;
- complex max/min compare lexicographically (real part, then imaginary part);
- a reduction over an empty axis gives the monoid's identity (0, 1, -inf/INT_MIN, +inf/INT_MAX,
  all-ones for ``and``, 0 for ``or``/``xor``);
- argmax/argmin return the first index of the extremum and treat NaN as the extremum;
- cumulative ops (params ``axis``, ``reverse``) keep the operand's shape; cummax/cummin propagate
  NaN from where it first appears.

Lowering (what JAX emits on CPU): ``stablehlo.reduce`` with the monoid's identity as init value
(complex max/min compare lexicographically in the region); argmax/argmin a variadic reduce over
(value, iota index) whose comparator lets NaN win and ties keep the smaller index; the cumulative
ops one ``stablehlo.reduce_window`` whose window spans the axis, padded with ``n - 1`` identities.
Complex max/min-like reductions of operands holding NaN run on XLA even eagerly: whether the NaN
survives depends on XLA's combining order.

``lax.reduce`` binds the specific primitive when the computation is a known monoid
(``lax.add``, ``lax.mul``, ``lax.max``, ``lax.min``, ``lax.bitwise_and/or/xor``) and the init value
is that monoid's identity, as JAX does; any other computation becomes the generic ``reduce``
primitive, which carries the traced computation as a jaxpr.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import differentiation
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.lax import elementwise
from axle._src.lax import special
from axle._src.lax import structural
from axle._src.lax import utils

__all__ = [
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
    "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp",
    "reduce",
]

_narrow_floats = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


# ---------------------------------------------------------------------------
# Shared helpers


def _check_axes(aval: ShapedArray, axes) -> None:
  if any(a < 0 or a >= aval.ndim for a in axes):
    raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                     f"{aval.str_short(short_dtypes=False)}.")
  if len(set(axes)) != len(axes):
    raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")


def _reduced_shape(shape, axes) -> tuple[int, ...]:
  return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_rule(name: str, accepted, message: Callable[[np.dtype], str] | None = None) -> Callable:
  def rule(operand: ShapedArray, *, axes, **_) -> ShapedArray:
    if not utils.dtype_in(operand.dtype, accepted):
      if message is not None:
        raise TypeError(message(operand.dtype))
      utils.check_accepted_dtype(name, operand, accepted)
    _check_axes(operand, axes)
    return ShapedArray(_reduced_shape(operand.shape, axes), operand.dtype, operand.weak_type)
  return rule


def _number_message(name):
  return lambda dtype: (f"{name} does not accept dtype {dtype.name}. "
                        "Accepted dtypes are subtypes of number.")


def _logical_message(dtype) -> str:
  return f"logical reduction requires operand dtype bool or int, got {dtype.name}."


def _lowest(dtype: np.dtype):
  """The identity of max: -inf for inexact dtypes, the minimum for integers, False for bool."""
  if dtype == np.bool_:
    return False
  if dtype.kind in "iu":
    return np.iinfo(dtype).min
  return -np.inf


def _highest(dtype: np.dtype):
  if dtype == np.bool_:
    return True
  if dtype.kind in "iu":
    return np.iinfo(dtype).max
  return np.inf


def _all_ones(dtype: np.dtype):
  if dtype == np.bool_:
    return True
  return np.array(-1).astype(dtype) if dtype.kind == "i" else np.iinfo(dtype).max


def _empty_result(x: np.ndarray, axes, identity) -> np.ndarray | None:
  """The identity-filled result when some reduced axis is empty, else None."""
  if any(x.shape[a] == 0 for a in axes):
    with np.errstate(over="ignore", invalid="ignore"):
      return np.full(_reduced_shape(x.shape, axes), identity, dtype=x.dtype)
  return None


# ---------------------------------------------------------------------------
# Transformation helpers


def _shifted_axes(axes, bdim: int) -> tuple:
  """Reduction axes renumbered for a batch axis at ``bdim`` (NumPy integers, as JAX's params
  print after vmap)."""
  return tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)).astype(np.int64))


def reducer_batcher(primitive: core.Primitive, axes_param: str = "axes") -> Callable:
  """Batching rule of a one-operand reduction: the reduced axes move past the batch axis."""
  def rule(values, dims, **params):
    (x,), (bdim,) = values, dims
    axes = _shifted_axes(params[axes_param], bdim)
    out = primitive.bind(x, **{**params, axes_param: axes})
    kept = [i for i in range(core.get_aval(x).ndim) if i not in set(int(a) for a in axes)]
    return out, kept.index(bdim)
  return rule


def tree_reduce_jvp(combine: Callable, identities, primals, tangents, axes):
  """JVP of a reduction of ``primals`` over ``axes`` with ``combine`` (lists of arrays in, list
  out), computed by differentiating a pairwise-halving tree of ``combine`` applications (the
  reduced axes first moved to the front and flattened). Zeros in a product and ties in
  extrema are handled exactly as ``combine``'s own JVP handles them."""
  shape = core.get_aval(primals[0]).shape
  axes = tuple(int(a) for a in axes)
  kept = tuple(i for i in range(len(shape)) if i not in axes)
  n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
  rest = tuple(shape[i] for i in kept)
  new_shape = (n,) + rest
  permutation = axes + kept
  primals = [structural.reshape(x, new_shape, permutation) for x in primals]
  tangents = [np.zeros(new_shape, ad.float0) if ad.tangent_aval(core.get_aval(x)).dtype == ad.float0
              else structural.reshape(ad.instantiate_zeros(t), new_shape, permutation)
              for x, t in zip(primals, tangents)]

  def tree(*xs):
    xs = list(xs)
    while core.get_aval(xs[0]).shape[0] > 1:
      size = core.get_aval(xs[0]).shape[0]
      half = (size + 1) // 2
      first = [structural.slice_in_dim(x, 0, half) for x in xs]
      second = [structural.slice_in_dim(x, half, size) for x in xs]
      if size - half != half:
        config = [(0, 1, 0)] + [(0, 0, 0)] * len(rest)
        second = [structural.pad(x, init, config) for x, init in zip(second, identities)]
      xs = list(combine(first, second))
    if core.get_aval(xs[0]).shape[0] == 0:
      return [structural.full(rest, init, core.get_aval(x).dtype)
              for x, init in zip(xs, identities)]
    return [structural.squeeze(x, (0,)) for x in xs]

  return differentiation.jvp(tree, primals, tangents)


# ---------------------------------------------------------------------------
# Lowering helpers (shared with windowed.py)


def identity_constant(ctx, kind: str, dtype: np.dtype) -> "mlir.Value":
  """The scalar identity of a monoid as a constant: 0 (sum), 1 (prod), -inf / the minimum (max),
  +inf / the maximum (min), all ones (and), 0 (or, xor). Complex max/min use (-+inf, 0)."""
  dtype = np.dtype(dtype)
  if kind in ("sum", "or", "xor"):
    value = 0
  elif kind == "prod":
    value = 1
  elif kind == "and":
    value = _all_ones(dtype)
  elif kind in ("max", "min"):
    value = (_lowest if kind == "max" else _highest)(dtype)
  elif kind == "logsumexp":
    value = -np.inf
  else:
    raise ValueError(kind)
  with np.errstate(all="ignore"):
    return mlir.constant(ctx, np.asarray(value).astype(dtype))


def _logaddexp_real(ctx, x, y):
  """log(exp(x) + exp(y)) as max + log1p(exp(-|x - y|)), with x + y where x - y is NaN (equal
  infinities or a NaN operand)."""
  aval = x.aval
  amax = mlir.op(ctx, "stablehlo.maximum", [x, y], aval)
  delta = mlir.op(ctx, "stablehlo.subtract", [x, y], aval)
  is_nan = mlir.compare(ctx, delta, delta, "NE")
  total = mlir.op(ctx, "stablehlo.add", [x, y], aval)
  magnitude = mlir.op(ctx, "stablehlo.abs", [delta], aval)
  negated = mlir.op(ctx, "stablehlo.negate", [magnitude], aval)
  exp = mlir.op(ctx, "stablehlo.exponential", [negated], aval)
  log1p = mlir.op(ctx, "stablehlo.log_plus_one", [exp], aval)
  stable = mlir.op(ctx, "stablehlo.add", [amax, log1p], aval)
  return mlir.select(ctx, is_nan, total, stable)


def _logaddexp_complex(ctx, x, y):
  """Complex log(exp(x) + exp(y)) as amax + log1p(exp(x + y - 2 amax)) (amax: the lexicographic
  max), with the imaginary part wrapped into [-pi, pi)."""
  aval = x.aval
  amax = elementwise.lower_complex_extremum(ctx, x, y, "GT")
  total = mlir.op(ctx, "stablehlo.add", [x, y], aval)
  two = mlir.constant(ctx, np.asarray(2, aval.dtype))
  delta = mlir.op(ctx, "stablehlo.subtract",
                  [total, mlir.op(ctx, "stablehlo.multiply", [amax, two], aval)], aval)
  exp = mlir.op(ctx, "stablehlo.exponential", [delta], aval)
  out = mlir.op(ctx, "stablehlo.add", [amax, mlir.op(ctx, "stablehlo.log_plus_one", [exp], aval)],
                aval)
  real, imag = mlir.real_part(ctx, out), mlir.imag_part(ctx, out)
  part = real.aval
  pi = mlir.constant(ctx, np.asarray(np.pi, part.dtype))
  two_pi = mlir.constant(ctx, np.asarray(2 * np.pi, part.dtype))
  shifted = mlir.op(ctx, "stablehlo.remainder",
                    [mlir.op(ctx, "stablehlo.add", [imag, pi], part), two_pi], part)
  negative = mlir.compare(ctx, shifted, mlir.constant(ctx, np.zeros((), part.dtype)), "LT")
  wrapped = mlir.select(ctx, negative, mlir.op(ctx, "stablehlo.add", [shifted, two_pi], part),
                        shifted)
  imag = mlir.op(ctx, "stablehlo.subtract", [wrapped, pi], part)
  return mlir.op(ctx, "stablehlo.complex", [real, imag], aval)


_MONOID_OPS = {"sum": "stablehlo.add", "prod": "stablehlo.multiply", "max": "stablehlo.maximum",
               "min": "stablehlo.minimum", "and": "stablehlo.and", "or": "stablehlo.or",
               "xor": "stablehlo.xor"}


def monoid_body(kind: str, dtype: np.dtype) -> Callable:
  """The body ``(ctx, acc, x) -> value`` of a reduction region combining two scalars of
  ``dtype`` with the monoid ``kind``."""
  dtype = np.dtype(dtype)
  if kind in ("max", "min") and dtype.kind == "c":
    direction = "GT" if kind == "max" else "LT"
    return lambda ctx, a, b: elementwise.lower_complex_extremum(ctx, a, b, direction)
  if kind == "logsumexp":
    return _logaddexp_complex if dtype.kind == "c" else _logaddexp_real
  name = _MONOID_OPS[kind]
  return lambda ctx, a, b: mlir.op(ctx, name, [a, b], a.aval)


def padding_attribute(padding) -> str:
  """``dense<[[lo, hi], ...]> : tensor<Nx2xi64>`` (``dense<>`` with no dimensions)."""
  if not padding:
    return "dense<> : tensor<0x2xi64>"
  return mlir.dense_elements([list(p) for p in padding], (len(padding), 2))


def _monoid_reduce_lowering(kind: str) -> Callable:
  def rule(ctx, operand, *, axes, **_):
    dtype = operand.aval.dtype
    init = identity_constant(ctx, kind, dtype)
    body = mlir.region(ctx, [mlir.scalar_aval(dtype)] * 2, monoid_body(kind, dtype))
    out, = mlir.op(ctx, "stablehlo.reduce", [operand, init], [ctx.avals_out[0]],
                   {"dimensions": mlir.dense_array(axes)}, regions=[body])
    return out
  rule.__name__ = f"_reduce_{kind}_lowering"
  return rule


# ---------------------------------------------------------------------------
# reduce_sum / reduce_prod


_wide_accumulation = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


def _reduced_count(shape, axes) -> int:
  count = 1
  for a in axes:
    count *= shape[a]
  return count


def _xla_cpu_float32_sum(x: np.ndarray, axis: int):
  """The float32 sum over ``axis`` in XLA CPU's order, or None where that order is not known
  here (NumPy's pairwise order is used then).

  Measured against JAX 0.10.2 on CPU: a reduced dimension of up to 32 elements is summed left to
  right; a longer one that is the innermost dimension (up to 4095 elements) is first cut into
  windows of 32, padded with zeros evenly on both sides (the extra zero on the right), each
  window summed left to right, and the window sums reduced the same way."""
  n = x.shape[axis]
  if n <= 32:
    total = np.add.accumulate(x, axis=axis, dtype=np.float32).take(-1, axis=axis)
    # XLA's accumulator starts at +0.0: a sum of several -0.0 is +0.0
    return total if n == 1 else total + np.float32(0.0)
  if axis != x.ndim - 1 or n >= 4096:  # (4096 elements are summed in another order)
    return None
  windows = -(-n // 32)
  pad = windows * 32 - n
  padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad // 2, pad - pad // 2)])
  sums = np.add.accumulate(padded.reshape(x.shape[:-1] + (windows, 32)), axis=-1,
                           dtype=np.float32)[..., -1]
  return _xla_cpu_float32_sum(sums, sums.ndim - 1)


def _make_arith_impl(ufunc: np.ufunc, identity):
  def impl(operand, *, axes, **_):
    x = np.asarray(operand)
    if not axes:
      return x.copy()
    empty = _empty_result(x, axes, identity)
    if empty is not None:
      return empty
    dtype = x.dtype
    with np.errstate(all="ignore"):
      if dtype in _narrow_floats:
        return ufunc.reduce(x.astype(np.float32), axis=axes).astype(dtype)
      if ufunc is np.add and dtype == np.float32 and len(axes) == 1:
        # JAX sums eagerly with XLA's CPU kernel; its order gives other bits than NumPy's.
        ordered = _xla_cpu_float32_sum(x, axes[0])
        if ordered is not None:
          return np.asarray(ordered)
      if ufunc is np.add and dtype in _wide_accumulation and _reduced_count(x.shape, axes) > 128:
        # Long float32 sums: NumPy sums strided axes sequentially (error growing with the
        # length), XLA's tree-like reduction stays within a few ulps; accumulating in double
        # precision keeps the eager result as close to XLA's.
        return ufunc.reduce(x, axis=axes, dtype=_wide_accumulation[dtype]).astype(dtype)
      # dtype=dtype keeps integer accumulation in the operand's width, so overflow wraps.
      return np.asarray(ufunc.reduce(x, axis=axes, dtype=dtype))
  return impl


reduce_sum_p = core.Primitive("reduce_sum")
reduce_sum_p.def_abstract_eval(_reduce_rule("reduce_sum", utils._num, _number_message("reduce_sum")))
reduce_sum_p.def_impl(_make_arith_impl(np.add, 0))
mlir.register(reduce_sum_p, _monoid_reduce_lowering("sum"))

reduce_prod_p = core.Primitive("reduce_prod")
reduce_prod_p.def_abstract_eval(_reduce_rule("reduce_prod", utils._num, _number_message("reduce_prod")))
reduce_prod_p.def_impl(_make_arith_impl(np.multiply, 1))
mlir.register(reduce_prod_p, _monoid_reduce_lowering("prod"))


def _reduce_sum_transpose(ct, operand, *, axes, out_sharding):
  aval = operand.aval
  if aval.ndim == 0:
    return [ct]  # JAX's broadcast_in_dim forwards a 0-d operand (its cotangent seed is an Array)
  kept = tuple(np.delete(np.arange(aval.ndim), axes))
  return [structural.broadcast_in_dim(ct, aval.shape, kept)]


ad.deflinear2(reduce_sum_p, _reduce_sum_transpose)
batching.primitive_batchers[reduce_sum_p] = reducer_batcher(reduce_sum_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
  (operand,), (tangent,) = primals, tangents
  one = np.ones((), core.get_aval(operand).dtype)
  outs, tangent_outs = tree_reduce_jvp(lambda a, b: [elementwise.mul(a[0], b[0])], [one],
                                       [operand], [tangent], axes)
  return outs[0], tangent_outs[0]


ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp
batching.primitive_batchers[reduce_prod_p] = reducer_batcher(reduce_prod_p)


def _canonical_axes(axes) -> tuple[int, ...]:
  try:
    return tuple(operator.index(a) for a in axes)
  except TypeError:
    raise TypeError(f"reduction axes must be a sequence of integers, got {axes!r}") from None


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
  """Sum of ``operand``'s elements over ``axes`` (``lax.reduce_sum``).

  Integer sums wrap on overflow; a sum over an empty axis is 0. Axes must be non-negative
  and distinct.
  """
  return reduce_sum_p.bind(operand, axes=_canonical_axes(axes), out_sharding=out_sharding)


def reduce_prod(operand, axes: Sequence[int]):
  """Product of ``operand``'s elements over ``axes`` (``lax.reduce_prod``); 1 over an empty axis."""
  return reduce_prod_p.bind(operand, axes=_canonical_axes(axes))


# ---------------------------------------------------------------------------
# reduce_max / reduce_min


def _fix_signed_zeros(result, x, axes, want_positive: bool):
  """XLA's max orders -0.0 below +0.0 (and min the reverse); NumPy returns whichever zero came
  first. Where the result is a zero, pick the sign XLA would."""
  zero = result == 0
  if not np.any(zero):
    return result
  if want_positive:
    has = np.any((x == 0) & ~np.signbit(x), axis=axes)
    return np.where(zero & has, np.zeros((), x.dtype), result)
  has = np.any((x == 0) & np.signbit(x), axis=axes)
  return np.where(zero & has, -np.zeros((), x.dtype), result)


# Complex max/min-like primitives on an operand holding NaN run on XLA (eval.run_on_xla): XLA
# orders complex numbers lexicographically with a comparison that is false both ways for NaN, so
# whether a NaN survives depends on the order XLA combines elements in (sequential for small
# inputs, blocked for large ones), and JAX's answer is XLA's.


def _make_extremum_impl(primitive: core.Primitive, ufunc: np.ufunc, identity_of: Callable,
                        is_max: bool):
  def impl(operand, *, axes):
    x = np.asarray(operand)
    if not axes:
      return x.copy()
    dtype = x.dtype
    if dtype.kind == "c" and np.isnan(x).any():
      return eval_interpreter.run_on_xla(primitive, [x], {"axes": axes})
    if dtype.kind == "c" and any(x.shape[a] == 0 for a in axes):
      return np.full(_reduced_shape(x.shape, axes), complex(identity_of(dtype), 0), dtype)
    empty = _empty_result(x, axes, identity_of(dtype))
    if empty is not None:
      return empty
    work = x.astype(np.float32) if dtype == dtypes.bfloat16 else x
    result = np.asarray(ufunc.reduce(work, axis=axes))
    if dtype.kind == "f" or dtype == dtypes.bfloat16:
      result = _fix_signed_zeros(result, work, axes, want_positive=is_max)
    return result.astype(dtype, copy=False)
  return impl


reduce_max_p = core.Primitive("reduce_max")
reduce_max_p.def_abstract_eval(_reduce_rule("reduce_max", utils._any))
reduce_max_p.def_impl(_make_extremum_impl(reduce_max_p, np.maximum, _lowest, True))
mlir.register(reduce_max_p, _monoid_reduce_lowering("max"))

reduce_min_p = core.Primitive("reduce_min")
reduce_min_p.def_abstract_eval(_reduce_rule("reduce_min", utils._any))
reduce_min_p.def_impl(_make_extremum_impl(reduce_min_p, np.minimum, _highest, False))
mlir.register(reduce_min_p, _monoid_reduce_lowering("min"))


def _reduce_chooser_jvp(g, ans, operand, *, axes):
  """The tangent at the extremum; ties share it equally (JAX's convention)."""
  aval = core.get_aval(operand)
  shape = tuple(1 if i in axes else d for i, d in enumerate(aval.shape))
  location = elementwise.convert_element_type(
      elementwise.eq(operand, structural.reshape(ans, shape)), core.get_aval(g).dtype)
  # (the axes as the equation holds them: NumPy integers print as such, as in JAX)
  counts = reduce_sum_p.bind(location, axes=tuple(axes), out_sharding=None)
  return elementwise.div(
      reduce_sum_p.bind(elementwise.mul(g, location), axes=tuple(axes), out_sharding=None), counts)


for _p in (reduce_max_p, reduce_min_p):
  ad.defjvp2(_p, _reduce_chooser_jvp)
  batching.primitive_batchers[_p] = reducer_batcher(_p)


def reduce_max(operand, axes: Sequence[int]):
  """Maximum of ``operand``'s elements over ``axes`` (``lax.reduce_max``).

  NaN propagates; complex numbers compare lexicographically; the maximum over an empty axis is
  the dtype's lowest value (-inf for floats).
  """
  return reduce_max_p.bind(operand, axes=_canonical_axes(axes))


def reduce_min(operand, axes: Sequence[int]):
  """Minimum of ``operand``'s elements over ``axes`` (``lax.reduce_min``); NaN propagates."""
  return reduce_min_p.bind(operand, axes=_canonical_axes(axes))


# ---------------------------------------------------------------------------
# reduce_and / reduce_or / reduce_xor


def _make_logical_impl(bool_ufunc: np.ufunc, int_ufunc: np.ufunc, identity_of: Callable):
  def impl(operand, *, axes):
    x = np.asarray(operand)
    if not axes:
      return x.copy()
    empty = _empty_result(x, axes, identity_of(x.dtype))
    if empty is not None:
      return empty
    ufunc = bool_ufunc if x.dtype == np.bool_ else int_ufunc
    return np.asarray(ufunc.reduce(x, axis=axes)).astype(x.dtype, copy=False)
  return impl


reduce_and_p = core.Primitive("reduce_and")
reduce_and_p.def_abstract_eval(_reduce_rule("reduce_and", utils._bool_or_int, _logical_message))
reduce_and_p.def_impl(_make_logical_impl(np.logical_and, np.bitwise_and, _all_ones))
mlir.register(reduce_and_p, _monoid_reduce_lowering("and"))

reduce_or_p = core.Primitive("reduce_or")
reduce_or_p.def_abstract_eval(_reduce_rule("reduce_or", utils._bool_or_int, _logical_message))
reduce_or_p.def_impl(_make_logical_impl(np.logical_or, np.bitwise_or, lambda d: 0))
mlir.register(reduce_or_p, _monoid_reduce_lowering("or"))

reduce_xor_p = core.Primitive("reduce_xor")
reduce_xor_p.def_abstract_eval(_reduce_rule("reduce_xor", utils._bool_or_int, _logical_message))
reduce_xor_p.def_impl(_make_logical_impl(np.logical_xor, np.bitwise_xor, lambda d: 0))
mlir.register(reduce_xor_p, _monoid_reduce_lowering("xor"))

for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
  ad.defjvp_zero(_p)
  batching.primitive_batchers[_p] = reducer_batcher(_p)


def reduce_and(operand, axes: Sequence[int]):
  """Logical (bool) or bitwise (integer) AND over ``axes`` (``lax.reduce_and``)."""
  return reduce_and_p.bind(operand, axes=_canonical_axes(axes))


def reduce_or(operand, axes: Sequence[int]):
  """Logical (bool) or bitwise (integer) OR over ``axes`` (``lax.reduce_or``)."""
  return reduce_or_p.bind(operand, axes=_canonical_axes(axes))


def reduce_xor(operand, axes: Sequence[int]):
  """Logical (bool) or bitwise (integer) XOR over ``axes`` (``lax.reduce_xor``)."""
  return reduce_xor_p.bind(operand, axes=_canonical_axes(axes))


# ---------------------------------------------------------------------------
# argmax / argmin


def _arg_rule(operand: ShapedArray, *, axes, index_dtype) -> ShapedArray:
  if len(axes) != 1:
    raise ValueError(f"argmin and argmax take exactly one axis, got axes={axes}")
  axis, = axes
  if not 0 <= axis < operand.ndim:
    raise ValueError(f"Invalid axis {axis} for operand shape {operand.shape}")
  if operand.shape[axis] == 0:
    raise ValueError("argmin and argmax require non-empty reduced dimension. "
                     f"operand.shape={operand.shape} axis={axis}")
  if not dtypes.issubdtype(index_dtype, np.integer):
    raise TypeError(f"index_dtype must be an integer type, but got {np.dtype(index_dtype).name}")
  return ShapedArray(_reduced_shape(operand.shape, axes), index_dtype)


def _make_arg_impl(np_fun: Callable):
  def impl(operand, *, axes, index_dtype):
    x = np.asarray(operand)
    if x.dtype.kind == "c":
      # XLA's argmax/argmin comparator is only defined on real numbers.
      raise TypeError(f"gt does not accept dtype {x.dtype.name} at position 0. Accepted dtypes at "
                      "position 0 are subtypes of integer, floating, bool.")
    if x.dtype in _narrow_floats:
      x = x.astype(np.float32)
    # NumPy's argmax/argmin already return the first extremum and treat NaN as the extremum.
    return np.asarray(np_fun(x, axis=axes[0])).astype(index_dtype)
  return impl


def _make_arg_lowering(is_max: bool) -> Callable:
  """A variadic reduce over (value, index): the running extremum wins, NaN counts as the
  extremum, and ties keep the smaller index."""
  direction = "GT" if is_max else "LT"

  def body(ctx, value_acc, index_acc, value, index):
    better = mlir.compare(ctx, value_acc, value, direction)
    is_nan = mlir.compare(ctx, value_acc, value_acc, "NE")
    pick_acc = mlir.op(ctx, "stablehlo.or", [better, is_nan], better.aval)
    tie = mlir.compare(ctx, value_acc, value, "EQ")
    earlier = mlir.compare(ctx, index_acc, index, "LT")
    tie_earlier = mlir.op(ctx, "stablehlo.and", [tie, earlier], tie.aval)
    pick_index = mlir.op(ctx, "stablehlo.or", [pick_acc, tie_earlier], tie.aval)
    return [mlir.select(ctx, pick_acc, value_acc, value),
            mlir.select(ctx, pick_index, index_acc, index)]

  def rule(ctx, operand, *, axes, index_dtype):
    aval = operand.aval
    if aval.dtype.kind == "c":
      raise TypeError(f"{'argmax' if is_max else 'argmin'} does not accept complex operands "
                      f"(dtype {aval.dtype.name}).")
    axis, = axes
    index_dtype = np.dtype(index_dtype)
    indices = mlir.op(ctx, "stablehlo.iota", [], ShapedArray(aval.shape, index_dtype),
                      {"iota_dimension": f"{axis} : i64"})
    value_init = identity_constant(ctx, "max" if is_max else "min", aval.dtype)
    index_init = mlir.constant(ctx, np.zeros((), index_dtype))
    region = mlir.region(ctx, [mlir.scalar_aval(aval.dtype), mlir.scalar_aval(index_dtype)] * 2, body)
    out_shape = ctx.avals_out[0].shape
    _, index = mlir.op(ctx, "stablehlo.reduce", [operand, indices, value_init, index_init],
                       [ShapedArray(out_shape, aval.dtype), ShapedArray(out_shape, index_dtype)],
                       {"dimensions": mlir.dense_array(axes)}, regions=[region])
    return index

  rule.__name__ = f"_{'argmax' if is_max else 'argmin'}_lowering"
  return rule


argmax_p = core.Primitive("argmax")
argmax_p.def_abstract_eval(_arg_rule)
argmax_p.def_impl(_make_arg_impl(np.argmax))
mlir.register(argmax_p, mlir.outlined(_make_arg_lowering(True)))  # JAX outlines it

argmin_p = core.Primitive("argmin")
argmin_p.def_abstract_eval(_arg_rule)
argmin_p.def_impl(_make_arg_impl(np.argmin))
mlir.register(argmin_p, mlir.outlined(_make_arg_lowering(False)))

for _p in (argmax_p, argmin_p):
  ad.defjvp_zero(_p)
  batching.primitive_batchers[_p] = reducer_batcher(_p)


def _index_dtype(index_dtype, name: str) -> np.dtype:
  return dtypes.check_and_canonicalize_user_dtype(index_dtype, name)


def argmax(operand, axis: int, index_dtype):
  """Index of the maximum of ``operand`` along ``axis`` (``lax.argmax``).

  Returns the first index of the maximum; NaN counts as the maximum. ``axis`` must be
  non-negative and the reduced dimension non-empty; ``index_dtype`` is an integer dtype.
  """
  return argmax_p.bind(operand, axes=(operator.index(axis),),
                       index_dtype=_index_dtype(index_dtype, "argmax"))


def argmin(operand, axis: int, index_dtype):
  """Index of the minimum of ``operand`` along ``axis`` (``lax.argmin``); NaN counts as the minimum."""
  return argmin_p.bind(operand, axes=(operator.index(axis),),
                       index_dtype=_index_dtype(index_dtype, "argmin"))


# ---------------------------------------------------------------------------
# Cumulative reductions


def _cumulative_rule(name: str, accepted):
  def rule(operand: ShapedArray, *, axis, reverse) -> ShapedArray:
    if axis < 0:
      raise ValueError("XLA operations do not allow negative axes")
    if axis >= operand.ndim:
      raise ValueError(f"axis {axis} is out of bounds for array of shape {operand.shape}")
    if not utils.dtype_in(operand.dtype, accepted):
      kinds = "number" if accepted is utils._num else "inexact"
      raise TypeError(f"{name} does not accept dtype {operand.dtype.name}. "
                      f"Accepted dtypes are subtypes of {kinds}.")
    return operand
  return rule


def _zero_sign_fix(result, x, axis, want_positive: bool):
  """NumPy's maximum keeps the first of two equal zeros; XLA's max prefers +0.0 (min: -0.0)."""
  zero = result == 0
  if not np.any(zero):
    return result
  mark = (x == 0) & (np.signbit(x) != want_positive)
  seen = np.logical_or.accumulate(mark, axis=axis)
  signed_zero = np.zeros((), x.dtype) if want_positive else -np.zeros((), x.dtype)
  return np.where(zero & seen, signed_zero, result)


def _logaddexp_accumulate(x: np.ndarray, axis: int) -> np.ndarray:
  if x.dtype.kind == "c":
    # log(sum(exp(x))) relative to the running maximum of the real part keeps exp() in range.
    shift = np.maximum.accumulate(np.where(np.isnan(x.real), -np.inf, x.real), axis=axis)
    top = np.max(shift, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    return np.log(np.cumsum(np.exp(x - top), axis=axis)) + top
  return np.logaddexp.accumulate(x, axis=axis)


def _make_cumulative_impl(primitive: core.Primitive, kind: str):
  def impl(operand, *, axis, reverse):
    x = np.asarray(operand)
    if x.size == 0:
      return x.copy()
    dtype = x.dtype
    if kind in ("max", "min") and dtype.kind == "c" and np.isnan(x).any():
      return eval_interpreter.run_on_xla(primitive, [x], {"axis": axis, "reverse": reverse})
    if reverse:
      x = np.flip(x, axis)
    work = x.astype(np.float32) if dtype in _narrow_floats else x
    with np.errstate(all="ignore"):
      if kind == "sum":
        out = np.cumsum(work, axis=axis, dtype=work.dtype)
      elif kind == "prod":
        out = np.cumprod(work, axis=axis, dtype=work.dtype)
      elif kind == "max":
        out = np.maximum.accumulate(work, axis=axis)
        if work.dtype.kind == "f":
          out = _zero_sign_fix(out, work, axis, want_positive=True)
      elif kind == "min":
        out = np.minimum.accumulate(work, axis=axis)
        if work.dtype.kind == "f":
          out = _zero_sign_fix(out, work, axis, want_positive=False)
      else:
        out = _logaddexp_accumulate(work, axis)
      out = np.asarray(out).astype(dtype)
    if reverse:
      out = np.flip(out, axis)
    return np.ascontiguousarray(out)
  return impl


def _make_cumulative_lowering(kind: str) -> Callable:
  """XLA:CPU's form of a cumulative reduction (JAX's too): a reduce_window whose window spans the
  whole axis, padded by ``n - 1`` identity elements in front (at the back for ``reverse``)."""
  def rule(ctx, operand, *, axis, reverse):
    aval = operand.aval
    n = aval.shape[axis]
    if n == 0:
      return operand
    ones = [1] * aval.ndim
    window = list(ones)
    window[axis] = n
    padding = [(0, 0)] * aval.ndim
    padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
    init = identity_constant(ctx, kind, aval.dtype)
    if kind in ("sum", "max", "min"):  # JAX builds these identities with a (rank-0) broadcast
      init = mlir.broadcast_in_dim(ctx, init, init.aval, ())
    region = mlir.region(ctx, [mlir.scalar_aval(aval.dtype)] * 2, monoid_body(kind, aval.dtype))
    out, = mlir.op(ctx, "stablehlo.reduce_window", [operand, init], [ctx.avals_out[0]],
                   {"window_dimensions": mlir.dense_array(window),
                    "window_strides": mlir.dense_array(ones),
                    "base_dilations": mlir.dense_array(ones),
                    "window_dilations": mlir.dense_array(ones),
                    "padding": padding_attribute(padding)}, regions=[region])
    return out
  rule.__name__ = f"_cum{kind}_lowering"
  return rule


def _cumulative_primitive(name: str, kind: str, accepted) -> core.Primitive:
  primitive = core.Primitive(name)
  primitive.def_abstract_eval(_cumulative_rule(name, accepted))
  primitive.def_impl(_make_cumulative_impl(primitive, kind))
  mlir.register(primitive, mlir.outlined(_make_cumulative_lowering(kind)))
  return primitive


cumsum_p = _cumulative_primitive("cumsum", "sum", utils._num)
cumprod_p = _cumulative_primitive("cumprod", "prod", utils._num)
cummax_p = _cumulative_primitive("cummax", "max", utils._num)
cummin_p = _cumulative_primitive("cummin", "min", utils._num)
cumlogsumexp_p = _cumulative_primitive("cumlogsumexp", "logsumexp", utils._float_or_complex)


def _cumulative_batcher(primitive: core.Primitive) -> Callable:
  def rule(values, dims, *, axis, reverse):
    (x,), (bdim,) = values, dims
    axis = axis + 1 if bdim <= axis else axis
    return primitive.bind(x, axis=axis, reverse=reverse), bdim
  return rule


def _cumsum_transpose(ct, operand, *, axis, reverse):
  return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


ad.deflinear2(cumsum_p, _cumsum_transpose)


def prefix_scan(combine: Callable, x, axis: int, reverse: bool = False):
  """Inclusive scan of ``x`` along ``axis`` with an associative ``combine``, in lax slices,
  pads and concatenations (the odd/even recursive scheme of ``lax.associative_scan``, whose
  steps JAX's cumulative reductions differentiate), so it can be differentiated."""
  if reverse:
    x = structural.rev(x, (axis,))
  x = _odd_even_scan(combine, x, axis)
  if reverse:
    x = structural.rev(x, (axis,))
  return x


def _odd_even_scan(combine: Callable, x, axis: int):
  n = core.get_aval(x).shape[axis]
  if n < 2:
    return x
  sl = lambda v, start, limit, stride=1: structural.slice_in_dim(v, start, limit, stride, axis)
  # Scan the sums of adjacent pairs: those are the results at the odd positions.
  odd = _odd_even_scan(combine, combine(sl(x, 0, n - 1, 2), sl(x, 1, n, 2)), axis)
  if n % 2 == 0:
    even = combine(sl(odd, 0, core.get_aval(odd).shape[axis] - 1), sl(x, 2, n, 2))
  else:
    even = combine(odd, sl(x, 2, n, 2))
  even = structural.concatenate([sl(x, 0, 1), even], axis)
  return _interleave(even, odd, axis)


def _interleave(a, b, axis: int):
  """``a``'s elements at the even positions along ``axis``, ``b``'s at the odd ones (``a`` has
  as many or one more), by padding each with zeros in between and adding."""
  a_aval, b_aval = core.get_aval(a), core.get_aval(b)
  same = a_aval.shape[axis] == b_aval.shape[axis]
  pad_a = [(0, 0, 0)] * len(a_aval.shape)
  pad_b = [(0, 0, 0)] * len(b_aval.shape)
  pad_a[axis] = (0, 1 if same else 0, 1)
  pad_b[axis] = (1, 0 if same else 1, 1)
  zero = np.zeros((), a_aval.dtype)
  left, right = structural.pad(a, zero, pad_a), structural.pad(b, zero, pad_b)
  if a_aval.dtype == np.bool_:
    return elementwise.bitwise_or(left, right)
  return elementwise.add(left, right)


def logaddexp(x, y):
  """``log(exp(x) + exp(y))`` in lax operations, stable for large magnitudes."""
  if core.get_aval(x).dtype.kind == "c":
    larger = elementwise.gt(elementwise.real(x), elementwise.real(y))
    amax = elementwise.select(larger, x, y)
    other = elementwise.select(larger, y, x)
    return elementwise.add(amax, special.log1p(special.exp(elementwise.sub(other, amax))))
  amax = elementwise.max(x, y)
  delta = elementwise.sub(x, y)
  stable = elementwise.add(amax, special.log1p(special.exp(elementwise.neg(elementwise.abs(delta)))))
  return elementwise.select(elementwise.ne(delta, delta), elementwise.add(x, y), stable)


# The combine function each cumulative reduction's JVP scans with. jnp registers its
# ``logaddexp`` (a custom_jvp function, which JAX's cumlogsumexp differentiates) in place of the
# plain lax form here.
scan_combines: dict[str, Callable] = {"prod": elementwise.mul, "max": elementwise.max,
                                      "min": elementwise.min, "logsumexp": logaddexp}


def _cumulative_jvp(kind: str) -> Callable:
  """JVP by differentiating the doubling scan (reduce_window is not differentiable)."""
  def rule(primals, tangents, *, axis, reverse):
    scan = lambda x: prefix_scan(scan_combines[kind], x, axis, reverse)
    return differentiation.jvp(scan, list(primals), [ad.instantiate_zeros(tangents[0])])
  return rule


for _p, _kind in ((cumsum_p, "sum"), (cumprod_p, "prod"), (cummax_p, "max"), (cummin_p, "min"),
                  (cumlogsumexp_p, "logsumexp")):
  if _kind != "sum":
    ad.primitive_jvps[_p] = _cumulative_jvp(_kind)
  batching.primitive_batchers[_p] = _cumulative_batcher(_p)


def _cumulative(primitive, operand, axis, reverse):
  return primitive.bind(operand, axis=operator.index(axis), reverse=bool(reverse))


def cumsum(operand, axis: int = 0, reverse: bool = False):
  """Cumulative sum along ``axis`` (``lax.cumsum``); ``reverse`` sums from the end.

  ``axis`` must be non-negative (XLA does not take negative axes). Integer sums wrap.
  """
  return _cumulative(cumsum_p, operand, axis, reverse)


def cumprod(operand, axis: int = 0, reverse: bool = False):
  """Cumulative product along ``axis`` (``lax.cumprod``)."""
  return _cumulative(cumprod_p, operand, axis, reverse)


def cummax(operand, axis: int = 0, reverse: bool = False):
  """Cumulative maximum along ``axis`` (``lax.cummax``); NaN propagates forward."""
  return _cumulative(cummax_p, operand, axis, reverse)


def cummin(operand, axis: int = 0, reverse: bool = False):
  """Cumulative minimum along ``axis`` (``lax.cummin``); NaN propagates forward."""
  return _cumulative(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
  """Cumulative ``log(sum(exp(x)))`` along ``axis`` (``lax.cumlogsumexp``), computed stably."""
  return _cumulative(cumlogsumexp_p, operand, axis, reverse)


# ---------------------------------------------------------------------------
# lax.reduce: monoid dispatch and the generic reduce primitive


def _concrete_scalar(x):
  """The NumPy value of a concrete init value, or None for a tracer."""
  if isinstance(x, core.Tracer):
    return None
  try:
    return np.asarray(x)
  except Exception:
    return None


def monoid_reducer(computation: Callable, init_value, operand_aval: ShapedArray,
                   window: bool = False):
  """The specific reduction primitive name for ``computation`` with ``init_value``, or None.

  JAX binds reduce_sum etc. only when the init value is concretely the monoid's identity;
  reduce_window only knows add, max and min.
  """
  value = _concrete_scalar(init_value)
  if value is None or value.shape != ():
    return None
  dtype = operand_aval.dtype
  try:
    with np.errstate(all="ignore"):
      value = value.astype(dtype)
  except (TypeError, ValueError, OverflowError):
    return None

  def equals(identity) -> bool:
    with np.errstate(all="ignore"):
      return bool(value == np.asarray(identity).astype(dtype))

  if computation is elementwise.add:
    return "sum" if equals(0) else None
  if computation is elementwise.max:
    return "max" if equals(_lowest(dtype)) else None
  if computation is elementwise.min:
    return "min" if equals(_highest(dtype)) else None
  if window:
    return None
  if computation is elementwise.mul:
    return "prod" if equals(1) else None
  if dtype.kind in "biu":
    if computation is elementwise.bitwise_or:
      return "or" if equals(0) else None
    if computation is elementwise.bitwise_and:
      return "and" if equals(_all_ones(dtype)) else None
    if computation is elementwise.bitwise_xor:
      return "xor" if equals(0) else None
  return None


_MONOID_PRIMITIVES = {"sum": reduce_sum, "prod": reduce_prod, "max": reduce_max, "min": reduce_min,
                      "and": reduce_and, "or": reduce_or, "xor": reduce_xor}


def split_operands_and_inits(name: str, avals):
  """The operands and init values of a generic reduction (operands first, then one scalar init
  value of the same dtype per operand); raises for mismatched shapes or dtypes."""
  n = len(avals) // 2
  operands, inits = avals[:n], avals[n:]
  if len({a.shape for a in operands}) != 1:
    raise ValueError(f"{name} operands must all have the same shape, got "
                     f"{[a.shape for a in operands]}")
  for op, init in zip(operands, inits):
    if init.shape != ():
      raise ValueError(f"{name} init values must be scalars, got shape {init.shape}")
    if op.dtype != init.dtype:
      raise TypeError(f"{name} operand dtype {op.dtype.name} does not match its init value dtype "
                      f"{init.dtype.name}")
  return operands, inits


def _generic_reduce_rule(*avals: ShapedArray, computation, jaxpr, dimensions) -> list[ShapedArray]:
  operands, _ = split_operands_and_inits("reduce", avals)
  _check_axes(operands[0], dimensions)
  out_shape = _reduced_shape(operands[0].shape, dimensions)
  return [ShapedArray(out_shape, a.dtype) for a in operands]


def run_scalar_jaxpr(closed_jaxpr, consts, args) -> list[np.ndarray]:
  """Evaluates a scalar computation's jaxpr eagerly on whole arrays (elementwise ops broadcast)."""
  with core.set_current_trace(core.eval_trace):
    outs = ir.eval_jaxpr(closed_jaxpr, consts, *args)
  return [np.asarray(o) for o in outs]


def _generic_reduce_impl(*values, computation, jaxpr, dimensions):
  n = len(values) // 2
  operands = [np.asarray(v) for v in values[:n]]
  inits = [np.asarray(v) for v in values[n:]]
  shape = operands[0].shape
  kept = [d for d in range(len(shape)) if d not in dimensions]
  out_shape = tuple(shape[d] for d in kept)
  count = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
  # Reduced dimensions moved last and flattened; XLA folds acc = f(acc, element) in order.
  moved = [np.transpose(x, kept + list(dimensions)).reshape(out_shape + (count,)) for x in operands]
  accs = [np.broadcast_to(init, out_shape).astype(init.dtype) for init in inits]
  for i in range(count):
    accs = run_scalar_jaxpr(jaxpr.jaxpr, jaxpr.consts, accs + [m[..., i] for m in moved])
  return [np.asarray(a, dtype=op.dtype).reshape(out_shape) for a, op in zip(accs, operands)]


def computation_region(ctx, jaxpr: ir.Jaxpr, consts, dtypes_: Sequence[np.dtype]) -> str:
  """The region of a generic reduction: block arguments are the accumulators then the elements
  (one scalar of each operand dtype each), the body is ``jaxpr`` lowered inline."""
  avals = [mlir.scalar_aval(d) for d in dtypes_] * 2
  return mlir.region(ctx, avals, lambda c, *args: mlir.jaxpr_subcomp(c, jaxpr, consts, args))


def _generic_reduce_lowering(ctx, *values, computation, jaxpr, dimensions):
  n = len(values) // 2
  region = computation_region(ctx, jaxpr.jaxpr, jaxpr.consts, [v.aval.dtype for v in values[:n]])
  return mlir.op(ctx, "stablehlo.reduce", list(values), list(ctx.avals_out),
                 {"dimensions": mlir.dense_array(dimensions)}, regions=[region])


reduce_p = core.Primitive("reduce")
reduce_p.multiple_results = True
reduce_p.def_abstract_eval(_generic_reduce_rule)
reduce_p.def_impl(_generic_reduce_impl)
mlir.register(reduce_p, _generic_reduce_lowering)


def _generic_reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
  n = len(primals) // 2
  operands, inits = primals[:n], primals[n:]
  if any(type(t) is not ad.Zero for t in tangents[n:]):
    raise NotImplementedError("Differentiation of lax.reduce with respect to its init values is "
                              "not implemented; pass constant init values.")

  def combine(a, b):
    return ir.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *a, *b)

  return tree_reduce_jvp(combine, inits, operands, tangents[:n], dimensions)


ad.primitive_jvps[reduce_p] = _generic_reduce_jvp


def _generic_reduce_batcher(values, dims, *, computation, jaxpr, dimensions):
  n = len(values) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("vmap of lax.reduce over batched init values is not implemented; "
                              "the init values must be the same for every example.")
  size = next(core.get_aval(v).shape[d] for v, d in zip(values, dims) if d is not None)
  operands = [batching.bdim_at_front(v, d, size) for v, d in zip(values[:n], dims[:n])]
  dimensions = tuple(d + 1 for d in dimensions)
  outs = reduce_p.bind(*operands, *values[n:], computation=computation, jaxpr=jaxpr,
                       dimensions=dimensions)
  return outs, [0] * n


batching.primitive_batchers[reduce_p] = _generic_reduce_batcher


def pp_callable(fun) -> str:
  """A function as JAX's jaxpr printer shows it: ``<function name at 0xXXXXXXXXXXXX>``."""
  return f"<function {getattr(fun, '__qualname__', getattr(fun, '__name__', '?'))} at 0xXXXXXXXXXXXX>"


ir.pp_param_rules[reduce_p] = lambda params: {**params, "computation": pp_callable(params["computation"])}


def trace_scalar_computation(computation: Callable, tree_of_operands, dtypes_: Sequence[np.dtype]):
  """Traces ``computation(acc, x)`` on scalars of ``dtypes_`` (both arguments shaped like the
  operand pytree). Returns (ClosedJaxpr, output treedef)."""
  n = len(dtypes_)
  avals = [ShapedArray((), d) for d in dtypes_] * 2

  def flat_fun(*flat):
    first = tree_util.tree_unflatten(tree_of_operands, flat[:n])
    second = tree_util.tree_unflatten(tree_of_operands, flat[n:])
    return computation(first, second)

  closed, out_tree = staging.trace_to_jaxpr(flat_fun, avals)
  if out_tree != tree_of_operands:
    raise TypeError(f"reduction computation must return the same structure as its operands; "
                    f"got {out_tree}, expected {tree_of_operands}")
  for aval, dtype in zip(closed.out_avals, dtypes_):
    if aval.shape != () or aval.dtype != dtype:
      raise TypeError(f"reduction computation must return scalars of the operand dtypes "
                      f"{[np.dtype(d).name for d in dtypes_]}, got "
                      f"{[a.str_short() for a in closed.out_avals]}")
  return closed, out_tree


def _convert_init(init, dtype):
  """An init value converted to the operand's dtype (Python scalars only; arrays must match)."""
  if isinstance(init, (bool, int, float, complex)):
    with np.errstate(all="ignore"):
      return np.array(init).astype(dtype)[()]
  return init


def reduce(operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int],
           out_sharding=None) -> Any:
  """Reduces ``operands`` over ``dimensions`` with ``computation`` (``lax.reduce``).

  ``operands`` and ``init_values`` are matching pytrees of arrays and scalars;
  ``computation(acc, x)`` combines two such pytrees of scalars. A known monoid (``lax.add`` with
  0, ``lax.mul`` with 1, ``lax.max`` with -inf, ...) binds the specific reduction primitive;
  anything else binds the generic ``reduce`` primitive with the traced computation.
  """
  flat_operands, operand_tree = tree_util.tree_flatten(operands)
  flat_inits, init_tree = tree_util.tree_flatten(init_values)
  if operand_tree != init_tree:
    raise ValueError(f"Operands must have the same tree structure as init_values: "
                     f"{operand_tree} vs. {init_tree}")
  if not flat_operands:
    raise ValueError("reduce requires at least one operand")
  dimensions = _canonical_axes(dimensions)
  if len(flat_operands) == 1:
    aval = core.get_aval(flat_operands[0])
    name = monoid_reducer(computation, flat_inits[0], aval)
    if name is not None:
      primitive_fun = _MONOID_PRIMITIVES[name]
      if name == "sum":
        return primitive_fun(flat_operands[0], dimensions, out_sharding=out_sharding)
      return primitive_fun(flat_operands[0], dimensions)
  operand_dtypes = [core.get_aval(x).dtype for x in flat_operands]
  flat_inits = [_convert_init(i, d) for i, d in zip(flat_inits, operand_dtypes)]
  closed, _ = trace_scalar_computation(computation, operand_tree, operand_dtypes)
  outs = reduce_p.bind(*flat_operands, *flat_inits, computation=computation, jaxpr=closed,
                       dimensions=dimensions)
  return tree_util.tree_unflatten(operand_tree, outs)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

# Order-independent reductions: exact; float sums and products depend on XLA's order.
eval_interpreter.exact_kernels(reduce_and_p, reduce_or_p, reduce_xor_p)
eval_interpreter.exact_kernels(reduce_max_p, reduce_min_p, argmax_p, argmin_p, cummax_p, cummin_p,
                               when=eval_interpreter.no_complex, subnormals=True)
eval_interpreter.exact_kernels(reduce_sum_p, reduce_prod_p, cumsum_p, cumprod_p,
                               when=eval_interpreter.integral)
