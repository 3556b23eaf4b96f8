"""``jax.scipy.optimize``: ``minimize`` with BFGS and the strong-Wolfe line search it uses.

The algorithms are Nocedal & Wright's (Numerical Optimization, 2nd ed.): BFGS is Algorithm 6.1
with the inverse-Hessian update (6.17); the line search is Algorithm 3.5 with the zoom of
Algorithm 3.6, trial steps chosen by cubic, then quadratic interpolation, then bisection (as
SciPy's ``scalar_search_wolfe2``, whose bookkeeping of the third point for the cubic -- the old
``a_hi`` when the interval flips, else the old ``a_lo`` -- is followed too). Everything is written with ``lax.while_loop`` and
``jnp.where`` so that it traces under ``jit`` and ``vmap``. Constants (c1=1e-4, c2=0.9, at
most 10 line-search steps per BFGS step, zoom interpolation margins 0.2/0.1, 30 zoom steps,
the 1e-5/1e-10 interval floor, the 1e-8 smallest step in single precision) are JAX's.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from axle._src import api
from axle._src import dtypes
from axle._src import numpy as jnp
from axle._src.lax import loops


class OptimizeResults(NamedTuple):
  """What ``minimize`` returns.

  x: the solution; success: whether it converged; status: 0 converged, 1 maximum iterations,
  2 + the line search's status when a line search failed (3 zoom failed, 5 too many line-search
  steps), -1 undetermined; fun: ``fun(x)``; jac: its gradient; hess_inv: the inverse-Hessian
  estimate; nfev, njev: function and gradient evaluations; nit: iterations."""
  x: Any
  success: Any
  status: Any
  fun: Any
  jac: Any
  hess_inv: Any
  nfev: Any
  njev: Any
  nit: Any


class LineSearchResults(NamedTuple):
  """What ``line_search`` returns: failed, nit, nfev, ngev, k, the step a_k, f_k and g_k at
  ``xk + a_k * pk``, status (0 passed, 1 zoom failed, 3 maximum iterations)."""
  failed: Any
  nit: Any
  nfev: Any
  ngev: Any
  k: Any
  a_k: Any
  f_k: Any
  g_k: Any
  status: Any


def _dot(a, b):
  return jnp.dot(a, b, precision="highest")


def _choose(pred, state: dict, new: dict) -> dict:
  """``state`` with each key of ``new`` replaced where ``pred`` holds."""
  return {k: jnp.where(pred, new[k], v) if k in new else v for k, v in state.items()}


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
  """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
  db, dc = b - a, c - a
  denominator = (db * dc) ** 2 * (db - dc)
  rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc
  cubic = (dc ** 2 * rb - db ** 2 * rc) / denominator
  square = (-dc ** 3 * rb + db ** 3 * rc) / denominator
  radical = square * square - 3. * cubic * fpa
  return a + (-square + jnp.sqrt(radical)) / (3. * cubic)


