"""Linear-algebra primitives (``jax.lax.linalg``): cholesky, triangular_solve, lu,
lu_pivots_to_permutation, qr, householder_product, eigh, svd, eig.

Every primitive works on the last two dimensions of its operands; leading dimensions are batch
dimensions. Only float32, float64, complex64 and complex128 are supported (the LAPACK types).

Eager kernels call NumPy/SciPy, which call LAPACK like XLA does. Lowerings emit the LAPACK
custom calls that ship in jaxlib (``lapack_sgetrf_ffi`` and friends, registered by
``xla.client.register_lapack_targets``), with column-major layouts for the matrices, exactly
the kernels JAX uses on CPU, so jit and eager agree to rounding. A factorization that LAPACK
reports as failed (``info != 0``) gives NaNs, as in JAX.
"""
from __future__ import annotations

import enum

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.core import ShapedArray
from axle._src.xla import client
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import reductions
from axle._src.lax import slicing
from axle._src.lax import structural
from axle._src.lax.contractions import Precision, dot_general

__all__ = ["cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr",
           "householder_product", "eigh", "svd", "eig", "EigImplementation", "EighImplementation",
           "SvdAlgorithm", "cholesky_p", "triangular_solve_p", "lu_p", "lu_pivots_to_permutation_p",
           "qr_p", "householder_product_p", "eigh_p", "svd_p", "eig_p"]

_LAPACK_DTYPES = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
                  np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


class SvdAlgorithm(enum.Enum):
  """Which SVD algorithm ``svd`` uses (``lax.linalg.SvdAlgorithm``). On CPU only DEFAULT
  (LAPACK ``gesdd``) is implemented in axle."""
  DEFAULT = "default"
  QR = "QR"
  JACOBI = "Jacobi"
  POLAR = "polar"

  def __repr__(self):
    return f"SvdAlgorithm.{self.name}"


class EighImplementation(enum.Enum):
  """Which eigensolver ``eigh`` uses (``lax.linalg.EighImplementation``); on CPU LAPACK."""
  QR = "qr"
  JACOBI = "jacobi"
  QDWH = "qdwh"

  def __repr__(self):
    return f"EighImplementation.{self.name}"


class EigImplementation(enum.Enum):
  """Which eigensolver ``eig`` uses (``lax.linalg.EigImplementation``); on CPU LAPACK."""
  LAPACK = "lapack"
  MAGMA = "magma"
  CUSOLVER = "cusolver"

  def __repr__(self):
    return f"EigImplementation.{self.name}"


# ---------------------------------------------------------------------------
# Shared checks and helpers


def _check_operand(name: str, aval: ShapedArray, position: int = 0) -> None:
  if not dtypes.issubdtype(aval.dtype, np.inexact):
    raise TypeError(f"{name} does not accept dtype {aval.dtype.name} at position {position}. "
                    "Accepted dtypes at position 0 are subtypes of floating, complexfloating.")
  if len(aval.shape) < 2:
    raise TypeError(f"Input {position} to {name} must have rank at least 2, but got "
                    f"shape={aval.shape}")


def _check_square(name: str, aval: ShapedArray, what: str = "The input") -> None:
  if aval.shape[-1] != aval.shape[-2]:
    raise ValueError(f"{what} to {name} must be a square matrix. Got shape {aval.shape}.")


def _lapack_prefix(name: str, dtype) -> str:
  prefix = _LAPACK_DTYPES.get(np.dtype(dtype))
  if prefix is None:
    raise NotImplementedError(
        f"{name}: unsupported dtype {np.dtype(dtype).name}; the LAPACK kernels take float32, "
        "float64, complex64 or complex128 (convert the operand first).")
  return prefix


def _real_dtype(dtype) -> np.dtype:
  return np.finfo(np.dtype(dtype)).dtype


def _complex_dtype(dtype) -> np.dtype:
  return np.dtype(np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128)


def _matrices(x: np.ndarray):
  """``x`` as a stack of matrices (batch flattened) and a function restoring the batch shape."""
  batch = x.shape[:-2]
  flat = x.reshape((-1,) + x.shape[-2:])
  return flat, (lambda y, tail: y.reshape(batch + tail))


def _nan_like(x: np.ndarray) -> np.ndarray:
  return np.full(x.shape, np.nan, x.dtype)


# MLIR: LAPACK custom calls on column-major matrices.

def _layout(aval: ShapedArray, num_batch: int) -> str:
  ndim = len(aval.shape)
  if ndim - num_batch == 2:  # a matrix: column major
    order = [ndim - 2, ndim - 1] + list(range(ndim - 3, -1, -1))
  else:
    order = list(range(ndim - 1, -1, -1))
  body = "[" + ", ".join(str(d) for d in order) + "]" if order else ""
  return f"dense<{body}> : tensor<{ndim}xindex>"


def _lapack_call(ctx, target: str, operands, result_avals, num_batch: int, config=None):
  """Emits ``stablehlo.custom_call @target`` (an XLA FFI kernel of jaxlib's LAPACK module)."""
  client.register_lapack_targets()
  config_text = ", ".join(f"{k} = {ord(v)} : ui8" for k, v in sorted((config or {}).items()))
  layouts = lambda avals: "[" + ", ".join(_layout(a, num_batch) for a in avals) + "]"
  # The attributes JAX gives these calls: the FFI kernel's settings as mhlo.backend_config.
  attributes = {
      "call_target_name": f'"{target}"',
      "backend_config": '""',
      "mhlo.backend_config": "{" + config_text + "}",
      "mhlo.frontend_attributes": f'{{num_batch_dims = "{num_batch}"}}',
      "operand_layouts": layouts([o.aval for o in operands]),
      "result_layouts": layouts(result_avals),
      "sdy.sharding_rule": _sharding_rule([o.aval for o in operands], result_avals, num_batch),
  }
  # The results that reuse an operand's buffer: the factored matrix overwrites its input
  # (trsm's solution overwrites the right-hand side; geev's results are fresh buffers).
  if "geev" in target:
    aliases = {}
  elif "trsm" in target:
    aliases = {1: 0}
  else:
    aliases = {0: 0}
  if aliases:
    tuple_index = (lambda i: f"[{i}]") if len(result_avals) > 1 else (lambda i: "[]")
    attributes["output_operand_aliases"] = "[" + ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = {tuple_index(result)}, "
        f"operand_index = {operand}, operand_tuple_indices = []>"
        for operand, result in aliases.items()) + "]"
  return mlir.op(ctx, "stablehlo.custom_call", list(operands), list(result_avals), attributes)


def _sharding_rule(operand_avals, result_avals, num_batch: int) -> str:
  """JAX's Shardy rule for a batched LAPACK call: the batch dimensions are one factor each,
  shared by every operand and result; every other dimension is a factor of its own."""
  names = iter("ijklmnopqrstuvwxyzabcdefgh")
  sizes = []

  def factor(size):
    name = next(names)
    sizes.append(f"{name}={size}")
    return name

  batch_shape = (operand_avals[0].shape if operand_avals else result_avals[0].shape)[:num_batch]
  batch = [factor(d) for d in batch_shape]

  def mapping(avals):
    parts = []
    for aval in avals:
      dims = batch[:min(num_batch, len(aval.shape))] + [
          factor(d) for d in aval.shape[min(num_batch, len(aval.shape)):]]
      parts.append("[" + ", ".join(dims) + "]")
    return "(" + ", ".join(parts) + ")"

  operands_text = mapping(operand_avals)
  results_text = mapping(result_avals)
  return (f"#sdy.op_sharding_rule<{operands_text}->{results_text} "
          f"{{{', '.join(sizes)}}}, custom>")


def _nan_unless(ctx, ok, value):
  """``value`` where ``ok`` (a bool per batch element) holds, NaN elsewhere."""
  aval = value.aval
  nb = len(ok.aval.shape)
  # As JAX: ok gains unit core dimensions first, then both operands broadcast to the full shape.
  unit = ShapedArray(aval.shape[:nb] + (1,) * (len(aval.shape) - nb), np.dtype(bool))
  ok = mlir.broadcast_in_dim(ctx, ok, unit, list(range(nb)))
  nan = mlir.full_like_aval(ctx, np.array(complex(np.nan, np.nan) if aval.dtype.kind == "c" else np.nan,
                                          aval.dtype), aval)
  mask = mlir.broadcast_in_dim(ctx, ok, ShapedArray(aval.shape, np.dtype(bool)),
                               list(range(len(aval.shape))))
  return mlir.select(ctx, mask, value, nan)


