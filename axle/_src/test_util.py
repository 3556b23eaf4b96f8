"""Numerical checks of derivatives (``axle.test_util.check_grads``): JVPs against central finite
differences in random directions, VJPs against JVPs through the inner-product identity
``<vjp(ct), v> == <ct, jvp(v)>``, recursively up to the requested order."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import differentiation
from axle._src import dtypes
from axle._src import tree_util
from axle._src.interpreters import ad

_EPS = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 3e-3, np.dtype(np.float64): 1e-5,
        np.dtype(np.complex64): 3e-3, np.dtype(np.complex128): 1e-5}
_TOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 2e-2, np.dtype(np.float64): 1e-5,
        np.dtype(np.complex64): 2e-2, np.dtype(np.complex128): 1e-5}


def _dtype_of(x) -> np.dtype:
  return core.get_aval(x).dtype


def _default(table, leaves, fallback):
  values = [table.get(np.dtype(_dtype_of(x)), None) for x in leaves]
  values = [v for v in values if v is not None]
  return max(values) if values else fallback


def _inexact(x) -> bool:
  return dtypes.issubdtype(_dtype_of(x), np.inexact)


def _random_like(rng, x):
  aval = core.get_aval(x)
  if not dtypes.issubdtype(aval.dtype, np.inexact):
    return np.zeros(aval.shape, ad.float0)
  value = rng.standard_normal(aval.shape)
  if dtypes.issubdtype(aval.dtype, np.complexfloating):
    value = value + 1j * rng.standard_normal(aval.shape)
  return np.asarray(value, dtype=aval.dtype)


def _add_scaled(x, scale, v):
  if not _inexact(x):
    return x
  return np.asarray(np.asarray(x, np.float64 if not np.iscomplexobj(x) else np.complex128)
                    + scale * np.asarray(v), dtype=_dtype_of(x))


def _to_numpy(tree):
  return tree_util.tree_map(lambda x: np.asarray(x), tree)


def _inner(xs, ys) -> complex:
  total = 0.0
  for x, y in zip(tree_util.tree_leaves(xs), tree_util.tree_leaves(ys)):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype == _float0() or y.dtype == _float0():
      continue
    # JAX's VJP is the transpose of the JVP as a real-linear map under the pairing
    # Re(sum(x * y)) (no conjugation: grad of a holomorphic function is f'(z) itself)
    total = total + np.real(np.sum(np.asarray(x, np.complex128) * np.asarray(y, np.complex128)))
  return total


def _float0():
  return ad.float0


def _check_close(what: str, actual, expected, atol, rtol) -> None:
  a_leaves = tree_util.tree_leaves(actual)
  e_leaves = tree_util.tree_leaves(expected)
  if len(a_leaves) != len(e_leaves):
    raise AssertionError(f"{what}: structures differ: {actual} vs {expected}")
  for a, e in zip(a_leaves, e_leaves):
    a, e = np.asarray(a), np.asarray(e)
    if a.dtype == _float0() or e.dtype == _float0():
      continue
    a = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    e = e.astype(np.complex128 if np.iscomplexobj(e) else np.float64)
    np.testing.assert_allclose(a, e, atol=atol, rtol=rtol, err_msg=what)


def numerical_jvp(f: Callable, primals, tangents, eps: float):
  """Central-difference estimate of the JVP of ``f`` at ``primals`` along ``tangents``."""
  plus = [tree_util.tree_map(lambda x, t: _add_scaled(x, eps, t), p, t)
          for p, t in zip(primals, tangents)]
  minus = [tree_util.tree_map(lambda x, t: _add_scaled(x, -eps, t), p, t)
           for p, t in zip(primals, tangents)]
  f_plus, f_minus = _to_numpy(f(*plus)), _to_numpy(f(*minus))

  def diff(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if not np.issubdtype(a.dtype, np.inexact):
      return np.zeros(a.shape, _float0())
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    return ((a.astype(wide) - b.astype(wide)) / (2 * eps)).astype(a.dtype)

  return tree_util.tree_map(diff, f_plus, f_minus)


def check_jvp(f: Callable, f_jvp: Callable, args, atol=None, rtol=None, eps=None, seed=0):
  """Checks ``f_jvp`` (a function like ``lambda primals, tangents: jax.jvp(f, primals, tangents)``)
  against finite differences of ``f`` in a random direction."""
  rng = np.random.default_rng(seed)
  leaves = tree_util.tree_leaves(args)
  atol = _default(_TOL, leaves, 1e-2) if atol is None else atol
  rtol = _default(_TOL, leaves, 1e-2) if rtol is None else rtol
  eps = _default(_EPS, leaves, 1e-4) if eps is None else eps
  tangents = [tree_util.tree_map(lambda x: _random_like(rng, x), a) for a in args]
  primal_out, tangent_out = f_jvp(args, tangents)
  expected_out = f(*args)
  _check_close("primal output of jvp", primal_out, expected_out, atol, rtol)
  numeric = numerical_jvp(f, args, tangents, eps)
  _check_close("jvp vs finite differences", tangent_out, numeric, atol, rtol)


def check_vjp(f: Callable, f_vjp: Callable, args, atol=None, rtol=None, eps=None, seed=0):
  """Checks ``f_vjp`` (like ``lambda *primals: jax.vjp(f, *primals)``) through
  ``<vjp(ct), v> == <ct, jvp(v)>`` with the JVP estimated by finite differences."""
  rng = np.random.default_rng(seed + 1)
  leaves = tree_util.tree_leaves(args)
  atol = _default(_TOL, leaves, 1e-2) if atol is None else atol
  rtol = _default(_TOL, leaves, 1e-2) if rtol is None else rtol
  eps = _default(_EPS, leaves, 1e-4) if eps is None else eps
  out, pullback = f_vjp(*args)
  _check_close("primal output of vjp", out, f(*args), atol, rtol)
  tangents = [tree_util.tree_map(lambda x: _random_like(rng, x), a) for a in args]
  cotangent = tree_util.tree_map(lambda x: _random_like(rng, x), out)
  cts_in = pullback(cotangent)
  numeric = numerical_jvp(f, args, tangents, eps)
  lhs = _inner(tangents, cts_in)
  rhs = _inner(numeric, cotangent)
  scale = max(1.0, abs(lhs), abs(rhs))
  if not abs(lhs - rhs) <= atol * scale + rtol * abs(rhs):
    raise AssertionError(f"vjp check failed: <v, vjp(ct)> = {lhs} but <jvp(v), ct> = {rhs} "
                         "(finite differences)")


def check_grads(f: Callable, args: Sequence, order: int, modes=("fwd", "rev"), atol=None,
                rtol=None, eps=None) -> None:
  """Checks the derivatives of ``f`` at ``args`` up to ``order`` against finite differences:
  forward mode (``"fwd"``: jvp) and/or reverse mode (``"rev"``: vjp), recursively (each
  derivative function is itself checked at the next order). Raises AssertionError on a
  mismatch."""
  args = tuple(args)
  if isinstance(modes, str):
    modes = (modes,)

  def _check(f, args, order):
    if "fwd" in modes:
      check_jvp(f, lambda p, t: differentiation.jvp(f, p, t), args, atol, rtol, eps)
      if order > 1:
        rng = np.random.default_rng(7)
        tangents = tuple(tree_util.tree_map(lambda x: _random_like(rng, x), a) for a in args)
        _check(lambda *p: differentiation.jvp(f, p, tangents)[1], args, order - 1)
    if "rev" in modes:
      check_vjp(f, lambda *p: differentiation.vjp(f, *p), args, atol, rtol, eps)
      if order > 1:
        rng = np.random.default_rng(11)
        out = f(*args)
        cotangent = tree_util.tree_map(lambda x: _random_like(rng, x), out)
        _check(lambda *p: differentiation.vjp(f, *p)[1](cotangent), args, order - 1)

  _check(f, args, order)
