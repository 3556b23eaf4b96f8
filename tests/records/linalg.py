"""Op records for the linalg primitives (through their lax.linalg wrappers). References are
NumPy/SciPy's LAPACK-backed routines; factors whose signs LAPACK fixes (qr, lu, cholesky,
triangular_solve) compare directly, the others by quantities independent of signs."""
from __future__ import annotations

import numpy as np
import scipy.linalg

from axle.lax import linalg
from tests.op_record import OpRecord, random_array


def _spd(rng, shape, dtype):
  a = random_array(rng, shape, dtype)
  return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * 5 * np.eye(shape[-1])).astype(dtype)


def _abs_sorted(x):
  return np.sort(np.abs(x), axis=-1)


RECORDS = []
for dtype, tol in ((np.float32, 2e-4), (np.complex64, 2e-4)):  # 64-bit needs x64 (tests/test_linalg.py grads)
  name = np.dtype(dtype).name
  RECORDS += [
      OpRecord(f"cholesky_{name}", "cholesky", linalg.cholesky, np.linalg.cholesky,
               lambda rng, d=dtype: [_spd(rng, (2, 4, 4), d)], rtol=tol, atol=tol),
      OpRecord(f"triangular_solve_{name}", "triangular_solve",
               lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True),
               lambda a, b: np.stack([scipy.linalg.solve_triangular(x, y, lower=True) for x, y in zip(a, b)]),
               lambda rng, d=dtype: [_spd(rng, (2, 3, 3), d), random_array(rng, (2, 3, 2), d)], rtol=tol, atol=tol),
      OpRecord(f"lu_{name}", "lu", lambda x: linalg.lu(x)[0],
               lambda x: np.stack([scipy.linalg.lu_factor(a)[0] for a in x]),
               lambda rng, d=dtype: [random_array(rng, (2, 4, 4), d)], rtol=tol, atol=tol),
      OpRecord(f"lu_pivots_{name}", "lu", lambda x: linalg.lu(x)[1],
               lambda x: np.stack([scipy.linalg.lu_factor(a)[1] for a in x]).astype(np.int32),
               lambda rng, d=dtype: [random_array(rng, (2, 4, 4), d)]),
      OpRecord(f"qr_r_{name}", "qr", lambda x: linalg.qr(x, full_matrices=False)[1],
               lambda x: np.linalg.qr(x, mode="r"),
               lambda rng, d=dtype: [random_array(rng, (2, 5, 3), d)], rtol=tol, atol=tol * 10),
      OpRecord(f"eigh_w_{name}", "eigh", lambda x: linalg.eigh(x)[1], np.linalg.eigvalsh,
               lambda rng, d=dtype: [_spd(rng, (2, 4, 4), d)], rtol=tol, atol=tol * 10),
      OpRecord(f"svd_s_{name}", "svd", lambda x: linalg.svd(x, compute_uv=False),
               lambda x: np.linalg.svd(x, compute_uv=False),
               lambda rng, d=dtype: [random_array(rng, (2, 4, 3), d)], rtol=tol, atol=tol * 10),
      OpRecord(f"eig_w_{name}", "eig",
               lambda x: _abs_sorted(np.asarray(linalg.eig(x, compute_left_eigenvectors=False,
                                                            compute_right_eigenvectors=False)[0]))
               if False else linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0],
               lambda x: np.linalg.eigvals(x).astype(np.complex128 if np.dtype(x.dtype) in (np.float64, np.complex128)
                                                     else np.complex64),
               lambda rng, d=dtype: [np.triu(random_array(rng, (2, 4, 4), d))], rtol=tol, atol=tol),
  ]
RECORDS += [
    OpRecord("lu_pivots_to_permutation", "lu_pivots_to_permutation",
             lambda p: linalg.lu_pivots_to_permutation(p, 6),
             lambda p: np.stack([_perm(row, 6) for row in p]),
             lambda rng: [rng.integers(0, 6, (3, 4)).astype(np.int32)]),
    OpRecord("householder_product", "householder_product", linalg.householder_product,
             lambda a, t: np.stack([scipy.linalg.lapack.sorgqr(x, y)[0] for x, y in zip(a, t)]),
             lambda rng: [random_array(rng, (2, 4, 3), np.float32), random_array(rng, (2, 3), np.float32, 0, 2)],
             rtol=1e-4, atol=1e-4),
]


def _perm(pivots, n):
  perm = list(range(n))
  for k, p in enumerate(pivots):
    perm[k], perm[p] = perm[p], perm[k]
  return np.array(perm, np.int32)
