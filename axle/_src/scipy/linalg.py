"""``jax.scipy.linalg``: SciPy's dense linear algebra on top of ``lax.linalg``.

SciPy's ``overwrite_*`` and ``check_finite`` arguments are accepted and ignored (arrays are
immutable; no finiteness check is made).
"""
from __future__ import annotations

import math

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import linalg as lax_linalg
from axle._src.lax import structural as lax_structural
from axle._src.numpy import lax_numpy
from axle._src.numpy import linalg
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.numpy.creation import asarray

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "det", "dft", "eigh",
           "expm", "hankel", "hilbert", "inv", "lu", "lu_factor", "lu_solve", "polar", "qr",
           "solve", "solve_triangular", "svd", "toeplitz"]


def _inexact(name, *args):
  util.check_arraylike(f"jax.scipy.linalg.{name}", *args)
  out = util.promote_dtypes_inexact(*[asarray(a) for a in args])
  return out[0] if len(args) == 1 else out


def _H(x):
  return linalg._H(x)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """Cholesky factor of a Hermitian positive-definite matrix (``jax.scipy.linalg.cholesky``):
  upper ``U`` with ``a = U^H U`` by default, lower ``L`` with ``lower=True``."""
  a = _inexact("cholesky", a)
  # Reads only the requested triangle (no symmetrization): the upper factor of ``a`` is the
  # conjugate transpose of the lower factor of ``a^H``.
  L = lax_linalg.cholesky(a if lower else _H(a), symmetrize_input=False)
  return L if lower else _H(L)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """``(c, lower)`` for ``cho_solve``; ``c`` is the Cholesky factor (``jax.scipy.linalg.cho_factor``)."""
  return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
  """Solves ``a @ x = b`` given ``cho_factor(a)`` (``jax.scipy.linalg.cho_solve``)."""
  c, lower = c_and_lower
  c, b = _inexact("cho_solve", c, b)
  if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
    raise ValueError(f"The factored matrix c must be square, got shape {c.shape}.")
  vector = b.ndim == c.ndim - 1
  if vector:
    b = b[..., None]
  if b.shape[-2] != c.shape[-1]:
    raise ValueError(f"Incompatible shapes for cho_solve: c {c.shape} and b {b.shape}.")
  # a = L L^H: solve L y = b, then L^H x = y (with c = U = L^H when upper)
  y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                  conjugate_a=not lower)
  x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower,
                                  conjugate_a=lower)
  return x[..., 0] if vector else x


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
  """Solves ``op(a) @ x = b`` for triangular ``a``; ``trans`` 0/'N', 1/'T' or 2/'C'
  (``jax.scipy.linalg.solve_triangular``)."""
  a, b = _inexact("solve_triangular", a, b)
  if trans not in _TRANS:
    raise ValueError(f"Invalid 'trans' value {trans!r}; expected 0, 1, 2, 'N', 'T' or 'C'.")
  t = _TRANS[trans]
  vector = b.ndim == a.ndim - 1
  if vector:
    b = b[..., None]
  out = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=t > 0,
                                    conjugate_a=t == 2, unit_diagonal=unit_diagonal)
  return out[..., 0] if vector else out


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
  """Solves ``a @ x = b`` (``jax.scipy.linalg.solve``); ``assume_a`` 'gen' (LU) or
  'sym'/'her'/'pos' (positive definite: Cholesky)."""
  if assume_a not in ("gen", "sym", "her", "pos"):
    raise ValueError(f"Expected assume_a to be one of {{'gen', 'sym', 'her', 'pos'}}, got {assume_a}.")
  a, b = _inexact("solve", a, b)
  if assume_a == "pos":
    return cho_solve(cho_factor(a, lower=lower), b)
  if b.ndim == a.ndim - 1:
    return linalg.solve(a, b[..., None])[..., 0]
  return linalg.solve(a, b)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
  """Determinant of square matrices (``jax.scipy.linalg.det``)."""
  return linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
  """Inverse of square matrices (``jax.scipy.linalg.inv``)."""
  return linalg.inv(a)


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
  """``(lu, piv)``: the packed LU factorization and LAPACK pivots (``jax.scipy.linalg.lu_factor``)."""
  a = _inexact("lu_factor", a)
  lu_, pivots, _ = lax_linalg.lu(a)
  return lu_, pivots


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
  """Solves ``op(a) @ x = b`` given ``lu_factor(a)``; ``trans`` 0, 1 (transpose) or 2 (conjugate
  transpose) (``jax.scipy.linalg.lu_solve``)."""
  lu_, pivots = lu_and_piv
  lu_, b = _inexact("lu_solve", lu_, b)
  m = lu_.shape[-1]
  permutation = lax_linalg.lu_pivots_to_permutation(asarray(pivots), m)
  vector = b.ndim == lu_.ndim - 1
  if vector:
    b = b[..., None]
  if trans == 0:
    x = lax_linalg._lu_solve(lu_, permutation, b)
  elif trans in (1, 2):
    conj = trans == 2
    # a = P^T L U  =>  a^T = U^T L^T P: solve U^T y = b, L^T z = y, x = P^T z
    y = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    z = lax_linalg.triangular_solve(lu_, y, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True, conjugate_a=conj)
    p = lax_linalg._permutation_matrix(permutation, z.dtype)
    x = lax_numpy.matmul(lax_numpy.matrix_transpose(p), z)
  else:
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
  return x[..., 0] if vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """LU decomposition ``a = P @ L @ U`` (``jax.scipy.linalg.lu``): ``(p, l, u)``, or
  ``(p @ l, u)`` with ``permute_l``."""
  a = _inexact("lu", a)
  lu_, _, permutation = lax_linalg.lu(a)
  m, n = a.shape[-2:]
  k = min(m, n)
  l = lax_linalg._tril(lu_[..., :, :k], -1)
  l = lax_elementwise.add(l, lax_linalg._eye_rect(core.ShapedArray(l.shape, l.dtype)))
  u = lax_linalg._triu(lu_[..., :k, :])
  p = lax_numpy.matrix_transpose(lax_linalg._permutation_matrix(permutation, a.dtype))
  if permute_l:
    return lax_numpy.matmul(p, l), u
  return p, l, u


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
  """QR decomposition (``jax.scipy.linalg.qr``); ``mode`` 'full', 'economic', 'r' or 'raw'
  ('raw' unsupported)."""
  a = _inexact("qr", a)
  if pivoting:
    raise NotImplementedError("jax.scipy.linalg.qr with pivoting=True is not implemented in axle.")
  if mode in ("full", "r"):
    full = True
  elif mode == "economic":
    full = False
  else:
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  q, r = lax_linalg.qr(a, full_matrices=full)
  return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
  """Singular value decomposition (``jax.scipy.linalg.svd``): ``(u, s, vh)`` or ``s``."""
  if lapack_driver not in ("gesdd", "gesvd"):
    raise ValueError(f"lapack_driver must be 'gesdd' or 'gesvd', got {lapack_driver!r}")
  out = linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
  return tuple(out) if compute_uv else out


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
  """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix (``jax.scipy.linalg.eigh``);
  the generalized problem (``b``) is not supported."""
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  if type != 1:
    raise NotImplementedError("Only the type=1 case of eigh is implemented.")
  if eigvals is not None:
    raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
  a = _inexact("eigh", a)
  v, w = lax_linalg.eigh(a, lower=lower)
  return w if eigvals_only else (w, v)


