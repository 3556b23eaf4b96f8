"""Statistics in axle.numpy: var/std, the NaN-ignoring reductions, quantiles, averages.

All are compositions of the reductions in ``reductions.py`` and lax operations; dtypes follow
JAX (integer inputs give the default float, complex variances are real).
"""
from __future__ import annotations

import builtins

import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import sorting as lax_sorting
from axle._src.lax import slicing as lax_slicing
from axle._src.lax import special as lax_special
from axle._src.lax import structural as lax_structural
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import selection
from axle._src.numpy import ufuncs
from axle._src.numpy import util

__all__ = ["var", "std", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
           "nanargmax", "nanargmin", "nancumsum", "nancumprod", "median", "nanmedian", "quantile",
           "nanquantile", "percentile", "nanpercentile", "average", "ptp", "count_nonzero"]




def _operand(name, a):
  util.check_arraylike(name, a)
  return util.asarray_operand(a)


def _var_dtypes(a_dtype, dtype):
  """(computation dtype, result dtype) of var/std, as JAX picks them."""
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "var")
    dtype = dtypes.canonicalize_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.inexact):
      raise ValueError(f"dtype argument to jnp.var must be inexact; got {dtype}")
    return reductions._upcast_low_precision(dtype), dtype
  if not dtypes.issubdtype(a_dtype, np.inexact):
    result = dtypes.default_float_dtype()
    return result, result
  result = np.dtype(np.finfo(a_dtype).dtype) if a_dtype.kind == "c" else a_dtype
  return reductions._upcast_low_precision(a_dtype), result


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, *, where=None,
        correction=None):
  """Variance over ``axis`` with ``ddof`` (or ``correction``) degrees of freedom removed
  (``jnp.var``); complex inputs give a real variance."""
  if correction is None and where is None and out is None:
    result = _variance_shortcut(a, axis, dtype, ddof, keepdims, False)
    if result is not None:
      return result
  correction = _correction(ddof, correction)
  a = _operand("var", a)
  return _var(a, _hashable_axis(axis), dtype, out, correction, keepdims, where=where)


_c_variance = None if reductions._host_kernels is None else reductions._host_kernels.float32_variance


def _variance_shortcut(a, axis, dtype, ddof, keepdims, square_root: bool):
  """Eager ``jnp.var`` (``jnp.std`` with ``square_root``) of a float32 vector of 33 to 4095
  elements with a host value, as JAX's compiled program computes it (the C module's
  ``float32_variance``); None where that does not apply (the program runs)."""
  if _c_variance is None or type(ddof) is not int:
    return None
  value = reductions._host_vector(a, axis, keepdims)
  if value is None or value.dtype is not _F32 or not reductions._is_float32(dtype):
    return None
  n = value.shape[0]
  if not (32 < n < 4096 and 0 <= ddof < n):
    return None  # (up to 32 elements XLA fuses the squares into its loop: an order not modelled)
  result = _c_variance(value, reductions.reciprocal_of(n), float(n - ddof), square_root)
  return None if result is None else reductions._host_result(_float32(result), _F32, keepdims)


_F32 = np.dtype(np.float32)
_float32 = np.float32


def _correction(ddof, correction):
  """The degrees of freedom removed: ``correction`` (the Array API name) or else ``ddof``."""
  if correction is None:
    return ddof
  if not isinstance(ddof, int) or ddof != 0:
    raise ValueError("ddof and correction can't be provided simultaneously.")
  return correction


