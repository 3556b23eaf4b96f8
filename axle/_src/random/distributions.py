"""Sampling from distributions with JAX's algorithms, so the same key gives the same numbers.

Every sampler takes a key (typed or raw), draws bits with ``random_bits`` and transforms them
with lax/jnp operations, eagerly (NumPy kernels) or under ``jit`` (XLA) alike. Internally the
samplers work on one key each (key arrays of shape ()); gamma samples come from JAX's
``random_gamma`` primitive, whose lowering vmaps the one-element rejection sampler.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src import lax
from axle._src import numpy as jnp
from axle._src import vmap as vmap_api
from axle._src.config import config
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import loops as lax_loops
from axle._src.lax.control_flow import while_loop
from axle._src.random import keys
from axle._src.random import prng
from axle._src.xla.spmd_jit import with_out_sharding

UINT_DTYPES = prng.UINT_DTYPES


# ---------------------------------------------------------------------------
# Helpers


def _key(name, key):
  return keys.check_prng_key(name, key)[0]


def _split(key_data, num: int = 2):
  """``num`` subkeys of one key, as a list: unpacked by iterating over the keys, as JAX's
  samplers do (slice, squeeze)."""
  out = prng.random_split_p.bind(key_data, shape=(num,))
  return [lax.squeeze(lax.slice(out, (i,), (i + 1,), (1,)), (0,)) for i in range(num)]


def _random_bits(key_data, bit_width: int, shape):
  return prng.random_bits_p.bind(key_data, bit_width=bit_width, shape=tuple(shape))


def _float_dtype(name: str, dtype, allow_complex: bool = False) -> np.dtype:
  dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
  if allow_complex:
    if not dtypes.issubdtype(dtype, np.inexact):
      raise ValueError(f"dtype argument to `{name}` must be a float or complex dtype, got {dtype}")
  elif not dtypes.issubdtype(dtype, np.floating):
    raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
  return dtype


def _shape_of(x):
  return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _canonical_shape(shape):
  return None if shape is None else core.canonicalize_shape(shape)


def _check_shape(name: str, shape, *param_shapes) -> None:
  if param_shapes:
    result = jnp.broadcast_shapes(shape, *param_shapes)
    if tuple(shape) != tuple(result):
      raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                       "argument, and the result of broadcasting the shapes must equal the "
                       f"shape argument, but got result {tuple(result)} for shape argument "
                       f"{tuple(shape)}.")


def _const(dtype, value):
  return np.array(value, dtype)


def _convert(x, dtype):
  return lax.convert_element_type(x, dtype)


# ---------------------------------------------------------------------------
# uniform, normal and the samplers built directly on them


def _uniform_impl(key_data, shape, dtype, minval, maxval):
  """Uniform floats in [minval, maxval)."""
  shape = tuple(shape)
  dtype = np.dtype(dtype)
  minval, maxval = _convert(minval, dtype), _convert(maxval, dtype)
  minval = lax.broadcast_to_rank(minval, len(shape))
  maxval = lax.broadcast_to_rank(maxval, len(shape))
  finfo = dtypes.finfo(dtype)
  nbits, nmant = finfo.bits, finfo.nmant
  if nbits not in (8, 16, 32, 64):
    raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
  rng_bits = 8 if nmant < 8 else nbits
  uint_dtype = UINT_DTYPES[nbits]
  bits = _random_bits(key_data, rng_bits, shape)
  if rng_bits != nbits:
    bits = _convert(bits, uint_dtype)
  float_bits = lax.bitwise_or(lax.shift_right_logical(bits, _const(uint_dtype, rng_bits - nmant)),
                              np.array(1.0, dtype).view(uint_dtype))
  floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), _const(dtype, 1.0))
  span = lax.sub(maxval, minval)
  return lax.max(minval, lax.reshape(lax.add(lax.mul(floats, span), minval), shape))


def _compiled(sampler, static_argnums, name):
  """``sampler`` wrapped in ``jit`` under JAX's name for it, so traced programs show the same
  ``jit[name=...]`` equations (and private functions in StableHLO) as JAX's."""
  sampler.__name__ = sampler.__qualname__ = name
  compiled = api.jit(sampler, static_argnums=static_argnums)
  compiled._report_retraces = False  # library code: new shapes are the caller's business
  return compiled


_uniform_jit = _compiled(_uniform_impl, (1, 2), "_uniform")


def _uniform(key_data, shape, dtype, minval=0., maxval=1.):
  return _uniform_jit(key_data, tuple(shape), np.dtype(dtype), minval, maxval)


def _uniform_keywords_impl(key_data, shape, dtype, maxval, minval):
  return _uniform_impl(key_data, shape, dtype, minval, maxval)


# JAX's jit flattens keyword arguments after the positional ones, by name: a sampler that
# passes minval= and maxval= by keyword calls _uniform with (maxval, minval).
_uniform_keywords_jit = _compiled(_uniform_keywords_impl, (1, 2), "_uniform")


def _uniform_by_keywords(key_data, shape, dtype, minval, maxval):
  """``_uniform`` as JAX's samplers call it with ``minval=``/``maxval=`` keywords."""
  return _uniform_keywords_jit(key_data, tuple(shape), np.dtype(dtype), maxval, minval)


def _bcast(x, shape):
  x_shape = _shape_of(x)
  if x_shape == tuple(shape):
    return x
  if not x_shape:
    return lax.broadcast_in_dim(x, tuple(shape), ())
  if len(x_shape) > len(shape):
    raise ValueError(f"Incompatible shapes for broadcasting: shapes={[x_shape, tuple(shape)]}")
  return jnp.broadcast_to(x, tuple(shape))


def uniform(key, shape=(), dtype=None, minval=0., maxval=1., *, out_sharding=None):
  """Samples uniform floats in ``[minval, maxval)`` of ``shape`` and ``dtype`` (default
  float32; float64 with x64)."""
  data = _key("uniform", key)
  dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
  shape = core.canonicalize_shape(shape)
  if not dtypes.issubdtype(dtype, np.floating):
    raise ValueError(f"dtype argument to `uniform` must be a float dtype, got {dtype}")
  return with_out_sharding(_uniform(data, shape, dtype, minval, maxval), out_sharding)


def _normal_real_impl(key_data, shape, dtype):
  lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
  u = _uniform(key_data, shape, dtype, lo, np.array(1., dtype))
  return lax.mul(_const(dtype, np.sqrt(2)), lax.erf_inv(u))


_normal_real_jit = _compiled(_normal_real_impl, (1, 2), "_normal_real")


def _normal_real(key_data, shape, dtype):
  return _normal_real_jit(key_data, tuple(shape), np.dtype(dtype))


def _normal_impl(key_data, shape, dtype):
  if dtypes.issubdtype(dtype, np.complexfloating):
    real_dtype = np.array(0, dtype).real.dtype
    key_re, key_im = _split(key_data)
    re = _convert(_normal_real(key_re, shape, real_dtype), dtype)
    im = _convert(_normal_real(key_im, shape, real_dtype), dtype)
    return (re + 1j * im) / _const(dtype, np.sqrt(2))
  return _normal_real(key_data, shape, dtype)


_normal_jit = _compiled(_normal_impl, (1, 2), "_normal")


def _normal(key_data, shape, dtype):
  return _normal_jit(key_data, tuple(shape), np.dtype(dtype))


