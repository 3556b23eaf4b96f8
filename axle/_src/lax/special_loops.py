"""lax functions that JAX computes with lax loops rather than as one primitive:
``random_gamma_grad``, the derivative of a gamma sample with respect to its shape parameter.

It is the regularized incomplete gamma function's algorithm (Cephes' power series below
``x = max(1, a)``, the continued fraction above it) carrying the derivatives along, in the
"sample derivative" form ``-(d/da) P(a, x) / p(x; a)``, written with ``lax.while_loop`` over
whole arrays (each element frozen once it has converged) -- the program JAX runs, operation for
operation, so its numbers are JAX's eagerly and under ``jit``.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.lax import elementwise as ew
from axle._src.lax import loops
from axle._src.lax import reductions
from axle._src.lax import special
from axle._src.lax import structural

__all__ = ["random_gamma_grad"]


def _const(dtype, value):
  return np.array(value, dtype)


def _continued_fraction(enabled, a, x):
  """The continued fraction for Q(a, x) and its derivative's numerator (x > 1, x > a)."""
  dtype = core.get_aval(x).dtype
  eps = _const(dtype, dtypes.finfo(dtype).eps)
  one, zero = _const(dtype, 1), _const(dtype, 0)
  y = ew.sub(one, a)
  z = ew.add(ew.add(x, y), one)
  c = zero
  pkm2 = structural.full_like(x, 1)
  qkm2 = x
  pkm1 = ew.add(x, one)
  qkm1 = ew.mul(z, x)
  ans = ew.div(pkm1, qkm1)
  t = structural.full_like(x, 1)
  dpkm2 = structural.full_like(x, 0)
  dqkm2 = structural.full_like(x, 0)
  dpkm1 = structural.full_like(x, 0)
  dqkm1 = ew.neg(x)
  dans = ew.div(ew.sub(dpkm1, ew.mul(ans, dqkm1)), qkm1)

  def cond(state):
    enabled, c = state[0], state[5]
    axes = tuple(range(len(core.get_aval(enabled).shape)))
    return ew.bitwise_and(ew.lt(c, _const(dtype, 2000)), reductions.reduce_or(enabled, axes))

  def body(state):
    (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1,
     dans) = state
    c = ew.add(c, one)
    y = ew.add(y, one)
    z = ew.add(z, _const(dtype, 2))
    yc = ew.mul(y, c)
    pk = ew.sub(ew.mul(pkm1, z), ew.mul(pkm2, yc))
    qk = ew.sub(ew.mul(qkm1, z), ew.mul(qkm2, yc))
    qk_is_nonzero = ew.ne(qk, zero)
    r = ew.div(pk, qk)
    t_new = ew.select(qk_is_nonzero, ew.abs(ew.div(ew.sub(ans, r), r)),
                      structural.full_like(t, 1))
    ans_new = ew.select(qk_is_nonzero, r, ans)
    dpk = ew.add(ew.sub(ew.sub(ew.mul(dpkm1, z), pkm1), ew.mul(dpkm2, yc)), ew.mul(pkm2, c))
    dqk = ew.add(ew.sub(ew.sub(ew.mul(dqkm1, z), qkm1), ew.mul(dqkm2, yc)), ew.mul(qkm2, c))
    dans_new = ew.select(qk_is_nonzero, ew.div(ew.sub(dpk, ew.mul(ans_new, dqk)), qk), dans)
    grad_conditional = ew.select(qk_is_nonzero, ew.abs(ew.sub(dans_new, dans)),
                                 structural.full_like(dans, 1))
    rescale = ew.gt(ew.abs(pk), ew.integer_pow(eps, -1))

    def rescaled(v):
      return ew.select(rescale, ew.mul(v, eps), v)

    pkm2_new, pkm1_new = rescaled(pkm1), rescaled(pk)
    qkm2_new, qkm1_new = rescaled(qkm1), rescaled(qk)
    dpkm2_new, dqkm2_new = rescaled(dpkm1), rescaled(dqkm1)
    dpkm1_new, dqkm1_new = rescaled(dpk), rescaled(dqk)
    going = ew.bitwise_and(enabled, ew.gt(grad_conditional, eps))

    def kept(old, new):
      return ew.select(enabled, new, old)

    return (going, kept(ans, ans_new), kept(t, t_new), kept(state[3], y), kept(state[4], z), c,
            kept(pkm1, pkm1_new), kept(qkm1, qkm1_new), kept(pkm2, pkm2_new),
            kept(qkm2, qkm2_new), kept(dpkm2, dpkm2_new), kept(dqkm2, dqkm2_new),
            kept(dpkm1, dpkm1_new), kept(dqkm1, dqkm1_new), kept(dans, dans_new))

  init = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans)
  out = loops.while_loop(cond, body, init)
  return out[1], out[14]