def _info_ok(ctx, info, direction: str = "EQ"):
  zero = mlir.full_like_aval(ctx, 0, info.aval)
  if not info.aval.shape:  # JAX's full_like_aval broadcasts a scalar too (rank 0 to rank 0)
    zero = mlir.broadcast_in_dim(ctx, zero, info.aval, ())
  return mlir.compare(ctx, info, zero, direction, "SIGNED")


def _i32(shape):
  return ShapedArray(tuple(shape), np.dtype(np.int32))


# lax-level helpers for the JVP rules (all act on the last two dimensions).

def _T(x):
  nd = np.ndim(x)
  return structural.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _H(x):
  return _conj(_T(x))


def _conj(x):
  return elementwise.conj(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x


def _matmul(a, b):
  nb = np.ndim(a) - 2
  batch = tuple(range(nb))
  return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)),
                     precision=(Precision.HIGHEST, Precision.HIGHEST))


def _jnp_matmul(a, b, precision=None):
  """``jnp.matmul(a, b, precision=precision)`` as JAX stages it (the result dtype preferred)."""
  nb = np.ndim(a) - 2
  batch = tuple(range(nb))
  if precision is not None:
    precision = (precision, precision)
  return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision=precision,
                     preferred_element_type=np.dtype(core.get_aval(a).dtype))


def _jnp_eye(n: int, dtype):
  """``jnp.eye(n, dtype=dtype)`` as JAX stages it (the row iota offset by 0)."""
  rows = elementwise.add(structural.broadcasted_iota(np.int32, (n, n), 0), np.int32(0))
  cols = structural.broadcasted_iota(np.int32, (n, n), 1)
  return elementwise.convert_element_type(elementwise.eq(rows, cols), dtype)


def _tri_mask(shape, k: int, lower: bool):
  m, n = shape[-2:]
  # JAX's order: iota 0, the offset added, then iota 1
  rows = elementwise.add(structural.broadcasted_iota(np.int32, (m, n), 0), np.int32(k))
  cols = structural.broadcasted_iota(np.int32, (m, n), 1)
  mask = elementwise.ge(rows, cols) if lower else elementwise.le(rows, cols)
  return structural.broadcast_in_dim(mask, tuple(shape), (len(shape) - 2, len(shape) - 1))


def _tril(x, k: int = 0):
  aval = core.get_aval(x)
  return elementwise.select_n(_tri_mask(aval.shape, k, True), structural.full(aval.shape, 0, aval.dtype), x)


def _triu(x, k: int = 0):
  # As JAX's: zero where the lower triangle below diagonal k is (iota0 + k - 1 >= iota1).
  aval = core.get_aval(x)
  return elementwise.select_n(_tri_mask(aval.shape, k - 1, True), x, structural.full(aval.shape, 0, aval.dtype))


def _eye(n: int, dtype, shape=None):
  rows = structural.broadcasted_iota(np.int32, (n, n), 0)
  cols = structural.broadcasted_iota(np.int32, (n, n), 1)
  eye = elementwise.convert_element_type(elementwise.eq(rows, cols), dtype)
  return eye if shape is None else structural.broadcast_in_dim(eye, tuple(shape), (len(shape) - 2, len(shape) - 1))


def _diagonal(x):
  """The main diagonal of the last two dimensions (a square matrix)."""
  aval = core.get_aval(x)
  n = aval.shape[-1]
  return reductions.reduce_sum(elementwise.mul(x, _eye(n, aval.dtype, aval.shape)), (len(aval.shape) - 1,))


def _wrapped_index(i, n: int):
  """``i`` with negative entries counted from the end (``i + n`` where ``i < 0``), the
  normalization jnp indexing stages for every integer-array index."""
  return elementwise.select_n(elementwise.lt(i, np.int32(0)), i, elementwise.add(i, np.int32(n)))


def _diagonal_index_pairs(i, n: int):
  """The (n, 2) index vectors ``(i[k], i[k])`` as jnp indexing builds them for ``x[..., i, i]``:
  both index arrays normalized, then each made a column, then joined."""
  rows, cols = _wrapped_index(i, n), _wrapped_index(i, n)
  return structural.concatenate([structural.broadcast_in_dim(rows, (n, 1), (0,)),
                                 structural.broadcast_in_dim(cols, (n, 1), (0,))], 1)


def _gather_diagonal(x):
  """The main diagonal of the last two dimensions, read as ``x[..., arange(n), arange(n)]``
  stages it in JAX (one gather; its transpose is a scatter-add)."""
  shape = core.get_aval(x).shape
  n, nb = shape[-1], len(shape) - 2
  pairs = _diagonal_index_pairs(structural.broadcasted_iota(np.int32, (n,), 0), n)
  dnums = slicing.GatherDimensionNumbers(offset_dims=tuple(range(nb)), collapsed_slice_dims=(nb, nb + 1),
                                         start_index_map=(nb, nb + 1))
  return slicing.gather(x, pairs, dnums, shape[:-2] + (1, 1),
                        mode=slicing.GatherScatterMode.PROMISE_IN_BOUNDS)


def _scatter_diag_matrix(v):
  """A (..., n, n) matrix with ``v`` (..., n) on its diagonal and zeros elsewhere, staged as
  JAX stages ``jnp.vectorize(jnp.diag)(v)``: zeros, then one scatter of ``v`` along (i, i)."""
  aval = core.get_aval(v)
  n, nb = aval.shape[-1], len(aval.shape) - 1
  i = structural.broadcasted_iota(np.int32, (n,), 0)
  zeros = structural.full(aval.shape + (n,), 0, aval.dtype)
  pairs = _diagonal_index_pairs(i, n)
  dnums = slicing.ScatterDimensionNumbers(update_window_dims=tuple(range(nb)),
                                          inserted_window_dims=(nb, nb + 1),
                                          scatter_dims_to_operand_dims=(nb, nb + 1))
  return slicing.scatter(zeros, pairs, v, dnums, mode=slicing.GatherScatterMode.FILL_OR_DROP)


def _promote_rank(x, ndim: int):
  """``x`` with leading unit dimensions up to rank ``ndim`` (jnp's rank promotion)."""
  shape = core.get_aval(x).shape
  if len(shape) == ndim:
    return x
  lead = ndim - len(shape)
  return structural.broadcast_in_dim(x, (1,) * lead + shape, tuple(range(lead, ndim)))


def _expand(x, axis: int):
  """``x[..., None, :]`` (axis -2) or ``x[..., None]`` (axis -1) of a (..., n) array."""
  shape = core.get_aval(x).shape
  nd = len(shape)
  if axis == -2:
    return structural.broadcast_in_dim(x, shape[:-1] + (1, shape[-1]), tuple(range(nd - 1)) + (nd,))
  return structural.broadcast_in_dim(x, shape + (1,), tuple(range(nd)))


def _real(x):
  return elementwise.real(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x


def _to_dtype(x, dtype):
  return elementwise.convert_element_type(x, dtype) if core.get_aval(x).dtype != dtype else x


def _permutation_matrix(permutation, dtype):
  """P with ``P @ x == x[..., permutation, :]``."""
  aval = core.get_aval(permutation)
  m = aval.shape[-1]
  shape = aval.shape + (m,)
  nd = len(shape)
  perm = structural.broadcast_in_dim(permutation, shape, tuple(range(nd - 1)))
  cols = structural.broadcasted_iota(np.int32, shape, nd - 1)
  return elementwise.convert_element_type(elementwise.eq(perm, cols), dtype)


def _lu_solve(lu_, permutation, b):
  """Solves ``a @ x = b`` given ``a``'s LU factorization (square)."""
  pb = _matmul(_permutation_matrix(permutation, core.get_aval(b).dtype), b)
  y = triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
  return triangular_solve(lu_, y, left_side=True, lower=False)


def _solve(a, b):
  lu_, _, permutation = lu_p.bind(a)
  return _lu_solve(lu_, permutation, b)


# batching: every linalg primitive maps over leading dimensions, so a vmapped axis moves to the front.

def _to_front(x, bdim, size):
  if bdim is None:
    return structural.broadcast(x, (size,))
  if bdim == 0:
    return x
  nd = np.ndim(x)
  return structural.transpose(x, (bdim,) + tuple(i for i in range(nd) if i != bdim))


def _batch_rule(primitive):
  def rule(batched_args, batch_dims, **params):
    size = next(core.get_aval(x).shape[d] for x, d in zip(batched_args, batch_dims) if d is not None)
    args = [_to_front(x, d, size) for x, d in zip(batched_args, batch_dims)]
    out = primitive.bind(*args, **params)
    return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)
  batching.primitive_batchers[primitive] = rule


