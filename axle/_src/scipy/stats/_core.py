"""Summary statistics: ``mode``, ``rankdata``, ``sem`` (``scipy.stats``'s)."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from axle._src import dtypes
from axle._src import lax
from axle._src import numpy as jnp
from axle._src.api import jit
from axle._src.numpy import util
from axle._src.vmap import vmap

_NAN_POLICIES = ("propagate", "omit", "raise")


def _check_nan_policy(nan_policy: str, fun_name: str) -> None:
  if nan_policy not in _NAN_POLICIES:
    raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                     "{'propagate', 'omit', 'raise'}")
  if nan_policy == "omit":
    raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
  if nan_policy == "raise":
    raise NotImplementedError(
        f"In order to best JIT compile `{fun_name}`, we cannot know whether `x` contains nans. "
        f"Please check if nans exist in `x` outside of the `{fun_name}` function.")


class ModeResult(NamedTuple):
  """The result of ``mode``: the most common value(s) and how often they occur."""
  mode: jnp.ndarray
  count: jnp.ndarray


def _mode_of_column(x):
  if x.size == 0:
    nan = jnp.array(np.nan, dtype=dtypes.default_float_dtype())
    return nan, jnp.array(0, dtype=dtypes.default_float_dtype())
  values, counts = jnp.unique(x, return_counts=True, size=x.size)
  return values[jnp.argmax(counts)], counts.max()


def _mode(a, axis, nan_policy, keepdims):
  util.check_arraylike("mode", a)
  x = jnp.atleast_1d(a)
  _check_nan_policy(nan_policy, "mode")
  if axis is not None:
    axis = util.canonicalize_axis(axis, x.ndim)
  shape = x.shape
  if keepdims:
    out_shape = (tuple(1 for _ in shape) if axis is None
                 else tuple(1 if i == axis else s for i, s in enumerate(shape)))
  else:
    out_shape = () if axis is None else tuple(s for i, s in enumerate(shape) if i != axis)
  if axis is None:
    axis = 0
    x = x.ravel()
  x = jnp.moveaxis(x, axis, 0)
  x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
  values, counts = vmap(_mode_of_column, in_axes=1)(x)
  return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


_mode_jit = jit(_mode, static_argnames=("axis", "nan_policy", "keepdims"))


def mode(a, axis=0, nan_policy="propagate", keepdims=False) -> ModeResult:
  """The most common value along ``axis`` (the smallest one on ties) and its count
  (``scipy.stats.mode``). ``axis=None`` flattens first. Only ``nan_policy='propagate'``."""
  return _mode_jit(a, axis=axis, nan_policy=nan_policy, keepdims=keepdims)


def _invert_permutation(i):
  return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


def _rankdata_1d(a, method):
  out_dtype = dtypes.default_float_dtype()

  def ranks(a):
    arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
    inv = _invert_permutation(sorter)
    if method == "ordinal":
      return (inv + 1).astype(out_dtype)
    starts = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
    dense = starts.cumsum()[inv]
    if method == "dense":
      return dense.astype(out_dtype)
    count = jnp.nonzero(starts, size=arr.size + 1, fill_value=starts.size)[0].astype(out_dtype)
    if method == "max":
      return count[dense]
    if method == "min":
      return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)

  return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype),
                  ranks, a)


def _rankdata(a, method, axis, nan_policy):
  util.check_arraylike("rankdata", a)
  _check_nan_policy(nan_policy, "rankdata")
  if method not in ("average", "min", "max", "dense", "ordinal"):
    raise ValueError(f"unknown method '{method}'")
  if axis is not None:
    a = jnp.moveaxis(jnp.asarray(a), axis, -1)
    rows = vmap(lambda v: _rankdata_1d(v, method))(a.reshape(-1, a.shape[-1]))
    return jnp.moveaxis(rows.reshape(a.shape), -1, axis)
  return _rankdata_1d(jnp.ravel(a), method)


_rankdata_jit = jit(_rankdata, static_argnames=("method", "axis", "nan_policy"))


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
  """Ranks of the data, 1-based, ties resolved by ``method`` ('average', 'min', 'max',
  'dense' or 'ordinal') (``scipy.stats.rankdata``). All NaN if the data contain a NaN."""
  return _rankdata_jit(a, method=method, axis=axis, nan_policy=nan_policy)


def _sem(a, axis, ddof, nan_policy, keepdims):
  b, = util.promote_args_inexact("sem", a)
  if nan_policy == "propagate":
    size = b.size if axis is None else b.shape[axis]
    return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
  if nan_policy == "omit":
    count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
    return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
  raise ValueError(f"{nan_policy} is not supported")


_sem_jit = jit(_sem, static_argnames=("axis", "nan_policy", "keepdims"))


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
  """Standard error of the mean, ``std(a, ddof=ddof) / sqrt(n)`` along ``axis``
  (``scipy.stats.sem``); ``nan_policy='omit'`` ignores NaNs."""
  return _sem_jit(a, axis=axis, ddof=ddof, nan_policy=nan_policy, keepdims=keepdims)