def _hashable_axis(axis):
  return tuple(axis) if isinstance(axis, list) else axis


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def _var(a, axis, dtype, out, correction, keepdims, *, where):
  aval = core.get_aval(a)
  compute_dtype, result_dtype = _var_dtypes(aval.dtype, dtype)
  a = lax_elementwise._convert_element_type(a, compute_dtype, False)
  axes = util.canonicalize_axes(axis, aval.ndim)
  centered = lax_elementwise.sub(a, reductions.mean(a, axes, keepdims=True, where=where))
  if compute_dtype.kind == "c":
    centered = lax_elementwise.real(lax_elementwise.mul(centered, lax_elementwise.conj(centered)))
  else:
    centered = lax_elementwise.square(centered)
  real_dtype = np.dtype(centered.dtype)
  if where is None:
    count = 1
    for i in axes:
      count *= aval.shape[i]
    normalizer = lax_elementwise._convert_element_type(count, real_dtype, False)
  else:
    normalizer = lax_elementwise._convert_element_type(
        reductions._where_count(where, aval.shape, axes, keepdims), real_dtype, False)
  normalizer = lax_elementwise.sub(normalizer, lax_elementwise._convert_element_type(correction, real_dtype, False))
  total = reductions.sum(centered, axes, keepdims=keepdims, where=where)
  result = lax_elementwise.div(total, normalizer)
  # No degrees of freedom left: NaN (a constant, so its forward derivative is 0, as JAX's).
  positive = lax_elementwise.gt(normalizer, lax_elementwise._convert_element_type(0, real_dtype, False))
  result = lax_numpy.where(positive, result, np.nan)
  return lax_elementwise._convert_element_type(result, result_dtype, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, *, where=None,
        correction=None):
  """Standard deviation: the square root of ``var`` (``jnp.std``)."""
  if correction is None and where is None and out is None:
    result = _variance_shortcut(a, axis, dtype, ddof, keepdims, True)
    if result is not None:
      return result
  correction = _correction(ddof, correction)
  a = _operand("std", a)
  return _std(a, _hashable_axis(axis), dtype, out, correction, keepdims, where=where)


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def _std(a, axis, dtype, out, correction, keepdims, *, where):
  return lax_special.sqrt(var(a, axis, dtype, out, correction=correction, keepdims=keepdims, where=where))


def _nan_masked(name, a, fill):
  """``a`` with NaNs replaced by ``fill`` (inexact ``a`` only) and the NaN mask (or None)."""
  a = _operand(name, a)
  if not dtypes.issubdtype(core.get_aval(a).dtype, np.inexact):
    return a, None
  mask = ufuncs.isnan(a)
  return lax_numpy.where(mask, fill, a), mask


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Sum treating NaNs as zero (``jnp.nansum``)."""
  a = _nan_filled("nansum", a, 0)
  return reductions.sum(a, axis, dtype, keepdims=keepdims, initial=initial, where=where)


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Product treating NaNs as one (``jnp.nanprod``)."""
  a = _nan_filled("nanprod", a, 1)
  return reductions.prod(a, axis, dtype, keepdims=keepdims, initial=initial, where=where)


def _nan_extremum(name, reduce, a, axis, keepdims, initial, where):
  a = _operand(name, a)
  if not dtypes.issubdtype(core.get_aval(a).dtype, np.inexact):
    return reduce(a, axis, keepdims=keepdims, initial=initial, where=where)
  out = reduce(_nan_filled(name, a, -np.inf if name == "nanmax" else np.inf), axis,
               keepdims=keepdims, initial=initial, where=where)
  # JAX tests for NaN again here (and ignores ``where`` for the all-NaN test).
  all_nan = reductions.all(ufuncs.isnan(a), axis, keepdims=keepdims)
  return ufuncs._where(all_nan, lax_elementwise._convert_element_type(np.nan, np.dtype(core.get_aval(a).dtype), False), out)


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Maximum ignoring NaNs; NaN where a slice is all NaN (``jnp.nanmax``)."""
  return _nan_extremum("nanmax", reductions.max, a, axis, keepdims, initial, where)


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Minimum ignoring NaNs; NaN where a slice is all NaN (``jnp.nanmin``)."""
  return _nan_extremum("nanmin", reductions.min, a, axis, keepdims, initial, where)


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
  """Mean of the non-NaN elements (``jnp.nanmean``)."""
  a = _operand("nanmean", a)
  aval = core.get_aval(a)
  if not dtypes.issubdtype(aval.dtype, np.inexact):
    return reductions.mean(a, axis, dtype, keepdims=keepdims, where=where)
  if dtype is None:
    dtype = aval.dtype
  not_nan = ufuncs.logical_not(ufuncs.isnan(a))
  count = reductions.sum(_as_default_int(not_nan), axis, dtype=dtype, keepdims=keepdims,
                         where=where)
  total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
  return ufuncs.divide(total, count)