# ---------------------------------------------------------------------------
# cholesky

cholesky_p = core.Primitive("cholesky")


def _cholesky_rule(x: ShapedArray) -> ShapedArray:
  _check_operand("cholesky", x)
  _check_square("cholesky", x)
  return ShapedArray(x.shape, x.dtype)


cholesky_p.def_abstract_eval(_cholesky_rule)


def _cholesky_impl(x):
  _lapack_prefix("cholesky", x.dtype)
  flat, restore = _matrices(x)
  try:
    out = np.linalg.cholesky(flat)
  except np.linalg.LinAlgError:
    out = np.empty_like(flat)
    for i, a in enumerate(flat):
      try:
        out[i] = np.linalg.cholesky(a)
      except np.linalg.LinAlgError:
        out[i] = np.nan
  # LAPACK's potrf leaves the strict upper triangle of its input in place.
  finite = ~np.isnan(out).all(axis=(-2, -1), keepdims=True)
  out = np.where(finite, out + np.triu(flat, 1), out)
  return restore(out.astype(x.dtype), x.shape[-2:])


cholesky_p.def_impl(_cholesky_impl)


def _cholesky_lowering(ctx, x):
  aval = ctx.avals_in[0]
  nb = len(aval.shape) - 2
  target = f"lapack_{_lapack_prefix('cholesky', aval.dtype)}potrf_ffi"
  out, info = _lapack_call(ctx, target, [x], [aval, _i32(aval.shape[:-2])], nb, {"uplo": "L"})
  return _nan_unless(ctx, _info_ok(ctx, info), out)


mlir.register(cholesky_p, _cholesky_lowering)


def _cholesky_jvp(primals, tangents):
  (x,), (x_dot,) = primals, tangents
  L = _tril(cholesky_p.bind(x))
  x_dot = ad.instantiate_zeros(x_dot)
  aval = core.get_aval(x)

  # dL = L phi(L^-1 dA L^-H): phi keeps the lower triangle, the diagonal halved (divided by
  # 1 + I, as JAX's rule; arXiv:1602.07527)
  def phi(X):
    lower_part = _tril(X)
    eye = _jnp_eye(aval.shape[-1], aval.dtype)
    one_plus_eye = elementwise.add(np.array(1, aval.dtype), eye)
    return elementwise.div(lower_part, structural.broadcast_in_dim(
        one_plus_eye, aval.shape, (len(aval.shape) - 2, len(aval.shape) - 1)))

  tmp = triangular_solve(L, x_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True)
  L_dot = _matmul(L, phi(triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)))
  return L, L_dot


ad.primitive_jvps[cholesky_p] = _cholesky_jvp
_batch_rule(cholesky_p)


def _symmetrize(x):
  """``(x + x^H) / 2``."""
  aval = core.get_aval(x)
  return elementwise.div(elementwise.add(x, _H(x)), np.array(2, aval.dtype))


def cholesky(x, *, symmetrize_input: bool = True):
  """Cholesky decomposition ``x = L @ L^H`` of Hermitian positive-definite matrices
  (``lax.linalg.cholesky``): the lower-triangular ``L``, computed from the lower triangle (of
  ``(x + x^H) / 2`` when ``symmetrize_input``). A matrix that is not positive definite gives NaNs."""
  if symmetrize_input:
    x = _symmetrize(x)
  return _tril(cholesky_p.bind(x))


# ---------------------------------------------------------------------------
# triangular_solve

triangular_solve_p = core.Primitive("triangular_solve")


def _triangular_solve_rule(a: ShapedArray, b: ShapedArray, *, left_side, lower, transpose_a,
                           conjugate_a, unit_diagonal) -> ShapedArray:
  if a.dtype != b.dtype:
    raise TypeError("lax.triangular_solve requires arguments to have the same dtypes, got "
                    f"{a.dtype.name}, {b.dtype.name}.")
  _check_operand("triangular_solve", a, 0)
  _check_operand("triangular_solve", b, 1)
  if a.shape[-1] != a.shape[-2]:
    raise ValueError(f"The first input to triangular_solve must be a square matrix. Got shape {a.shape}.")
  common = b.shape[-2] if left_side else b.shape[-1]
  if len(a.shape) != len(b.shape) or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != common:
    raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and {b.shape}.")
  return ShapedArray(b.shape, b.dtype)


triangular_solve_p.def_abstract_eval(_triangular_solve_rule)


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  from scipy.linalg import blas
  _lapack_prefix("triangular_solve", a.dtype)
  trsm = blas.get_blas_funcs("trsm", dtype=a.dtype)
  trans = (2 if conjugate_a else 1) if transpose_a else 0
  flat_a, _ = _matrices(a)
  flat_b, restore = _matrices(b)
  out = np.empty_like(flat_b)
  for i in range(flat_b.shape[0]):
    ai = np.conj(flat_a[i]) if conjugate_a and not transpose_a else flat_a[i]
    if flat_b[i].size:
      out[i] = trsm(1.0, ai, flat_b[i], side=0 if left_side else 1, lower=int(lower),
                    trans_a=trans, diag=int(unit_diagonal))
  return restore(out, b.shape[-2:])


triangular_solve_p.def_impl(_triangular_solve_impl)


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  a_aval, b_aval = ctx.avals_in
  prefix = _lapack_prefix("triangular_solve", a_aval.dtype)
  if conjugate_a and not transpose_a and a_aval.dtype.kind == "c":
    a = mlir.lowering_rules[elementwise.conj_p](ctx.replace(avals_in=[a_aval], avals_out=[a_aval]), a,
                                                input_dtype=a_aval.dtype)
  trans = ("C" if conjugate_a else "T") if transpose_a else "N"
  config = {"diag": "U" if unit_diagonal else "N", "side": "L" if left_side else "R",
            "trans_x": trans, "uplo": "L" if lower else "U"}
  (out,) = _lapack_call(ctx, f"lapack_{prefix}trsm_ffi", [a, b], [b_aval], len(b_aval.shape) - 2, config)
  return out


mlir.register(triangular_solve_p, _triangular_solve_lowering)


def _triangular_solve_jvp_a(a_dot, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                unit_diagonal=unit_diagonal)
  x = triangular_solve_p.bind(a, b, **params)
  a_dot = _tril(a_dot, -1 if unit_diagonal else 0) if lower else _triu(a_dot, 1 if unit_diagonal else 0)
  op_a_dot = a_dot
  if transpose_a:
    op_a_dot = _T(op_a_dot)
  if conjugate_a:
    op_a_dot = _conj(op_a_dot)
  # op(A) X = B  =>  dX = -op(A)^-1 op(dA) X ; X op(A) = B  =>  dX = -X op(dA) op(A)^-1
  rhs = _matmul(op_a_dot, x) if left_side else _matmul(x, op_a_dot)
  return elementwise.neg(triangular_solve_p.bind(a, rhs, **params))


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  if ad.is_undefined_primal(a):
    raise NotImplementedError("triangular_solve is linear only in its right-hand side b")
  if type(ct) is ad.Zero:
    return [None, ad.Zero(b.aval)]
  ct_b = triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower, transpose_a=not transpose_a,
                                 conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  return [None, ct_b]


ad.defjvp(triangular_solve_p, _triangular_solve_jvp_a,
          lambda b_dot, a, b, **params: triangular_solve_p.bind(a, b_dot, **params))
ad.primitive_transposes[triangular_solve_p] = _triangular_solve_transpose