def normal(key, shape=(), dtype=None, *, out_sharding=None):
  """Samples standard normal values (real, or complex with independent real and imaginary
  parts of variance 1/2)."""
  data = _key("normal", key)
  shape = core.canonicalize_shape(shape)
  dtype = _float_dtype("normal", dtype, allow_complex=True)
  return with_out_sharding(_normal(data, shape, dtype), out_sharding)


def truncated_normal(key, lower, upper, shape=None, dtype=None):
  """Samples a standard normal truncated to ``(lower, upper)``."""
  shape = _canonical_shape(shape)
  data = _key("truncated_normal", key)
  dtype = _float_dtype("truncated_normal", dtype)
  if shape is None:
    shape = jnp.broadcast_shapes(_shape_of(lower), _shape_of(upper))
  else:
    _check_shape("truncated_normal", shape, _shape_of(lower), _shape_of(upper))
  return _truncated_normal_jit(data, lower, upper, shape, dtype)


def _truncated_normal_impl(key_data, lower, upper, shape, dtype):
  sqrt2 = _const(dtype, np.sqrt(2))
  lower = _convert(lower, dtype)
  upper = _convert(upper, dtype)
  a = lax.erf(lax.div(lower, sqrt2))
  b = lax.erf(lax.div(upper, sqrt2))
  u = _uniform(key_data, shape, dtype, a, b)
  out = lax.mul(sqrt2, lax.erf_inv(u))
  return jnp.clip(out, lax.nextafter(lax.stop_gradient(lower), _const(dtype, np.inf)),
                  lax.nextafter(lax.stop_gradient(upper), _const(dtype, -np.inf)))


_truncated_normal_jit = _compiled(_truncated_normal_impl, (3, 4), "_truncated_normal")


def bernoulli(key, p=0.5, shape=None, mode: str = "low"):
  """Samples booleans that are True with probability ``p``."""
  shape = _canonical_shape(shape)
  if mode not in ("high", "low"):
    raise ValueError(f"got {mode=}, expected 'high' or 'low'")
  data = _key("bernoulli", key)
  dtype = core.get_aval(p).dtype
  if not dtypes.issubdtype(dtype, np.floating):
    raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
  p = _convert(p, dtype)
  if shape is None:
    shape = _shape_of(p)
  else:
    _check_shape("bernoulli", shape, _shape_of(p))
  return _bernoulli_jit(data, p, tuple(shape), mode)


def _bernoulli_impl(key_data, p, shape, mode):
  dtype = core.get_aval(p).dtype
  if mode == "high":
    both = _uniform(key_data, (2, *shape), dtype)
    u1, u2 = both[0], both[1]
    u2 = u2 * (2 ** -dtypes.finfo(dtype).nmant)
    return u2 < p - u1
  return _uniform(key_data, shape, dtype) < p


_bernoulli_jit = _compiled(_bernoulli_impl, (2, 3), "_bernoulli")


def rademacher(key, shape=(), dtype=int):
  """Samples -1 or +1 with equal probability."""
  data = _key("rademacher", key)
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
  shape = core.canonicalize_shape(shape)
  return _rademacher_jit(data, shape, dtype)


def _rademacher_impl(key_data, shape, dtype):
  samples = bernoulli(key_data, 0.5, shape).astype(dtype)
  return (2 * samples - 1).astype(dtype)


_rademacher_jit = _compiled(_rademacher_impl, (1, 2), "_rademacher")


def exponential(key, shape=(), dtype=None):
  """Samples the standard exponential distribution."""
  data = _key("exponential", key)
  dtype = _float_dtype("exponential", dtype)
  shape = core.canonicalize_shape(shape)
  return _exponential(data, shape, dtype)


def _exponential_impl(key_data, shape, dtype):
  u = _uniform(key_data, shape, dtype)
  return lax.neg(lax.log1p(lax.neg(u)))


_exponential_jit = _compiled(_exponential_impl, (1, 2), "_exponential")


def _exponential(key_data, shape, dtype):
  return _exponential_jit(key_data, tuple(shape), np.dtype(dtype))


def _gumbel(key_data, shape, dtype, mode):
  return _gumbel_jit(key_data, tuple(shape), np.dtype(dtype), mode)


def _gumbel_impl(key_data, shape, dtype, mode):
  info = dtypes.finfo(dtype)
  if mode == "high" or (mode == "highest" and dtype != np.float32):
    both = _uniform(key_data, (2, *shape), dtype)
    high, low = both[0], both[1]
    x = jnp.where(high >= 0.5, high, high + 2 ** -info.nmant * low + float(info.tiny))
    return -jnp.log(-jnp.log1p(-x))
  if mode == "highest":
    raise NotImplementedError("gumbel mode='highest' for float32 is not implemented in axle")
  return -jnp.log(-jnp.log(_uniform_by_keywords(key_data, shape, dtype, info.tiny, 1.)))


_gumbel_jit = _compiled(_gumbel_impl, (1, 2, 3), "_gumbel")


def _gumbel_mode(mode):
  if mode is None:
    mode = "high" if getattr(config, "jax_use_high_dynamic_range_gumbel", False) else "low"
  if mode not in ("highest", "high", "low"):
    raise ValueError("Must provide valid mode for gumbel got: %s" % mode)
  return mode


def gumbel(key, shape=(), dtype=None, mode=None):
  """Samples the standard Gumbel distribution."""
  data = _key("gumbel", key)
  dtype = _float_dtype("gumbel", dtype)
  shape = core.canonicalize_shape(shape)
  return _gumbel(data, shape, dtype, _gumbel_mode(mode))


def laplace(key, shape=(), dtype=None):
  """Samples the standard Laplace distribution."""
  data = _key("laplace", key)
  dtype = _float_dtype("laplace", dtype)
  shape = core.canonicalize_shape(shape)
  return _laplace_jit(data, shape, dtype)


def _laplace_impl(key_data, shape, dtype):
  u = _uniform(key_data, shape, dtype, -1. + dtypes.finfo(dtype).epsneg, 1.)
  return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


_laplace_jit = _compiled(_laplace_impl, (1, 2), "_laplace")


def logistic(key, shape=(), dtype=None):
  """Samples the standard logistic distribution."""
  data = _key("logistic", key)
  dtype = _float_dtype("logistic", dtype)
  shape = core.canonicalize_shape(shape)
  return _logistic_jit(data, shape, dtype)


def _logistic_impl(key_data, shape, dtype):
  x = _uniform(key_data, shape, dtype, dtypes.finfo(dtype).tiny, 1.)
  return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


_logistic_jit = _compiled(_logistic_impl, (1, 2), "_logistic")


def cauchy(key, shape=(), dtype=None):
  """Samples the standard Cauchy distribution."""
  data = _key("cauchy", key)
  dtype = _float_dtype("cauchy", dtype)
  shape = core.canonicalize_shape(shape)
  return _cauchy_jit(data, shape, dtype)


def _cauchy_impl(key_data, shape, dtype):
  u = _uniform(key_data, shape, dtype, dtypes.finfo(dtype).eps, 1.)
  return lax.tan(lax.mul(_const(dtype, np.pi), lax.sub(u, _const(dtype, 0.5))))


_cauchy_jit = _compiled(_cauchy_impl, (1, 2), "_cauchy")


