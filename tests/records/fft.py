"""Op records for the fft primitive (all four types, 1-3 axes) against numpy.fft."""
from __future__ import annotations

import numpy as np

from axle import lax
from tests.op_record import OpRecord, random_array


def _cast(x, like):
  return np.asarray(x).astype(like)


RECORDS = []
for lengths in ((5,), (3, 4), (2, 3, 4)):
  axes = tuple(range(-len(lengths), 0))
  k = len(lengths)
  half = lengths[:-1] + (lengths[-1] // 2 + 1,)
  for dtype, cdtype, tol in ((np.complex64, np.complex64, 1e-5),):  # 64-bit needs x64
    real = np.float32 if dtype == np.complex64 else np.float64
    tag = f"{np.dtype(dtype).name}_{k}d"
    RECORDS += [
        OpRecord(f"fft_{tag}", "fft", lambda x, l=lengths: lax.fft(x, lax.FftType.FFT, l),
                 lambda x, a=axes, c=cdtype: _cast(np.fft.fftn(x, axes=a), c),
                 lambda rng, l=lengths, d=dtype: [random_array(rng, (2,) + l, d)], rtol=tol, atol=tol * 10),
        OpRecord(f"ifft_{tag}", "fft", lambda x, l=lengths: lax.fft(x, lax.FftType.IFFT, l),
                 lambda x, a=axes, c=cdtype: _cast(np.fft.ifftn(x, axes=a), c),
                 lambda rng, l=lengths, d=dtype: [random_array(rng, (2,) + l, d)], rtol=tol, atol=tol * 10),
        OpRecord(f"rfft_{tag}", "fft", lambda x, l=lengths: lax.fft(x, lax.FftType.RFFT, l),
                 lambda x, a=axes, c=cdtype: _cast(np.fft.rfftn(x, axes=a), c),
                 lambda rng, l=lengths, r=real: [random_array(rng, (2,) + l, r)], rtol=tol, atol=tol * 10),
        OpRecord(f"irfft_{tag}", "fft", lambda x, l=lengths: lax.fft(x, lax.FftType.IRFFT, l),
                 lambda x, a=axes, l=lengths, r=real: _cast(np.fft.irfftn(x, s=l, axes=a), r),
                 lambda rng, h=half, d=dtype: [random_array(rng, (2,) + h, d)], rtol=tol, atol=tol * 10),
    ]