def _triangular_solve_batch(batched_args, batch_dims, **params):
  a, b = batched_args
  a_dim, b_dim = batch_dims
  if a_dim is not None:
    size = core.get_aval(a).shape[a_dim]
    return triangular_solve_p.bind(_to_front(a, a_dim, size), _to_front(b, b_dim, size), **params), 0
  # One matrix for every batch element: the batch becomes more right-hand sides (columns when
  # solving from the left, rows from the right), one solve for all of them.
  b_shape = core.get_aval(b).shape
  nd = len(b_shape)
  if params["left_side"]:
    b = batching.moveaxis(b, b_dim, -1)
    shape = core.get_aval(b).shape
    flat = structural.reshape(b, shape[:-2] + (shape[-2] * shape[-1],))
    out_dim = nd - 1
  else:
    b = batching.moveaxis(b, b_dim, -2)
    shape = core.get_aval(b).shape
    flat = structural.reshape(b, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
    out_dim = nd - 2
  out = triangular_solve_p.bind(a, flat, **params)
  return structural.reshape(out, shape), out_dim


batching.primitive_batchers[triangular_solve_p] = _triangular_solve_batch


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
  """Solves ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for ``x``, where ``a`` is
  triangular (``lower`` or upper; only that triangle is read) and ``op`` transposes and/or
  conjugates per ``transpose_a``/``conjugate_a`` (``lax.linalg.triangular_solve``). A ``b`` of
  one rank less than ``a`` is a single vector."""
  a_aval, b_aval = core.get_aval(a), core.get_aval(b)
  conjugate_a = conjugate_a and dtypes.issubdtype(a_aval.dtype, np.complexfloating)
  vector = len(b_aval.shape) == len(a_aval.shape) - 1
  if vector:
    b = structural.reshape(b, b_aval.shape + (1,) if left_side else b_aval.shape[:-1] + (1, b_aval.shape[-1]))
  out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  if vector:
    out = structural.reshape(out, b_aval.shape)
  return out


# ---------------------------------------------------------------------------
# lu_pivots_to_permutation

lu_pivots_to_permutation_p = core.Primitive("lu_pivots_to_permutation")


def _lu_pivots_rule(pivots: ShapedArray, *, permutation_size) -> ShapedArray:
  if pivots.dtype != np.int32:
    raise TypeError(f"lu_pivots_to_permutation requires int32 pivots, got {pivots.dtype.name}.")
  if len(pivots.shape) < 1:
    raise ValueError(f"Argument to lu_pivots_to_permutation must have rank >= 1, got shape {pivots.shape}")
  if pivots.shape[-1] > permutation_size:
    raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing "
                     f"dimension of the pivots. Got pivots size {pivots.shape[-1]}")
  return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.dtype(np.int32))


lu_pivots_to_permutation_p.def_abstract_eval(_lu_pivots_rule)


def _lu_pivots_impl(pivots, *, permutation_size):
  batch = pivots.shape[:-1]
  flat = pivots.reshape(-1, pivots.shape[-1])
  perm = np.broadcast_to(np.arange(permutation_size, dtype=np.int32), (flat.shape[0], permutation_size)).copy()
  rows = np.arange(flat.shape[0])
  for k in range(flat.shape[1]):
    p = flat[:, k]
    # out-of-range pivots are ignored (XLA's clamped/dropped indexing would differ; LAPACK never makes them)
    p = np.where((p >= 0) & (p < permutation_size), p, k)
    pk, kk = perm[rows, p].copy(), perm[:, k].copy()
    perm[:, k] = pk
    perm[rows, p] = kk
  return perm.reshape(batch + (permutation_size,))


lu_pivots_to_permutation_p.def_impl(_lu_pivots_impl)


def _emit_pivots_to_permutation(ctx, pivots, permutation_size: int):
  """A ``stablehlo.while`` applying the row swaps ``pivots`` to the identity permutation."""
  piv_aval = pivots.aval
  batch = piv_aval.shape[:-1]
  num_swaps = piv_aval.shape[-1]
  perm_aval = _i32(batch + (permutation_size,))
  nd = len(perm_aval.shape)
  scalar = _i32(())
  perm0 = mlir.op(ctx, "stablehlo.iota", [], perm_aval, {"iota_dimension": f"{nd - 1} : i64"})
  k0 = mlir.constant(ctx, np.int32(0))

  def cond(ctx_, k, perm, piv):
    return mlir.compare(ctx_, k, mlir.constant(ctx_, np.int32(num_swaps)), "LT", "SIGNED")

  def body(ctx_, k, perm, piv):
    zero = mlir.constant(ctx_, np.int32(0))
    column = _i32(batch + (1,))
    piv_k = mlir.op(ctx_, "stablehlo.dynamic_slice", [piv] + [zero] * len(batch) + [k], column,
                    {"slice_sizes": mlir.dense_array(batch + (1,))})
    perm_k = mlir.op(ctx_, "stablehlo.dynamic_slice", [perm] + [zero] * len(batch) + [k], column,
                     {"slice_sizes": mlir.dense_array(batch + (1,))})
    iota = mlir.op(ctx_, "stablehlo.iota", [], perm_aval, {"iota_dimension": f"{nd - 1} : i64"})
    dims = list(range(nd))
    at_p = mlir.compare(ctx_, iota, mlir.broadcast_in_dim(ctx_, piv_k, perm_aval, dims), "EQ", "SIGNED")
    at_k = mlir.compare(ctx_, iota, mlir.broadcast_in_dim(ctx_, k, perm_aval, []), "EQ", "SIGNED")
    low = mlir.full_like_aval(ctx_, np.iinfo(np.int32).min, perm_aval)
    picked = mlir.select(ctx_, at_p, perm, low)
    region = mlir.region(ctx_, [scalar, scalar],
                         lambda c, x, y: mlir.op(c, "stablehlo.maximum", [x, y], scalar))
    perm_p = mlir.op(ctx_, "stablehlo.reduce", [picked, mlir.constant(ctx_, np.int32(np.iinfo(np.int32).min))],
                     _i32(batch), {"dimensions": mlir.dense_array([nd - 1])}, regions=[region])
    perm_p = mlir.broadcast_in_dim(ctx_, perm_p, perm_aval, list(range(nd - 1)))
    swapped = mlir.select(ctx_, at_p, mlir.broadcast_in_dim(ctx_, perm_k, perm_aval, dims), perm)
    new_perm = mlir.select(ctx_, at_k, perm_p, swapped)
    k1 = mlir.op(ctx_, "stablehlo.add", [k, mlir.constant(ctx_, np.int32(1))], scalar)
    return [k1, new_perm, piv]

  avals = [scalar, perm_aval, piv_aval]
  regions = [mlir.region(ctx, avals, cond), mlir.region(ctx, avals, body)]
  outs = mlir.op(ctx, "stablehlo.while", [k0, perm0, pivots], avals, regions=regions)
  return outs[1]


def _lu_pivots_lowering(ctx, pivots, *, permutation_size):
  return _emit_pivots_to_permutation(ctx, pivots, permutation_size)


mlir.register(lu_pivots_to_permutation_p, _lu_pivots_lowering)
ad.defjvp_zero(lu_pivots_to_permutation_p)
_batch_rule(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size: int):
  """The permutation made by applying the row swaps ``pivots`` (as returned by ``lu``: row i
  was swapped with row ``pivots[i]``) to ``range(permutation_size)``
  (``lax.linalg.lu_pivots_to_permutation``)."""
  return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


# ---------------------------------------------------------------------------
# lu

lu_p = core.Primitive("lu")
lu_p.multiple_results = True


def _lu_rule(x: ShapedArray):
  _check_operand("lu", x)
  m, n = x.shape[-2:]
  batch = x.shape[:-2]
  return [ShapedArray(x.shape, x.dtype), _i32(batch + (min(m, n),)), _i32(batch + (m,))]


lu_p.def_abstract_eval(_lu_rule)


def _lu_impl(x):
  from scipy.linalg import lapack
  _lapack_prefix("lu", x.dtype)
  m, n = x.shape[-2:]
  flat, restore = _matrices(x)
  getrf = lapack.get_lapack_funcs("getrf", dtype=x.dtype)
  out = np.empty_like(flat)
  pivots = np.empty((flat.shape[0], min(m, n)), np.int32)
  for i, a in enumerate(flat):
    if a.size == 0:
      out[i] = a
      continue
    lu_, piv, info = getrf(a)
    out[i] = lu_ if info >= 0 else np.nan
    pivots[i] = piv
  pivots = pivots.reshape(x.shape[:-2] + (min(m, n),))
  return [restore(out, (m, n)), pivots, _lu_pivots_impl(pivots, permutation_size=m)]


lu_p.def_impl(_lu_impl)


def _lu_lowering(ctx, x):
  aval = ctx.avals_in[0]
  m, n = aval.shape[-2:]
  batch = aval.shape[:-2]
  if m == 0 or n == 0:
    out = x
    ipiv = mlir.full_like_aval(ctx, 0, _i32(batch + (min(m, n),)))
  else:
    target = f"lapack_{_lapack_prefix('lu', aval.dtype)}getrf_ffi"
    out, ipiv, info = _lapack_call(ctx, target, [x], [aval, _i32(batch + (min(m, n),)), _i32(batch)],
                                   len(batch))
    ipiv = mlir.op(ctx, "stablehlo.subtract", [ipiv, mlir.full_like_aval(ctx, 1, ipiv.aval)], ipiv.aval)
    out = _nan_unless(ctx, _info_ok(ctx, info, "GE"), out)
  return [out, ipiv, _emit_pivots_to_permutation(ctx, ipiv, m)]


