"""``jax.numpy.fft``: NumPy's discrete Fourier transforms on top of ``lax.fft``.

The transformed axes are moved last, resized to the requested lengths (zero padding or
truncation), transformed by the ``fft`` primitive in groups of at most three axes, scaled per
``norm`` ("backward" default, "ortho", "forward") and moved back.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import structural as lax_structural
from axle._src.lax.fourier import FftType, fft as lax_fft
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import shape_ops
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.numpy.creation import asarray
from axle._src.numpy.lax_numpy import moveaxis

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

def _check_norm(norm):
  if norm is not None and norm not in ("backward", "ortho", "forward"):
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_nd_last(x, fft_type: FftType, lengths: tuple):
  """The transform over the trailing ``len(lengths)`` axes, splitting into groups of three."""
  k = len(lengths)
  if k <= 3:
    return lax_fft(x, fft_type, lengths)
  if fft_type == FftType.RFFT:
    inner = lax_fft(x, FftType.RFFT, lengths[-3:])
    return _fft_nd_last_leading(inner, FftType.FFT, lengths[:-3], 3)
  if fft_type == FftType.IRFFT:
    outer = _fft_nd_last_leading(x, FftType.IFFT, lengths[:-3], 3)
    return lax_fft(outer, FftType.IRFFT, lengths[-3:])
  inner = lax_fft(x, fft_type, lengths[-3:])
  return _fft_nd_last_leading(inner, fft_type, lengths[:-3], 3)


def _fft_nd_last_leading(x, fft_type, lengths, skip: int):
  """Transforms the ``len(lengths)`` axes that sit just before the last ``skip`` axes."""
  nd = len(core.get_aval(x).shape)
  k = len(lengths)
  axes = list(range(nd - skip - k, nd - skip))
  moved = moveaxis(x, axes, list(range(nd - k, nd)))
  out = _fft_nd_last(moved, fft_type, tuple(lengths))
  return moveaxis(out, list(range(nd - k, nd)), axes)


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
  full_name = f"jax.numpy.fft.{func_name}"
  util.check_arraylike(full_name, a)
  _check_norm(norm)
  arr = asarray(a)
  ndim = arr.ndim
  if s is not None:
    s = tuple(core.concrete_or_error(int, n, "The fft length argument must be static.") for n in s)
    if any(n < 1 for n in s):
      raise ValueError("Shape should be positive.")
  if axes is None:
    axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
  else:
    axes = tuple(util.canonicalize_axis(ax, ndim) for ax in axes)
  if len(set(axes)) != len(axes):
    raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
  if s is not None and len(s) != len(axes):
    raise ValueError(f"Shape and axes have different lengths: s={s}, axes={axes}.")
  if not axes:
    return arr
  dtype = arr.dtype
  if fft_type == FftType.RFFT:
    if dtypes.issubdtype(dtype, np.complexfloating):
      raise ValueError("only real valued inputs supported for rfft")
    target = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype))
    if target not in (np.float32, np.float64):
      raise ValueError(f"RFFT input must be float32 or float64, got {np.dtype(target).name}")
  # (lax.fft converts the input inside its jit equation, as JAX's does: eagerly one program)
  k = len(axes)
  last = tuple(range(ndim - k, ndim))
  moved = moveaxis(arr, axes, last) if axes != last else arr
  shape = core.get_aval(moved).shape
  if s is None:
    s = shape[-k:]
    if fft_type == FftType.IRFFT:
      s = s[:-1] + (2 * (s[-1] - 1),)
      if s[-1] < 1:
        raise ValueError(f"Invalid number of FFT data points ({s[-1]}) specified.")
  else:
    # As JAX: given lengths crop the moved axes, then pad them (a pad op even of width 0).
    sizes = list(shape)
    for i, n in enumerate(s):
      sizes[ndim - k + i] = n // 2 + 1 if fft_type == FftType.IRFFT and i == k - 1 else n
    limit = tuple(min(a, b) for a, b in zip(shape, sizes))
    if limit != tuple(shape):
      moved = lax_structural.slice(moved, (0,) * ndim, limit)
    moved = shape_ops.pad(moved, [(0, b - a) for a, b in zip(limit, sizes)])
  lengths = tuple(s)
  out = _fft_nd_last(moved, fft_type, lengths)
  out = _normalize(out, func_name, lengths, norm)
  return moveaxis(out, last, axes) if axes != last else out


def _normalize(x, func_name, lengths, norm):
  """``x`` scaled as JAX scales it: the product of the lengths as an array of ``x``'s dtype,
  computed at run time (its square root is complex for complex results). Functions named
  ``i...`` count as inverse transforms."""
  if norm is None or norm == "backward":
    return x
  n = reductions.prod(asarray(np.array(lengths), dtype=core.get_aval(x).dtype))
  inverse = func_name.startswith("i")
  if norm == "ortho":
    factor = ufuncs.sqrt(n) if inverse else ufuncs.divide(1, ufuncs.sqrt(n))
  else:  # "forward": the forward transform is scaled by 1/n, the inverse not at all
    factor = n if inverse else ufuncs.divide(1, n)
  return ufuncs.multiply(x, factor)


def _swap_norm(norm):
  return {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def fft(a, n=None, axis: int = -1, norm=None):
  """One-dimensional discrete Fourier transform along ``axis`` (``jnp.fft.fft``), the input
  truncated or zero-padded to ``n`` points."""
  return _fft_core("fft", FftType.FFT, a, None if n is None else (n,), (axis,), norm)


def ifft(a, n=None, axis: int = -1, norm=None):
  """One-dimensional inverse discrete Fourier transform (``jnp.fft.ifft``)."""
  return _fft_core("ifft", FftType.IFFT, a, None if n is None else (n,), (axis,), norm)


def rfft(a, n=None, axis: int = -1, norm=None):
  """One-dimensional DFT of a real input, non-negative frequencies only (``jnp.fft.rfft``)."""
  return _fft_core("rfft", FftType.RFFT, a, None if n is None else (n,), (axis,), norm)


def irfft(a, n=None, axis: int = -1, norm=None):
  """Inverse of ``rfft``: ``n`` real points (default ``2 * (m - 1)``) (``jnp.fft.irfft``)."""
  return _fft_core("irfft", FftType.IRFFT, a, None if n is None else (n,), (axis,), norm)


def hfft(a, n=None, axis: int = -1, norm=None):
  """DFT of a signal with Hermitian symmetry given by its first half: a real spectrum
  (``jnp.fft.hfft``)."""
  _check_norm(norm)
  util.check_arraylike("jax.numpy.fft.hfft", a)
  a = asarray(a)
  conj = ufuncs.conj(a)
  nn = (a.shape[axis] - 1) * 2 if n is None else n
  out = _fft_core("hfft", FftType.IRFFT, conj, None if n is None else (n,), (axis,), norm)
  return ufuncs.multiply(out, nn)


def ihfft(a, n=None, axis: int = -1, norm=None):
  """Inverse of ``hfft``: the first half of the Hermitian spectrum of a real signal
  (``jnp.fft.ihfft``)."""
  _check_norm(norm)
  util.check_arraylike("jax.numpy.fft.ihfft", a)
  a = asarray(a)
  nn = a.shape[axis] if n is None else n
  out = _fft_core("ihfft", FftType.RFFT, a, None if n is None else (n,), (axis,), norm)
  return ufuncs.multiply(ufuncs.conj(out), 1 / nn)


def fftn(a, s=None, axes=None, norm=None):
  """N-dimensional discrete Fourier transform over ``axes`` (default all, or the last
  ``len(s)``) (``jnp.fft.fftn``)."""
  return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
  """N-dimensional inverse DFT (``jnp.fft.ifftn``)."""
  return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
  """N-dimensional DFT of a real input; the last axis keeps non-negative frequencies
  (``jnp.fft.rfftn``)."""
  return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
  """Inverse of ``rfftn`` (``jnp.fft.irfftn``)."""
  return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _check_2d_axes(name, axes):
  if axes is not None and len(tuple(axes)) != 2:
    raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes={axes}.")


def fft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional DFT over ``axes`` (``jnp.fft.fft2``)."""
  _check_2d_axes("fft2", axes)
  return _fft_core("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional inverse DFT (``jnp.fft.ifft2``)."""
  _check_2d_axes("ifft2", axes)
  return _fft_core("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional DFT of a real input (``jnp.fft.rfft2``)."""
  _check_2d_axes("rfft2", axes)
  return _fft_core("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
  """Inverse of ``rfft2`` (``jnp.fft.irfft2``)."""
  _check_2d_axes("irfft2", axes)
  return _fft_core("irfft2", FftType.IRFFT, a, s, axes, norm)


def _freq_dtype(dtype):
  if dtype is None:
    return dtypes.default_float_dtype()
  dtypes.check_user_dtype_supported(dtype, "fftfreq")
  return dtypes.canonicalize_dtype(dtype)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
  """Sample frequencies of an ``n``-point DFT with sample spacing ``d``:
  ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)`` (``jnp.fft.fftfreq``)."""
  n = core.concrete_or_error(int, n, "The n argument of jnp.fft.fftfreq must be static.")
  dtype = _freq_dtype(dtype)
  if not dtypes.issubdtype(dtype, np.floating):
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(dtype)
    return lax_elementwise.div(asarray(k), lax_elementwise.mul(asarray(d, dtype=dtype), np.array(n, dtype)))
  # traced as JAX traces it: ((iota + n//2) mod n - n//2) / (d * n), d * n in Python for a
  # Python d
  k = ufuncs.add(lax_structural.iota(dtype, n), n // 2)
  k = ufuncs.subtract(ufuncs.remainder(k, n), n // 2)
  return ufuncs.divide(k, _freq_divisor(d, n))


def _freq_divisor(d, n):
  if isinstance(d, (int, float)) and not isinstance(d, bool):
    return d * n
  return lax_numpy.copy(ufuncs.multiply(d, n))


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
  """Sample frequencies of ``rfft``: ``[0, 1, ..., n//2] / (d * n)`` (``jnp.fft.rfftfreq``)."""
  n = core.concrete_or_error(int, n, "The n argument of jnp.fft.rfftfreq must be static.")
  dtype = _freq_dtype(dtype)
  if not dtypes.issubdtype(dtype, np.floating):
    k = np.arange(0, n // 2 + 1).astype(dtype)
    return lax_elementwise.div(asarray(k), lax_elementwise.mul(asarray(d, dtype=dtype), np.array(n, dtype)))
  return ufuncs.divide(lax_structural.iota(dtype, n // 2 + 1), _freq_divisor(d, n))


def _shift_axes(x, axes):
  if axes is None:
    return tuple(range(x.ndim))
  if isinstance(axes, int):
    axes = (axes,)
  return tuple(util.canonicalize_axis(ax, x.ndim) for ax in axes)


def fftshift(x, axes=None):
  """Moves the zero-frequency term to the centre (``jnp.fft.fftshift``)."""
  util.check_arraylike("jax.numpy.fft.fftshift", x)
  x = asarray(x)
  axes = _shift_axes(x, axes)
  return shape_ops.roll(x, [x.shape[ax] // 2 for ax in axes], axes)


def ifftshift(x, axes=None):
  """Inverse of ``fftshift`` (``jnp.fft.ifftshift``)."""
  util.check_arraylike("jax.numpy.fft.ifftshift", x)
  x = asarray(x)
  axes = _shift_axes(x, axes)
  return shape_ops.roll(x, [-(x.shape[ax] // 2) for ax in axes], axes)
