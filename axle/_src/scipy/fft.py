"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse (``dct``, ``idct``,
``dctn``, ``idctn``), as ``scipy.fft`` defines them; only ``type=2`` exists, as in JAX.

``dct`` uses the FFT of the even/odd-interleaved input (Makhoul's method); ``idct`` multiplies by
the DCT-III cosine matrix (O(n^2) along the axis, exact to float rounding, not JAX's bits).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from axle._src import numpy as jnp
from axle._src.numpy import fft as jnp_fft

_NORMS = (None, "backward", "ortho")


def _check(type: int, norm, name: str) -> None:
  if type != 2:
    raise NotImplementedError(f"{name}: only type=2 is implemented (as in JAX), got type={type}.")
  if norm not in _NORMS:
    raise ValueError(f"{name}: norm must be None, 'backward' or 'ortho', got {norm!r}.")


def _resize(x, n, axis: int):
  """Truncates or zero-pads ``x`` along ``axis`` to length ``n`` (SciPy's ``n=``)."""
  if n is None or n == x.shape[axis]:
    return x
  if n < 1:
    raise ValueError(f"dct/idct: n must be at least 1, got n={n}.")
  if n < x.shape[axis]:
    return jnp.take(x, jnp.arange(n), axis=axis)
  pad = [(0, 0)] * x.ndim
  pad[axis] = (0, n - x.shape[axis])
  return jnp.pad(x, pad)


def _along(vector, ndim: int, axis: int):
  shape = [1] * ndim
  shape[axis] = -1
  return jnp.reshape(vector, shape)


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
  """Discrete cosine transform of ``x`` along ``axis`` (SciPy's ``scipy.fft.dct``, type 2):
  ``y[k] = 2 * sum_n x[n] cos(pi k (2n+1) / (2N))``, scaled to be orthonormal with ``norm="ortho"``."""
  _check(type, norm, "dct")
  x = jnp.asarray(x)
  axis = axis % x.ndim
  x = _resize(x, n, axis)
  size = x.shape[axis]
  evens = jnp.take(x, jnp.arange(0, size, 2), axis=axis)
  odds_reversed = jnp.flip(jnp.take(x, jnp.arange(1, size, 2), axis=axis), axis=axis)
  spectrum = jnp_fft.fft(jnp.concatenate([evens, odds_reversed], axis=axis), axis=axis)
  k = jnp.arange(size, dtype=spectrum.real.dtype)
  twiddle = jnp.exp(-0.5j * math.pi * k / size)
  out = 2 * (spectrum * _along(twiddle, x.ndim, axis)).real
  if norm == "ortho":
    scale = np.full(size, 1 / math.sqrt(2 * size))
    scale[0] = 1 / math.sqrt(4 * size)
    out = out * _along(jnp.asarray(scale, out.dtype), x.ndim, axis)
  return out


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
  """The inverse of :func:`dct` along ``axis`` (SciPy's ``scipy.fft.idct``, type 2)."""
  _check(type, norm, "idct")
  x = jnp.asarray(x)
  axis = axis % x.ndim
  x = _resize(x, n, axis)
  size = x.shape[axis]
  weights = np.full(size, 1 / size) if norm != "ortho" else np.full(size, math.sqrt(2 / size))
  weights[0] = 1 / (2 * size) if norm != "ortho" else math.sqrt(1 / size)
  k = np.arange(size)[:, None]
  samples = np.arange(size)[None, :]
  basis = weights[:, None] * np.cos(math.pi * k * (2 * samples + 1) / (2 * size))
  dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
  moved = jnp.moveaxis(x.astype(dtype), axis, -1)
  out = jnp.matmul(moved, jnp.asarray(basis, dtype))
  return jnp.moveaxis(out, -1, axis)


def _axes_of(x, s, axes):
  if axes is None:
    axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
  axes = list(axes)
  sizes = [None] * len(axes) if s is None else list(s)
  if len(sizes) != len(axes):
    raise ValueError(f"dctn/idctn: s and axes must have the same length, got s={s}, axes={axes}.")
  return axes, sizes


def dctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
  """:func:`dct` over several axes (all by default)."""
  x = jnp.asarray(x)
  for axis, size in zip(*_axes_of(x, s, axes)):
    x = dct(x, type=type, n=size, axis=axis, norm=norm)
  return x


def idctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
  """:func:`idct` over several axes (all by default)."""
  x = jnp.asarray(x)
  for axis, size in zip(*_axes_of(x, s, axes)):
    x = idct(x, type=type, n=size, axis=axis, norm=norm)
  return x