def _as_default_int(mask):
  # JAX sums booleans into a float dtype through the default integer type.
  return lax_elementwise._convert_element_type(mask, dtypes.default_int_dtype(), False)


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, where=None):
  """Variance of the non-NaN elements (``jnp.nanvar``)."""
  a = _operand("nanvar", a)
  aval = core.get_aval(a)
  compute_dtype, result_dtype = _var_dtypes(aval.dtype, dtype)
  a = lax_elementwise._convert_element_type(a, compute_dtype, False)
  mean = nanmean(a, axis, dtype=compute_dtype, keepdims=True, where=where)
  centered = lax_numpy.where(ufuncs.isnan(a), 0, lax_elementwise.sub(a, mean))
  if compute_dtype.kind == "c":
    centered = lax_elementwise.real(lax_elementwise.mul(centered, lax_elementwise.conj(centered)))
  else:
    centered = lax_elementwise.square(centered)
  normalizer = reductions.sum(ufuncs.logical_not(ufuncs.isnan(a)), axis, keepdims=keepdims,
                              where=where)
  normalizer = ufuncs.subtract(normalizer, ddof)
  empty = lax_elementwise.le(normalizer, np.zeros((), core.get_aval(normalizer).dtype))
  total = reductions.sum(centered, axis, keepdims=keepdims, where=where)
  total = lax_numpy.where(empty, np.nan, total)
  divisor = lax_numpy.where(empty, 1, normalizer)
  result = lax_elementwise.div(total, lax_elementwise._convert_element_type(
      divisor, core.get_aval(total).dtype, False))
  return lax_elementwise._convert_element_type(result, result_dtype, False)


@util.jit_when_tracing(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, where=None):
  """Standard deviation of the non-NaN elements (``jnp.nanstd``)."""
  return lax_special.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where=where))


def _nan_arg(name, arg_fn, fill, a, axis, keepdims):
  a = _operand(name, a)
  if not dtypes.issubdtype(core.get_aval(a).dtype, np.inexact):
    return arg_fn(a, axis, keepdims=keepdims)
  mask = ufuncs.isnan(a)
  out = arg_fn(lax_numpy.where(mask, fill, a), axis, keepdims=keepdims)
  return lax_numpy.where(reductions.all(mask, axis, keepdims=keepdims), -1, out)


