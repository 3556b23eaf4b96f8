"""Op records for axle.numpy functions: NumPy references over sampled shapes (0-d and empty
included) and dtypes (bool, int, float, complex). Output dtypes differ from NumPy's by design
(JAX's 32-bit defaults), so they are checked against JAX's recorded answers in
tests/test_numpy_reference.py instead (check_dtype=False here)."""
from __future__ import annotations

import warnings

import numpy as np

import axle.numpy as jnp
from tests.op_record import OpRecord, random_array


def _quiet(reference):
  """``reference`` with NumPy's warnings silenced (a variance of one element with ddof=1 is NaN,
  as in JAX; NumPy warns about it)."""
  def run(*args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
      warnings.simplefilter("ignore", RuntimeWarning)
      return reference(*args)
  return run


RECORDS: list[OpRecord] = []
DTYPES = [np.dtype(d) for d in ("bool", "int32", "float32", "complex64")]
SHAPES_AXES = [((), None), ((0, 3), 0), ((3, 4), 1), ((2, 3, 4), (0, 2)), ((5,), -1)]


def _args(shape, dtype, extra=()):
  def make(rng):
    return [random_array(rng, shape, dtype, low=-3, high=3), *extra]
  return make


# Functions differentiable at random points (checked with check_grads on float32 inputs);
# every record also runs vmap against a loop.
DIFFERENTIABLE = {"sum", "prod_keepdims", "mean", "cumsum", "diff", "flip", "pad_reflect", "roll",
                  "tile", "repeat", "std", "var_ddof", "sum_where", "max_initial", "ptp", "sort",
                  "median", "nanmax", "nansum"}


def _add(name, fun, ref, shape, dtype, tol=1e-5, **kw):
  transforms = {"jit", "vmap"}
  # (std and var of one element are sqrt(0) and 0/0: not differentiable there)
  if dtype == np.float32 and name in DIFFERENTIABLE and not (
      shape == () and name in ("std", "var_ddof")):
    transforms.add("grad")
  RECORDS.append(OpRecord(name=f"jnp_{name}_{dtype.name}_{'x'.join(map(str, shape)) or 'scalar'}",
                          primitive=f"jnp.{name}", fun=fun, reference=ref,
                          make_args=_args(shape, dtype), rtol=tol, atol=tol, check_dtype=False,
                          transforms=frozenset(transforms), **kw))


for shape, axis in SHAPES_AXES:
  for dtype in DTYPES:
    _add("sum", lambda x, a=axis: jnp.sum(x, axis=a), lambda x, a=axis: np.sum(x, axis=a), shape, dtype)
    _add("prod_keepdims", lambda x, a=axis: jnp.prod(x, axis=a, keepdims=True),
         lambda x, a=axis: np.prod(x, axis=a, keepdims=True), shape, dtype, tol=1e-4)
    _add("any", lambda x, a=axis: jnp.any(x, axis=a), lambda x, a=axis: np.any(x, axis=a), shape, dtype)
    _add("count_nonzero", lambda x, a=axis: jnp.count_nonzero(x, axis=a),
         lambda x, a=axis: np.count_nonzero(x, axis=a), shape, dtype)
    if dtype.kind != "b":
      _add("sum_where", lambda x, a=axis: jnp.sum(x, axis=a, where=x != 1),
           lambda x, a=axis: np.sum(x, axis=a, where=x != 1), shape, dtype)
    if 0 not in shape:
      _add("mean", lambda x, a=axis: jnp.mean(x, axis=a), lambda x, a=axis: np.mean(x, axis=a),
           shape, dtype)
      if dtype.kind != "c":
        _add("max_initial", lambda x, a=axis: jnp.max(x, axis=a, initial=-1),
             lambda x, a=axis: np.max(x, axis=a, initial=-1), shape, dtype)
        _add("ptp", lambda x, a=axis: jnp.ptp(x, axis=a),
             lambda x, a=axis: np.ptp(x.astype(np.int32) if x.dtype == bool else x, axis=a),
             shape, dtype) if dtype.kind != "b" else None
      if dtype.kind != "b":
        _add("var_ddof", lambda x, a=axis: jnp.var(x, axis=a, ddof=1),
             _quiet(lambda x, a=axis: np.var(x, axis=a, ddof=1)), shape, dtype, tol=1e-4)
        _add("std", lambda x, a=axis: jnp.std(x, axis=a), lambda x, a=axis: np.std(x, axis=a),
             shape, dtype, tol=1e-4)
    if dtype.kind in "if" and 0 not in shape and shape:
      _add("median", lambda x, a=axis: jnp.median(x, axis=a), lambda x, a=axis: np.median(x, axis=a),
           shape, dtype)
      _add("sort", lambda x: jnp.sort(x, axis=-1), lambda x: np.sort(x, axis=-1), shape, dtype)
      _add("argsort", lambda x: jnp.argsort(x, axis=0),
           lambda x: np.argsort(x, axis=0, kind="stable"), shape, dtype)
      _add("cumsum", lambda x: jnp.cumsum(x, axis=0), lambda x: np.cumsum(x, axis=0), shape, dtype)
      _add("flip", lambda x: jnp.flip(x), lambda x: np.flip(x), shape, dtype)
      _add("roll", lambda x: jnp.roll(x, 2), lambda x: np.roll(x, 2), shape, dtype)
      _add("diff", lambda x: jnp.diff(x), lambda x: np.diff(x), shape, dtype)
      _add("tile", lambda x: jnp.tile(x, 2), lambda x: np.tile(x, 2), shape, dtype)
      _add("repeat", lambda x: jnp.repeat(x, 2, axis=0), lambda x: np.repeat(x, 2, axis=0), shape, dtype)
      _add("pad_reflect", lambda x: jnp.pad(x, 1, mode="reflect"), lambda x: np.pad(x, 1, mode="reflect"),
           shape, dtype)
  if shape and 0 not in shape:
    _add("nansum", lambda x, a=axis: jnp.nansum(jnp.where(x > 1, jnp.nan, x), axis=a),
         lambda x, a=axis: np.nansum(np.where(x > 1, np.nan, x), axis=a), shape, np.dtype("float32"))
    _add("nanmax", lambda x, a=axis: jnp.nanmax(jnp.where(x > 1, jnp.nan, x), axis=a),
         lambda x, a=axis: np.nanmax(np.where(x > 1, np.nan, x), axis=a), shape, np.dtype("float32"))
RECORDS = [r for r in RECORDS if r is not None]