mlir.register(lu_p, _lu_lowering)


def _lu_jvp(primals, tangents):
  (a,), (a_dot,) = primals, tangents
  lu_, pivots, permutation = lu_p.bind(a)
  aval = core.get_aval(a)
  m, n = aval.shape[-2:]
  k = min(m, n)
  batch = aval.shape[:-2]
  dtype = aval.dtype
  a_dot = ad.instantiate_zeros(a_dot)
  x = _matmul(_permutation_matrix(permutation, dtype), a_dot)
  nb = len(batch)
  zero = np.array(0, dtype)
  # L (m x m, unit lower, identity beyond column k) and U (n x n, identity beyond row k).
  l_part = _tril(structural.slice(lu_, (0,) * (nb + 2), batch + (m, k)), -1)
  l_full = structural.pad(l_part, zero, [(0, 0, 0)] * nb + [(0, 0, 0), (0, m - k, 0)])
  l_full = elementwise.add(l_full, _eye(m, dtype, batch + (m, m)))
  u_part = _triu(structural.slice(lu_, (0,) * (nb + 2), batch + (k, n)))
  u_full = structural.pad(u_part, zero, [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)])
  if n > k:
    pad_eye = structural.pad(_eye(n - k, dtype, batch + (n - k, n - k)), zero,
                             [(0, 0, 0)] * nb + [(k, 0, 0), (k, 0, 0)])
    u_full = elementwise.add(u_full, pad_eye)
  la = triangular_solve(l_full, x, left_side=True, lower=True, unit_diagonal=True)
  lau = triangular_solve(u_full, la, left_side=False, lower=False)
  l_dot = _matmul(l_full, _tril(lau, -1))
  u_dot = _matmul(_triu(lau), u_full)
  lu_dot = elementwise.add(l_dot, u_dot)
  return [lu_, pivots, permutation], [lu_dot, ad.Zero.from_primal_value(pivots),
                                      ad.Zero.from_primal_value(permutation)]


ad.primitive_jvps[lu_p] = _lu_jvp
_batch_rule(lu_p)


def lu(x):
  """LU decomposition with partial pivoting (``lax.linalg.lu``): returns ``(lu, pivots,
  permutation)`` where ``lu`` holds ``L`` (unit lower, below the diagonal) and ``U`` (upper),
  ``pivots`` the LAPACK row swaps (0-based) and ``permutation`` the row permutation, so
  ``x[..., permutation, :] == L @ U``."""
  return tuple(lu_p.bind(x))


# ---------------------------------------------------------------------------
# householder_product

householder_product_p = core.Primitive("householder_product")