def _series(enabled, a, x):
  """The power series for P(a, x) and its derivative's numerator."""
  dtype = core.get_aval(x).dtype
  eps = _const(dtype, dtypes.finfo(dtype).eps)
  one = _const(dtype, 1)

  def cond(state):
    enabled = state[0]
    return reductions.reduce_or(enabled, tuple(range(len(core.get_aval(enabled).shape))))

  def body(state):
    enabled, r, c, ans, x, dc, dans = state
    r_new = ew.add(r, one)
    dc_new = ew.sub(ew.mul(dc, ew.div(x, r_new)), ew.div(ew.mul(c, x), ew.mul(r_new, r_new)))
    dans_new = ew.add(dans, dc_new)
    c_new = ew.mul(c, ew.div(x, r_new))
    ans_new = ew.add(ans, c_new)
    going = ew.bitwise_and(enabled, ew.gt(ew.abs(ew.div(dc_new, dans_new)), eps))

    def kept(old, new):
      return ew.select(enabled, new, old)

    return (going, kept(r, r_new), kept(c, c_new), kept(ans, ans_new), kept(x, x),
            kept(dc, dc_new), kept(dans, dans_new))

  init = (enabled, a, structural.full_like(x, 1), structural.full_like(x, 1), x,
          structural.full_like(x, 0), structural.full_like(x, 0))
  out = loops.while_loop(cond, body, init)
  return out[3], out[6]


def random_gamma_grad(a, x):
  """The derivative of a gamma(``a``) sample ``x`` with respect to ``a`` at fixed uniform noise
  (``lax.random_gamma_grad``): ``-(d/da) P(a, x) / p(x; a)`` with ``p`` the gamma density;
  0 at ``x == 0``, NaN for ``x < 0``, ``a <= 0`` or NaN arguments."""
  dtype = core.get_aval(x).dtype
  zero, one = _const(dtype, 0), _const(dtype, 1)
  is_nan = ew.bitwise_or(ew.ne(a, a), ew.ne(x, x))
  x_is_zero = ew.eq(x, structural.full_like(x, 0))
  domain_error = ew.bitwise_or(ew.lt(x, structural.full_like(x, 0)),
                               ew.le(a, structural.full_like(a, 0)))
  use_igammac = ew.bitwise_and(ew.gt(x, structural.full_like(x, 1)), ew.gt(x, a))
  log_ax = ew.sub(ew.sub(ew.mul(a, special.log(x)), x), special.lgamma(a))
  underflow = ew.lt(log_ax, ew.neg(special.log(_const(dtype, dtypes.finfo(dtype).max))))
  special.exp(log_ax)  # (staged and unused in JAX's program too)
  enabled = ew.bitwise_not(ew.bitwise_or(ew.bitwise_or(ew.bitwise_or(x_is_zero, domain_error),
                                                       underflow), is_nan))

  ans, dans = _continued_fraction(ew.bitwise_and(enabled, use_igammac), a, x)
  from_fraction = ew.neg(ew.neg(ew.mul(ew.add(dans, ew.mul(ans, ew.sub(special.log(x),
                                                                       special.digamma(a)))), x)))
  ans, dans = _series(ew.bitwise_and(enabled, ew.bitwise_not(use_igammac)), a, x)
  from_series = ew.div(
      ew.mul(ew.neg(ew.add(dans, ew.mul(ans, ew.sub(special.log(x),
                                                    special.digamma(ew.add(a, one)))))), x), a)
  out = ew.select(use_igammac, from_fraction, from_series)
  out = ew.select(x_is_zero, structural.full_like(out, 0), out)
  return ew.select(ew.bitwise_or(domain_error, is_nan), structural.full_like(out, np.nan), out)
