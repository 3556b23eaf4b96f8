"""Products and differences in axle.numpy: einsum (with opt_einsum's contraction paths),
tensordot, kron, cross, vecdot/matvec/vecmat, trapezoid, gradient, cov, corrcoef."""
from __future__ import annotations

import builtins
import collections
import functools
import operator

import numpy as np

from axle._src import dtypes
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import structural as lax_structural
from axle._src.lax.contractions import dot_general
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import shape_ops
from axle._src.numpy import statistics
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.vmap import vmap

__all__ = ["einsum", "einsum_path", "tensordot", "kron", "cross", "vecdot", "matvec", "vecmat",
           "trapezoid", "gradient", "cov", "corrcoef"]


# Shared argument helpers (numpy/util.py).
_shape = util.shape_of
_ndim = util.ndim_of
_dtype = util.dtype_of
_arr = creation.arraylike_operands




# ---------------------------------------------------------------------------
# einsum


def _opt_einsum():
  try:
    import opt_einsum
  except ImportError:  # pragma: no cover - opt_einsum is a dependency
    raise ImportError("jnp.einsum needs the opt_einsum package (pip install opt_einsum)") from None
  return opt_einsum


class _ShapeOnly:
  """Stands in for an operand when asking opt_einsum for a path (it only reads ``shape``)."""

  def __init__(self, shape):
    self.shape = tuple(shape)
    self.ndim = len(self.shape)