def _householder_product_rule(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
  _check_operand("householder_product", a)
  if a.dtype != taus.dtype:
    raise TypeError("householder_product requires arguments to have the same dtypes, got "
                    f"{a.dtype.name}, {taus.dtype.name}.")
  if len(taus.shape) != len(a.shape) - 1 or taus.shape[:-1] != a.shape[:-2]:
    raise ValueError("The arguments to householder_product must have matching batch dimensions, "
                     f"got shapes {a.shape} and {taus.shape}.")
  m, n = a.shape[-2:]
  if m < n:
    raise ValueError("The first argument to householder_product must have at least as many rows "
                     f"as columns, got {a.shape}")
  if taus.shape[-1] > min(m, n):
    raise ValueError("The second argument to householder_product must not have more rows than "
                     "the minimum of the first argument's rows and columns.")
  return ShapedArray(a.shape, a.dtype)


householder_product_p.def_abstract_eval(_householder_product_rule)


def _householder_product_impl(a, taus):
  from scipy.linalg import lapack
  prefix = _lapack_prefix("householder_product", a.dtype)
  name = "ungqr" if prefix in "cz" else "orgqr"
  orgqr = lapack.get_lapack_funcs(name, dtype=a.dtype)
  flat, restore = _matrices(a)
  flat_taus = taus.reshape(-1, taus.shape[-1])
  out = np.empty_like(flat)
  for i, (ai, ti) in enumerate(zip(flat, flat_taus)):
    if ai.size == 0:
      out[i] = ai
      continue
    q, _, info = orgqr(ai, ti)
    out[i] = q if info == 0 else np.nan
  return restore(out, a.shape[-2:])


householder_product_p.def_impl(_householder_product_impl)


def _emit_householder_product(ctx, a, taus):
  prefix = _lapack_prefix("householder_product", a.aval.dtype)
  name = "ungqr" if prefix in "cz" else "orgqr"
  (out,) = _lapack_call(ctx, f"lapack_{prefix}{name}_ffi", [a, taus], [a.aval], len(a.aval.shape) - 2)
  return out


mlir.register(householder_product_p, lambda ctx, a, taus: _emit_householder_product(ctx, a, taus))
_batch_rule(householder_product_p)


def _householder_product_jvp(primals, tangents):
  raise NotImplementedError("Differentiation of householder_product is not implemented; "
                            "differentiate lax.linalg.qr instead.")


ad.primitive_jvps[householder_product_p] = _householder_product_jvp


def householder_product(a, taus):
  """The product of Householder reflectors stored below the diagonal of ``a`` with scales
  ``taus`` (LAPACK ``orgqr``/``ungqr``; ``lax.linalg.householder_product``)."""
  return householder_product_p.bind(a, taus)


# ---------------------------------------------------------------------------
# qr

qr_p = core.Primitive("qr")
qr_p.multiple_results = True


def _qr_rule(x: ShapedArray, *, pivoting, full_matrices, use_magma):
  _check_operand("qr", x)
  m, n = x.shape[-2:]
  batch = x.shape[:-2]
  k = m if full_matrices else min(m, n)
  outs = [ShapedArray(batch + (m, k), x.dtype), ShapedArray(batch + (k, n), x.dtype)]
  if pivoting:
    outs.append(_i32(batch + (n,)))
  return outs


qr_p.def_abstract_eval(_qr_rule)


def _qr_impl(x, *, pivoting, full_matrices, use_magma):
  _lapack_prefix("qr", x.dtype)
  if pivoting:
    raise NotImplementedError("qr with pivoting=True is not implemented in axle.")
  m, n = x.shape[-2:]
  if x.size == 0:
    k = m if full_matrices else min(m, n)
    q = np.zeros(x.shape[:-2] + (m, k), x.dtype)
    q[..., np.arange(min(m, k)), np.arange(min(m, k))] = 1
    return [q, np.zeros(x.shape[:-2] + (k, n), x.dtype)]
  q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
  return [q.astype(x.dtype), r.astype(x.dtype)]


qr_p.def_impl(_qr_impl)


def _qr_lowering(ctx, x, *, pivoting, full_matrices, use_magma):
  aval = ctx.avals_in[0]
  if pivoting:
    raise NotImplementedError("qr with pivoting=True is not implemented in axle.")
  q_aval, r_aval = ctx.avals_out
  m, n = aval.shape[-2:]
  batch = aval.shape[:-2]
  nb = len(batch)
  k = min(m, n)
  if 0 in aval.shape:
    eye = mlir.lower_fun(lambda: _eye_rect(q_aval), False)(ctx.replace(avals_in=[]))
    return [eye, mlir.full_like_aval(ctx, 0, r_aval)]
  prefix = _lapack_prefix("qr", aval.dtype)
  a, taus = _lapack_call(ctx, f"lapack_{prefix}geqrf_ffi", [x], [aval, ShapedArray(batch + (k,), aval.dtype)], nb)
  # As JAX: q first -- the reflectors applied to the identity, on an m x q_cols matrix.
  q_cols = q_aval.shape[-1]
  q_in = a
  if q_cols > n:
    q_in = mlir.op(ctx, "stablehlo.pad", [a, mlir.constant(ctx, np.zeros((), aval.dtype))], q_aval,
                   {"edge_padding_low": mlir.dense_array([0] * (nb + 2)),
                    "edge_padding_high": mlir.dense_array([0] * nb + [0, q_cols - n]),
                    "interior_padding": mlir.dense_array([0] * (nb + 2))})
  elif q_cols < n:
    q_in = mlir.op(ctx, "stablehlo.slice", [a], q_aval,
                   {"start_indices": mlir.dense_array([0] * (nb + 2)),
                    "limit_indices": mlir.dense_array(q_aval.shape),
                    "strides": mlir.dense_array([1] * (nb + 2))})
  q = _emit_householder_product(ctx, q_in, taus)
  # r: the upper triangle of the factored matrix's first k rows.
  r_rows = r_aval.shape[-2]
  r = a
  if min(r_rows, m) != m:
    r = mlir.op(ctx, "stablehlo.slice", [a], ShapedArray(batch + (min(r_rows, m), n), aval.dtype),
                {"start_indices": mlir.dense_array([0] * (nb + 2)),
                 "limit_indices": mlir.dense_array(batch + (min(r_rows, m), n)),
                 "strides": mlir.dense_array([1] * (nb + 2))})
  r = mlir.lower_fun(_triu, False)(ctx.replace(avals_in=[r.aval], avals_out=[r.aval]), r)
  if r.aval.shape != r_aval.shape:  # full_matrices with m > n: zero rows below
    r = mlir.op(ctx, "stablehlo.pad", [r, mlir.constant(ctx, np.zeros((), aval.dtype))], r_aval,
                {"edge_padding_low": mlir.dense_array([0] * (nb + 2)),
                 "edge_padding_high": mlir.dense_array([0] * nb + [r_aval.shape[-2] - r.aval.shape[-2], 0]),
                 "interior_padding": mlir.dense_array([0] * (nb + 2))})
  return [q, r]


def _eye_rect(aval):
  m, k = aval.shape[-2:]
  rows = structural.broadcasted_iota(np.int32, (m, k), 0)
  cols = structural.broadcasted_iota(np.int32, (m, k), 1)
  eye = elementwise.convert_element_type(elementwise.eq(rows, cols), aval.dtype)
  return structural.broadcast_in_dim(eye, aval.shape, (len(aval.shape) - 2, len(aval.shape) - 1))


mlir.register(qr_p, _qr_lowering)


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
  (x,), (dx,) = primals, tangents
  q, r = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
  shape = core.get_aval(x).shape
  m, n = shape[-2:]
  nd = len(shape)
  dx = ad.instantiate_zeros(dx)
  if m < n:
    # Wide: x = [x1 | x2] with x1 square; q r1 = x1 and r2 = q^H x2.
    x1, x2 = structural.slice_in_dim(x, 0, m, axis=nd - 1), structural.slice_in_dim(x, m, n, axis=nd - 1)
    dx1 = structural.slice_in_dim(dx, 0, m, axis=nd - 1)
    dx2 = structural.slice_in_dim(dx, m, n, axis=nd - 1)
    r1 = structural.slice_in_dim(r, 0, m, axis=nd - 1)
    dq, dr1 = _qr_jvp_reduced(dx1, q, r1)
    dr2 = elementwise.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
    return [q, r], [dq, structural.concatenate([dr1, dr2], nd - 1)]
  if full_matrices and m > n:
    return [q, r], _qr_jvp_complete(dx, q, r)
  dq, dr = _qr_jvp_reduced(dx, q, r)
  return [q, r], [dq, dr]


def _block(x, rows, cols):
  """``x[..., rows, cols]`` for two ``(start, stop)`` pairs: one static slice (JAX's indexing)."""
  shape = core.get_aval(x).shape
  batch = shape[:-2]
  return structural.slice(x, (0,) * len(batch) + (rows[0], cols[0]), batch + (rows[1], cols[1]))


# ``_lu_solve(lu, permutation, b, trans)`` as jnp.linalg stages it (``jit[name=_lu_solve]``),
# which the tall complete QR rule calls; set by axle._src.numpy.linalg, which defines it.
staged_lu_solve = None


def _qr_jvp_complete(dx, q, r):
  """Tangents of the complete QR of a tall ``x`` (m > n), as JAX's rule computes them: the
  reduced rule on ``q1 = q[:, :n]`` and ``r1 = r[:n]``; the other columns ``q2`` move as
  ``dq2 = dq1 Y - (q1 + q2 Y^H)(dq1[n:] - Y^H dq1[:n])^H`` with ``Y`` solving
  ``(q1[:n] - I)^H Y = q1[n:]^H``; ``r``'s zero rows stay zero."""
  r_shape = core.get_aval(r).shape
  m, n = r_shape[-2:]
  nd = len(r_shape)
  dtype = core.get_aval(q).dtype
  q1 = _block(q, (0, m), (0, n))
  r1 = _block(r, (0, n), (0, n))
  dq1, dr1 = _qr_jvp_reduced(dx, q1, r1)
  q1_top, q1_bottom = _block(q1, (0, n), (0, n)), _block(q1, (n, m), (0, n))
  q2 = _block(q, (0, m), (n, m))
  dq1_top, dq1_bottom = _block(dq1, (0, n), (0, n)), _block(dq1, (n, m), (0, n))
  x_lu, _, permutation = lu_p.bind(elementwise.sub(q1_top, _promote_rank(_jnp_eye(n, dtype), nd)))
  y = staged_lu_solve(x_lu, permutation, _H(q1_bottom), 2)
  y_h = _H(y)
  a = _jnp_matmul(dq1, y)
  b = elementwise.add(q1, _jnp_matmul(q2, y_h))
  c = elementwise.sub(dq1_bottom, _jnp_matmul(y_h, dq1_top))
  dq2 = elementwise.sub(a, _jnp_matmul(b, _H(c)))
  dq = structural.concatenate([dq1, dq2], nd - 1)
  dr = structural.concatenate([dr1, structural.full(r_shape[:-2] + (m - n, n), 0, dtype)], nd - 2)
  return [dq, dr]


def _qr_jvp_reduced(dx, q, r):
  """Tangents of the reduced QR ``q r`` of a tall or square matrix (q: m x n, r: n x n)."""
  n = core.get_aval(r).shape[-1]
  dtype = core.get_aval(q).dtype
  dx_rinv = triangular_solve(r, dx)  # dx @ r^-1
  qt_dx_rinv = _jnp_matmul(_H(q), dx_rinv)
  lower = _tril(qt_dx_rinv, -1)
  do = elementwise.sub(lower, _H(lower))  # skew-Hermitian
  # plus the imaginary part of the diagonal, which the skew-Hermitian part may carry (applied
  # to real inputs too, as JAX's rule)
  eye = _promote_rank(_jnp_eye(n, dtype), len(core.get_aval(qt_dx_rinv).shape))
  real_part = _to_dtype(_real(qt_dx_rinv), dtype) if dtype.kind == "c" else qt_dx_rinv
  do = elementwise.add(do, elementwise.mul(eye, elementwise.sub(qt_dx_rinv, real_part)))
  dq = elementwise.add(_jnp_matmul(q, elementwise.sub(do, qt_dx_rinv)), dx_rinv)
  dr = _jnp_matmul(elementwise.sub(qt_dx_rinv, do), r)
  return dq, dr


ad.primitive_jvps[qr_p] = _qr_jvp
_batch_rule(qr_p)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
  """QR decomposition ``x = q @ r`` (``lax.linalg.qr``): ``q`` has orthonormal columns and ``r``
  is upper triangular. With ``full_matrices`` q is m x m and r m x n, else m x k and k x n
  (k = min(m, n))."""
  return tuple(qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                         use_magma=use_magma))


# ---------------------------------------------------------------------------
# eigh

eigh_p = core.Primitive("eigh")
eigh_p.multiple_results = True


