"""``jax.numpy.linalg``: NumPy's linear algebra on top of the ``lax.linalg`` primitives.

Decompositions promote their input to an inexact dtype and act on the last two axes (leading
axes are batch axes). Solves and determinants go through the LU factorization, norms and ranks
through the SVD.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src.custom_derivatives import custom_jvp
from axle._src.differentiation import stop_gradient
from axle._src.lax.custom_solvers import custom_linear_solve
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import linalg as lax_linalg
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import sorting as lax_sorting
from axle._src.lax import structural as lax_structural
from axle._src.lax.contractions import Precision, dot_general
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import products
from axle._src.numpy import reductions
from axle._src.numpy import shape_ops
from axle._src.numpy import statistics
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.numpy.creation import asarray

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm", "EighResult", "EigResult", "QRResult", "SlogdetResult", "SVDResult"]

matmul = lax_numpy.matmul
matrix_transpose = lax_numpy.matrix_transpose


class EighResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


class EigResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


class QRResult(NamedTuple):
  Q: object
  R: object


class SlogdetResult(NamedTuple):
  sign: object
  logabsdet: object


class SVDResult(NamedTuple):
  U: object
  S: object
  Vh: object


def _inexact(name: str, *args):
  util.check_arraylike(f"jnp.linalg.{name}", *args)
  out = util.promote_dtypes_inexact(*[asarray(a) for a in args])
  return out[0] if len(args) == 1 else out


_HIGHEST = Precision.HIGHEST


def _check_square(name: str, a, what: str = "Argument to"):
  shape = core.get_aval(a).shape
  if len(shape) < 2 or shape[-1] != shape[-2]:
    raise ValueError(f"{what} {name} must have shape [..., n, n], got {shape}.")


def _H(x):
  return ufuncs.conj(lax_numpy.matrix_transpose(x)) if dtypes.issubdtype(x.dtype, np.complexfloating) \
      else lax_numpy.matrix_transpose(x)


def _eye_like(a):
  """The identity broadcast to ``a``'s (square) shape and dtype."""
  return lax_linalg._eye(a.shape[-1], a.dtype, a.shape)


@util.jit_when_tracing(static_argnames=('upper', 'symmetrize_input'))
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
  """Cholesky factor of a Hermitian positive-definite matrix (``jnp.linalg.cholesky``): lower
  triangular ``L`` with ``a = L @ L^H`` (``upper=True``: ``U = L^H``). NaN when ``a`` is not
  positive definite."""
  a = _inexact("cholesky", a)
  L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return _H(L) if upper else L


@util.jit_when_tracing(static_argnames=('full_matrices', 'compute_uv', 'hermitian', 'subset_by_index'))
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
  """Singular value decomposition (``jnp.linalg.svd``): ``SVDResult(U, S, Vh)`` with
  ``a = U @ diag(S) @ Vh`` and S descending, or only ``S`` when ``compute_uv`` is False.
  ``hermitian``: the singular values are the eigenvalues' magnitudes (for ``compute_uv`` the
  general algorithm is used)."""
  a = _inexact("svd", a)
  if hermitian and not compute_uv:
    _, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    last = w.ndim - 1
    return lax_structural.rev(lax_sorting.sort(ufuncs.abs(w), dimension=last), (last,))
  if compute_uv:
    u, s, vh = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=True,
                              subset_by_index=subset_by_index)
    return SVDResult(u, s, vh)
  return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                        subset_by_index=subset_by_index)


def svdvals(x, /):
  """Singular values in descending order (``jnp.linalg.svdvals``)."""
  return svd(x, compute_uv=False)


def _uplo(UPLO):
  if UPLO is None or UPLO == "L":
    return True
  if UPLO == "U":
    return False
  raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")


@util.jit_when_tracing(static_argnames=('UPLO', 'symmetrize_input'))
def eigh(a, UPLO=None, symmetrize_input: bool = True):
  """Eigenvalues (ascending) and eigenvectors (columns) of a Hermitian matrix
  (``jnp.linalg.eigh``), as ``EighResult(eigenvalues, eigenvectors)``."""
  a = _inexact("eigh", a)
  v, w = lax_linalg.eigh(a, lower=_uplo(UPLO), symmetrize_input=symmetrize_input)
  return EighResult(w, v)


@util.jit_when_tracing(static_argnames=('UPLO', 'symmetrize_input'))
def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
  """Eigenvalues (ascending) of a Hermitian matrix (``jnp.linalg.eigvalsh``)."""
  return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a):
  """Eigenvalues and right eigenvectors (columns) of a general square matrix
  (``jnp.linalg.eig``), complex, as ``EigResult(eigenvalues, eigenvectors)``. Not
  differentiable with respect to the eigenvectors."""
  a = _inexact("eig", a)
  w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
  return EigResult(w, v)


