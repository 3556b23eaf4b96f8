"""``axle.nn.initializers``: parameter initializers (JAX's ``jax.nn.initializers``).

An initializer is a function ``init(key, shape, dtype=None) -> Array``. The random ones draw
with ``axle.random`` exactly as JAX's do (same distribution calls, in the same order, with the
same scaling arithmetic), so the same key gives the same parameters as in JAX.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import numpy as jnp
from axle._src.random import distributions
from axle._src.random import keys

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]



@runtime_checkable
class Initializer(Protocol):
  """The type of an initializer: ``init(key, shape, dtype=None) -> Array``."""

  def __call__(self, key, shape, dtype=None, out_sharding=None) -> Any:
    ...


def _dtype(dtype):
  return dtypes.default_float_dtype() if dtype is None else dtype


def _check_sharding(out_sharding) -> None:
  if out_sharding is not None:
    raise NotImplementedError("axle.nn.initializers: out_sharding is not supported (axle runs on "
                              "one device); pass out_sharding=None.")


def zeros(key, shape, dtype=None, out_sharding=None):
  """An initializer returning zeros (``key`` is ignored)."""
  _check_sharding(out_sharding)
  return jnp.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
  """An initializer returning ones (``key`` is ignored)."""
  _check_sharding(out_sharding)
  return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None) -> Initializer:
  """An initializer returning arrays filled with ``value`` (``key`` is ignored)."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    return jnp.full(shape, value, dtype=_dtype(dtype))
  return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
  """An initializer drawing uniformly from ``[0, scale)``."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    dtype = _dtype(dtype)
    return distributions.uniform(key, shape, dtype) * jnp.array(scale, dtype)
  return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
  """An initializer drawing from a normal distribution with mean 0 and std ``stddev``."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    dtype = _dtype(dtype)
    return distributions.normal(key, shape, dtype) * jnp.array(stddev, dtype)
  return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
  """An initializer drawing from a standard normal truncated to ``(lower, upper)``, times
  ``stddev`` (no variance correction is applied)."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    dtype = _dtype(dtype)
    return distributions.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
  return init


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
  """(fan_in, fan_out) of a weight shape: the sizes of the input and output axes, each times
  the receptive field (the product of the axes that are neither input, output nor batch)."""
  if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
    raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
                     "tensor with default in_axis. Must be at least 2D or specify in_axis "
                     "explicitly.")
  def size(axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)
  in_size, out_size, batch_size = size(in_axis), size(out_axis), size(batch_axis)
  receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
  return in_size * receptive_field_size, out_size * receptive_field_size


def _real_dtype(dtype):
  return np.array(0, dtype).real.dtype


def _complex_uniform(key, shape, dtype):
  """Uniform on the complex unit-variance disk (radius sqrt(2))."""
  key_r, key_theta = keys.split(key)
  real_dtype = _real_dtype(dtype)
  dtype = dtypes.to_complex_dtype(real_dtype)
  r = jnp.sqrt(2 * distributions.uniform(key_r, shape, real_dtype)).astype(dtype)
  theta = 2 * np.pi * distributions.uniform(key_theta, shape, real_dtype).astype(dtype)
  return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
  """Complex normal with unit variance before truncation, modulus truncated to ``upper``."""
  key_r, key_theta = keys.split(key)
  real_dtype = _real_dtype(dtype)
  dtype = dtypes.to_complex_dtype(real_dtype)
  t = ((1 - jnp.exp(jnp.array(-(upper ** 2), dtype)))
       * distributions.uniform(key_r, shape, real_dtype).astype(dtype))
  r = jnp.sqrt(-jnp.log(1 - t))
  theta = 2 * np.pi * distributions.uniform(key_theta, shape, real_dtype).astype(dtype)
  return r * jnp.exp(1j * theta)


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1,
                     batch_axis=(), dtype=None) -> Initializer:
  """An initializer with variance ``scale / n``, ``n`` the fan given by ``mode`` ("fan_in",
  "fan_out", "fan_avg" or "fan_geo_avg") computed from the weight shape with ``in_axis``,
  ``out_axis`` and ``batch_axis``. ``distribution`` is "truncated_normal" (truncated at 2
  standard deviations, rescaled to keep the variance), "normal" or "uniform" (a disk for
  complex dtypes)."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    shape = core.canonicalize_shape(shape)
    dtype = _dtype(dtype)
    fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
    if mode == "fan_in":
      denominator = fan_in
    elif mode == "fan_out":
      denominator = fan_out
    elif mode == "fan_avg":
      denominator = (fan_in + fan_out) / 2
    elif mode == "fan_geo_avg":
      denominator = (fan_in * fan_out) ** 0.5
    else:
      raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    variance = jnp.array(scale / denominator, dtype=dtype)
    if distribution == "truncated_normal":
      if dtypes.issubdtype(dtype, np.floating):
        # 0.8796... is the std of a unit normal truncated to (-2, 2)
        stddev = jnp.sqrt(variance) / jnp.array(0.87962566103423978, dtype)
        return distributions.truncated_normal(key, -2, 2, shape, dtype) * stddev
      stddev = jnp.sqrt(variance) / jnp.array(0.95311164380491208, dtype)
      return _complex_truncated_normal(key, 2, shape, dtype) * stddev
    if distribution == "normal":
      return distributions.normal(key, shape, dtype) * jnp.sqrt(variance)
    if distribution == "uniform":
      if dtypes.issubdtype(dtype, np.floating):
        return distributions.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
      return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
    raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
  return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """Glorot (Xavier) uniform: ``variance_scaling(1.0, "fan_avg", "uniform")``."""
  return variance_scaling(1.0, "fan_avg", "uniform", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """Glorot (Xavier) normal: ``variance_scaling(1.0, "fan_avg", "truncated_normal")``."""
  return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """LeCun uniform: ``variance_scaling(1.0, "fan_in", "uniform")``."""
  return variance_scaling(1.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """LeCun normal: ``variance_scaling(1.0, "fan_in", "truncated_normal")``."""
  return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """He (Kaiming) uniform: ``variance_scaling(2.0, "fan_in", "uniform")``."""
  return variance_scaling(2.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
  """He (Kaiming) normal: ``variance_scaling(2.0, "fan_in", "truncated_normal")``."""
  return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis=in_axis, out_axis=out_axis,
                          batch_axis=batch_axis, dtype=dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
  """An initializer of (semi-)orthogonal matrices, uniformly distributed (Haar): the weight
  reshaped to ``(prod(other axes), shape[column_axis])`` has orthonormal rows or columns,
  whichever are fewer; times ``scale``."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    dtype = _dtype(dtype)
    shape = core.canonicalize_shape(shape)
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a 2D shape")
    if any(dim == 0 for dim in shape):
      return jnp.zeros(shape, dtype=dtype)
    n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
    q = distributions.orthogonal(key, n_rows, (), dtype, n_cols)
    q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (shape[column_axis],))
    q = jnp.moveaxis(q, -1, column_axis)
    return jnp.array(scale, dtype) * q
  return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None) -> Initializer:
  """An initializer of delta-orthogonal convolution kernels (3-D, 4-D or 5-D shapes): zero
  except at the spatial centre, which holds an orthogonal ``(in, out)`` matrix (needs
  ``in <= out``)."""
  def init(key, shape, dtype=dtype, out_sharding=None):
    _check_sharding(out_sharding)
    dtype = _dtype(dtype)
    shape = core.canonicalize_shape(shape)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    return jnp.zeros(shape, dtype=dtype).at[centre].set(ortho)
  return init