def nanargmax(a, axis=None, out=None, keepdims=None):
  """Index of the maximum ignoring NaNs; -1 where a slice is all NaN (``jnp.nanargmax``)."""
  util.check_arraylike("nanargmax", a)
  return _nanargmax(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
  """Index of the minimum ignoring NaNs; -1 where a slice is all NaN (``jnp.nanargmin``)."""
  util.check_arraylike("nanargmin", a)
  return _nanargmin(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def _nanargmax(a, axis=None, keepdims: bool = False):
  return _nan_arg("nanargmax", reductions.argmax, -np.inf, a, axis, keepdims)


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def _nanargmin(a, axis=None, keepdims: bool = False):
  return _nan_arg("nanargmin", reductions.argmin, np.inf, a, axis, keepdims)


@util.jit_when_tracing(static_argnames=("axis", "dtype"))
def nancumsum(a, axis=None, dtype=None, out=None):
  """Cumulative sum treating NaNs as zero (``jnp.nancumsum``)."""
  a = _nan_filled("nancumsum", a, 0)
  return reductions._cumsum("nancumsum", a, axis, dtype)


@util.jit_when_tracing(static_argnames=("axis", "dtype"))
def nancumprod(a, axis=None, dtype=None, out=None):
  """Cumulative product treating NaNs as one (``jnp.nancumprod``)."""
  a = _nan_filled("nancumprod", a, 1)
  return reductions._cumprod("nancumprod", a, axis, dtype)


def _nan_filled(name, a, fill):
  """``a`` with NaNs replaced by ``fill`` given in ``a``'s dtype (inexact ``a`` only)."""
  a = _operand(name, a)
  if not dtypes.issubdtype(core.get_aval(a).dtype, np.inexact):
    return a
  fill = lax_elementwise._convert_element_type(fill, np.dtype(core.get_aval(a).dtype), False)
  return ufuncs._where(ufuncs.isnan(a), fill, a)


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, a, q, axis, method, keepdims, squash_nans):
  # JAX's steps: sort along the axis, then read the two neighbours of each quantile's position
  # (with one gather each, or NumPy-style indexing when NaNs are dropped) and weight them.
  util.check_arraylike(name, a, q)
  if method not in _QUANTILE_METHODS:
    raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
                     "'inverted_cdf'")
  a, = util.promote_dtypes_inexact(a)
  q, = util.promote_dtypes_inexact(q)
  if dtypes.issubdtype(core.get_aval(a).dtype, np.complexfloating):
    raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
  a_shape = core.get_aval(a).shape
  keep_shape = None
  if axis is None:
    if keepdims:
      keep_shape = (1,) * len(a_shape)
    a = lax_numpy.ravel(a)
    axis = 0
  elif isinstance(axis, (tuple, list)):
    axes = util.canonicalize_axes(axis, len(a_shape))
    if keepdims:
      keep_shape = tuple(1 if i in axes else d for i, d in enumerate(a_shape))
    kept = [i for i in range(len(a_shape)) if i not in axes]
    reduced = int(np.prod([a_shape[i] for i in axes], dtype=np.int64))
    a = lax_structural.reshape(a, tuple(a_shape[i] for i in kept) + (reduced,),
                               tuple(kept) + tuple(axes))
    axis = len(kept)
  else:
    axis = util.canonicalize_axis(axis, len(a_shape))
  q_shape = core.get_aval(q).shape
  q_ndim = len(q_shape)
  if q_ndim > 1:
    raise ValueError(f"q must be have rank <= 1, got shape {q_shape}")
  a_shape = core.get_aval(a).shape
  q_dtype = core.get_aval(q).dtype

  def const(value):
    return np.array(value, q_dtype)

  if squash_nans:
    a = ufuncs._where(ufuncs.isnan(a), np.nan, a)
    a = lax_sorting.sort(a, dimension=axis)
    # JAX sums booleans into a float dtype through the default integer type.
    not_nan = lax_elementwise._convert_element_type(ufuncs.logical_not(ufuncs.isnan(a)),
                                                    dtypes.default_int_dtype(), False)
    counts = reductions.sum(not_nan, axis=axis, dtype=q_dtype, keepdims=keepdims)
    reduced_shape = core.get_aval(counts).shape
    q = lax_structural.expand_dims(q, tuple(range(q_ndim, len(reduced_shape) + q_ndim)))
    counts = lax_structural.expand_dims(counts, tuple(range(q_ndim)))
    q = lax_elementwise.mul(q, lax_elementwise.sub(counts, const(1)))
    low, high = lax_elementwise.floor(q), lax_elementwise.ceil(q)
    high_weight = lax_elementwise.sub(q, low)
    low_weight = lax_elementwise.sub(const(1), high_weight)
    low = lax_elementwise.max(const(0), lax_elementwise.min(low, lax_elementwise.sub(counts, const(1))))
    high = lax_elementwise.max(const(0), lax_elementwise.min(high, lax_elementwise.sub(counts, const(1))))
    int_dtype = dtypes.default_int_dtype()
    low = lax_elementwise._convert_element_type(low, int_dtype, False)
    high = lax_elementwise._convert_element_type(high, int_dtype, False)
    out_shape = q_shape + reduced_shape
    index = [lax_structural.broadcasted_iota(int_dtype, out_shape, d + q_ndim)
             for d in range(len(reduced_shape))]
    if keepdims:
      index[axis] = low
    else:
      index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
  else:
    a = ufuncs._where(reductions.any(ufuncs.isnan(a), axis=axis, keepdims=True), np.nan, a)
    a = lax_sorting.sort(a, dimension=axis)
    n = lax_elementwise._convert_element_type(a_shape[axis], q_dtype, False)
    q = lax_elementwise.mul(q, lax_elementwise.sub(n, const(1)))
    low, high = lax_elementwise.floor(q), lax_elementwise.ceil(q)
    high_weight = lax_elementwise.sub(q, low)
    low_weight = lax_elementwise.sub(const(1), high_weight)
    low = lax_elementwise.clamp(const(0), low, lax_elementwise.sub(n, const(1)))
    high = lax_elementwise.clamp(const(0), high, lax_elementwise.sub(n, const(1)))
    int_dtype = dtypes.default_int_dtype()
    low = lax_elementwise._convert_element_type(low, int_dtype, False)
    high = lax_elementwise._convert_element_type(high, int_dtype, False)
    slice_sizes = list(a_shape)
    slice_sizes[axis] = 1
    rank = len(a_shape) + q_ndim - (0 if keepdims else 1)
    dnums = lax_slicing.GatherDimensionNumbers(
        offset_dims=tuple(range(q_ndim, rank)), collapsed_slice_dims=() if keepdims else (axis,),
        start_index_map=(axis,))

    def read(index):
      index = lax_structural.expand_dims(index, (q_ndim,))
      return lax_slicing.gather(a, index, dnums, slice_sizes)

    low_value = read(low)
    high_value = read(high)
    if q_ndim == 1:
      low_weight = lax_structural.broadcast_in_dim(low_weight, core.get_aval(low_value).shape, (0,))
      high_weight = lax_structural.broadcast_in_dim(high_weight, core.get_aval(high_value).shape,
                                                    (0,))
  if method == "linear":
    result = lax_elementwise.add(
        lax_elementwise.mul(lax_elementwise._convert_element_type(low_value, q_dtype, False), low_weight),
        lax_elementwise.mul(lax_elementwise._convert_element_type(high_value, q_dtype, False), high_weight))
  elif method == "lower":
    result = low_value
  elif method == "higher":
    result = high_value
  elif method == "nearest":
    result = lax_elementwise.select(lax_elementwise.le(high_weight, const(0.5)), low_value,
                                    high_value)
  else:
    result = lax_elementwise.mul(lax_elementwise.add(low_value, high_value),
                                 np.array(0.5, core.get_aval(low_value).dtype))
  if keep_shape is not None:
    result = lax_structural.reshape(result, q_shape + keep_shape)
  return lax_elementwise._convert_element_type(result, core.get_aval(a).dtype, False)


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "interpolation", "keepdims", "method"))
def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, interpolation=None):
  """The ``q``-th quantiles of ``a`` along ``axis`` (``jnp.quantile``); NaN if a slice has NaN."""
  if overwrite_input or out is not None:
    raise ValueError("jax.numpy.quantile does not support overwrite_input=True or out != None")
  if interpolation is not None:
    raise TypeError("quantile() argument interpolation was removed in JAX v0.8.0. "
                    "Use method instead.")
  return _quantile("quantile", a, q, axis, method, keepdims, squash_nans=False)


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "interpolation", "keepdims", "method"))
def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, interpolation=None):
  """The ``q``-th quantiles ignoring NaNs (``jnp.nanquantile``)."""
  if overwrite_input or out is not None:
    raise ValueError("jax.numpy.nanquantile does not support overwrite_input=True or out != None")
  return _quantile("nanquantile", a, q, axis, method, keepdims, squash_nans=True)