def _broadcast_param_shape(name, shape, *params):
  if shape is None:
    return tuple(jnp.broadcast_shapes(*(_shape_of(p) for p in params)))
  shape = core.canonicalize_shape(shape)
  _check_shape(name, shape, *(_shape_of(p) for p in params))
  return shape


def pareto(key, b, shape=None, dtype=None):
  """Samples the Pareto distribution with shape parameter ``b``."""
  data = _key("pareto", key)
  dtype = _float_dtype("pareto", dtype)
  shape = _broadcast_param_shape("pareto", shape, b)
  return _pareto_jit(data, b, shape, dtype)


def _pareto_impl(key_data, b, shape, dtype):
  b = _convert(b, dtype)
  e = _exponential(key_data, shape, dtype)
  return lax.exp(e / b)


_pareto_jit = _compiled(_pareto_impl, (2, 3), "_pareto")


def weibull_min(key, scale, concentration, shape=(), dtype=None):
  """Samples the Weibull distribution with ``scale`` and ``concentration``."""
  data = _key("weibull_min", key)
  dtype = _float_dtype("weibull_min", dtype)
  shape = core.canonicalize_shape(shape)
  return _weibull_min_jit(data, scale, concentration, shape, dtype)


def _weibull_min_impl(key_data, scale, concentration, shape, dtype):
  u = _uniform(key_data, shape, dtype, 0, 1)
  return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


_weibull_min_jit = _compiled(_weibull_min_impl, (3, 4), "_weibull_min")


def rayleigh(key, scale, shape=None, dtype=None):
  """Samples the Rayleigh distribution with ``scale``."""
  data = _key("rayleigh", key)
  dtype = _float_dtype("rayleigh", dtype)
  shape = _broadcast_param_shape("rayleigh", shape, scale)
  return _rayleigh_jit(data, scale, shape, dtype)


def _rayleigh_impl(key_data, scale, shape, dtype):
  u = _uniform(key_data, shape, dtype)
  scale = jnp.broadcast_to(jnp.asarray(scale).astype(dtype), shape)
  return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(dtype, -2))))


_rayleigh_jit = _compiled(_rayleigh_impl, (2, 3), "_rayleigh")


def wald(key, mean, shape=None, dtype=None):
  """Samples the Wald (inverse Gaussian) distribution with ``mean``."""
  data = _key("wald", key)
  dtype = _float_dtype("wald", dtype)
  shape = _broadcast_param_shape("wald", shape, mean)
  return _wald_jit(data, mean, shape, dtype)


def _wald_impl(key_data, mean, shape, dtype):
  k1, k2 = _split(key_data, 2)
  mean = jnp.broadcast_to(jnp.asarray(mean).astype(dtype), shape)
  v = _normal(k1, shape, dtype)
  z = _uniform(k2, shape, dtype)
  y = lax.integer_pow(v, 2)
  y_sq = lax.integer_pow(y, 2)
  mean_sq = lax.integer_pow(mean, 2)
  sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
  x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
  return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


_wald_jit = _compiled(_wald_impl, (2, 3), "_wald")


def geometric(key, p, shape=None, dtype=int):
  """Samples the geometric distribution (number of trials to the first success)."""
  data = _key("geometric", key)
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
  if not dtypes.issubdtype(dtype, np.integer):
    raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
  shape = _broadcast_param_shape("geometric", shape, p)
  return _geometric_jit(data, p, shape, dtype)


def _geometric_impl(key_data, p, shape, dtype):
  p = jnp.asarray(p)
  if not dtypes.issubdtype(p.dtype, np.inexact):
    p = p.astype(dtypes.canonicalize_dtype(float))
  u = _uniform(key_data, shape, p.dtype)
  u = jnp.where(u == 0, 1, u)
  log_u = lax.log(u)
  log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
  g = lax.floor(lax.div(log_u, log_one_minus_p)) + 1
  return g.astype(dtype)


_geometric_jit = _compiled(_geometric_impl, (2, 3), "_geometric")


def triangular(key, left, mode, right, shape=None, dtype=None):
  """Samples the triangular distribution on ``[left, right]`` with peak at ``mode``."""
  data = _key("triangular", key)
  dtype = _float_dtype("triangular", dtype)
  shape = _broadcast_param_shape("triangular", shape, left, mode, right)
  left = jnp.broadcast_to(_convert(left, dtype), shape)
  right = jnp.broadcast_to(_convert(right, dtype), shape)
  mode = jnp.broadcast_to(_convert(mode, dtype), shape)
  fc = (mode - left) / (right - left)
  u = _uniform(data, shape, dtype)
  out1 = left + lax.sqrt(u * (right - left) * (mode - left))
  out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
  return lax.select(u < fc, out1, out2)


def lognormal(key, sigma=1., shape=None, dtype=None):
  """Samples the log-normal distribution ``exp(sigma * normal)``."""
  data = _key("lognormal", key)
  dtype = _float_dtype("lognormal", dtype)
  shape = _broadcast_param_shape("lognormal", shape, sigma)
  sigma = _convert(sigma, dtype)
  return lax.exp(_normal(data, shape, dtype) * sigma)


def maxwell(key, shape=(), dtype=None):
  """Samples the Maxwell distribution (norm of a 3-d standard normal)."""
  data = _key("maxwell", key)
  dtype = _float_dtype("maxwell", dtype)
  shape = core.canonicalize_shape(shape)
  return _maxwell_jit(data, shape, dtype)


def _maxwell_impl(key_data, shape, dtype):
  return jnp.linalg.norm(_normal(key_data, (*shape, 3), dtype), axis=-1)


_maxwell_jit = _compiled(_maxwell_impl, (1, 2), "_maxwell")


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
  """Samples the double-sided Maxwell distribution with ``loc`` and ``scale``."""
  data = _key("double_sided_maxwell", key)
  dtype = _float_dtype("double_sided_maxwell", dtype)
  shape = core.canonicalize_shape(shape)
  params_shape = tuple(jnp.broadcast_shapes(_shape_of(loc), _shape_of(scale)))
  if not shape:
    shape = params_shape
  shape = shape + params_shape
  return _double_sided_maxwell_jit(data, loc, scale, shape, dtype)


def _double_sided_maxwell_impl(key_data, loc, scale, shape, dtype):
  maxwell_key, rademacher_key = _split(key_data)
  maxwell_rvs = maxwell(maxwell_key, shape, dtype)
  random_sign = rademacher(rademacher_key, shape, dtype)
  return random_sign * maxwell_rvs * scale + loc


_double_sided_maxwell_jit = _compiled(_double_sided_maxwell_impl, (3, 4),
                                      "_double_sided_maxwell")


# ---------------------------------------------------------------------------
# Discrete choices: randint, permutation, shuffle, choice, categorical


def _convert_and_clip_integer(val, dtype):
  info_to, info_from = dtypes.iinfo(dtype), dtypes.iinfo(val.dtype)
  low = max(int(info_to.min), int(info_from.min))
  high = min(int(info_to.max), int(info_from.max))
  if not core.get_aval(val).weak_type:
    low, high = np.array(low, val.dtype), np.array(high, val.dtype)
  # bounds as weak as ``val`` (JAX's clip then promotes nothing); the conversion drops weakness
  return lax.convert_element_type(jnp.clip(val, low, high), dtype)