def einsum_path(subscripts, /, *operands, optimize="auto"):
  """The contraction order opt_einsum picks for ``einsum`` and a description of its cost
  (``jnp.einsum_path``)."""
  opt_einsum = _opt_einsum()
  if optimize is True:
    optimize = "optimal"
  shapes = [_ShapeOnly(np.shape(o)) for o in operands]
  return opt_einsum.contract_path(subscripts, *shapes, optimize=optimize)


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
  """Einstein summation (``jnp.einsum``): the contraction is split into pairwise
  ``dot_general``s in the order opt_einsum finds (``optimize``: 'auto', 'greedy', 'optimal',
  True, False or an explicit path)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  _opt_einsum()  # a clear ImportError without opt_einsum
  if not isinstance(subscripts, str):
    from opt_einsum.parser import convert_interleaved_input
    subscripts, operands = convert_interleaved_input((subscripts,) + operands)
  util.check_arraylike("einsum", *operands)
  operands = [_arr("einsum", o) for o in operands]
  if optimize is True:
    optimize = "optimal"
  elif optimize is False:
    # No search: contract left to right, two operands at a time.
    optimize = [(0, 1)] * (len(operands) - 1) if len(operands) > 1 else [(0,)]
  shapes = tuple(tuple(_shape(o)) for o in operands)
  if isinstance(optimize, list):  # an explicit path: hashable, to remember its plan
    optimize = tuple(step if isinstance(step, str) else tuple(step) for step in optimize)
  try:
    contractions = _contraction_plan(subscripts, shapes, optimize)
  except TypeError:  # an optimizer object: not hashable, so not remembered
    contractions = _contraction_plan.__wrapped__(subscripts, shapes, optimize)
  # Like JAX, the operands keep their own dtypes: every dot_general accumulates in the result
  # type (``preferred_element_type``), which defaults to the operands' promoted type.
  if preferred_element_type is None:
    result_dtype, result_weak = dtypes.result_type(*operands, return_weak_type_flag=True)
  else:
    result_dtype, result_weak = dtypes.canonicalize_dtype(preferred_element_type), False
  return _einsum(operands, contractions, precision, result_dtype, result_weak)


@functools.lru_cache(maxsize=1024)
def _contraction_plan(subscripts: str, shapes: tuple, optimize) -> tuple:
  """The pairwise contractions opt_einsum picks for operands of ``shapes`` (a pure function of
  its arguments, remembered: finding a path costs more than a small eager einsum):
  ``(operand indices, sorted contracted names, einsum string)`` per step."""
  if isinstance(optimize, tuple):
    optimize = list(optimize)
  _, contractions = _opt_einsum().contract_path(
      subscripts, *[_ShapeOnly(shape) for shape in shapes], einsum_call=True, use_blas=True,
      optimize=optimize)
  return tuple((tuple(c[0]), tuple(sorted(c[1])), c[2]) for c in contractions)


@util.jit_when_tracing(inline=True, static_argnames=("contractions", "precision", "result_dtype",
                                                      "result_weak"))
def _einsum(operands, contractions, precision, result_dtype, result_weak):
  """The contractions of one einsum: inlined when traced, one compiled program eagerly (as
  JAX's)."""
  operands = list(operands)
  for indices, contracted, einstr in contractions:
    inputs, result_names = einstr.split("->")
    input_names = inputs.split(",")
    contracted = list(contracted)
    ops = [operands.pop(i) for i in indices]
    if len(ops) == 1:
      out_op = _einsum_unary(ops[0], input_names[0], result_names, contracted, result_dtype)
    elif len(ops) == 2:
      out_op = _einsum_binary(ops[0], input_names[0], ops[1], input_names[1], result_names,
                              contracted, precision, result_dtype)
    else:  # pragma: no cover - opt_einsum only emits unary and binary steps
      raise NotImplementedError("einsum contraction of more than two operands at once")
    operands.append(out_op)
  return lax_elementwise._convert_element_type(operands[0], result_dtype, result_weak)


def _einsum_sum(operand, axes, result_dtype):
  """Sums ``operand`` over ``axes`` (in the given order) in the einsum's result type."""
  dtype = dtypes.result_type(_dtype(operand), result_dtype)
  if _dtype(operand) != dtype:
    operand = lax_elementwise._convert_element_type(operand, dtype, False)
  if dtype == np.bool_:
    return lax_reductions.reduce_or(operand, axes)
  return lax_reductions.reduce_sum(operand, axes)


def _einsum_sum_uniques(operand, names: str, uniques, result_dtype):
  """Sums out the names that occur once in ``operand`` and nowhere else, in one reduction."""
  if not uniques:
    return operand, names
  operand = _einsum_sum(operand, [names.index(n) for n in uniques], result_dtype)
  return operand, "".join(n for n in names if n not in uniques)


def _einsum_sum_repeats(operand, names: str, keep: str, result_dtype):
  """Takes the diagonal of every repeated name by masking the operand with an identity
  (``iota == iota``) and summing: over all its axes when the name is not kept, over all but the
  last otherwise."""
  for name, count in collections.Counter(names).items():
    if count < 2:
      continue
    axes = [i for i, n in enumerate(names) if n == name]
    shape = _shape(operand)
    base = tuple(shape[a] for a in axes)
    iotas = [lax_structural.broadcasted_iota(np.uint32, base, d) for d in range(len(base))]
    eye = None
    for first, second in zip(iotas[:-1], iotas[1:]):
      eq = lax_elementwise.eq(first, second)
      eye = eq if eye is None else lax_elementwise.bitwise_and(eye, eq)
    eye = lax_structural.broadcast_in_dim(eye, shape, axes)
    operand = lax_elementwise.select(eye, operand, lax_structural.full_like(operand, 0))
    if name in keep:
      operand = _einsum_sum(operand, axes[:-1], result_dtype)
      names = names.replace(name, "", count - 1)
    else:
      operand = _einsum_sum(operand, axes, result_dtype)
      names = names.replace(name, "")
  return operand, names


def _transpose_to(operand, names: str, result_names: str):
  if names == result_names:
    return operand
  return lax_structural.transpose(operand, tuple(names.index(n) for n in result_names))


def _einsum_unary(operand, names, result_names, contracted, result_dtype):
  counts = collections.Counter(names)
  operand, names = _einsum_sum_uniques(operand, names, [n for n in contracted if counts[n] == 1],
                                       result_dtype)
  operand, names = _einsum_sum_repeats(operand, names, result_names, result_dtype)
  return _transpose_to(operand, names, result_names)


def _squeeze_broadcast_ones(operand, names: str, other_shape, other_names: str):
  """Drops the size-1 dimensions whose name the other operand has with a size other than 1."""
  shape = _shape(operand)
  squeeze = [i for i, n in enumerate(names)
             if shape[i] == 1 and n in other_names and other_shape[other_names.index(n)] != 1]
  if not squeeze:
    return operand, names
  return (lax_structural.squeeze(operand, squeeze),
          "".join(n for i, n in enumerate(names) if i not in squeeze))


def _einsum_binary(lhs, lhs_names, rhs, rhs_names, result_names, contracted, precision,
                   result_dtype):
  lhs, lhs_names = _squeeze_broadcast_ones(lhs, lhs_names, _shape(rhs), rhs_names)
  rhs, rhs_names = _squeeze_broadcast_ones(rhs, rhs_names, _shape(lhs), lhs_names)
  lhs_counts, rhs_counts = collections.Counter(lhs_names), collections.Counter(rhs_names)
  lhs, lhs_names = _einsum_sum_uniques(
      lhs, lhs_names, [n for n in contracted if lhs_counts[n] == 1 and rhs_counts[n] == 0],
      result_dtype)
  rhs, rhs_names = _einsum_sum_uniques(
      rhs, rhs_names, [n for n in contracted if rhs_counts[n] == 1 and lhs_counts[n] == 0],
      result_dtype)
  lhs, lhs_names = _einsum_sum_repeats(lhs, lhs_names, result_names + rhs_names, result_dtype)
  rhs, rhs_names = _einsum_sum_repeats(rhs, rhs_names, result_names + lhs_names, result_dtype)
  contracted = [n for n in contracted if n in lhs_names or n in rhs_names]
  batch = [n for n in result_names if n in lhs_names and n in rhs_names]
  lhs_contract = tuple(lhs_names.index(n) for n in contracted)
  rhs_contract = tuple(rhs_names.index(n) for n in contracted)
  lhs_batch = tuple(lhs_names.index(n) for n in batch)
  rhs_batch = tuple(rhs_names.index(n) for n in batch)
  deleted = set(batch) | set(contracted)
  lhs_rest = "".join(n for n in lhs_names if n not in deleted)
  rhs_rest = "".join(n for n in rhs_names if n not in deleted)
  # opt_einsum lists the operands right to left, so (rhs, lhs) is tried first: it is the order
  # that most often needs no transpose of the result.
  names = "".join(batch) + rhs_rest + lhs_rest
  if names == result_names:
    out = dot_general(rhs, lhs, ((rhs_contract, lhs_contract), (rhs_batch, lhs_batch)),
                      precision=precision, preferred_element_type=result_dtype)
  else:
    names = "".join(batch) + lhs_rest + rhs_rest
    out = dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)),
                      precision=precision, preferred_element_type=result_dtype)
  return _transpose_to(out, names, result_names)