def _percent(q):
  q, = util.promote_dtypes_inexact(q)
  return ufuncs.true_divide(q, 100.0)


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "interpolation", "keepdims", "method"))
def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, interpolation=None):
  """The ``q``-th percentiles (``q`` in [0, 100]) of ``a`` (``jnp.percentile``)."""
  util.check_arraylike("percentile", a, q)
  return quantile(a, _percent(q), axis=axis, out=out, overwrite_input=overwrite_input,
                  method=method, keepdims=keepdims, interpolation=interpolation)


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "interpolation", "keepdims", "method"))
def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, interpolation=None):
  """The ``q``-th percentiles ignoring NaNs (``jnp.nanpercentile``)."""
  util.check_arraylike("nanpercentile", a, q)
  return nanquantile(a, _percent(q), axis=axis, out=out, overwrite_input=overwrite_input,
                     method=method, keepdims=keepdims, interpolation=interpolation)


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
  """The median along ``axis`` (``jnp.median``)."""
  util.check_arraylike("median", a)
  return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims,
                  method="midpoint")


@util.jit_when_tracing(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
  """The median ignoring NaNs (``jnp.nanmedian``)."""
  util.check_arraylike("nanmedian", a)
  return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                     keepdims=keepdims, method="midpoint")


@util.jit_when_tracing(inline=True, static_argnames=("axis", "returned", "keepdims"))
def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
  """The (weighted) average along ``axis`` (``jnp.average``); with ``returned`` also the sum of
  the weights."""
  if weights is None:
    util.check_arraylike("average", a)
    a = util.asarray_operand(a)
    avg = reductions.mean(a, axis=axis, keepdims=keepdims)
    aval = core.get_aval(a)
    if axis is None:
      count = aval.size
    else:
      count = 1
      for i in util.canonicalize_axes(axis, aval.ndim):
        count *= aval.shape[i]
    weights_sum = lax_numpy.broadcast_to(lax_elementwise._convert_element_type(count, avg.dtype, False),
                                   core.get_aval(avg).shape)
  else:
    util.check_arraylike("average", a, weights)
    a, weights = util.promote_dtypes_inexact(a, weights)
    a_shape, w_shape = core.get_aval(a).shape, core.get_aval(weights).shape
    if axis is None:
      pass
    elif isinstance(axis, tuple):
      raise TypeError("Single axis expected, tuple was given.")
    else:
      axis = util.canonicalize_axis(axis, len(a_shape))
    if a_shape != w_shape:
      if len(w_shape) != 1:
        raise ValueError("1D weights expected when shapes of a and weights differ.")
      if axis is None:
        raise ValueError("Axis must be specified when shapes of a and weights differ.")
      if w_shape[0] != a_shape[axis]:
        raise ValueError("Length of weights not compatible with specified axis.")
      weights = lax_structural.reshape(weights, (len(a_shape) - 1) * (1,) + w_shape)
      weights = lax_numpy.moveaxis(weights, -1, axis)
    weights_sum = reductions.sum(weights, axis=axis, keepdims=keepdims)
    avg = ufuncs.divide(reductions.sum(ufuncs.multiply(a, weights), axis=axis,
                                          keepdims=keepdims), weights_sum)
  if returned:
    if core.get_aval(avg).shape != core.get_aval(weights_sum).shape:
      weights_sum = lax_numpy.broadcast_to(weights_sum, core.get_aval(avg).shape)
    return avg, weights_sum
  return avg


def ptp(a, axis=None, out=None, keepdims: bool = False):
  """Range (maximum minus minimum) along ``axis`` (``jnp.ptp``)."""
  util.check_arraylike("ptp", a)
  return _ptp(a, _hashable_axis(axis), out, keepdims)


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def _ptp(a, axis=None, out=None, keepdims: bool = False):
  return ufuncs.subtract(reductions.max(a, axis, keepdims=keepdims),
                            reductions.min(a, axis, keepdims=keepdims))


@util.jit_when_tracing(static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims: bool = False):
  """Number of nonzero elements along ``axis`` (``jnp.count_nonzero``)."""
  util.check_arraylike("count_nonzero", a)
  a = util.asarray_operand(a)
  zero = lax_elementwise._convert_element_type(0, np.dtype(core.get_aval(a).dtype), False)
  return reductions.sum(lax_elementwise.ne(a, zero), axis=axis, dtype=dtypes.default_int_dtype(),
                        keepdims=keepdims)