def randint(key, shape, minval, maxval, dtype=int, *, out_sharding=None):
  """Samples integers uniformly from ``[minval, maxval)`` (2 x nbits random bits per value,
  reduced modulo the span, as JAX does)."""
  data = _key("randint", key)
  dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
  shape = core.canonicalize_shape(shape)
  if not dtypes.issubdtype(dtype, np.integer):
    raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
  info = dtypes.iinfo(dtype)
  sample_dtype = dtype
  if info.bits < 32:
    sample_dtype = np.dtype(np.int32)
    # (asarray converts concrete bounds right away: JAX folds that conversion)
    minval = jnp.asarray(minval, "int32").clip(int(info.min), int(info.max))
    maxval = jnp.asarray(maxval, "int32").clip(int(info.min), int(info.max) + 1)
  return with_out_sharding(_randint(data, shape, minval, maxval, sample_dtype).astype(dtype),
                           out_sharding)


def _randint(key_data, shape, minval, maxval, dtype):
  _check_shape("randint", shape, _shape_of(minval), _shape_of(maxval))
  return _randint_jit(key_data, tuple(shape), minval, maxval, np.dtype(dtype))


def _randint_impl(key_data, shape, minval, maxval, dtype):
  minval = jnp.asarray(minval)
  maxval = jnp.asarray(maxval)
  if not dtypes.issubdtype(minval.dtype, np.integer):
    minval = minval.astype(int)
  if not dtypes.issubdtype(maxval.dtype, np.integer):
    maxval = maxval.astype(int)
  # whether maxval exceeds the largest value of dtype (then maxval itself can be drawn)
  maxval_out_of_range = lax.gt(maxval, _convert_and_clip_integer(
      jnp.array(dtypes.iinfo(dtype).max, dtype), maxval.dtype))
  minval = _convert_and_clip_integer(minval, dtype)
  maxval = _convert_and_clip_integer(maxval, dtype)
  minval = lax.broadcast_to_rank(minval, len(shape))
  maxval = lax.broadcast_to_rank(maxval, len(shape))
  nbits = dtypes.iinfo(dtype).bits
  if nbits not in (8, 16, 32, 64):
    raise TypeError(f"randint only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}")
  k1, k2 = _split(key_data)
  higher_bits = _random_bits(k1, nbits, shape)
  lower_bits = _random_bits(k2, nbits, shape)
  unsigned = UINT_DTYPES[nbits]
  # span, multiplier and offset keep the bounds' (size-1) shape; lax broadcasts them
  span = _convert(lax.sub(maxval, minval), unsigned)
  span = lax.select(lax.le(maxval, minval), lax.full_like(span, 1), span)
  span = lax.select(lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)),
                    lax.add(span, np.array(1, unsigned)), span)
  multiplier = lax.rem(np.array(2 ** (nbits // 2), unsigned), span)
  multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
  offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
  offset = lax.rem(offset, span)
  return lax.add(minval, _convert(offset, dtype))


_randint_jit = _compiled(_randint_impl, (1, 4), "_randint")


def _shuffle(key_data, x, axis):
  return _shuffle_jit(key_data, x, axis)


def _shuffle_impl(key_data, x, axis):
  exponent = 3
  uint32max = np.iinfo(np.uint32).max
  size = math.prod(_shape_of(x))
  num_rounds = int(np.ceil(exponent * np.log(max(1, size)) / np.log(uint32max)))
  for _ in range(num_rounds):
    key_data, subkey = _split(key_data)
    sort_keys = _random_bits(subkey, 32, _shape_of(x))
    _, x = lax.sort_key_val(sort_keys, x, axis)
  return x


_shuffle_jit = _compiled(_shuffle_impl, (2,), "_shuffle")


def _take(arr, ind, axis):
  """``jnp.take(arr, ind, axis)`` for in-bounds indices."""
  moved = jnp.moveaxis(arr, axis, 0)
  taken = moved[ind]
  nd_ind = len(_shape_of(ind))
  rest = arr.ndim - 1
  # taken: (*ind.shape, *arr.shape without axis); move the index dims to `axis`.
  perm = list(range(nd_ind, nd_ind + axis)) + list(range(nd_ind)) + \
      list(range(nd_ind + axis, nd_ind + rest))
  return jnp.transpose(taken, perm)


def _canonicalize_axis(axis, ndim):
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim


def permutation(key, x, axis: int = 0, independent: bool = False):
  """A random permutation of ``range(x)`` (integer ``x``) or of ``x`` along ``axis``; with
  ``independent=True`` each slice along the other axes is shuffled independently."""
  data = _key("permutation", key)
  ndim = len(_shape_of(x))
  axis = _canonicalize_axis(axis, ndim or 1)
  if not ndim:
    if not dtypes.issubdtype(core.get_aval(x).dtype, np.integer):
      raise TypeError("x must be an integer or at least 1-dimensional")
    r = core.concrete_or_error(int, x, "argument x of jax.random.permutation()")
    return _shuffle(data, jnp.arange(r), axis)
  x = jnp.asarray(x)
  if independent or ndim == 1:
    return _shuffle(data, x, axis)
  ind = _shuffle(data, jnp.arange(x.shape[axis]), 0)
  return _take(x, ind, axis)


def shuffle(key, x, axis: int = 0):
  """Shuffles the elements of ``x`` along ``axis`` independently for each slice (deprecated
  in JAX in favour of ``permutation(..., independent=True)``)."""
  data = _key("shuffle", key)
  x = jnp.asarray(x)
  return _shuffle(data, x, _canonicalize_axis(axis, x.ndim))


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
  """Samples from ``a`` (an array, or ``range(a)`` for an integer) with or without
  replacement, uniformly or with probabilities ``p``."""
  data = _key("choice", key)
  if not isinstance(shape, Sequence):
    raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
  arr = jnp.asarray(a)
  if arr.ndim == 0:
    n_inputs = core.concrete_or_error(int, a, "The error occurred in jax.random.choice()")
  else:
    axis = _canonicalize_axis(axis, arr.ndim)
    n_inputs = arr.shape[axis]
  shape = tuple(shape)
  n_draws = math.prod(shape)
  if n_draws == 0:
    return jnp.zeros(shape, dtype=arr.dtype)
  if n_inputs <= 0:
    raise ValueError("a must be greater than 0 unless no samples are taken")
  if not replace and n_draws > n_inputs:
    raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                     f"{n_inputs}) when 'replace=False'")
  if p is None:
    if replace:
      ind = randint(data, shape, 0, n_inputs)
      result = ind if arr.ndim == 0 else _take(arr, ind, axis)
    else:
      perm = permutation(data, n_inputs if arr.ndim == 0 else arr, axis)
      result = perm[(slice(None),) * axis + (slice(n_draws),)]
  else:
    p_arr = jnp.asarray(p)
    if not dtypes.issubdtype(p_arr.dtype, np.inexact):
      p_arr = p_arr.astype(dtypes.canonicalize_dtype(float))
    if p_arr.shape != (n_inputs,):
      raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                       f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
    if replace:
      p_cuml = jnp.cumsum(p_arr)
      r = p_cuml[-1] * (1 - _uniform(data, shape, p_cuml.dtype))
      ind = jnp.searchsorted(p_cuml, r).astype(int)
    else:
      g = _gumbel(data, (n_inputs,), p_arr.dtype, _gumbel_mode(mode)) + jnp.log(p_arr)
      ind = lax.top_k(g, n_draws)[1].astype(int)
    result = ind if arr.ndim == 0 else _take(arr, ind, axis)
  return result.reshape(shape if arr.ndim == 0 else
                        arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
  """Samples category indices from unnormalised log-probabilities ``logits`` along ``axis``
  (Gumbel-max trick; without replacement, Gumbel top-k)."""
  data = _key("categorical", key)
  logits_arr = jnp.asarray(logits)
  if not -logits_arr.ndim <= axis < logits_arr.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {logits_arr.ndim}")
  batch_shape = tuple(np.delete(np.array(logits_arr.shape, dtype=np.int64), axis).tolist())
  if shape is None:
    shape = batch_shape
  else:
    shape = core.canonicalize_shape(shape)
    _check_shape("categorical", shape, batch_shape)
  mode = _gumbel_mode(mode)
  shape_prefix = shape[:len(shape) - len(batch_shape)]
  if replace:
    if axis >= 0:
      axis -= logits_arr.ndim
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % logits_arr.ndim, logits_arr.shape[axis])
    noise = _gumbel(data, (*shape_prefix, *logits_shape), logits_arr.dtype, mode)
    expanded = lax.expand_dims(logits_arr, tuple(range(len(shape_prefix))))
    return jnp.argmax(noise + expanded, axis=axis)
  logits_arr = logits_arr + _gumbel(data, logits_arr.shape, logits_arr.dtype, mode)
  k = math.prod(shape_prefix)
  if k > logits_arr.shape[axis]:
    raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                     f"categories ({logits_arr.shape[axis]}).")
  _, indices = lax.top_k(jnp.moveaxis(logits_arr, axis, -1), k)
  dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
  return lax.reshape(indices, shape, dimensions)


# ---------------------------------------------------------------------------
# Gamma family (rejection sampling with while loops)


def _gamma_one(key, alpha, log_space):
  """One Marsaglia-Tsang gamma sample for one key and one scalar ``alpha`` (JAX's sampler; the
  ``random_gamma`` lowering vmaps it over all elements). Shapes below 1 are boosted:
  gamma(a) = gamma(a + 1) * U ** (1 / a)."""
  dtype = alpha.dtype
  zero, one = _const(dtype, 0), _const(dtype, 1)
  one_third = _const(dtype, 1. / 3.)
  boost_mask = lax.ge(alpha, one)
  alpha_orig = alpha
  alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
  d = lax.sub(alpha, one_third)
  c = lax.div(one_third, lax.sqrt(d))

  def reject(state):
    _, X, V, U = state
    return lax.bitwise_and(
        lax.ge(U, lax.sub(one, lax.mul(_const(dtype, 0.0331), lax.mul(X, X)))),
        lax.ge(lax.log(U), lax.add(lax.mul(X, _const(dtype, 0.5)),
                                   lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

  def propose(state):
    def next_normal(kxv):
      key, subkey = _split(kxv[0])
      x = _normal(subkey, (), dtype)
      return key, x, lax.add(one, lax.mul(x, c))

    key, x_key, u_key = _split(state[0], 3)
    _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_normal,
                         (x_key, zero, _const(dtype, -1)))
    X = lax.mul(x, x)
    V = lax.mul(lax.mul(v, v), v)
    U = _uniform(u_key, (), dtype)
    return key, X, V, U

  key, subkey = _split(key)
  _, _, V, _ = while_loop(reject, propose, (key, zero, one, _const(dtype, 2)))
  if log_space:
    log_samples = lax.neg(_exponential(subkey, (), dtype))
    log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)), zero,
                           lax.mul(log_samples, lax.div(one, alpha_orig)))
    return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
  samples = lax.sub(one, _uniform(subkey, (), dtype))
  boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
  return lax.mul(lax.mul(d, V), boost)