# ---------------------------------------------------------------------------
# tensordot, kron, cross, vecdot, matvec, vecmat


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
  """Sum of products over the last ``axes`` axes of ``a`` and the first of ``b``, or over the
  given pairs of axes (``jnp.tensordot``)."""
  a, b = _arr("tensordot", a, b)
  a, b = util.promote_dtypes(a, b)
  a_ndim, b_ndim = _ndim(a), _ndim(b)
  if type(axes) is int or isinstance(axes, (np.integer,)):
    n = operator.index(axes)
    if n > builtins.min(a_ndim, b_ndim):
      raise TypeError(f"Number of tensordot axes (axes {n}) exceeds input ranks ({a_ndim} and "
                      f"{b_ndim})")
    contracting = (tuple(range(a_ndim - n, a_ndim)), tuple(range(n)))
  elif isinstance(axes, (list, tuple)) and len(axes) == 2:
    ax1, ax2 = axes
    if type(ax1) is int and type(ax2) is int:
      contracting = ((util.canonicalize_axis(ax1, a_ndim),), (util.canonicalize_axis(ax2, b_ndim),))
    elif isinstance(ax1, (list, tuple)) and isinstance(ax2, (list, tuple)):
      if len(ax1) != len(ax2):
        raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} and "
                        f"{ax2}.")
      contracting = (tuple(util.canonicalize_axis(i, a_ndim) for i in ax1),
                     tuple(util.canonicalize_axis(i, b_ndim) for i in ax2))
    else:
      raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or lists, "
                      f"got {ax1} and {ax2}")
  else:
    raise TypeError(f"tensordot axes argument must be an int, a pair of ints, or a pair of "
                    f"lists/tuples of ints; got {axes}")
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or _dtype(a))
  return dot_general(a, b, (contracting, ((), ())), precision=precision,
                     preferred_element_type=out_dtype)