def _quadratic_minimizer(a, fa, fpa, b, fb):
  """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
  db = b - a
  curvature = (fb - fa - fpa * db) / (db ** 2)
  return a - fpa / (2. * curvature)


def _zoom(phi_and_dphi, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi,
          g_0, pass_through):
  """Algorithm 3.6: narrow [a_lo, a_hi] to a step meeting the strong Wolfe conditions."""
  state = dict(done=jnp.asarray(False), failed=jnp.asarray(False), j=jnp.asarray(0),
               a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi, phi_hi=phi_hi,
               dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2., phi_rec=(phi_lo + phi_hi) / 2.,
               a_star=jnp.ones_like(a_lo), phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0,
               nfev=jnp.asarray(0), ngev=jnp.asarray(0))

  def cond(state):
    return (~state["done"]) & (~pass_through) & (~state["failed"])

  def body(state):
    state = dict(state)
    dalpha = state["a_hi"] - state["a_lo"]
    low = jnp.minimum(state["a_hi"], state["a_lo"])
    high = jnp.maximum(state["a_hi"], state["a_lo"])
    cubic_margin, quadratic_margin = 0.2 * dalpha, 0.1 * dalpha
    # An interval this small stops the search; the Wolfe conditions are not met, so the
    # minimization stops too.
    floor = 1e-5 if dtypes.finfo(dalpha.dtype).bits < 64 else 1e-10
    state["failed"] = state["failed"] | (dalpha <= floor)
    a_cubic = _cubic_minimizer(state["a_lo"], state["phi_lo"], state["dphi_lo"], state["a_hi"],
                               state["phi_hi"], state["a_rec"], state["phi_rec"])
    use_cubic = (state["j"] > 0) & (a_cubic > low + cubic_margin) & (a_cubic < high - cubic_margin)
    a_quadratic = _quadratic_minimizer(state["a_lo"], state["phi_lo"], state["dphi_lo"],
                                       state["a_hi"], state["phi_hi"])
    use_quadratic = (~use_cubic) & (a_quadratic > low + quadratic_margin) & (
        a_quadratic < high - quadratic_margin)
    use_bisection = (~use_cubic) & (~use_quadratic)
    a_j = jnp.where(use_cubic, a_cubic, state["a_rec"])
    a_j = jnp.where(use_quadratic, a_quadratic, a_j)
    a_j = jnp.where(use_bisection, (state["a_lo"] + state["a_hi"]) / 2., a_j)
    phi_j, dphi_j, g_j = phi_and_dphi(a_j)
    phi_j = phi_j.astype(state["phi_lo"].dtype)
    dphi_j = dphi_j.astype(state["dphi_lo"].dtype)
    g_j = g_j.astype(state["g_star"].dtype)
    state["nfev"] = state["nfev"] + 1
    state["ngev"] = state["ngev"] + 1
    hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= state["phi_lo"])
    star_to_j = wolfe_two(dphi_j) & (~hi_to_j)
    hi_to_lo = (dphi_j * (state["a_hi"] - state["a_lo"]) >= 0.) & (~hi_to_j) & (~star_to_j)
    lo_to_j = (~hi_to_j) & (~star_to_j)
    state = _choose(hi_to_j, state, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                         a_rec=state["a_hi"], phi_rec=state["phi_hi"]))
    state["done"] = star_to_j | state["done"]
    state = _choose(star_to_j, state, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                           g_star=g_j))
    state = _choose(hi_to_lo, state, dict(a_hi=state["a_lo"], phi_hi=state["phi_lo"],
                                          dphi_hi=state["dphi_lo"], a_rec=state["a_hi"],
                                          phi_rec=state["phi_hi"]))
    # The previous point kept for the cubic: the old a_hi when a_hi moved to a_lo, else a_lo.
    state = _choose(lo_to_j & (~hi_to_lo), state, dict(a_rec=state["a_lo"],
                                                       phi_rec=state["phi_lo"]))
    state = _choose(lo_to_j, state, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j))
    state["j"] = state["j"] + 1
    state["failed"] = state["failed"] | (state["j"] >= 30)
    return state

  return loops.while_loop(cond, body, state)


def line_search(f: Callable, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4,
                c2=0.9, maxiter=20) -> LineSearchResults:
  """A step ``a_k`` along ``pk`` from ``xk`` meeting the strong Wolfe conditions
  (``f(xk + a pk) <= f(xk) + c1 a f'(xk) pk`` and ``|f'(xk + a pk) pk| <= c2 |f'(xk) pk|``)."""
  dtype = jnp.result_type(xk, pk, 1.0)
  xk, pk = jnp.asarray(xk, dtype), jnp.asarray(pk, dtype)

  def phi_and_dphi(t):
    phi, g = api.value_and_grad(f)(xk + t * pk)
    return phi, jnp.real(_dot(g, pk)), g

  if old_fval is None or gfk is None:
    phi_0, dphi_0, gfk = phi_and_dphi(jnp.zeros((), dtype))
    evaluations = 1
  else:
    phi_0, dphi_0, evaluations = old_fval, jnp.real(_dot(gfk, pk)), 0
  if old_old_fval is not None:
    candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
    start = jnp.where(candidate > 1, 1.0, candidate)
  else:
    start = 1

  def wolfe_one(a_i, phi_i):
    return phi_i > phi_0 + c1 * a_i * dphi_0

  def wolfe_two(dphi_i):
    return jnp.abs(dphi_i) <= -c2 * dphi_0

  zero = jnp.zeros((), jnp.real(jnp.zeros((), dtype)).dtype)
  state = dict(done=jnp.asarray(False), failed=jnp.asarray(False), i=jnp.asarray(1),
               a_i1=zero, phi_i1=phi_0, dphi_i1=dphi_0, nfev=jnp.asarray(evaluations),
               ngev=jnp.asarray(evaluations), a_star=zero, phi_star=phi_0, dphi_star=dphi_0,
               g_star=gfk)

  def cond(state):
    return (~state["done"]) & (state["i"] <= maxiter) & (~state["failed"])

  def body(state):
    state = dict(state)
    a_i = jnp.where(state["i"] == 1, start, state["a_i1"] * 2.)
    phi_i, dphi_i, g_i = phi_and_dphi(a_i)
    state["nfev"] = state["nfev"] + 1
    state["ngev"] = state["ngev"] + 1
    star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= state["phi_i1"]) & (state["i"] > 1))
    star_to_i = wolfe_two(dphi_i) & (~star_to_zoom1)
    star_to_zoom2 = (dphi_i >= 0.) & (~star_to_zoom1) & (~star_to_i)
    zoom1 = _zoom(phi_and_dphi, wolfe_one, wolfe_two, state["a_i1"], state["phi_i1"],
                  state["dphi_i1"], a_i, phi_i, dphi_i, gfk, ~star_to_zoom1)
    state["nfev"] = state["nfev"] + zoom1["nfev"]
    state["ngev"] = state["ngev"] + zoom1["ngev"]
    zoom2 = _zoom(phi_and_dphi, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, state["a_i1"],
                  state["phi_i1"], state["dphi_i1"], gfk, ~star_to_zoom2)
    state["nfev"] = state["nfev"] + zoom2["nfev"]
    state["ngev"] = state["ngev"] + zoom2["ngev"]
    keys = ("a_star", "phi_star", "dphi_star", "g_star")
    state["done"] = star_to_zoom1 | state["done"]
    state["failed"] = (star_to_zoom1 & zoom1["failed"]) | state["failed"]
    state = _choose(star_to_zoom1, state, {k: zoom1[k] for k in keys})
    state["done"] = star_to_i | state["done"]
    state = _choose(star_to_i, state, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                           g_star=g_i))
    state["done"] = star_to_zoom2 | state["done"]
    state["failed"] = (star_to_zoom2 & zoom2["failed"]) | state["failed"]
    state = _choose(star_to_zoom2, state, {k: zoom2[k] for k in keys})
    state.update(i=state["i"] + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)
    return state

  state = loops.while_loop(cond, body, state)
  status = jnp.where(state["failed"], 1, jnp.where(state["i"] > maxiter, 3, 0))
  a_k = state["a_star"]
  # Steps this small leave the optimizer stuck on a NaN in single precision.
  if dtypes.finfo(a_k.dtype).bits != 64:
    a_k = jnp.where(jnp.abs(a_k) < 1e-8, jnp.sign(a_k) * 1e-8, a_k)
  return LineSearchResults(failed=state["failed"] | (~state["done"]), nit=state["i"] - 1,
                           nfev=state["nfev"], ngev=state["ngev"], k=state["i"], a_k=a_k,
                           f_k=state["phi_star"], g_k=state["g_star"], status=status)