def polar(a, side: str = "right", *, method: str = "svd", eps=None, max_iterations=None):
  """Polar decomposition ``a = u @ p`` (``side='right'``) or ``p @ u`` (``'left'``) via the SVD
  (``jax.scipy.linalg.polar``)."""
  a = _inexact("polar", a)
  if side not in ("right", "left"):
    raise ValueError(f"side={side!r} is not a valid value; expected 'right' or 'left'.")
  w, s, vh = lax_linalg.svd(a, full_matrices=False)
  u = lax_numpy.matmul(w, vh)
  s = lax_elementwise.convert_element_type(s, a.dtype)
  if side == "right":
    p = lax_numpy.matmul(ufuncs.multiply(_H(vh), s[..., None, :]), vh)
  else:
    p = lax_numpy.matmul(ufuncs.multiply(w, s[..., None, :]), _H(w))
  return u, p


def block_diag(*arrs):
  """A block-diagonal matrix of the given (up to 2-D) arrays (``jax.scipy.linalg.block_diag``)."""
  if not arrs:
    return asarray(np.zeros((1, 0), dtypes.default_float_dtype()))
  util.check_arraylike("jax.scipy.linalg.block_diag", *arrs)
  arrs = util.promote_dtypes(*[asarray(a) for a in arrs])
  mats = []
  for a in arrs:
    if a.ndim > 2:
      raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
                       f"got {a.ndim}")
    mats.append(lax_structural.reshape(a, (1,) * (2 - a.ndim) + a.shape))
  total = sum(m.shape[1] for m in mats)
  rows = []
  col = 0
  for m in mats:
    rows.append(lax_structural.pad(m, np.zeros((), m.dtype), [(0, 0, 0), (col, total - col - m.shape[1], 0)]))
    col += m.shape[1]
  return lax_structural.concatenate(rows, 0)