@util.jit_when_tracing
def eigvals(a):
  """Eigenvalues of a general square matrix (``jnp.linalg.eigvals``), complex."""
  a = _inexact("eigvals", a)
  return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


@util.jit_when_tracing(static_argnames=('mode',))
def qr(a, mode: str = "reduced"):
  """QR decomposition (``jnp.linalg.qr``). ``mode``: "reduced" (Q m x k, R k x n), "complete"
  (Q m x m, R m x n) or "r" (R only)."""
  a = _inexact("qr", a)
  if mode == "reduced":
    full = False
  elif mode in ("complete", "r"):
    full = mode == "complete"
  else:
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  q, r = lax_linalg.qr(a, full_matrices=full)
  return r if mode == "r" else QRResult(q, r)


def _lu_parity(pivots):
  """(-1) ** (number of row swaps) per batch element, as the pivots' int."""
  k = pivots.shape[-1]
  swaps = lax_reductions.reduce_sum(lax_elementwise.convert_element_type(
      lax_elementwise.ne(pivots, lax_structural.broadcast_in_dim(lax_structural.iota(np.int32, k), pivots.shape, (pivots.ndim - 1,))),
      np.int32), (pivots.ndim - 1,))
  return lax_elementwise.sub(np.int32(1), lax_elementwise.mul(np.int32(2), lax_elementwise.rem(swaps, np.int32(2))))


@util.jit_when_tracing
def det(a):
  """Determinant of square matrices (``jnp.linalg.det``): the cofactor formulas for 2x2 and 3x3
  matrices, otherwise ``sign * exp(logabsdet)`` of the LU-based ``slogdet``, with JAX's
  derivative rule (``_det``)."""
  a = _inexact("det", a)
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a.shape}")
  if a.shape[-1] == 2:
    return _det_2x2(a)
  if a.shape[-1] == 3:
    return _det_3x3(a)
  return _det(a)


def _det_2x2(a):
  return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
  return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2] +
          a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0] +
          a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1] -
          a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0] -
          a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1] -
          a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


def _trace_last2(x):
  return reductions.sum(lax_linalg._diagonal(x), axis=-1)


def _det_impl(a):
  sign, logdet = slogdet(a)
  return sign * ufuncs.exp(logdet).astype(sign.dtype)


def _det_jvp(primals, tangents):
  # d det = det * tr(a^-1 da) (singular inputs give NaN here; JAX uses a cofactor solve).
  (x,), (g,) = primals, tangents
  y = _det(x)
  return y, y * _trace_last2(solve(x, g))


_det_impl.__name__ = "_det"
_det = custom_jvp(_det_impl)
_det.defjvp(_det_jvp)


