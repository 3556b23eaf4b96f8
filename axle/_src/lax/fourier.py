"""The ``fft`` primitive: fast Fourier transforms over the trailing ``len(fft_lengths)`` axes.

``fft_type`` is one of ``FftType.FFT`` (complex -> complex), ``IFFT`` (its inverse, scaled by
1/N), ``RFFT`` (real -> complex, the last axis shrinks to n//2 + 1) and ``IRFFT`` (its inverse,
the last axis grows back to ``fft_lengths[-1]``). At most three axes, as XLA. The eager kernel is
``numpy.fft`` (single precision stays single precision); the lowering is ``stablehlo.fft``.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import structural

__all__ = ["fft", "fft_p", "FftType"]


class FftType(enum.IntEnum):
  """The kind of transform ``lax.fft`` computes (``lax.FftType``)."""
  FFT = 0
  IFFT = 1
  RFFT = 2
  IRFFT = 3


def _real_dtype(dtype) -> np.dtype:
  return np.finfo(np.dtype(dtype)).dtype


def _complex_dtype(dtype) -> np.dtype:
  return np.dtype(np.complex128 if _real_dtype(dtype) == np.float64 else np.complex64)


fft_p = core.Primitive("fft")


def _fft_rule(x: ShapedArray, *, fft_type, fft_lengths) -> ShapedArray:
  fft_type = FftType(fft_type)
  k = len(fft_lengths)
  if not 1 <= k <= 3:
    raise ValueError(f"fft_lengths must have between 1 and 3 entries, got {fft_lengths}.")
  if len(x.shape) < k:
    raise ValueError(f"FFT input shape {x.shape} must have at least as many input dimensions "
                     f"as fft_lengths {tuple(fft_lengths)}.")
  if fft_type == FftType.RFFT:
    if dtypes.issubdtype(x.dtype, np.complexfloating) or x.dtype not in (np.float32, np.float64):
      raise ValueError("only real valued inputs supported for rfft")
    if x.shape[-k:] != tuple(fft_lengths):
      raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                       f"fft_lengths {tuple(fft_lengths)}")
    return ShapedArray(x.shape[:-1] + (fft_lengths[-1] // 2 + 1,), _complex_dtype(x.dtype))
  if x.dtype not in (np.complex64, np.complex128):
    raise TypeError(f"{fft_type.name} requires complex64 or complex128 input, got {x.dtype.name}.")
  if fft_type == FftType.IRFFT:
    expected = tuple(fft_lengths[:-1]) + (fft_lengths[-1] // 2 + 1,)
    if x.shape[-k:] != expected:
      raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to "
                       f"{expected} (fft_lengths {tuple(fft_lengths)} with the last one n // 2 + 1)")
    return ShapedArray(x.shape[:-1] + (fft_lengths[-1],), _real_dtype(x.dtype))
  if x.shape[-k:] != tuple(fft_lengths):
    raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                     f"fft_lengths {tuple(fft_lengths)}")
  return ShapedArray(x.shape, x.dtype)


fft_p.def_abstract_eval(_fft_rule)


def _fft_impl(x, *, fft_type, fft_lengths):
  fft_type = FftType(fft_type)
  k = len(fft_lengths)
  axes = tuple(range(x.ndim - k, x.ndim))
  out_aval = _fft_rule(ShapedArray(x.shape, x.dtype), fft_type=fft_type, fft_lengths=fft_lengths)
  if 0 in x.shape or 0 in fft_lengths:
    return np.zeros(out_aval.shape, out_aval.dtype)
  if fft_type == FftType.FFT:
    out = np.fft.fftn(x, axes=axes)
  elif fft_type == FftType.IFFT:
    out = np.fft.ifftn(x, axes=axes)
  elif fft_type == FftType.RFFT:
    out = np.fft.rfftn(x, axes=axes)
  else:
    out = np.fft.irfftn(x, s=tuple(fft_lengths), axes=axes)
  return np.asarray(out, out_aval.dtype)


fft_p.def_impl(_fft_impl)


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
  out_aval = ctx.avals_out[0]
  if 0 in ctx.avals_in[0].shape or 0 in fft_lengths:
    return mlir.full_like_aval(ctx, 0, out_aval)
  return mlir.op(ctx, "stablehlo.fft", [x], out_aval,
                 {"fft_type": f"#stablehlo<fft_type {FftType(fft_type).name}>",
                  "fft_length": mlir.dense_array(fft_lengths)})


mlir.register(fft_p, _fft_lowering)
ir.pp_param_rules[fft_p] = lambda params: {**params, "fft_type": str(int(params["fft_type"]))}


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
  fft_type = FftType(fft_type)
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  if fft_type in (FftType.FFT, FftType.IFFT):
    # the DFT matrix is symmetric: the transpose of a (inverse) DFT is itself
    return [_fft_staged(ct, fft_type, fft_lengths)]
  if fft_type == FftType.RFFT:
    # RFFT = (full FFT of the real input) truncated to n//2+1: transpose by zero-padding the
    # cotangent back to n, transposing the FFT, and keeping the real part.
    n = fft_lengths[-1]
    width = core.get_aval(ct).shape[-1]
    nd = len(core.get_aval(ct).shape)
    padded = structural.pad(ct, np.zeros((), core.get_aval(ct).dtype),
                            [(0, 0, 0)] * (nd - 1) + [(0, n - width, 0)])
    full = fft_p.bind(padded, fft_type=FftType.FFT, fft_lengths=fft_lengths)
    return [elementwise.real(full)]
  # IRFFT: x (half spectrum) -> real signal. Its transpose is an RFFT of the cotangent scaled by
  # 1/N, with the bins that stand for two conjugate frequencies counted twice, conjugated (JAX's
  # convention for complex cotangents).
  out = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
  aval = core.get_aval(out)
  width = aval.shape[-1]
  odd = fft_lengths[-1] % 2
  mask = np.full((width,), 2.0)
  mask[0] = 1.0
  if not odd:
    mask[-1] = 1.0
  scale = (mask / math.prod(fft_lengths)).astype(aval.dtype)
  return [elementwise.conj(elementwise.mul(out, structural.broadcast_in_dim(np.asarray(scale), aval.shape,
                                                                            (len(aval.shape) - 1,))))]


ad.deflinear2(fft_p, _fft_transpose)


def _fft_batch(batched_args, batch_dims, *, fft_type, fft_lengths):
  (x,), (bdim,) = batched_args, batch_dims
  if bdim != 0:
    nd = len(core.get_aval(x).shape)
    x = structural.transpose(x, (bdim,) + tuple(i for i in range(nd) if i != bdim))
  return _fft_staged(x, fft_type, fft_lengths), 0  # staged again, as JAX's rule calls lax.fft


batching.primitive_batchers[fft_p] = _fft_batch


def _canonicalize_fft_type(fft_type) -> FftType:
  if isinstance(fft_type, str):
    try:
      return FftType[fft_type.upper()]
    except KeyError:
      raise ValueError(f"Unknown FFT type {fft_type!r}; expected one of 'fft', 'ifft', 'rfft', "
                       "'irfft' or a lax.FftType.") from None
  return FftType(fft_type)


def fft(x, fft_type, fft_lengths):
  """Fast Fourier transform over the trailing ``len(fft_lengths)`` axes (``lax.fft``).

  ``fft_type`` is a ``lax.FftType`` or its name ('fft', 'ifft', 'rfft', 'irfft'). FFT and IFFT
  inputs are converted to complex; RFFT takes a real input."""
  return _fft_staged(x, _canonicalize_fft_type(fft_type), tuple(int(n) for n in fft_lengths))


def _fft_staged(x, fft_type, fft_lengths):
  dtype = core.get_aval(x).dtype
  if fft_type == FftType.RFFT:
    if not dtypes.issubdtype(dtype, np.inexact):  # integers and booleans: their float type
      x = elementwise.convert_element_type(
          x, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype)))
  elif dtype not in (np.complex64, np.complex128):
    x = elementwise.convert_element_type(
        x, dtypes.canonicalize_dtype(dtypes.to_complex_dtype(dtype)))
  return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)


# JAX stages lax.fft as its own jit equation named ``fft``.
_fft_staged.__name__ = _fft_staged.__qualname__ = "fft"
_fft_staged = api.jit_when_tracing(_fft_staged, static_argnums=(1, 2))