def _gamma(key_data, a, shape, dtype, log_space=False):
  if shape is None:
    shape = _shape_of(a)
  else:
    _check_shape("gamma", shape, _shape_of(a))
  return _gamma_jit(key_data, a, tuple(shape), np.dtype(dtype), log_space)


def _gamma_impl(key_data, a, shape, dtype, log_space):
  a = _convert(a, dtype)
  if _shape_of(a) != tuple(shape):
    a = jnp.broadcast_to(a, shape)
  return random_gamma_p.bind(key_data, a, log_space=log_space)


# A jit with the shape parameter as an argument, as JAX's: XLA then sees alpha as an operand of
# the sampler (it does not fold it into the loop's constants), which keeps the bits JAX's.
_gamma_jit = _compiled(_gamma_impl, (2, 3, 4), "_gamma")


# random_gamma: gamma samples for keys ``key<fry>[*K]`` and shapes ``a`` of shape (*K, *S) (each
# key gives the samples of its (*S) block), one rejection loop per element, as JAX's
# ``random_gamma`` primitive. Its lowering is JAX's vmapped sampler, inlined.

random_gamma_p = core.Primitive("random_gamma")


def _random_gamma_abstract_eval(keys, a, *, log_space):
  return a


def _random_gamma_lax(keys, a, *, log_space):
  """The samples: each key split into one key per element of its block, then every element's
  Marsaglia-Tsang loop run at once (what vmapping JAX's one-element sampler gives)."""
  a_shape = _shape_of(a)
  key_shape = _shape_of(keys)
  num_keys = math.prod(key_shape)
  per_key = math.prod(a_shape[len(key_shape):])
  if num_keys * per_key == 0:
    return lax.full_like(a, 0)
  flat_keys = lax.reshape(keys, (num_keys,))
  split_keys = prng.random_split_p.bind(flat_keys, shape=(per_key,))
  split_keys = lax.reshape(split_keys, (num_keys * per_key,))
  alphas = lax.reshape(a, (num_keys * per_key,))
  samples = vmap_api.vmap(lambda k, alpha: _gamma_one(k, alpha, log_space))(split_keys, alphas)
  return lax.reshape(samples, a_shape)


def _random_gamma_batcher(values, dims, *, log_space):
  size = next(core.get_aval(x).shape[d] for x, d in zip(values, dims) if d is not None)
  keys, a = (batching.bdim_at_front(x, d, size) for x, d in zip(values, dims))
  return random_gamma_p.bind(keys, a, log_space=log_space), 0


def _gamma_grad(sample, a, log_space):
  """d sample / d a (implicit reparameterization), one element at a time with ``lax.map``
  as JAX does on CPU."""
  a_shape = _shape_of(a)
  samples = lax.reshape(sample, (math.prod(a_shape),))
  alphas = lax.reshape(a, (math.prod(a_shape),))
  if log_space:
    # d log(x) = dx / x; exp(log x) may round to zero: then the smallest normal float
    samples = lax.exp(samples)
    tiny = lax.full_like(samples, dtypes.finfo(samples.dtype).tiny)
    samples = lax.select(lax.eq(samples, _const(samples.dtype, 0)), tiny, samples)

    def one_grad(args):
      alpha, x = args
      return lax.div(lax.random_gamma_grad(alpha, x), x)
  else:
    def one_grad(args):
      return lax.random_gamma_grad(*args)
  return lax.reshape(lax_loops.map(one_grad, (alphas, samples)), a_shape)