def _eigh_rule(x: ShapedArray, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  _check_operand("eigh", x)
  _check_square("eigh", x)
  n = x.shape[-1]
  batch = x.shape[:-2]
  count = n
  if subset_by_index is not None:
    lo, hi = subset_by_index
    if not 0 <= lo <= hi <= n:
      raise ValueError(f"subset_by_index must satisfy 0 <= lo <= hi <= n, got {subset_by_index} for n={n}")
    count = hi - lo
  return [ShapedArray(batch + (n, count), x.dtype), ShapedArray(batch + (count,), _real_dtype(x.dtype))]


eigh_p.def_abstract_eval(_eigh_rule)


def _eigh_impl(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  _lapack_prefix("eigh", x.dtype)
  uplo = "L" if lower else "U"
  try:
    w, v = np.linalg.eigh(x, UPLO=uplo)
  except np.linalg.LinAlgError:
    flat, restore = _matrices(x)
    v = np.full(flat.shape, np.nan, x.dtype)
    w = np.full(flat.shape[:-1], np.nan, _real_dtype(x.dtype))
    for i, a in enumerate(flat):
      try:
        w[i], v[i] = np.linalg.eigh(a, UPLO=uplo)
      except np.linalg.LinAlgError:
        pass
    v, w = restore(v, x.shape[-2:]), w.reshape(x.shape[:-1])
  if subset_by_index is not None:
    lo, hi = subset_by_index
    v, w = v[..., lo:hi], w[..., lo:hi]
  return [v.astype(x.dtype), w.astype(_real_dtype(x.dtype))]


eigh_p.def_impl(_eigh_impl)


def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  aval = ctx.avals_in[0]
  n = aval.shape[-1]
  batch = aval.shape[:-2]
  prefix = _lapack_prefix("eigh", aval.dtype)
  name = "heevd" if prefix in "cz" else "syevd"
  w_aval = ShapedArray(batch + (n,), _real_dtype(aval.dtype))
  v, w, info = _lapack_call(ctx, f"lapack_{prefix}{name}_ffi", [x], [aval, w_aval, _i32(batch)],
                            len(batch), {"mode": "V", "uplo": "L" if lower else "U"})
  ok = _info_ok(ctx, info)
  v, w = _nan_unless(ctx, ok, v), _nan_unless(ctx, ok, w)
  if subset_by_index is not None and tuple(subset_by_index) != (0, n):
    lo, hi = subset_by_index
    nb = len(batch)
    v = mlir.op(ctx, "stablehlo.slice", [v], ctx.avals_out[0],
                {"start_indices": mlir.dense_array([0] * (nb + 1) + [lo]),
                 "limit_indices": mlir.dense_array(batch + (n, hi)),
                 "strides": mlir.dense_array([1] * (nb + 2))})
    w = mlir.op(ctx, "stablehlo.slice", [w], ctx.avals_out[1],
                {"start_indices": mlir.dense_array([0] * nb + [lo]),
                 "limit_indices": mlir.dense_array(batch + (hi,)),
                 "strides": mlir.dense_array([1] * (nb + 1))})
  return [v, w]


mlir.register(eigh_p, _eigh_lowering)


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  # dV = V (F * (V^H dA V)), dw = real(diag(V^H dA V)), F[i, j] = 1 / (w[j] - w[i]) off the
  # diagonal and 0 on it; staged in the order JAX's rule stages it (the primal symmetrized
  # again, F built as (eye + w_j - w_i) ** -1 - eye, the diagonal read by a gather).
  (a,), (a_dot,) = primals, tangents
  aval = core.get_aval(a)
  n = aval.shape[-1]
  if subset_by_index is not None and tuple(subset_by_index) != (0, n):
    raise NotImplementedError("Derivatives of eigh with subset_by_index are not implemented.")
  v, w_real = eigh_p.bind(_symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                          subset_by_index=subset_by_index, algorithm=algorithm)
  a_dot = ad.instantiate_zeros(a_dot)
  dtype = aval.dtype
  nd = len(aval.shape)
  w = _to_dtype(w_real, dtype)
  eye = _jnp_eye(n, dtype)
  w_row = _expand(w, -2)
  f = elementwise.add(_promote_rank(eye, nd), w_row)
  f = elementwise.sub(f, _expand(w, -1))
  f = elementwise.sub(elementwise.integer_pow(f, -1), _promote_rank(eye, nd))
  vh_adot_v = _matmul(_matmul(_H(v), a_dot), v)
  dv = _matmul(v, elementwise.mul(f, vh_adot_v))
  dw = _gather_diagonal(_real(vh_adot_v))
  return [v, w_real], [dv, dw]


ad.primitive_jvps[eigh_p] = _eigh_jvp
_batch_rule(eigh_p)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None, implementation=None):
  """Eigendecomposition of Hermitian matrices (``lax.linalg.eigh``): returns ``(v, w)``,
  eigenvectors as columns of ``v`` and eigenvalues ``w`` in ascending order, read from the
  ``lower`` (or upper) triangle, of ``(x + x^H) / 2`` when ``symmetrize_input``."""
  if symmetrize_input:
    x = _symmetrize(x)
  if subset_by_index is not None:
    subset_by_index = tuple(int(i) for i in subset_by_index)
  v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                     subset_by_index=subset_by_index, algorithm=implementation)
  return v, w


# ---------------------------------------------------------------------------
# svd

svd_p = core.Primitive("svd")
svd_p.multiple_results = True


def _svd_rule(x: ShapedArray, *, full_matrices, compute_uv, subset_by_index, algorithm):
  _check_operand("svd", x)
  m, n = x.shape[-2:]
  batch = x.shape[:-2]
  k = min(m, n)
  rank = k
  if subset_by_index is not None:
    lo, hi = subset_by_index
    if full_matrices and subset_by_index != (0, k):
      raise ValueError("full_matrices and subset_by_index cannot both be set.")
    rank = hi - lo
  s = ShapedArray(batch + (rank,), _real_dtype(x.dtype))
  if not compute_uv:
    return [s]
  u_cols, vt_rows = (m, n) if full_matrices else (rank, rank)
  return [s, ShapedArray(batch + (m, u_cols), x.dtype), ShapedArray(batch + (vt_rows, n), x.dtype)]


svd_p.def_abstract_eval(_svd_rule)


def _check_svd_algorithm(algorithm):
  if algorithm not in (None, SvdAlgorithm.DEFAULT):
    raise NotImplementedError(f"svd algorithm {algorithm!r} is not implemented in axle on CPU; "
                              "use algorithm=None (LAPACK gesdd).")


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
  _lapack_prefix("svd", x.dtype)
  _check_svd_algorithm(algorithm)
  rdtype = _real_dtype(x.dtype)
  m, n = x.shape[-2:]
  lo, hi = subset_by_index if subset_by_index is not None else (0, min(m, n))
  if x.size == 0:
    outs = _svd_rule(ShapedArray(x.shape, x.dtype), full_matrices=full_matrices, compute_uv=compute_uv,
                     subset_by_index=subset_by_index, algorithm=algorithm)
    res = [np.zeros(a.shape, a.dtype) for a in outs]
    for r in res[1:]:
      d = min(r.shape[-2:])
      r[..., np.arange(d), np.arange(d)] = 1
    return res
  try:
    if compute_uv:
      u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    else:
      s = np.linalg.svd(x, compute_uv=False)
  except np.linalg.LinAlgError:
    s = np.full(x.shape[:-2] + (min(m, n),), np.nan, rdtype)
    u = np.full(x.shape[:-2] + (m, m if full_matrices else min(m, n)), np.nan, x.dtype)
    vt = np.full(x.shape[:-2] + (n if full_matrices else min(m, n), n), np.nan, x.dtype)
  s = s[..., lo:hi].astype(rdtype)
  if not compute_uv:
    return [s]
  if not full_matrices:
    u, vt = u[..., :, lo:hi], vt[..., lo:hi, :]
  return [s, u.astype(x.dtype), vt.astype(x.dtype)]


svd_p.def_impl(_svd_impl)


def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
  _check_svd_algorithm(algorithm)
  aval = ctx.avals_in[0]
  m, n = aval.shape[-2:]
  k = min(m, n)
  batch = aval.shape[:-2]
  nb = len(batch)
  prefix = _lapack_prefix("svd", aval.dtype)
  if 0 in aval.shape:
    return [mlir.lower_fun(lambda: _eye_rect(a), False)(ctx.replace(avals_in=[]))
            if i else mlir.full_like_aval(ctx, 0, a) for i, a in enumerate(ctx.avals_out)]
  mode = ("A" if full_matrices else "S") if compute_uv else "N"
  u_cols, vt_rows = (m, n) if full_matrices or not compute_uv else (k, k)
  results = [aval, ShapedArray(batch + (k,), _real_dtype(aval.dtype)),
             ShapedArray(batch + (m, u_cols), aval.dtype), ShapedArray(batch + (vt_rows, n), aval.dtype),
             _i32(batch)]
  _, s, u, vt, info = _lapack_call(ctx, f"lapack_{prefix}gesdd_ffi", [x], results, nb, {"mode": mode})
  ok = _info_ok(ctx, info)
  s = _nan_unless(ctx, ok, s)
  if compute_uv:  # (without, JAX's rule leaves u and vt alone)
    u, vt = _nan_unless(ctx, ok, u), _nan_unless(ctx, ok, vt)
  if subset_by_index is not None and tuple(subset_by_index) != (0, k):
    lo, hi = subset_by_index

    def cut(v, out_aval, starts):
      return mlir.op(ctx, "stablehlo.slice", [v], out_aval,
                     {"start_indices": mlir.dense_array(starts),
                      "limit_indices": mlir.dense_array([st + d for st, d in zip(starts, out_aval.shape)]),
                      "strides": mlir.dense_array([1] * len(starts))})
    s = cut(s, ctx.avals_out[0], [0] * nb + [lo])
    if compute_uv:
      u = cut(u, ctx.avals_out[1], [0] * (nb + 1) + [lo])
      vt = cut(vt, ctx.avals_out[2], [0] * nb + [lo, 0])
  return [s, u, vt] if compute_uv else [s]