def _expm_pade13(A):
  # Higham's scaling-and-squaring with the [13/13] Pade approximant (the constants are the Pade
  # coefficients b_0..b_13).
  b = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
       129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920., 40840800.,
       960960., 16380., 182., 1.)
  ident = lax_linalg._eye(A.shape[-1], A.dtype, A.shape)
  A2 = lax_numpy.matmul(A, A)
  A4 = lax_numpy.matmul(A2, A2)
  A6 = lax_numpy.matmul(A4, A2)
  c = lambda x: np.array(x, A.dtype)
  U = lax_numpy.matmul(A, ufuncs.add(lax_numpy.matmul(A6, ufuncs.add(ufuncs.add(ufuncs.multiply(c(b[13]), A6),
                                                                   ufuncs.multiply(c(b[11]), A4)),
                                                         ufuncs.multiply(c(b[9]), A2))),
                               ufuncs.add(ufuncs.add(ufuncs.add(ufuncs.multiply(c(b[7]), A6),
                                                                ufuncs.multiply(c(b[5]), A4)),
                                                     ufuncs.multiply(c(b[3]), A2)),
                                          ufuncs.multiply(c(b[1]), ident))))
  V = ufuncs.add(lax_numpy.matmul(A6, ufuncs.add(ufuncs.add(ufuncs.multiply(c(b[12]), A6),
                                                      ufuncs.multiply(c(b[10]), A4)),
                                           ufuncs.multiply(c(b[8]), A2))),
                 ufuncs.add(ufuncs.add(ufuncs.add(ufuncs.multiply(c(b[6]), A6),
                                                  ufuncs.multiply(c(b[4]), A4)),
                                       ufuncs.multiply(c(b[2]), A2)),
                            ufuncs.multiply(c(b[0]), ident)))
  return linalg.solve(ufuncs.subtract(V, U), ufuncs.add(V, U))


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """Matrix exponential by scaling and squaring with a [13/13] Padé approximant
  (``jax.scipy.linalg.expm``). The number of squarings is chosen from the 1-norm at run time
  (at most ``max_squarings``)."""
  A = _inexact("expm", A)
  if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
    raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
  theta13 = 5.371920351148152
  norm1 = linalg.norm(A, ord=1, axis=(-2, -1))
  # s = max(0, ceil(log2(norm / theta13))), clamped to max_squarings
  ratio = ufuncs.divide(norm1, np.array(theta13, norm1.dtype))
  s = ufuncs.maximum(ufuncs.ceil(ufuncs.log2(ufuncs.maximum(ratio, np.array(1e-30, ratio.dtype)))),
                     np.array(0, ratio.dtype))
  s = ufuncs.minimum(s, np.array(max_squarings, s.dtype))
  s = lax_numpy.where(ufuncs.isfinite(s), s, np.zeros((), s.dtype))
  scale = lax_elementwise.convert_element_type(ufuncs.power(np.array(2.0, s.dtype), s), A.dtype)
  R = _expm_pade13(ufuncs.divide(A, scale[..., None, None]))
  # square s times: unrolled max_squarings times, each step applied only while i < s
  for i in range(max_squarings):
    squared = lax_numpy.matmul(R, R)
    R = lax_numpy.where(ufuncs.less(np.array(i, s.dtype), s)[..., None, None], squared, R)
  return R


def toeplitz(c, r=None):
  """Toeplitz matrix with first column ``c`` and first row ``r`` (default ``conj(c)``)
  (``jax.scipy.linalg.toeplitz``)."""
  util.check_arraylike("jax.scipy.linalg.toeplitz", c)
  c = lax_numpy.ravel(asarray(c))
  if r is None:
    r = ufuncs.conj(c)
  else:
    r = lax_numpy.ravel(asarray(r))
  c, r = util.promote_dtypes(c, r)
  m, n = c.shape[0], r.shape[0]
  vals = lax_numpy.concatenate([c[::-1], r[1:]])  # index (m - 1 - i + j)
  idx = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
  return vals[asarray(idx.astype(np.int32))]


def hankel(c, r=None):
  """Hankel matrix with first column ``c`` and last row ``r`` (``jax.scipy.linalg.hankel``)."""
  util.check_arraylike("jax.scipy.linalg.hankel", c)
  c = lax_numpy.ravel(asarray(c))
  r = lax_structural.full(c.shape, 0, c.dtype) if r is None else lax_numpy.ravel(asarray(r))
  c, r = util.promote_dtypes(c, r)
  m, n = c.shape[0], r.shape[0]
  vals = lax_numpy.concatenate([c, r[1:]])
  idx = np.arange(m)[:, None] + np.arange(n)[None, :]
  return vals[asarray(idx.astype(np.int32))]


def circulant(c):
  """Circulant matrix with first column ``c`` (``jax.scipy.linalg.circulant``)."""
  util.check_arraylike("jax.scipy.linalg.circulant", c)
  c = lax_numpy.ravel(asarray(c))
  n = c.shape[0]
  idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1)
  return c[asarray(idx.astype(np.int32))]


def hilbert(n: int):
  """The n x n Hilbert matrix ``1 / (i + j + 1)`` (``jax.scipy.linalg.hilbert``)."""
  i = np.arange(n)
  return asarray((1.0 / (i[:, None] + i[None, :] + 1)).astype(dtypes.default_float_dtype()))


def dft(n: int, scale=None, *, dtype=None):
  """The n x n discrete Fourier transform matrix (``jax.scipy.linalg.dft``); ``scale`` None,
  'n' or 'sqrtn'."""
  if scale not in (None, "n", "sqrtn"):
    raise ValueError(f"scale must be None, 'n' or 'sqrtn', got {scale!r}")
  dtype = dtypes.canonicalize_dtype(dtype or np.complex128)
  k = np.arange(n)
  m = np.exp(-2j * np.pi * np.outer(k, k) / max(n, 1))
  if scale == "n":
    m = m / n
  elif scale == "sqrtn":
    m = m / math.sqrt(n)
  return asarray(m.astype(dtype))