def _random_gamma_jvp(primals, tangents, *, log_space):
  (keys, a), (_, a_dot) = primals, tangents
  sample = random_gamma_p.bind(keys, a, log_space=log_space)
  if type(a_dot) is ad.Zero:
    return sample, ad.Zero.from_primal_value(sample)
  return sample, lax.mul(a_dot, _gamma_grad(sample, a, log_space))


random_gamma_p.def_abstract_eval(_random_gamma_abstract_eval)
mlir.register(random_gamma_p, mlir.lower_fun(_random_gamma_lax))
mlir.extended_dtype_rules.add(random_gamma_p)  # the rule takes the keys as keys
batching.primitive_batchers[random_gamma_p] = _random_gamma_batcher
ad.primitive_jvps[random_gamma_p] = _random_gamma_jvp


def gamma(key, a, shape=None, dtype=None):
  """Samples the gamma distribution with shape ``a`` (unit scale)."""
  data = _key("gamma", key)
  dtype = _float_dtype("gamma", dtype)
  return _gamma(data, a, _canonical_shape(shape), dtype)


def loggamma(key, a, shape=None, dtype=None):
  """Samples the log of gamma(``a``) variates (accurate for small ``a``)."""
  data = _key("loggamma", key)
  dtype = _float_dtype("gamma", dtype)
  return _gamma(data, a, _canonical_shape(shape), dtype, log_space=True)


def _check_broadcast_shapes(name, shape, *params):
  if shape is None:
    return tuple(jnp.broadcast_shapes(*(_shape_of(p) for p in params)))
  shape = core.canonicalize_shape(shape)
  _check_shape(name, shape, *(_shape_of(p) for p in params))
  return shape


def beta(key, a, b, shape=None, dtype=None):
  """Samples the beta distribution with parameters ``a`` and ``b``."""
  data = _key("beta", key)
  dtype = _float_dtype("beta", dtype)
  return _beta_jit(data, a, b, _canonical_shape(shape), dtype)


def _beta_impl(key_data, a, b, shape, dtype):
  shape = _check_broadcast_shapes("beta", shape, a, b)
  a = _convert(a, dtype)
  b = _convert(b, dtype)
  key_a, key_b = _split(key_data)
  a = jnp.broadcast_to(a, shape)
  b = jnp.broadcast_to(b, shape)
  log_gamma_a = _gamma(key_a, a, shape, dtype, log_space=True)
  log_gamma_b = _gamma(key_b, b, shape, dtype, log_space=True)
  log_max = lax.max(log_gamma_a, log_gamma_b)
  gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
  gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
  return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


_beta_jit = _compiled(_beta_impl, (3, 4), "_beta")


def _softmax_last(x):
  unnormalized = jnp.exp(x - lax.stop_gradient(
      jnp.max(x, axis=-1, keepdims=True, initial=-np.inf)))
  return unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)


def dirichlet(key, alpha, shape=None, dtype=None):
  """Samples the Dirichlet distribution with concentrations ``alpha`` (last axis)."""
  data = _key("dirichlet", key)
  dtype = _float_dtype("dirichlet", dtype)
  return _dirichlet_jit(data, alpha, _canonical_shape(shape), dtype)


def _dirichlet_impl(key_data, alpha, shape, dtype):
  alpha_shape = _shape_of(alpha)
  if not len(alpha_shape) >= 1:
    raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}")
  if shape is None:
    shape = alpha_shape[:-1]
  else:
    _check_shape("dirichlet", shape, alpha_shape[:-1])
  alpha = _convert(alpha, dtype)
  log_gamma_samples = _gamma(key_data, alpha, tuple(shape) + alpha_shape[-1:], dtype,
                             log_space=True)
  return _softmax_last(log_gamma_samples)


_dirichlet_jit = _compiled(_dirichlet_impl, (2, 3), "_dirichlet")


def t(key, df, shape=None, dtype=None):
  """Samples Student's t distribution with ``df`` degrees of freedom."""
  data = _key("t", key)
  dtype = _float_dtype("t", dtype)
  shape = _canonical_shape(shape)
  if shape is None:
    shape = _shape_of(df)
  else:
    _check_shape("t", shape, _shape_of(df))
  return _t_jit(data, df, shape, dtype)


def _t_impl(key_data, df, shape, dtype):
  df = _convert(df, dtype)
  key_n, key_g = _split(key_data)
  n = _normal(key_n, shape, dtype)
  half_df = lax.div(df, _const(dtype, 2))
  g = _gamma(key_g, half_df, shape, dtype)
  return n * jnp.sqrt(half_df / g)


_t_jit = _compiled(_t_impl, (2, 3), "_t")


def chisquare(key, df, shape=None, dtype=None):
  """Samples the chi-squared distribution with ``df`` degrees of freedom."""
  data = _key("chisquare", key)
  dtype = _float_dtype("chisquare", dtype)
  shape = _check_broadcast_shapes("chisquare", shape, df)
  return _chisquare(data, df, shape, dtype)


def _chisquare_impl(key_data, df, shape, dtype):
  df = _convert(df, dtype)
  half_df = lax.div(df, _const(dtype, 2))
  log_g = _gamma(key_data, half_df, shape, dtype, log_space=True)
  return lax.mul(jnp.exp(log_g), _const(dtype, 2))


_chisquare_jit = _compiled(_chisquare_impl, (2, 3), "_chisquare")


def _chisquare(key_data, df, shape, dtype):
  return _chisquare_jit(key_data, df, tuple(shape), np.dtype(dtype))


def f(key, dfnum, dfden, shape=None, dtype=None):
  """Samples the F distribution with ``dfnum`` and ``dfden`` degrees of freedom."""
  data = _key("f", key)
  dtype = _float_dtype("f", dtype)
  shape = _check_broadcast_shapes("f", shape, dfnum, dfden)
  return _f_jit(data, dfnum, dfden, tuple(shape), dtype)


def _f_impl(key_data, dfnum, dfden, shape, dtype):
  dfden = _convert(dfden, dtype)
  dfnum = _convert(dfnum, dtype)
  key_dfd, key_dfn = _split(key_data)
  chi2_dfn = _chisquare(key_dfn, dfnum, shape, dtype)
  chi2_dfd = _chisquare(key_dfd, dfden, shape, dtype)
  return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


_f_jit = _compiled(_f_impl, (3, 4), "_f")


def generalized_normal(key, p, shape=(), dtype=None):
  """Samples the generalised normal distribution with exponent ``p``."""
  data = _key("generalized_normal", key)
  dtype = _float_dtype("generalized_normal", dtype)
  shape = core.canonicalize_shape(shape)
  _check_shape("generalized_normal", shape, _shape_of(p))
  return _generalized_normal(data, p, shape, dtype)


def _generalized_normal_impl(key_data, p, shape, dtype):
  keys_ = prng.random_split_p.bind(key_data, shape=(2,))
  g = _gamma(keys_[0], 1 / p, shape, dtype)
  r = rademacher(keys_[1], shape, dtype)
  return r * g ** (1 / p)


_generalized_normal_jit = _compiled(_generalized_normal_impl, (2, 3), "_generalized_normal")


def _generalized_normal(key_data, p, shape, dtype):
  return _generalized_normal_jit(key_data, p, tuple(shape), np.dtype(dtype))