@util.jit_when_tracing
def kron(a, b):
  """The Kronecker product of ``a`` and ``b`` (``jnp.kron``)."""
  a, b = _arr("kron", a, b)
  a, b = util.promote_dtypes(a, b)
  if _ndim(a) < _ndim(b):
    a = lax_numpy.expand_dims(a, tuple(range(_ndim(b) - _ndim(a))))
  elif _ndim(b) < _ndim(a):
    b = lax_numpy.expand_dims(b, tuple(range(_ndim(a) - _ndim(b))))
  a_b = lax_numpy.expand_dims(a, tuple(range(1, 2 * _ndim(a), 2)))
  b_b = lax_numpy.expand_dims(b, tuple(range(0, 2 * _ndim(b), 2)))
  out = lax_elementwise.mul(a_b, b_b)
  return lax_numpy.reshape(out, tuple(x * y for x, y in zip(_shape(a), _shape(b))))


@util.jit_when_tracing(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None):
  """Cross product of 2- or 3-element vectors along the given axes (``jnp.cross``)."""
  a, b = _arr("cross", a, b)
  if axis is not None:
    axisa = axisb = axisc = axis
  a = lax_numpy.moveaxis(a, axisa, -1)
  b = lax_numpy.moveaxis(b, axisb, -1)
  if _shape(a)[-1] not in (2, 3) or _shape(b)[-1] not in (2, 3):
    raise ValueError("Dimension must be either 2 or 3 for cross product")
  if _shape(a)[-1] == 2 and _shape(b)[-1] == 2:
    return ufuncs.subtract(ufuncs.multiply(a[..., 0], b[..., 1]), ufuncs.multiply(a[..., 1], b[..., 0]))
  a0, a1 = a[..., 0], a[..., 1]
  a2 = a[..., 2] if _shape(a)[-1] == 3 else lax_structural.full_like(a0, 0)
  b0, b1 = b[..., 0], b[..., 1]
  b2 = b[..., 2] if _shape(b)[-1] == 3 else lax_structural.full_like(b0, 0)
  mul, sub = ufuncs.multiply, ufuncs.subtract
  c = creation.array([sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)),
                    sub(mul(a0, b1), mul(a1, b0))])
  return lax_numpy.moveaxis(c, 0, axisc)


def vectorize_core(fn, core_ndims, *args):
  """``fn`` applied to the core (trailing ``core_ndims[i]``) axes of each of ``args``, mapped over
  their broadcast leading axes as ``jnp.vectorize`` with a signature maps it: one ``vmap`` per
  leading axis, innermost first, an argument whose axis is missing or of size 1 not mapped
  (its size-1 axes squeezed away), an axis no argument maps added back with ``expand_dims``."""
  leading = [_shape(x)[:_ndim(x) - n] for x, n in zip(args, core_ndims)]
  broadcast_shape = util.broadcast_shapes(*leading)
  squeezed, reversed_filled = [], []
  for x, lead in zip(args, leading):
    squeezed.append(lax_numpy.squeeze(x, axis=tuple(i for i, d in enumerate(lead) if d == 1)))
    reversed_filled.append(((1,) * (len(broadcast_shape) - len(lead)) + lead)[::-1])
  mapped, unmapped_axes = fn, []
  for negative_axis, sizes in enumerate(zip(*reversed_filled)):
    in_axes = tuple(None if d == 1 else 0 for d in sizes)
    if all(a is None for a in in_axes):
      unmapped_axes.append(len(broadcast_shape) - 1 - negative_axis)
    else:
      mapped = vmap(mapped, in_axes)
  out = mapped(*squeezed)
  return lax_numpy.expand_dims(out, tuple(unmapped_axes)) if unmapped_axes else out


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  """Vector dot product of ``x1`` (conjugated) and ``x2`` along ``axis``, broadcasting the other
  axes (``jnp.vecdot``)."""
  x1, x2 = _arr("vecdot", x1, x2)
  a1 = util.canonicalize_axis(axis, _ndim(x1))
  a2 = util.canonicalize_axis(axis, _ndim(x2))
  if _shape(x1)[a1] != _shape(x2)[a2]:
    raise ValueError("axes must match; got shapes {} and {} with axis={}".format(
        _shape(x1), _shape(x2), axis))
  x1 = lax_numpy.moveaxis(x1, a1, -1)
  x2 = lax_numpy.moveaxis(x2, a2, -1)
  return vectorize_core(lambda u, v: lax_numpy.vdot(u, v, precision=precision,
                                                    preferred_element_type=preferred_element_type),
                        (1, 1), x1, x2)


