"""Polynomials, window functions, histograms, interpolation and phase unwrapping in
axle.numpy, written with the rest of jnp."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import control_flow
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import sorting as lax_sorting
from axle._src.lax import structural as lax_structural
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import linalg
from axle._src.numpy import reductions
from axle._src.numpy import selection
from axle._src.numpy import shape_ops
from axle._src.numpy import statistics
from axle._src.numpy import ufuncs
from axle._src.numpy import util

__all__ = ["poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyval",
           "polyfit", "roots", "bartlett", "blackman", "hamming", "hanning", "kaiser", "interp",
           "histogram", "histogram_bin_edges", "histogram2d", "histogramdd", "unwrap"]


# Shared argument helpers (numpy/util.py).
_shape = util.shape_of
_ndim = util.ndim_of
_dtype = util.dtype_of
_arr = creation.arraylike_operands



# ---------------------------------------------------------------------------
# Polynomials (coefficients highest power first, as NumPy's poly1d functions)


def _trim_leading_zeros(p):
  value = core.concrete_or_error(np.asarray, p, "Error arose in the `filt` argument of "
                                 "trim_zeros()")
  nz = np.nonzero(value)[0]
  return p[int(nz[0]):] if nz.size else p[:0]


def polyval(p, x, *, unroll: int = 16):
  """The polynomial with coefficients ``p`` evaluated at ``x`` by Horner's rule
  (``jnp.polyval``): as in JAX, a ``scan`` over the coefficients from 0, ``unroll`` steps per
  loop iteration."""
  p, x = _arr("polyval", p, x)
  return _polyval(p, x, unroll=unroll)


def _polyval_impl(p, x, *, unroll: int = 16):
  p, x = util.promote_dtypes(p, x)
  y = lax_structural.full_like(x, 0, shape=util.broadcast_shapes(_shape(p)[1:], _shape(x)))
  y, _ = control_flow.scan(lambda y, c: (ufuncs.add(ufuncs.multiply(y, x), c), None), y, p,
                           unroll=unroll)
  return y


_polyval_impl.__name__ = _polyval_impl.__qualname__ = "polyval"  # JAX's jit name
_polyval = util.jit_when_tracing(_polyval_impl, static_argnames=("unroll",))


@util.jit_when_tracing
def polyadd(a1, a2):
  """The sum of two polynomials (``jnp.polyadd``)."""
  a1, a2 = _arr("polyadd", a1, a2)
  a1, a2 = util.promote_dtypes(a1, a2)
  n1, n2 = _shape(a1)[0], _shape(a2)[0]
  # The shorter polynomial is added into the low-order end of the longer one.
  if n1 < n2:
    return a2.at[n2 - n1:].add(a1)
  return a1.at[n1 - n2:].add(a2)


@util.jit_when_tracing
def polysub(a1, a2):
  """The difference of two polynomials (``jnp.polysub``)."""
  a1, a2 = _arr("polysub", a1, a2)
  return polyadd(a1, ufuncs.negative(a2))


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
  """The product of two polynomials (``jnp.polymul``)."""
  a1, a2 = _arr("polymul", a1, a2)
  a1, a2 = util.promote_dtypes_inexact(a1, a2)
  if trim_leading_zeros and (_shape(a1)[0] > 1 or _shape(a2)[0] > 1):
    a1, a2 = _trim_leading_zeros(a1), _trim_leading_zeros(a2)
  if _shape(a1)[0] == 0:
    a1 = creation.asarray([0], dtype=_dtype(a2))
  if _shape(a2)[0] == 0:
    a2 = creation.asarray([0], dtype=_dtype(a1))
  return lax_numpy.convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros: bool = False):
  """Quotient and remainder of polynomial division (``jnp.polydiv``)."""
  u, v = _arr("polydiv", u, v)
  u, v = util.promote_dtypes_inexact(u, v)
  m, n = _shape(u)[0] - 1, _shape(v)[0] - 1
  scale = ufuncs.divide(1.0, v[0])
  q = creation.zeros((builtins.max(m - n + 1, 1),), _dtype(u))
  r = u
  for k in range(0, m - n + 1):
    d = ufuncs.multiply(scale, r[k])
    q = q.at[k].set(d)
    r = r.at[k:k + n + 1].add(ufuncs.multiply(ufuncs.negative(d), v))
  if trim_leading_zeros:
    r = _trim_leading_zeros(r)
  return q, r


@util.jit_when_tracing(static_argnames=("m",))
def polyder(p, m: int = 1):
  """The ``m``-th derivative of a polynomial (``jnp.polyder``)."""
  p = _arr("polyder", p)
  m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyder")
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  if m == 0:
    return p
  (p,) = util.promote_dtypes_inexact(p)
  n = _shape(p)[0]
  dtype = _dtype(p)
  # The falling factorials (k)(k-1)...(k-m+1) for k = m .. n-1: a product over an outer
  # difference, as JAX computes them.
  coeff = reductions.prod(lax_elementwise.sub(
      _row(creation.arange(m, n, dtype=dtype)), _column(creation.arange(m, dtype=dtype))), axis=0)
  return ufuncs.multiply(p[:-m], lax_structural.rev(coeff, (0,)))


def _row(x):
  return lax_structural.broadcast_in_dim(x, (1,) + _shape(x), (1,))


def _column(x):
  return lax_structural.broadcast_in_dim(x, _shape(x) + (1,), (0,))


@util.jit_when_tracing(static_argnames=("m",))
def polyint(p, m: int = 1, k=None):
  """The ``m``-th antiderivative of a polynomial with integration constants ``k``
  (``jnp.polyint``)."""
  p = _arr("polyint", p)
  m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  k = 0 if k is None else k
  util.check_arraylike("polyint", p, k)
  p, k = util.promote_dtypes_inexact(p, k)
  k = lax_numpy.atleast_1d(k)
  if _shape(k)[0] == 1:
    k = lax_structural.full((m,), k[0])
  if _shape(k)[0] != m:
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
  dtype = _dtype(p)
  # Divides by the rising products (j+1)(j+2)...(j+m) of each coefficient's power j.
  coeff = reductions.prod(ufuncs.maximum(1, lax_elementwise.sub(
      _row(creation.arange(_shape(p)[0] + m, dtype=dtype)),
      _column(creation.arange(m, dtype=dtype)))), axis=0)
  coeff = lax_structural.rev(coeff, (0,))
  return ufuncs.true_divide(lax_numpy.concatenate([p, k]), coeff)


def poly(seq_of_zeros):
  """The coefficients of the monic polynomial with the given roots; for a square matrix, of its
  characteristic polynomial (``jnp.poly``)."""
  seq = _arr("poly", seq_of_zeros)
  if _ndim(seq) == 2 and _shape(seq)[0] == _shape(seq)[1] and _shape(seq)[0] != 0:
    seq = linalg.eigvals(seq)
  elif _ndim(seq) == 1:
    pass
  elif _ndim(seq) == 0:
    seq = lax_numpy.reshape(seq, (1,))
  else:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  (seq,) = util.promote_dtypes_inexact(seq)
  a = creation.ones((1,), dtype=_dtype(seq))
  for i in range(_shape(seq)[0]):
    a = lax_numpy.convolve(a, creation.array([creation.ones((), _dtype(seq)), ufuncs.negative(seq[i])]),
                     mode="full")
  return a


@util.jit_when_tracing
def _roots_no_zeros(p):
  # The eigenvalues of the companion matrix.
  companion = shape_ops.diag(creation.ones((_shape(p)[0] - 2,), _dtype(p)), -1)
  companion = companion.at[0, :].set(ufuncs.divide(ufuncs.negative(p[1:]), p[0]))
  return linalg.eigvals(companion)


@util.jit_when_tracing
def _roots_with_zeros(p, num_leading_zeros):
  # Leading zeros are rotated to the end (an all-zero p becomes ones, to avoid NaNs); their
  # roots are found as zeros, sorted last and reported as NaN.
  p = lax_numpy.where(ufuncs.equal(num_leading_zeros, _shape(p)[0]), 1.0, p)
  p = shape_ops.roll(p, ufuncs.negative(num_leading_zeros))
  found = _roots_no_zeros(p)
  _, found = lax_sorting.sort_key_val(ufuncs.equal(found, 0), found)
  n = _shape(found)[0]
  return lax_numpy.where(ufuncs.less(creation.arange(n), ufuncs.subtract(n, num_leading_zeros)),
                         found, complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True):
  """The roots of a polynomial, as eigenvalues of its companion matrix (``jnp.roots``).

  With ``strip_zeros=False`` (needed under ``jit``) leading zeros give NaN roots."""
  util.check_arraylike("roots", p)
  p = lax_numpy.atleast_1d(_arr("roots", p))
  if _ndim(p) != 1:
    raise ValueError("Input must be a rank-1 array.")
  if _shape(p)[0] < 2:
    return creation.array([], dtype=dtypes.to_complex_dtype(_dtype(p)))
  if strip_zeros:
    value = core.concrete_or_error(np.asarray, p, "The error occurred in the jnp.roots() "
                                   "function. To use this within a JIT-compiled context, pass "
                                   "strip_zeros=False, but be aware that leading zeros will "
                                   "result in some returned roots being set to NaN.")
    nz = np.nonzero(value)[0]
    if nz.size == 0:
      return creation.array([], dtype=dtypes.to_complex_dtype(_dtype(p)))
    p = p[int(nz[0]):int(nz[-1]) + 1]
    num_trailing_zeros = value.size - 1 - int(nz[-1])
    (p,) = util.promote_dtypes_inexact(p)
    if _shape(p)[0] < 2:
      result = creation.array([], dtype=dtypes.to_complex_dtype(_dtype(p)))
    else:
      result = _roots_no_zeros(p)
    if num_trailing_zeros:
      result = lax_numpy.concatenate([result, creation.zeros((num_trailing_zeros,),
                                                             _dtype(result))])
    return result
  is_zero = ufuncs.equal(p, 0)
  num_leading_zeros = lax_numpy.where(reductions.all(is_zero), _shape(p)[0],
                                      reductions.argmin(ufuncs.equal(p, 0)))
  del is_zero
  return _roots_with_zeros(p, num_leading_zeros)


@util.jit_when_tracing(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
  """Least-squares polynomial fit of degree ``deg`` (``jnp.polyfit``)."""
  x, y = _arr("polyfit", x, y)
  deg = core.concrete_or_error(int, deg, "deg must be int")
  order = deg + 1
  if deg < 0:
    raise ValueError("expected deg >= 0")
  if _ndim(x) != 1:
    raise TypeError("expected 1D vector for x")
  if _shape(x)[0] == 0:
    raise TypeError("expected non-empty vector for x")
  if _ndim(y) < 1 or _ndim(y) > 2:
    raise TypeError("expected 1D or 2D array for y")
  if _shape(x)[0] != _shape(y)[0]:
    raise TypeError("expected x and y to have same length")
  x, y = util.promote_dtypes_inexact(x, y)
  if rcond is None:
    rcond = _shape(x)[0] * float(np.finfo(_dtype(x)).eps)
  lhs = shape_ops.vander(x, order)
  rhs = y
  if w is not None:
    (w,) = util.promote_dtypes_inexact(_arr("polyfit", w))
    if _ndim(w) != 1:
      raise TypeError("expected a 1-d array for weights")
    if _shape(w)[0] != _shape(y)[0]:
      raise TypeError("expected w and y to have the same length")
    lhs = ufuncs.multiply(lhs, w[:, None])
    rhs = ufuncs.multiply(rhs, w if _ndim(rhs) == 1 else w[:, None])
  scale = ufuncs.sqrt(reductions.sum(ufuncs.multiply(lhs, lhs), axis=0))
  lhs = ufuncs.divide(lhs, scale[None, :])
  c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
  c = ufuncs.divide(c.T, scale).T
  if full:
    return c, resids, rank, s, rcond
  if cov:
    Vbase = linalg.inv(lax_numpy.dot(lhs.T, lhs))
    Vbase = ufuncs.divide(Vbase, lax_numpy.outer(scale, scale))
    if cov == "unscaled":
      fac = 1
    else:
      if _shape(x)[0] <= order:
        raise ValueError("the number of data points must exceed order to scale the covariance "
                         "matrix")
      fac = ufuncs.divide(resids, _shape(x)[0] - order)
      fac = fac[0] if _ndim(y) == 1 else fac
    if _ndim(y) == 1:
      return c, ufuncs.multiply(Vbase, fac)
    return c, ufuncs.multiply(Vbase[:, :, None], fac)
  return c


# ---------------------------------------------------------------------------
# Window functions


def _window_length(name, M):
  return core.concrete_or_error(int, M, f"M argument of jnp.{name}")


def _window(name, M, formula):
  M = _window_length(name, M)
  dtype = dtypes.default_float_dtype()
  if M <= 1:
    return creation.ones(builtins.max(M, 0), dtype)
  n = lax_structural.iota(dtype, M)
  return lax_elementwise._convert_element_type(formula(n, M), dtype, False)


def bartlett(M):
  """The Bartlett (triangular) window of length ``M`` (``jnp.bartlett``)."""
  # JAX's order: 1 - |2n + 1 - M| / (M - 1).
  return _window("bartlett", M, lambda n, M: ufuncs.subtract(1, ufuncs.divide(ufuncs.abs(
      ufuncs.subtract(ufuncs.add(ufuncs.multiply(2, n), 1), M)), M - 1)))


def blackman(M):
  """The Blackman window of length ``M`` (``jnp.blackman``)."""
  return _window("blackman", M, lambda n, M: ufuncs.add(ufuncs.subtract(
      0.42, ufuncs.multiply(0.5, ufuncs.cos(ufuncs.divide(ufuncs.multiply(2 * np.pi, n), M - 1)))),
      ufuncs.multiply(0.08, ufuncs.cos(ufuncs.divide(ufuncs.multiply(4 * np.pi, n), M - 1)))))


def hamming(M):
  """The Hamming window of length ``M`` (``jnp.hamming``)."""
  return _window("hamming", M, lambda n, M: ufuncs.subtract(
      0.54, ufuncs.multiply(0.46, ufuncs.cos(ufuncs.divide(ufuncs.multiply(2 * np.pi, n), M - 1)))))


def hanning(M):
  """The Hann window of length ``M`` (``jnp.hanning``)."""
  # JAX's order: 0.5 * (1 - cos(2 pi n / (M - 1))).
  return _window("hanning", M, lambda n, M: ufuncs.multiply(0.5, ufuncs.subtract(
      1, ufuncs.cos(ufuncs.divide(ufuncs.multiply(2 * np.pi, n), M - 1)))))


def kaiser(M, beta):
  """The Kaiser window of length ``M`` and shape ``beta`` (``jnp.kaiser``)."""
  util.check_arraylike("kaiser", beta)

  def formula(n, M):
    alpha = 0.5 * (M - 1)
    ratio = ufuncs.divide(ufuncs.subtract(n, alpha), alpha)
    return ufuncs.divide(ufuncs.i0(ufuncs.multiply(beta, ufuncs.sqrt(ufuncs.subtract(1, ufuncs.power(
        ratio, 2))))), ufuncs.i0(beta))
  return _window("kaiser", M, formula)


# ---------------------------------------------------------------------------
# Interpolation and phase unwrapping


def interp(x, xp, fp, left=None, right=None, period=None):
  """Piecewise-linear interpolation of the points (``xp``, ``fp``) at ``x`` (``jnp.interp``)."""
  util.check_arraylike("interp", x, xp, fp)
  if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
    raise ValueError("xp and fp must be one-dimensional arrays of equal size")
  if period is not None and np.ndim(period) != 0:
    raise ValueError(f"period must be a scalar; got {period}")
  return _interp(x, xp, fp, left, right, period)


@util.jit_when_tracing
def _interp(x, xp, fp, left, right, period):
  x, xp = util.promote_dtypes_inexact(x, xp)
  (fp,) = util.promote_dtypes_inexact(fp)
  if period is not None:
    period = ufuncs.abs(period)
    x = ufuncs.remainder(x, period)
    xp = ufuncs.remainder(xp, period)
    xp, fp = lax_sorting.sort_key_val(xp, fp)
    xp = lax_numpy.concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = lax_numpy.concatenate([fp[-1:], fp, fp[:1]])
  n = _shape(xp)[0]
  i = lax_numpy.clip(selection.searchsorted(xp, x, side="right"), 1, n - 1)
  df = ufuncs.subtract(fp[i], fp[i - 1])
  dx = ufuncs.subtract(xp[i], xp[i - 1])
  delta = ufuncs.subtract(x, xp[i - 1])
  epsilon = np.spacing(np.finfo(_dtype(xp)).eps)
  dx0 = ufuncs.less_equal(ufuncs.abs(dx), epsilon)
  f = lax_numpy.where(dx0, fp[i - 1], ufuncs.add(fp[i - 1], ufuncs.multiply(
      ufuncs.divide(delta, lax_numpy.where(dx0, 1, dx)), df)))
  left_fill = fp[0] if left is None else left
  if period is None:
    f = lax_numpy.where(ufuncs.less(x, xp[0]), left_fill, f)
  right_fill = fp[-1] if right is None else right
  if period is None:
    f = lax_numpy.where(ufuncs.greater(x, xp[-1]), right_fill, f)
  return f


@util.jit_when_tracing(static_argnames=("axis",))
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
  """``p`` with jumps larger than ``discont`` replaced by their ``period`` complement
  (``jnp.unwrap``)."""
  p = _arr("unwrap", p)
  if _dtype(p).kind == "c":
    raise ValueError("jnp.unwrap does not support complex inputs.")
  (p,) = util.promote_dtypes_inexact(p)
  if _shape(p)[axis] == 0:
    return p
  period = creation.asarray(period, dtype=_dtype(p))
  discont = ufuncs.divide(period, 2) if discont is None else discont
  interval = ufuncs.divide(period, 2)
  dd = shape_ops.diff(p, axis=axis)
  ddmod = ufuncs.subtract(ufuncs.remainder(ufuncs.add(dd, interval), period), interval)
  # A jump of exactly half a period keeps its sign (NumPy's convention).
  ddmod = lax_numpy.where(ufuncs.logical_and(ufuncs.equal(ddmod, ufuncs.negative(interval)),
                                             ufuncs.greater(dd, 0)), interval, ddmod)
  ph_correct = lax_numpy.where(ufuncs.less(ufuncs.abs(dd), discont), 0, ufuncs.subtract(ddmod, dd))
  n = _shape(p)[axis]
  first = lax_structural.slice_in_dim(p, 0, 1, axis=axis)
  rest = lax_structural.slice_in_dim(p, 1, n, axis=axis)
  return lax_numpy.concatenate((first, ufuncs.add(rest, reductions.cumsum(ph_correct, axis=axis))),
                               axis=axis)


# ---------------------------------------------------------------------------
# Histograms


def histogram_bin_edges(a, bins=10, range=None, weights=None):
  """The bin edges ``histogram`` uses (``jnp.histogram_bin_edges``)."""
  if isinstance(bins, str):
    raise TypeError(f"asarray: expected ArrayLike, got {bins} of type {type(bins)}.")
  a = _arr("histogram_bin_edges", a)
  dtype = dtypes.to_inexact_dtype(_dtype(a))
  if np.ndim(bins) == 1:
    return creation.asarray(bins, dtype=dtype)
  bins = core.concrete_or_error(operator.index, bins, "bins argument of histogram_bin_edges")
  if range is None:
    if core.get_aval(a).size == 0:
      range = (0.0, 1.0)
    else:
      range = (reductions.min(a), reductions.max(a))
  if not (isinstance(range, (tuple, list)) and len(range) == 2) and np.shape(range) != (2,):
    raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
  range = creation.asarray(range, dtype=dtype)
  # An empty range widens to one unit around its value.
  lo = lax_numpy.where(ufuncs.equal(statistics._ptp(range), 0), ufuncs.subtract(range[0], 0.5),
                       range[0])
  hi = lax_numpy.where(ufuncs.equal(statistics._ptp(range), 0), ufuncs.add(range[1], 0.5),
                       range[1])
  return lax_numpy.linspace(lo, hi, bins + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):
  """Counts (or densities) of ``a`` in ``bins`` and the bin edges (``jnp.histogram``); the last
  bin includes its right edge."""
  a = _arr("histogram", a)
  if weights is None:
    weights = creation.ones_like(a)
  else:
    weights = _arr("histogram", weights)
    if _shape(weights) != _shape(a):
      raise ValueError("weights should have the same shape as a.")
  a, weights = util.promote_dtypes_inexact(a, weights)
  a, weights = lax_numpy.ravel(a), lax_numpy.ravel(weights)
  bin_edges = histogram_bin_edges(a, bins, range, weights)
  n_edges = _shape(bin_edges)[0]
  bin_idx = selection.searchsorted(bin_edges, a, side="right")
  bin_idx = lax_numpy.where(ufuncs.equal(a, bin_edges[-1]), n_edges - 1, bin_idx)
  counts = creation.zeros(n_edges, _dtype(weights)).at[bin_idx].add(weights)[1:]
  if density:
    bin_widths = shape_ops.diff(bin_edges)
    counts = ufuncs.divide(ufuncs.divide(counts, bin_widths), reductions.sum(counts))
  return counts, bin_edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
  """A multidimensional histogram of the (N, D) ``sample`` (``jnp.histogramdd``)."""
  sample = _arr("histogramdd", sample)
  if weights is not None:
    weights = _arr("histogramdd", weights)
    if _shape(weights) != _shape(sample)[:1]:
      raise ValueError("should have one weight for each sample.")
    sample, weights = util.promote_dtypes_inexact(sample, weights)
  else:
    (sample,) = util.promote_dtypes_inexact(sample)
  N, D = _shape(sample)
  if range is not None and (len(range) != D or any(r is not None and np.shape(r)[0] != 2
                                                   for r in range)):
    raise ValueError(f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs or Nones;"
                     f" got range={range}")
  try:
    num_bins = len(bins)
    if num_bins != D:
      raise ValueError("should be a bin for each dimension.")
  except TypeError:
    bins = D * [bins]
  bin_idx_by_dim = []
  edges_by_dim = []
  for i in builtins.range(D):
    range_i = None if range is None else range[i]
    edges = histogram_bin_edges(sample[:, i], bins[i], range_i, weights)
    bin_idx = selection.searchsorted(edges, sample[:, i], side="right")
    bin_idx = lax_numpy.where(ufuncs.equal(sample[:, i], edges[-1]), bin_idx - 1, bin_idx)
    bin_idx_by_dim.append(bin_idx)
    edges_by_dim.append(edges)
  nbins = tuple(_shape(e)[0] + 1 for e in edges_by_dim)
  dedges = [shape_ops.diff(e) for e in edges_by_dim]
  xy = shape_ops.ravel_multi_index(tuple(bin_idx_by_dim), nbins, mode="clip")
  hist = lax_numpy.bincount(xy, weights, length=int(np.prod(nbins)))
  hist = lax_numpy.reshape(hist, nbins)
  core_slice = D * (slice(1, -1),)
  hist = hist[core_slice]
  if density:
    hist = ufuncs.divide(hist, reductions.sum(hist))
    for norm in builtins.range(D):
      shape = np.ones(D, int)
      shape[norm] = len(dedges[norm]) if not hasattr(dedges[norm], "shape") else \
          _shape(dedges[norm])[0]
      hist = ufuncs.divide(hist, lax_numpy.reshape(dedges[norm], tuple(shape)))
  return hist, edges_by_dim


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
  """A two-dimensional histogram of the points (``x``, ``y``) (``jnp.histogram2d``)."""
  x, y = _arr("histogram2d", x, y)
  try:
    n = len(bins)
  except TypeError:
    n = 1
  if n not in (1, 2) or (n == 2 and np.ndim(bins) == 1 and not isinstance(bins, (list, tuple))):
    pass
  if n != 1 and n != 2:
    x_edges = y_edges = _arr("histogram2d", bins)
    bins = [x_edges, y_edges]
  sample = lax_numpy.transpose(creation.array([x, y]))
  hist, edges = histogramdd(sample, bins, range, weights, density)
  return hist, edges[0], edges[1]