def ball(key, d: int, p: float = 2, shape=(), dtype=None):
  """Samples uniformly from the unit ``p``-norm ball in ``d`` dimensions."""
  data = _key("ball", key)
  dtype = _float_dtype("ball", dtype)
  shape = core.canonicalize_shape(shape)
  d = core.concrete_or_error(int, d, "The error occurred in jax.random.ball()")
  return _ball_jit(data, d, p, shape, dtype)


def _ball_impl(key_data, d, p, shape, dtype):
  k1, k2 = _split(key_data)
  g = _generalized_normal(k1, p, (*shape, d), dtype)
  e = _exponential(k2, shape, dtype)
  return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


_ball_jit = _compiled(_ball_impl, (1, 3, 4), "_ball")


# ---------------------------------------------------------------------------
# Poisson and binomial


def _poisson_knuth(key_data, lam, shape, dtype, max_iters):
  def body_fn(carry):
    i, k, rng, log_prod = carry
    rng, subkey = _split(rng)
    k = lax.select(log_prod > -lam, k + 1, k)
    u = _uniform(subkey, shape, np.float32)
    return i + 1, k, rng, log_prod + jnp.log(u)

  def cond_fn(carry):
    i, log_prod = carry[0], carry[3]
    return jnp.any(log_prod > -lam) & (i < max_iters)

  k_init = jnp.zeros(shape, dtype)
  log_rate_init = jnp.zeros(shape, np.float32)
  k = while_loop(cond_fn, body_fn, (jnp.asarray(0), k_init, key_data, log_rate_init))[1]
  return (k - 1).astype(dtype)


_poisson_knuth_jit = _compiled(_poisson_knuth, (2, 3, 4), "_poisson_knuth")


def _poisson_rejection(key_data, lam, shape, dtype, max_iters):
  log_lam = lax.log(lam)
  b = 0.931 + 2.53 * lax.sqrt(lam)
  a = -0.059 + 0.02483 * b
  inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
  v_r = 0.9277 - 3.6224 / (b - 2)

  def body_fn(carry):
    i, k_out, accepted, key = carry
    key, subkey_0, subkey_1 = _split(key, 3)
    u = _uniform(subkey_0, shape, lam.dtype) - 0.5
    v = _uniform(subkey_1, shape, lam.dtype)
    u_shifted = 0.5 - abs(u)
    k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
    s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
    t_ = -lam + k * log_lam - lax.lgamma(k + 1)
    accept1 = (u_shifted >= 0.07) & (v <= v_r)
    reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
    accept2 = s <= t_
    accept = accept1 | (~reject & accept2)
    k_out = lax.select(accept, k, k_out)
    accepted = accepted | accept
    return i + 1, k_out, accepted, key

  def cond_fn(carry):
    i, _, accepted, _ = carry
    return jnp.any(~accepted) & (i < max_iters)

  k_init = jnp.full(shape, -1, lam.dtype)
  accepted = jnp.full(shape, False, bool)
  k = while_loop(cond_fn, body_fn, (jnp.asarray(0), k_init, accepted, key_data))[1]
  return k.astype(dtype)


_poisson_rejection_jit = _compiled(_poisson_rejection, (2, 3, 4), "_poisson_rejection")


def poisson(key, lam, shape=None, dtype=int):
  """Samples the Poisson distribution with rate ``lam`` (Knuth's method below 10, else
  transformed rejection)."""
  data = _key("poisson", key)
  dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
  shape = core.canonicalize_shape(shape) if shape is not None else _shape_of(lam)
  lam = jnp.broadcast_to(lam, shape)
  lam = _convert(lam, np.float32)
  return _poisson_jit(data, lam, tuple(shape), np.dtype(dtype))


def _poisson_impl(key_data, lam, shape, dtype):
  use_knuth = jnp.isnan(lam) | (lam < 10)
  lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
  lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
  max_iters = dtype.type(dtypes.iinfo(dtype).max)
  result = lax.select(use_knuth,
                      _poisson_knuth_jit(key_data, lam_knuth, shape, dtype, max_iters),
                      _poisson_rejection_jit(key_data, lam_rejection, shape, dtype, max_iters))
  return lax.select(lam == 0, jnp.zeros_like(result), result)


_poisson_jit = _compiled(_poisson_impl, (2, 3), "_poisson")


_STIRLING_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287]