def _minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
  """BFGS (Algorithm 6.1) from ``x0`` until ``norm(grad, ord=norm) < gtol``."""
  d = x0.shape[0]
  if maxiter is None:
    maxiter = d * 200
  identity = jnp.eye(d, dtype=x0.dtype)
  f_0, g_0 = api.value_and_grad(fun)(x0)
  state = dict(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=jnp.asarray(False),
               k=jnp.asarray(0), nfev=jnp.asarray(1), ngev=jnp.asarray(1),
               nhev=jnp.asarray(0), x_k=x0, f_k=f_0, g_k=g_0, H_k=identity,
               old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=jnp.asarray(0),
               line_search_status=jnp.asarray(0))

  def cond(state):
    return (~state["converged"]) & (~state["failed"]) & (state["k"] < maxiter)

  def body(state):
    state = dict(state)
    p_k = -_dot(state["H_k"], state["g_k"])
    search = line_search(fun, state["x_k"], p_k, old_fval=state["f_k"],
                         old_old_fval=state["old_old_fval"], gfk=state["g_k"],
                         maxiter=line_search_maxiter)
    state["nfev"] = state["nfev"] + search.nfev
    state["ngev"] = state["ngev"] + search.ngev
    state["failed"] = search.failed
    state["line_search_status"] = search.status
    s_k = search.a_k.astype(p_k.dtype) * p_k
    x_next = state["x_k"] + s_k
    g_next = search.g_k
    y_k = g_next - state["g_k"]
    rho_k = jnp.reciprocal(jnp.real(_dot(y_k, s_k)))
    w = identity - rho_k * (s_k[:, None] * y_k[None, :])
    h_next = jnp.where(jnp.isfinite(rho_k),
                       jnp.einsum("ij,jk,lk", w, state["H_k"], w, precision="highest")
                       + rho_k * s_k[:, None] * s_k[None, :],
                       state["H_k"])
    state.update(converged=jnp.linalg.norm(g_next, ord=norm) < gtol, k=state["k"] + 1,
                 x_k=x_next, f_k=search.f_k, g_k=g_next, H_k=h_next,
                 old_old_fval=state["f_k"])
    return state

  state = loops.while_loop(cond, body, state)
  state["status"] = jnp.where(
      state["converged"], 0,
      jnp.where(state["k"] == maxiter, 1,
                jnp.where(state["failed"], 2 + state["line_search_status"], -1)))
  return state


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: dict | None = None) -> OptimizeResults:
  """Minimize a scalar function of one 1-D array, as ``scipy.optimize.minimize`` (JAX's
  ``jax.scipy.optimize.minimize``).

  fun: ``fun(x, *args)`` returning a scalar; x0: the 1-D starting point; method: ``"BFGS"``
  (case-insensitive); tol: accepted and unused (use ``options={"gtol": ...}``); options:
  ``maxiter`` (default 200 per dimension), ``norm`` (default inf), ``gtol`` (default 1e-5),
  ``line_search_maxiter`` (default 10). Returns an ``OptimizeResults``."""
  del tol
  if options is None:
    options = {}
  if not isinstance(args, tuple):
    raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args!r}")
  if not isinstance(method, str):
    raise TypeError(f"minimize: method must be a string such as 'BFGS', got {method!r}")
  x0 = jnp.asarray(x0)
  if x0.ndim != 1:
    raise ValueError(f"minimize: x0 must be a 1-D array, got shape {x0.shape}; ravel it first "
                     "(jax.flatten_util.ravel_pytree for a pytree)")
  unknown = set(options) - {"maxiter", "norm", "gtol", "line_search_maxiter"}

  def fun_with_args(x):
    return fun(x, *args)

  if method.lower() == "bfgs":
    if unknown:
      raise TypeError(f"minimize(method='BFGS'): unknown options {sorted(unknown)}; expected "
                      "maxiter, norm, gtol or line_search_maxiter")
    state = _minimize_bfgs(fun_with_args, x0, **options)
    return OptimizeResults(x=state["x_k"], success=state["converged"] & (~state["failed"]),
                           status=state["status"], fun=state["f_k"], jac=state["g_k"],
                           hess_inv=state["H_k"], nfev=state["nfev"], njev=state["ngev"],
                           nit=state["k"])
  raise ValueError(f"Method {method} not recognized")