@util.jit_when_tracing
def matvec(x1, x2, /):
  """Matrix-vector product over the last axes, broadcasting the rest (``jnp.matvec``)."""
  x1, x2 = _arr("matvec", x1, x2)
  return vectorize_core(lax_numpy.matmul, (2, 1), x1, x2)


@util.jit_when_tracing
def vecmat(x1, x2, /):
  """Vector-matrix product ``conj(x1) @ x2`` over the last axes (``jnp.vecmat``)."""
  x1, x2 = _arr("vecmat", x1, x2)
  return vectorize_core(lax_numpy.matmul, (1, 2), ufuncs.conj(x1), x2)


# ---------------------------------------------------------------------------
# Integration, gradients, covariance


@util.jit_when_tracing(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
  """Integral of ``y`` along ``axis`` by the trapezoidal rule (``jnp.trapezoid``)."""
  if x is None:
    util.check_arraylike("trapezoid", y)
    (y,) = util.promote_dtypes_inexact(y)
    dx_array = util.asarray_operand(dx)
  else:
    util.check_arraylike("trapezoid", y, x)
    y, x = util.promote_dtypes_inexact(y, x)
    if _ndim(x) == 1:
      dx_array = shape_ops.diff(x)
    else:
      dx_array = lax_numpy.moveaxis(shape_ops.diff(x, axis=axis), axis, -1)
  y = lax_numpy.moveaxis(y, axis, -1)
  if x is None and _ndim(dx_array) == 0:
    # evenly spaced: every interior sample counts once, the two ends half
    total = reductions.sum(y, axis=-1)
    ends = ufuncs.add(y[..., 0], y[..., -1])
    return ufuncs.multiply(dx_array, ufuncs.subtract(total, ufuncs.multiply(0.5, ends)))
  total = ufuncs.multiply(dx_array, ufuncs.add(y[..., 1:], y[..., :-1]))
  return ufuncs.multiply(0.5, reductions.sum(total, axis=-1))


@util.jit_when_tracing(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
  """The gradient of sampled ``f`` by second-order central differences in the interior and
  first-order differences at the edges (``jnp.gradient``)."""
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  f = _arr("gradient", f)
  (f,) = util.promote_dtypes_inexact(f)
  ndim = _ndim(f)
  axes = util.canonicalize_axes(axis, ndim)
  if len(varargs) == 0:
    spacings = [1.0] * len(axes)
  elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
    spacings = list(varargs) * len(axes)
  elif len(varargs) == len(axes):
    spacings = list(varargs)
  else:
    raise TypeError("Invalid number of spacing arguments {}".format(len(varargs)))
  spacings = list(util.promote_dtypes_inexact(f, *spacings))[1:] if varargs else spacings
  outs = []
  for ax, h in zip(axes, spacings):
    n = _shape(f)[ax]
    if n < 2:
      raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                       "(edge_order + 1) elements are required.")
    sl = lambda start, stop: lax_structural.slice_in_dim(f, start, stop, axis=ax)  # noqa: E731
    sub, div, mul, add = ufuncs.subtract, ufuncs.divide, ufuncs.multiply, ufuncs.add
    first = sub(sl(1, 2), sl(0, 1))
    last = sub(sl(n - 1, n), sl(n - 2, n - 1))
    if np.ndim(h) == 0:
      interior = div(mul(sub(sl(2, n), sl(0, n - 2)), 0.5), h) if n > 2 else None
      last = div(last, h)
      first = div(first, h)
    else:
      if np.ndim(h) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
      if _shape(h)[0] != n:
        raise ValueError("Spacing arrays must have the same length as the dimension along "
                         "which the gradient is computed.")
      if ndim > 1:
        h = lax_numpy.reshape(h, tuple(n if i == ax else 1 for i in range(ndim)))
      sl_h = lambda start, stop: lax_structural.slice_in_dim(h, start, stop, axis=ax)  # noqa: E731
      first = div(first, sub(sl_h(1, 2), sl_h(0, 1)))
      last = div(last, sub(sl_h(n - 1, n), sl_h(n - 2, n - 1)))
      if n > 2:
        h1 = sub(sl_h(1, n - 1), sl_h(0, n - 2))
        h2 = sub(sl_h(2, n), sl_h(1, n - 1))
        a = div(ufuncs.negative(h2), mul(h1, add(h1, h2)))
        b = div(sub(h2, h1), mul(h1, h2))
        c = div(h1, mul(h2, add(h1, h2)))
        interior = add(add(mul(a, sl(0, n - 2)), mul(b, sl(1, n - 1))), mul(c, sl(2, n)))
      else:
        interior = None
    parts = [first] + ([interior] if interior is not None else []) + [last]
    outs.append(lax_numpy.concatenate(parts, ax))
  return outs[0] if len(outs) == 1 else outs


@util.jit_when_tracing(static_argnames=("rowvar", "bias", "ddof"))
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None,
        aweights=None):
  """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``
  (``jnp.cov``)."""
  if y is not None:
    m, y = _arr("cov", m, y)
    (m, y) = util.promote_dtypes_inexact(m, y)
  else:
    m = _arr("cov", m)
    (m,) = util.promote_dtypes_inexact(m)
  if _ndim(m) > 2:
    raise ValueError("m has more than 2 dimensions")
  X = lax_numpy.atleast_2d(m)
  if not rowvar and _shape(X)[0] != 1:
    X = lax_numpy.transpose(X)
  if _shape(X)[0] == 0:
    return creation.array([]).reshape(0, 0)
  if y is not None:
    y2 = lax_numpy.atleast_2d(y)
    if not rowvar and _shape(y2)[0] != 1:
      y2 = lax_numpy.transpose(y2)
    X = lax_numpy.concatenate((X, y2), axis=0)
  if ddof is None:
    ddof = 1 if bias == 0 else 0
  w = None
  if fweights is not None:
    fweights = _arr("cov", fweights)
    if _ndim(fweights) > 1:
      raise RuntimeError("cannot handle multidimensional fweights")
    if _shape(fweights)[0] != _shape(X)[1]:
      raise RuntimeError("incompatible numbers of samples and fweights")
    if not dtypes.issubdtype(_dtype(fweights), np.integer):
      raise TypeError("fweights must be integer.")
    w = fweights
  if aweights is not None:
    aweights = _arr("cov", aweights)
    if _ndim(aweights) > 1:
      raise RuntimeError("cannot handle multidimensional aweights")
    if _shape(aweights)[0] != _shape(X)[1]:
      raise RuntimeError("incompatible numbers of samples and aweights")
    w = aweights if w is None else ufuncs.multiply(w, aweights)
  avg, w_sum = statistics.average(X, axis=1, weights=w, returned=True)
  w_sum = w_sum[0]
  if w is None:
    f = _shape(X)[1] - ddof
  elif ddof == 0:
    f = w_sum
  elif aweights is None:
    f = ufuncs.subtract(w_sum, ddof)
  else:
    f = ufuncs.subtract(w_sum, ufuncs.divide(ufuncs.multiply(ddof, reductions.sum(
        ufuncs.multiply(w, aweights))), w_sum))
  X = ufuncs.subtract(X, avg[:, None])
  X_T = lax_numpy.transpose(X) if w is None else lax_numpy.transpose(ufuncs.multiply(X, w))
  return lax_numpy.squeeze(ufuncs.divide(lax_numpy.dot(X, ufuncs.conj(X_T)), f))


@util.jit_when_tracing(static_argnames=("rowvar",))
def corrcoef(x, y=None, rowvar: bool = True):
  """Pearson correlation coefficients (``jnp.corrcoef``)."""
  util.check_arraylike("corrcoef", x)
  c = cov(x, y, rowvar)
  if _ndim(c) == 0:
    return ufuncs.divide(c, c)
  d = shape_ops.diag(c)
  stddev = ufuncs.sqrt(ufuncs.real(d))
  c = ufuncs.divide(c, stddev[:, None])
  c = ufuncs.divide(c, stddev[None, :])
  if _dtype(c).kind == "c":
    return lax_elementwise.complex(lax_numpy.clip(ufuncs.real(c), -1, 1), lax_numpy.clip(ufuncs.imag(c), -1, 1))
  return lax_numpy.clip(c, -1, 1)