def _stirling_approx_tail(k):
  tail = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
  use_tail_values = k <= 9
  k = lax.clamp(_const(k.dtype, 0.0), k, _const(k.dtype, 9.0))
  kp1sq = (k + 1) * (k + 1)
  approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
  k = jnp.floor(k)
  return lax.select(use_tail_values, tail[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion(key_data, count, prob, shape, dtype, max_iters):
  log1minusprob = jnp.log1p(-prob)

  def body_fn(carry):
    i, num_geom, geom_sum, key = carry
    subkey, key = _split(key)
    num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
    u = _uniform(subkey, shape, prob.dtype)
    geom = jnp.ceil(jnp.log(u) / log1minusprob)
    geom_sum = geom_sum + geom
    return i + 1, num_geom_out, geom_sum, key

  def cond_fn(carry):
    i, geom_sum = carry[0], carry[2]
    return jnp.any(geom_sum <= count) & (i < max_iters)

  init = (jnp.asarray(0), jnp.zeros(shape, prob.dtype), jnp.zeros(shape, prob.dtype), key_data)
  k = while_loop(cond_fn, body_fn, init)[1]
  return (k - 1).astype(dtype)


def _btrs(key_data, count, prob, shape, dtype, max_iters):
  stddev = jnp.sqrt(count * prob * (1 - prob))
  b = 1.15 + 2.53 * stddev
  a = -0.0873 + 0.0248 * b + 0.01 * prob
  c = count * prob + 0.5
  v_r = 0.92 - 4.2 / b
  r = prob / (1 - prob)
  alpha = (2.83 + 5.1 / b) * stddev
  m = jnp.floor((count + 1) * prob)

  def body_fn(carry):
    i, k_out, accepted, key = carry
    key, subkey_0, subkey_1 = _split(key, 3)
    u = _uniform(subkey_0, shape, prob.dtype)
    v = _uniform(subkey_1, shape, prob.dtype)
    u = u - 0.5
    us = 0.5 - jnp.abs(u)
    accept1 = (us >= 0.07) & (v <= v_r)
    k = jnp.floor((2 * a / us + b) * u + c)
    reject = (k < 0) | (k > count)
    v = jnp.log(v * alpha / (a / (us * us) + b))
    ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
          + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
          + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
          + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
          - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
    accept2 = v <= ub
    accept = accept1 | (~reject & accept2)
    k_out = lax.select(accept, k, k_out)
    accepted = accepted | accept
    return i + 1, k_out, accepted, key

  def cond_fn(carry):
    i, accepted = carry[0], carry[2]
    return jnp.any(~accepted) & (i < max_iters)

  init = (jnp.asarray(0), jnp.full(shape, -1, prob.dtype), jnp.full(shape, False, bool), key_data)
  return while_loop(cond_fn, body_fn, init)[1].astype(dtype)


def binomial(key, n, p, shape=None, dtype=None):
  """Samples the binomial distribution with ``n`` trials of success probability ``p``."""
  data = _key("binomial", key)
  dtype = _float_dtype("binomial", dtype)
  shape = _check_broadcast_shapes("binomial", shape, n, p)
  prob = jnp.asarray(p)
  if not dtypes.issubdtype(prob.dtype, np.inexact):
    prob = prob.astype(dtypes.canonicalize_dtype(float))
  count = _convert(n, prob.dtype)
  count = jnp.broadcast_to(count, shape)
  prob = jnp.broadcast_to(prob, shape)
  p_lt_half = prob < 0.5
  q = lax.select(p_lt_half, prob, 1.0 - prob)
  count_nan_or_neg = jnp.isnan(count) | (count < 0.0)
  count_inf = jnp.isinf(count)
  q_is_nan = jnp.isnan(q)
  q_l_0 = q < 0.0
  q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
  use_inversion = count_nan_or_neg | (count * q <= 10.0)
  count = jnp.floor(count)
  count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
  count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
  q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
  max_iters = dtype.type(dtypes.finfo(dtype).max)
  samples = lax.select(use_inversion,
                       _binomial_inversion(data, count_inv, q, shape, dtype, max_iters),
                       _btrs(data, count_btrs, q_btrs, shape, dtype, max_iters))
  invalid = q_l_0 | q_is_nan | count_nan_or_neg
  samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
  samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, np.inf, dtype), samples)
  return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                    count.astype(dtype) - samples)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
  """Samples the multinomial distribution (``jax.random.multinomial``): ``n`` trials over the
  categories of the last axis of ``p`` (probabilities, which should sum to 1).

  As in JAX, the counts are drawn one category at a time in a ``lax.scan``: each category's
  count is a binomial draw from the trials left, with the category's share of the remaining
  probability, so the samples are JAX's for the same key. ``shape`` (default ``p.shape``) must
  end with the number of categories; ``n`` broadcasts against ``shape[:-1]``.
  """
  data = _key("multinomial", key)
  # JAX casts the float counts to any requested dtype (int32 included).
  dtype = dtypes.canonicalize_dtype(float if dtype is None else dtype)
  n = jnp.asarray(n)
  p = jnp.asarray(p)
  inexact = jnp.promote_types(n.dtype, p.dtype)
  if not dtypes.issubdtype(inexact, np.inexact):
    inexact = dtypes.canonicalize_dtype(float)
  # asarray converts concrete counts right away (JAX folds that conversion: no equation)
  n, p = jnp.asarray(n, inexact), jnp.asarray(p, inexact)
  if p.ndim < 1:
    raise ValueError(f"multinomial: p must have at least one dimension (the categories), "
                     f"got shape {p.shape}")
  shape = p.shape if shape is None else _canonical_shape(shape)
  n = jnp.broadcast_to(n, shape[:-1])
  p = jnp.broadcast_to(p, shape)

  def draw(remainder, ratio_and_key):
    ratio, subkey = ratio_and_key
    count = binomial(subkey, remainder, jnp.clip(ratio, min=0, max=1), dtype=remainder.dtype)
    return remainder - count, count

  p = jnp.moveaxis(p, -1, 0)
  remaining = lax.cumsum(p, 0, reverse=True)
  ratios = p / jnp.where(remaining == 0, 1, remaining)
  subkeys = keys.split(key, ratios.shape[0])
  del data
  _, counts = lax.scan(draw, n, (ratios, subkeys), unroll=unroll)
  return jnp.moveaxis(counts, 0, -1).astype(dtype)


# ---------------------------------------------------------------------------
# Samplers that need linear algebra


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky"):
  """Samples the multivariate normal with ``mean`` (..., n) and covariance ``cov``
  (..., n, n), factoring ``cov`` by ``method`` ('cholesky', 'svd' or 'eigh')."""
  data = _key("multivariate_normal", key)
  mean = jnp.asarray(mean)
  cov = jnp.asarray(cov)
  inexact = jnp.promote_types(jnp.promote_types(mean.dtype, cov.dtype), jnp.float32) \
      if not (dtypes.issubdtype(mean.dtype, np.inexact) and dtypes.issubdtype(
          cov.dtype, np.inexact)) else jnp.promote_types(mean.dtype, cov.dtype)
  mean, cov = mean.astype(inexact), cov.astype(inexact)
  if method not in {"svd", "eigh", "cholesky"}:
    raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
  dtype = mean.dtype if dtype is None else _float_dtype("multivariate_normal", dtype)
  if not dtypes.issubdtype(dtype, np.floating):
    raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
  shape = _canonical_shape(shape)
  if not mean.ndim >= 1:
    raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
  if not cov.ndim >= 2:
    raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
  n = mean.shape[-1]
  if cov.shape[-2:] != (n, n):
    raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but "
                     f"got cov.shape == {cov.shape}.")
  if shape is None:
    shape = tuple(jnp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
  else:
    _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
  return _multivariate_normal_jit(data, mean, cov, tuple(shape), dtype, method)


def _multivariate_normal_impl(key_data, mean, cov, shape, dtype, method):
  if method == "svd":
    u, s, _ = jnp.linalg.svd(cov)
    factor = u * jnp.sqrt(s[..., None, :])
  elif method == "eigh":
    w, v = jnp.linalg.eigh(cov)
    factor = v * jnp.sqrt(w[..., None, :])
  else:
    factor = jnp.linalg.cholesky(cov)
  samples = _normal(key_data, tuple(shape) + mean.shape[-1:], dtype)
  return mean + jnp.einsum("...ij,...j->...i", factor, samples)


_multivariate_normal_jit = _compiled(_multivariate_normal_impl, (3, 4, 5), "_multivariate_normal")


def orthogonal(key, n: int, shape=(), dtype=None, m: int | None = None):
  """Samples uniformly from the orthogonal group O(n) (or n x m matrices with orthonormal
  columns or rows), by QR of a Gaussian matrix with JAX's sign correction."""
  data = _key("orthogonal", key)
  dtype = _float_dtype("orthogonal", dtype, allow_complex=True)
  shape = core.canonicalize_shape(shape)
  n = core.concrete_or_error(int, n, "The error occurred in jax.random.orthogonal()")
  m = n if m is None else core.concrete_or_error(int, m, "The error occurred in jax.random.orthogonal()")
  return _orthogonal_jit(data, n, shape, dtype, m)


def _orthogonal_impl(key_data, n, shape, dtype, m):
  z = _normal(key_data, (*shape, max(n, m), min(n, m)), dtype)
  q, r = jnp.linalg.qr(z)
  d = jnp.diagonal(r, axis1=-2, axis2=-1)
  x = q * jnp.expand_dims(jnp.sign(d), -2)
  return jnp.swapaxes(x, -1, -2) if n < m else x


_orthogonal_jit = _compiled(_orthogonal_impl, (1, 2, 3, 4), "_orthogonal")


__all__ = ["uniform", "normal", "truncated_normal", "bernoulli", "categorical", "randint",
           "choice", "permutation", "shuffle", "gumbel", "exponential", "laplace", "logistic",
           "cauchy", "gamma", "beta", "dirichlet", "poisson", "binomial", "multinomial", "multivariate_normal",
           "rademacher", "ball", "orthogonal", "t", "chisquare", "f", "lognormal", "pareto",
           "weibull_min", "generalized_normal", "maxwell", "double_sided_maxwell", "loggamma",
           "geometric", "triangular", "rayleigh", "wald"]