mlir.register(svd_p, _svd_lowering)


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
  # With dS = U^H dA V (reduced SVD): ds = real(diag(dS)); F[i, j] = 1 / (s_j^2 - s_i^2) off the
  # diagonal; dU = U (F * (dS s + s dS^H) + (dS - dS^H) / 2 diag(1/s)), dV = V (F * (s dS + dS^H s)),
  # plus the parts outside the span of U (tall) or V (wide). Staged in the order JAX's rule
  # stages it, with jnp.matmul's dots and the primal outputs of one compute_uv=True svd.
  (a,), (a_dot,) = primals, tangents
  aval = core.get_aval(a)
  m, n = aval.shape[-2:]
  if subset_by_index is not None and tuple(subset_by_index) != (0, min(m, n)):
    raise NotImplementedError("Singular value decomposition JVP not implemented for subset_by_index")
  if compute_uv and full_matrices and m != n:
    raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
  s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
                        algorithm=algorithm)
  a_dot = ad.instantiate_zeros(a_dot)
  dtype = aval.dtype
  rdtype = _real_dtype(dtype)
  matmul = lambda x, y: _jnp_matmul(x, y, Precision.HIGHEST)
  ut, v = _H(u), _H(vt)
  s_row = _expand(s, -2)  # s[..., None, :]
  ds_mat = matmul(matmul(ut, a_dot), v)
  ds = _gather_diagonal(_real(ds_mat))
  if not compute_uv:
    return [s], [ds]
  k = core.get_aval(s).shape[-1]
  nd = len(core.get_aval(ds_mat).shape)
  s_diffs = elementwise.mul(elementwise.add(s_row, _T(s_row)), elementwise.sub(s_row, _T(s_row)))
  s_diffs_zeros = _promote_rank(_jnp_eye(k, rdtype), nd)
  f = elementwise.sub(elementwise.div(np.array(1, rdtype), elementwise.add(s_diffs, s_diffs_zeros)),
                      s_diffs_zeros)
  dss = elementwise.mul(_to_dtype(s_row, dtype), ds_mat)
  sds = elementwise.mul(_T(_to_dtype(s_row, dtype)), ds_mat)
  s_zeros = elementwise.convert_element_type(elementwise.eq(s, np.array(0, rdtype)), rdtype)
  s_inv = elementwise.sub(elementwise.div(np.array(1, rdtype), elementwise.add(s, s_zeros)), s_zeros)
  s_inv_mat = _scatter_diag_matrix(s_inv)
  du_dv_diag = elementwise.mul(elementwise.mul(ad.note_residual_constant(np.array(0.5, dtype)), elementwise.sub(ds_mat, _H(ds_mat))),
                               _to_dtype(s_inv_mat, dtype))
  f_a = _to_dtype(f, dtype)
  du = matmul(u, elementwise.add(elementwise.mul(f_a, elementwise.add(dss, _H(dss))), du_dv_diag))
  f_a = _to_dtype(f, dtype)
  dv = matmul(v, elementwise.mul(f_a, elementwise.add(sds, _H(sds))))
  if m > n:
    dav = matmul(a_dot, v)
    du = elementwise.add(du, elementwise.div(elementwise.sub(dav, matmul(u, matmul(ut, dav))),
                                             _to_dtype(s_row, dtype)))
  if n > m:
    dahu = matmul(_H(a_dot), u)
    dv = elementwise.add(dv, elementwise.div(elementwise.sub(dahu, matmul(v, matmul(vt, dahu))),
                                             _to_dtype(s_row, dtype)))
  return [s, u, vt], [ds, du, _H(dv)]


ad.primitive_jvps[svd_p] = _svd_jvp
_batch_rule(svd_p)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
  """Singular value decomposition ``x = u @ diag(s) @ vh`` (``lax.linalg.svd``): returns
  ``(u, s, vh)``, or only ``s`` (descending) when ``compute_uv`` is False."""
  if subset_by_index is not None:
    subset_by_index = tuple(int(i) for i in subset_by_index)
  outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                    subset_by_index=subset_by_index, algorithm=algorithm)
  if compute_uv:
    s, u, vt = outs
    return u, s, vt
  return outs[0]


# ---------------------------------------------------------------------------
# eig

eig_p = core.Primitive("eig")
eig_p.multiple_results = True


def _eig_rule(x: ShapedArray, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
  _check_operand("eig", x)
  _check_square("eig", x, "The input")
  n = x.shape[-1]
  batch = x.shape[:-2]
  cdtype = _complex_dtype(x.dtype)
  outs = [ShapedArray(batch + (n,), cdtype)]
  if compute_left_eigenvectors:
    outs.append(ShapedArray(x.shape, cdtype))
  if compute_right_eigenvectors:
    outs.append(ShapedArray(x.shape, cdtype))
  return outs


eig_p.def_abstract_eval(_eig_rule)


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs,
              implementation):
  import scipy.linalg
  _lapack_prefix("eig", x.dtype)
  cdtype = _complex_dtype(x.dtype)
  flat, restore = _matrices(x)
  n = x.shape[-1]
  w = np.empty(flat.shape[:-1], cdtype)
  vl = np.empty(flat.shape, cdtype)
  vr = np.empty(flat.shape, cdtype)
  for i, a in enumerate(flat):
    if n == 0:
      continue
    try:
      wi, vli, vri = scipy.linalg.eig(a, left=True, right=True, check_finite=False)
      w[i], vl[i], vr[i] = wi, vli, vri
    except (np.linalg.LinAlgError, ValueError):
      w[i], vl[i], vr[i] = np.nan, np.nan, np.nan
  outs = [w.reshape(x.shape[:-1])]
  if compute_left_eigenvectors:
    outs.append(restore(vl, (n, n)))
  if compute_right_eigenvectors:
    outs.append(restore(vr, (n, n)))
  return outs


eig_p.def_impl(_eig_impl)


def _eig_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
  aval = ctx.avals_in[0]
  n = aval.shape[-1]
  batch = aval.shape[:-2]
  prefix = _lapack_prefix("eig", aval.dtype)
  cdtype = _complex_dtype(aval.dtype)
  vec = ShapedArray(aval.shape, cdtype)
  config = {"compute_left": "V" if compute_left_eigenvectors else "N",
            "compute_right": "V" if compute_right_eigenvectors else "N"}
  target = f"lapack_{prefix}geev_ffi"
  if aval.dtype.kind == "c":
    w, vl, vr, info = _lapack_call(ctx, target, [x], [ShapedArray(batch + (n,), cdtype), vec, vec, _i32(batch)],
                                   len(batch), config)
  else:
    real = ShapedArray(batch + (n,), aval.dtype)
    wr, wi, vl, vr, info = _lapack_call(ctx, target, [x], [real, real, vec, vec, _i32(batch)], len(batch), config)
    w = mlir.op(ctx, "stablehlo.complex", [wr, wi], ShapedArray(batch + (n,), cdtype))
  ok = _info_ok(ctx, info)
  outs = [_nan_unless(ctx, ok, w)]
  if compute_left_eigenvectors:
    outs.append(_nan_unless(ctx, ok, vl))
  if compute_right_eigenvectors:
    outs.append(_nan_unless(ctx, ok, vr))
  return outs


mlir.register(eig_p, _eig_lowering)


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
  if compute_left_eigenvectors or compute_right_eigenvectors:
    raise NotImplementedError(
        "The derivatives of eigenvectors are not implemented, only eigenvalues. See "
        "https://github.com/jax-ml/jax/issues/2748 for discussion.")
  (a,), (a_dot,) = primals, tangents
  (w,) = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False,
                    enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
  _, v = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True,
                    enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
  cdtype = core.get_aval(w).dtype
  a_dot = _to_dtype(ad.instantiate_zeros(a_dot), cdtype)
  # dw = diag(v^-1 dA v)
  dw = _diagonal(_solve(v, _matmul(a_dot, v)))
  return [w], [dw]


ad.primitive_jvps[eig_p] = _eig_jvp
_batch_rule(eig_p)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
  """Eigendecomposition of general square matrices (``lax.linalg.eig``): a list of the
  (complex) eigenvalues, then the left and right eigenvectors as requested (as columns,
  normalized to unit length)."""
  return list(eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                         compute_right_eigenvectors=bool(compute_right_eigenvectors),
                         enable_eigvec_derivs=bool(enable_eigvec_derivs),
                         implementation=implementation))