@util.jit_when_tracing(static_argnames=('method',))
def slogdet(a, *, method=None):
  """Sign and natural log of the absolute determinant (``jnp.linalg.slogdet``), as
  ``SlogdetResult(sign, logabsdet)``; a singular matrix gives sign 0 and logabsdet -inf."""
  a = _inexact("slogdet", a)
  if method not in (None, "lu"):
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`).")
  _check_square("slogdet", a, "Argument to")
  if a.shape[-1] <= 2 and not dtypes.issubdtype(a.dtype, np.complexfloating):
    return SlogdetResult(*_slogdet_small(a))
  return SlogdetResult(*_slogdet_lu(a))


def _slogdet_small_impl(a):
  d = a[..., 0, 0] if a.shape[-1] == 1 else _det_2x2(a)
  return ufuncs.sign(d), ufuncs.log(ufuncs.abs(d))


def _slogdet_small_jvp(primals, tangents):
  (a,), (g,) = primals, tangents
  sign, logdet = _slogdet_small(a)
  if a.shape[-1] == 1:
    d, d_dot = a[..., 0, 0], g[..., 0, 0]
  else:
    d = _det_2x2(a)
    d_dot = (g[..., 0, 0] * a[..., 1, 1] - g[..., 0, 1] * a[..., 1, 0]
             - g[..., 1, 0] * a[..., 0, 1] + g[..., 1, 1] * a[..., 0, 0])
  return (sign, logdet), (lax_structural.full_like(sign, 0), d_dot / d)


def _slogdet_lu_impl(a):
  # JAX's steps: the diagonal of the LU factor; the sign from the row swaps and (real) the
  # negative pivots, or (complex) the product of the pivots' phases; log|det| summed.
  dtype = a.dtype
  lu_, pivots, _ = lax_linalg.lu(a)
  diag = shape_ops.diagonal(lu_, axis1=-2, axis2=-1)
  is_zero = reductions.any(ufuncs.equal(diag, 0), axis=-1)
  parity = statistics.count_nonzero(ufuncs.not_equal(pivots, creation.arange(a.shape[-1])), axis=-1)
  if dtypes.issubdtype(dtype, np.complexfloating):
    sign = reductions.prod(ufuncs.divide(diag, lax_numpy.astype(ufuncs.abs(diag), dtype)), axis=-1)
  else:
    sign = creation.array(1, dtype=dtype)
    parity = ufuncs.add(parity, statistics.count_nonzero(ufuncs.less(diag, 0), axis=-1))
  flips = ufuncs.add(ufuncs.multiply(-2, ufuncs.remainder(parity, 2)), 1)
  flips = lax_numpy.astype(lax_numpy.copy(flips), dtype)
  sign = lax_numpy.where(is_zero, np.zeros((), dtype), ufuncs.multiply(sign, flips))
  logdet = reductions.sum(lax_numpy.astype(ufuncs.log(ufuncs.abs(diag)), dtype), axis=-1)
  logdet = lax_numpy.where(is_zero, np.array(-np.inf, dtype), logdet)
  return sign, ufuncs.real(logdet)


def _slogdet_jvp(primals, tangents):
  # d log|det a| = tr(a^-1 da); the sign of a real determinant is locally constant.
  (a,), (g,) = primals, tangents
  sign, logdet = slogdet(a)
  logdet_dot = shape_ops.trace(solve(a, g), axis1=-1, axis2=-2)
  if dtypes.issubdtype(a.dtype, np.complexfloating):
    # the phase moves too: d sign = i Im(tr(a^-1 da)) sign
    sign_dot = ufuncs.multiply(ufuncs.subtract(logdet_dot, lax_numpy.astype(ufuncs.real(logdet_dot), a.dtype)), sign)
    return (sign, logdet), (sign_dot, ufuncs.real(logdet_dot))
  return (sign, logdet), (lax_structural.full_like(sign, 0), logdet_dot)


_slogdet_small_impl.__name__ = "_slogdet_small"
_slogdet_small = custom_jvp(_slogdet_small_impl)
_slogdet_small.defjvp(_slogdet_small_jvp)
_slogdet_lu_impl.__name__ = "_slogdet_lu"
_slogdet_lu = custom_jvp(_slogdet_lu_impl)
_slogdet_lu.defjvp(_slogdet_jvp)


def _lu_solve_core(lu_, permutation, b, trans: int):
  """Solves one square system from its LU factorization: ``trans`` 0 for a @ x = b, 1 for
  a.T @ x = b, 2 for a.conj().T @ x = b. ``b`` is (m, ...) and keeps its shape."""
  m = lu_.shape[0]
  x = lax_numpy.reshape(b, (m, math.prod(b.shape[1:])))
  if trans == 0:
    x = x[permutation, :]
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
  else:
    conj = trans == 2
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=conj, unit_diagonal=True)
    # the inverse permutation: where each row went
    _, inverse = lax_sorting.sort_key_val(permutation, lax_structural.iota(np.int32, permutation.shape[0]))
    x = x[inverse, :]
  return lax_structural.reshape(x, b.shape)


@util.jit_when_tracing(static_argnums=(3,))
def _lu_solve(lu_, permutation, b, trans: int):
  """Solves ``a @ x = b`` (``trans`` 1: ``a.T``, 2: ``a.conj().T``) from ``lu_, permutation`` =
  ``lax.linalg.lu(a)``; ``b`` is (..., m) (vectors) or (..., m, k), batch axes broadcast."""
  m = lu_.shape[-1]
  vector = lu_.ndim == b.ndim + 1
  if vector:
    if b.shape[-1] != m:
      raise ValueError(f"When LU decomposition matrix and b have the same number of dimensions, "
                       f"last axis of LU decomposition matrix (shape {lu_.shape}) and b array "
                       f"(shape {b.shape}) must match")
    b = lax_structural.broadcast_in_dim(b, b.shape + (1,), tuple(range(b.ndim)))
  elif b.shape[-2] != m:
    raise ValueError(f"When LU decomposition matrix and b different numbers of dimensions, last "
                     f"axis of LU decomposition matrix (shape {lu_.shape}) and second to last "
                     f"axis of b array (shape {b.shape}) must match")
  batch = util.broadcast_shapes(lu_.shape[:-2], permutation.shape[:-1], b.shape[:-2])
  lu_ = lax_numpy.broadcast_to(lu_, batch + lu_.shape[-2:])
  permutation = lax_numpy.broadcast_to(permutation, batch + permutation.shape[-1:])
  b = lax_numpy.broadcast_to(b, batch + b.shape[-2:])
  core_fn = lambda l, p, r: _lu_solve_core(l, p, r, trans)  # noqa: E731
  for _ in batch:
    core_fn = api.vmap(core_fn)
  x = core_fn(lu_, permutation, b)
  return lax_structural.squeeze(x, (x.ndim - 1,)) if vector else x


lax_linalg.staged_lu_solve = _lu_solve  # (the tall complete QR's JVP rule solves with it)


def _broadcast_leading(x, shape):
  """``x`` broadcast to ``shape`` along new leading axes. Bound even when it changes nothing (as
  JAX's): staging forwards it, a linear transpose traced without forwarding sums over no axes."""
  return lax_structural.broadcast_in_dim_p.bind(
      x, shape=tuple(shape), broadcast_dimensions=tuple(range(len(shape) - x.ndim, len(shape))),
      sharding=None)


def _broadcasted_matvec(a, x):
  """``a @ x`` for matrices (..., n, m) and vectors (..., m), batch axes broadcast."""
  batch = util.broadcast_shapes(a.shape[:-2], x.shape[:-1])
  nb = len(batch)
  a = _broadcast_leading(a, batch + a.shape[-2:])
  x = _broadcast_leading(x, batch + x.shape[-1:])
  return dot_general(a, x, (((a.ndim - 1,), (x.ndim - 1,)), (tuple(range(nb)), tuple(range(nb)))),
                     precision=Precision.HIGHEST)


def _solve_core(a, b):
  """Solves ``a @ x = b`` (b with one vector per batch of a, or one matrix) as a
  custom_linear_solve on a's LU factorization: differentiated through the solution, reusing
  the factorization for the tangent and transposed systems."""
  out_shape = tuple(d_a if d_b == 1 else d_b for d_a, d_b in zip(a.shape[:-1] + (1,), b.shape))
  b = lax_structural.broadcast_in_dim(b, out_shape, tuple(range(b.ndim)))
  lu_, _, permutation = lax_linalg.lu(stop_gradient(a))
  solve_with = functools.partial(
      custom_linear_solve, lambda x: _broadcasted_matvec(a, x),
      solve=lambda _, x: _lu_solve(lu_, permutation, x, 0),
      transpose_solve=lambda _, x: _lu_solve(lu_, permutation, x, 1))
  if a.ndim == b.ndim + 1:
    return solve_with(b)
  # b's columns are separate right-hand sides
  return api.vmap(solve_with, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


@util.jit_when_tracing
def solve(a, b):
  """Solves ``a @ x = b`` for square ``a`` (``jnp.linalg.solve``). ``b`` of shape (..., m) is
  one vector per batch element when it has one dimension; otherwise (..., m, k)."""
  a, b = _inexact("solve", a, b)
  if a.ndim < 2:
    raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a.shape}")
  if a.shape[-1] != a.shape[-2]:
    raise ValueError(f"solve: a must be square in its last two dimensions, got a.shape={a.shape}")
  m = a.shape[-1]
  if b.ndim == 1:
    if b.shape[0] != m:
      raise ValueError(f"inconsistent size for core dimension 'm': {b.shape[0]} vs {m} on "
                       "vectorized function with excluded=frozenset() and signature='(m,m),(m)->(m)'")
    return products.vectorize_core(_solve_core, (2, 1), a, b)
  if b.shape[-2] != m:
    raise ValueError(f"inconsistent size for core dimension 'm': {b.shape[-2]} vs {m} on "
                     "vectorized function with excluded=frozenset() and signature='(m,m),(m,n)->(m,n)'")
  return products.vectorize_core(_solve_core, (2, 2), a, b)


@util.jit_when_tracing
def inv(a):
  """Inverse of square matrices (``jnp.linalg.inv``)."""
  a = _inexact("inv", a)
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
  eye = creation.eye(a.shape[-1], dtype=a.dtype)
  return solve(a, lax_structural.broadcast(eye, a.shape[:-2]))


@util.jit_when_tracing(static_argnames=('n',))
def matrix_power(a, n: int):
  """``a`` raised to the integer power ``n`` by repeated squaring (``jnp.linalg.matrix_power``);
  a negative ``n`` inverts first."""
  util.check_arraylike("jnp.linalg.matrix_power", a)
  a = asarray(a)
  if a.ndim < 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
  if a.shape[-1] != a.shape[-2]:
    raise TypeError("Last 2 dimensions of the array must be square")
  n = core.concrete_or_error(int, n, "The exponent argument to matrix_power must be static.")
  if n == 0:
    return lax_structural.broadcast_in_dim(lax_linalg._eye(a.shape[-1], a.dtype), a.shape,
                                  (a.ndim - 2, a.ndim - 1))
  if n < 0:
    a = inv(a)
    n = -n
  if n == 3:  # JAX (like NumPy) multiplies a cube as (a @ a) @ a
    return lax_numpy.matmul(lax_numpy.matmul(a, a), a)
  result = None
  power = a
  while n:
    if n & 1:
      result = power if result is None else lax_numpy.matmul(result, power)
    n >>= 1
    if n:
      power = lax_numpy.matmul(power, power)
  return result


@util.jit_when_tracing(static_argnames=('hermitian',))
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
  """Number of singular values above ``rtol`` (as JAX: an absolute threshold; by default
  ``max(s) * max(m, n) * eps``) (``jnp.linalg.matrix_rank``; ``tol`` is ``rtol``'s old name)."""
  M = _inexact("matrix_rank", M)
  if rtol is not None and tol is not None:
    raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
  if tol is not None:
    rtol = tol
  if M.ndim < 2:
    return lax_elementwise.convert_element_type(reductions.any(ufuncs.not_equal(M, 0)), np.int32)
  s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
  if rtol is None:
    size = np.array(max(M.shape[-2:]), s.dtype)
    rtol = ufuncs.multiply(ufuncs.multiply(reductions.max(s, axis=-1), size), np.finfo(s.dtype).eps)
  rtol = lax_numpy.expand_dims(rtol, np.ndim(rtol))
  return reductions.sum(ufuncs.greater(s, rtol), axis=-1)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
  """Moore-Penrose pseudo-inverse via the SVD (``jnp.linalg.pinv``); singular values at most
  ``rtol * max(s)`` (default ``10 * max(m, n) * eps``) are treated as zero."""
  a = _inexact("pinv", a)
  if rcond is not None:
    if rtol is not None:
      raise ValueError("pinv: only one of rtol and rcond may be specified.")
    rtol = rcond
  m, n = a.shape[-2:]
  if m == 0 or n == 0:
    return lax_structural.full(a.shape[:-2] + (n, m), 0, a.dtype)
  return _pinv(a, rtol, bool(hermitian))


def _pinv_impl(a, rtol, hermitian):
  # As JAX: the SVD of conj(a), whose factors give pinv(a) = Vh^T @ (U^T / s) without conjugates.
  arr = ufuncs.conj(a)
  if rtol is None:
    eps = np.finfo(dtypes.to_floating_dtype(arr.dtype)).eps
    rtol = ufuncs.multiply(10. * max(arr.shape[-2:]), asarray(eps))
  rtol = asarray(rtol)
  u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
  rtol = lax_numpy.expand_dims(rtol[..., None], tuple(range(s.ndim - rtol.ndim - 1)))
  cutoff = ufuncs.multiply(rtol, s[..., 0:1])
  s = lax_numpy.where(ufuncs.greater(s, cutoff), s, np.inf).astype(u.dtype)
  res = lax_numpy.matmul(lax_numpy.matrix_transpose(vh),
                         ufuncs.divide(lax_numpy.matrix_transpose(u), s[..., None]),
                         precision=_HIGHEST)
  return lax_elementwise.convert_element_type(res, arr.dtype)


def _pinv_jvp(rtol, hermitian, primals, tangents):
  # The derivative of the pseudo-inverse (Golub & Pereyra 1973), for inputs of constant rank,
  # associated as JAX does: the products through the smaller of m and n first.
  (a,), (a_dot,) = primals, tangents
  p = _pinv(a, rtol, hermitian)
  if hermitian:
    a = _symmetrize(a)
    a_dot = _symmetrize(a_dot)
  m, n = a.shape[-2:]

  def mm(x, y):
    return lax_numpy.matmul(x, y, precision=_HIGHEST)

  if m >= n:
    s = mm(mm(p, _H(p)), _H(a_dot))
    t = mm(mm(_H(a_dot), _H(p)), p)
    p_dot = mm(ufuncs.negative(mm(p, a_dot)), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
  else:
    s = mm(p, mm(_H(p), _H(a_dot)))
    t = mm(_H(a_dot), mm(_H(p), p))
    p_dot = mm(ufuncs.negative(p), mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
  return p, p_dot


def _symmetrize(x):
  return ufuncs.divide(ufuncs.add(x, _H(x)), 2)


_pinv_impl.__name__ = "_pinv"
# A jit also when called eagerly: JAX computes an eager pinv as one compiled program.
_pinv_jit = api.jit(_pinv_impl, static_argnames=("hermitian",))
_pinv_jit._report_retraces = False  # library code: its retraces follow its callers'
_pinv = custom_jvp(_pinv_jit, nondiff_argnums=(1, 2))
_pinv.defjvp(_pinv_jvp)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
  """Least-squares solution of ``a @ x = b`` via the SVD (``jnp.linalg.lstsq``): returns
  ``(x, residuals, rank, s)``."""
  util.check_arraylike("jnp.linalg.lstsq", a, b)
  if numpy_resid:
    return _lstsq_numpy_resid(a, b, rcond)
  return _lstsq(a, b, rcond)


def _lstsq_numpy_resid(a, b, rcond):
  x, resid, rank, s = _lstsq(a, b, rcond)
  a = asarray(a)
  m, n = a.shape
  if rank < n or m <= n:  # NumPy's empty residuals (needs a concrete rank)
    resid = asarray(np.zeros((0,), resid.dtype))
  return x, resid, rank, s


@util.jit_when_tracing
def _lstsq(a, b, rcond):
  a, b = _inexact("lstsq", a, b)
  if a.shape[0] != b.shape[0]:
    raise ValueError("Leading dimensions of input arrays must match")
  vector = b.ndim == 1
  if vector:
    b = b[:, None]
  if a.ndim != 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
  if b.ndim != 2:
    raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
  m, n = a.shape
  dtype = a.dtype
  eps = np.finfo(dtypes.to_floating_dtype(dtype)).eps
  if rcond is None:
    rcond = float(eps) * max(n, m)
  else:
    rcond = lax_numpy.where(ufuncs.less(rcond, 0), eps, rcond)
  u, s, vt = svd(a, full_matrices=False)
  mask = ufuncs.logical_and(ufuncs.greater(s, 0),
                            ufuncs.greater_equal(s, ufuncs.multiply(creation.array(rcond, dtype=s.dtype), s[0])))
  rank = reductions.sum(mask)
  safe_s = lax_numpy.where(mask, s, 1).astype(dtype)
  s_inv = lax_numpy.where(mask, ufuncs.divide(1, safe_s), 0)[:, None]
  uTb = lax_numpy.matmul(ufuncs.conj(u).T, b, precision=Precision.HIGHEST)
  x = lax_numpy.matmul(ufuncs.conj(vt).T, ufuncs.multiply(s_inv, uTb), precision=Precision.HIGHEST)
  b_estimate = lax_numpy.matmul(a, x, precision=Precision.HIGHEST)
  resid = ufuncs.power(norm(ufuncs.subtract(b, b_estimate), axis=0), 2)
  if vector:
    x = lax_numpy.ravel(x)
  return x, resid, rank, s


@util.jit_when_tracing(static_argnames=('ord', 'axis', 'keepdims'))
def norm(x, ord=None, axis=None, keepdims: bool = False):
  """Vector or matrix norm (``jnp.linalg.norm``) with NumPy's ``ord`` choices: vectors
  (one axis) any number, inf, -inf, 0; matrices (two axes) 'fro', 'nuc', 1, -1, 2, -2, inf,
  -inf."""
  x = _inexact("norm", x)
  ndim = x.ndim
  if axis is None:
    if ord is None:
      return _sqrt_sum_sq(x, tuple(range(ndim)), keepdims)
    axis = tuple(range(ndim))
  elif isinstance(axis, (tuple, list)):
    axis = tuple(util.canonicalize_axis(a, ndim) for a in axis)
  else:
    axis = (util.canonicalize_axis(axis, ndim),)
  if len(axis) == 1:
    return _vector_norm(x, ord, axis, keepdims)
  if len(axis) == 2:
    return _matrix_norm(x, ord, axis, keepdims)
  raise ValueError(f"Improper number of axes for norm: axis={axis if len(axis) != ndim or ord else axis}. "
                   "Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.")


def _sqrt_sum_sq(x, axes, keepdims):
  sq = ufuncs.real(ufuncs.multiply(ufuncs.conj(x), x)) if dtypes.issubdtype(x.dtype, np.complexfloating) \
      else ufuncs.multiply(x, x)
  return ufuncs.sqrt(reductions.sum(sq, axis=axes, keepdims=keepdims))


def _count_nonzero_as(x, axis, keepdims):
  """The number of nonzero entries of ``x`` as x's real dtype (JAX's jaxpr counts through the
  default integer type: bool -> int -> float)."""
  real_dtype = np.finfo(x.dtype).dtype
  count_dtype = dtypes.canonicalize_dtype(np.int64)
  nonzero = lax_elementwise.convert_element_type(ufuncs.not_equal(x, 0), count_dtype)
  return reductions.sum(lax_elementwise.convert_element_type(nonzero, real_dtype), axis=axis,
                        keepdims=keepdims)


def _vector_norm(x, ord, axis, keepdims):
  if ord is None or ord == 2:
    return _sqrt_sum_sq(x, axis, keepdims)
  if ord == 0:
    return _count_nonzero_as(x, axis, keepdims)
  if isinstance(ord, str):
    raise ValueError(f"Invalid order '{ord}' for vector norm.")
  absx = ufuncs.abs(x)
  if ord == np.inf:
    return reductions.max(absx, axis=axis, keepdims=keepdims, initial=0)
  if ord == -np.inf:
    return reductions.min(absx, axis=axis, keepdims=keepdims)
  if ord == 1:
    return reductions.sum(absx, axis=axis, keepdims=keepdims)
  ord_arr = np.array(ord, absx.dtype)
  return ufuncs.power(reductions.sum(ufuncs.power(absx, ord_arr), axis=axis, keepdims=keepdims),
                      np.array(1.0 / ord, absx.dtype))


def _matrix_norm(x, ord, axis, keepdims):
  row, col = axis
  if row == col:
    raise ValueError(f"Duplicate axes given: {axis}")
  if ord is None or ord == "fro":
    return _sqrt_sum_sq(x, axis, keepdims)
  if ord in (1, -1):
    # the column sums, then their max (min) over what is left of the column axis
    if not keepdims and col > row:
      col -= 1
    sums = reductions.sum(ufuncs.abs(x), axis=row, keepdims=keepdims)
    if ord == 1:
      return reductions.max(sums, axis=col, keepdims=keepdims, initial=0)
    return reductions.min(sums, axis=col, keepdims=keepdims)
  if ord in (np.inf, -np.inf):
    if not keepdims and row > col:
      row -= 1
    sums = reductions.sum(ufuncs.abs(x), axis=col, keepdims=keepdims)
    if ord == np.inf:
      return reductions.max(sums, axis=row, keepdims=keepdims, initial=0)
    return reductions.min(sums, axis=row, keepdims=keepdims)
  if ord in (2, -2, "nuc"):
    moved = lax_numpy.moveaxis(x, (row, col), (-2, -1))
    s = svd(moved, compute_uv=False)
    if ord == 2:
      out = reductions.max(s, axis=-1, initial=0)
    elif ord == -2:
      out = reductions.min(s, axis=-1)
    else:
      out = reductions.sum(s, axis=-1)
    if keepdims:
      out = lax_numpy.expand_dims(out, axis)
    return out
  raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
  """Norm of the matrices in the last two axes (``jnp.linalg.matrix_norm``)."""
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
  """Vector norm over ``axis`` (an int, a tuple of ints treated as one flattened axis, or all
  axes when None) (``jnp.linalg.vector_norm``)."""
  x = _inexact("vector_norm", x)
  if axis is None:
    axes = tuple(range(x.ndim))
  else:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(util.canonicalize_axis(a, x.ndim) for a in axes)
  return _vector_norm(x, ord, axes, keepdims)


@util.jit_when_tracing(static_argnames=('p',))
def cond(x, p=None):
  """Condition number of square (or, for p in None/2/-2, any) matrices (``jnp.linalg.cond``)."""
  x = _inexact("cond", x)
  if x.ndim < 2:
    raise ValueError(f"jnp.linalg.cond: input array must be at least 2D, got {x.shape}")
  if p is None or p == 2 or p == -2:
    s = svd(x, compute_uv=False)
    if p == -2:
      return ufuncs.divide(s[..., -1], s[..., 0])
    return ufuncs.divide(s[..., 0], s[..., -1])
  _check_square("cond", x, "Argument to")
  r = ufuncs.multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
  # a singular matrix (NaN from the inverse of a NaN-free input) has an infinite condition number
  nan_mask = ufuncs.logical_and(ufuncs.isnan(r), ufuncs.logical_not(reductions.any(ufuncs.isnan(x), axis=(-2, -1))))
  return lax_numpy.where(nan_mask, np.array(np.inf, r.dtype), r)


def cross(x1, x2, /, *, axis: int = -1):
  """Cross product of 3-vectors along ``axis`` (``jnp.linalg.cross``: ``jnp.cross`` of
  3-vectors only)."""
  util.check_arraylike("jnp.linalg.cross", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.shape[axis] != 3 or x2.shape[axis] != 3:
    raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
                     f"x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}")
  return products.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset: int = 0):
  """The ``offset`` diagonal of the matrices in the last two axes (``jnp.linalg.diagonal``:
  ``jnp.diagonal`` over the last two axes)."""
  util.check_arraylike("jnp.linalg.diagonal", x)
  x = asarray(x)
  if x.ndim < 2:
    raise ValueError(f"diagonal requires an array of at least two dimensions, got {x.shape}")
  return shape_ops.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
  """Sum of the ``offset`` diagonal of the matrices in the last two axes (``jnp.linalg.trace``)."""
  util.check_arraylike("jnp.linalg.trace", x)
  return shape_ops.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def outer(x1, x2, /):
  """Outer product of two vectors (``jnp.linalg.outer``)."""
  util.check_arraylike("jnp.linalg.outer", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.ndim != 1 or x2.ndim != 1:
    raise ValueError("Input arrays must be one-dimensional, but they are "
                     f"x1.ndim={x1.ndim} and x2.ndim={x2.ndim}")
  return lax_numpy.outer(x1, x2)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  """Vector dot product ``sum(conj(x1) * x2)`` along ``axis``, broadcasting the other axes
  (``jnp.linalg.vecdot``)."""
  util.check_arraylike("jnp.linalg.vecdot", x1, x2)
  return products.vecdot(x1, x2, axis=axis, precision=precision,
                         preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None, out_sharding=None):
  """Tensor contraction over ``axes`` (an int: the last ``axes`` of x1 with the first of x2;
  or a pair of axis sequences) (``jnp.linalg.tensordot``)."""
  util.check_arraylike("jnp.linalg.tensordot", x1, x2)
  return products.tensordot(x1, x2, axes, precision=precision,
                            preferred_element_type=preferred_element_type)


def multi_dot(arrays, *, precision=None):
  """``arrays[0] @ arrays[1] @ ...``; the first may be 1-D (a row) and the last 1-D (a column)
  (``jnp.linalg.multi_dot``)."""
  arrays = [asarray(a) for a in arrays]
  if len(arrays) < 2:
    raise ValueError(f"multi_dot requires at least two arrays, got {len(arrays)}.")
  if arrays[0].ndim not in (1, 2) or arrays[-1].ndim not in (1, 2) or any(a.ndim != 2 for a in arrays[1:-1]):
    raise ValueError("multi_dot: the first and last arrays must be 1D or 2D and the others 2D, got "
                     f"shapes {[a.shape for a in arrays]}")
  # Like JAX: one einsum over a chain of indices, so opt_einsum picks the cheapest order.
  operands = []
  for i, a in enumerate(arrays):
    axes = [i, i + 1]
    if i == 0 and a.ndim == 1:
      axes = [1]
    elif i == len(arrays) - 1 and a.ndim == 1:
      axes = [i]
    operands += [a, axes]
  result_axes = ([0] if arrays[0].ndim == 2 else []) + ([len(arrays)] if arrays[-1].ndim == 2 else [])
  return products.einsum(*operands, result_axes, precision=precision)


def tensorinv(a, ind: int = 2):
  """Inverse of ``a`` viewed as a square matrix (the first ``ind`` axes as rows)
  (``jnp.linalg.tensorinv``)."""
  a = _inexact("tensorinv", a)
  ind = core.concrete_or_error(int, ind, "tensorinv: ind must be static")
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer, got {ind}.")
  rows = math.prod(a.shape[:ind])
  cols = math.prod(a.shape[ind:])
  if rows != cols:
    raise ValueError(f"tensorinv: product of first ind={ind} dimensions ({rows}) must equal the "
                     f"product of the remaining dimensions ({cols}); got shape {a.shape}.")
  out = inv(lax_structural.reshape(a, (rows, cols)))
  return lax_structural.reshape(out, a.shape[ind:] + a.shape[:ind])


def tensorsolve(a, b, axes=None):
  """Solves ``tensordot(a, x, x.ndim) = b`` for ``x`` (``jnp.linalg.tensorsolve``)."""
  a, b = _inexact("tensorsolve", a, b)
  if axes is not None:
    axes = tuple(util.canonicalize_axis(i, a.ndim) for i in axes)
    a = lax_numpy.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
  out_shape = a.shape[b.ndim:]
  rows = math.prod(b.shape)
  cols = math.prod(out_shape)
  if rows != cols:
    raise ValueError(f"tensorsolve: b.size ({rows}) must equal the product of a's trailing "
                     f"dimensions {out_shape} ({cols}).")
  x = solve(lax_structural.reshape(a, (rows, cols)), lax_structural.reshape(b, (rows,)))
  return lax_structural.reshape(x, out_shape)
