"""The elementwise lax primitives against real JAX 0.10.2.

``tests/data/elementwise_reference.json`` was recorded by tools/record_elementwise_reference.py:
printed jaxprs and error messages (``snippets``), and JAX's eager outputs on edge inputs
(``values``, ``values_x64``), the ground truth for XLA's CPU semantics. Integer and boolean
results must match bitwise, float results exactly (NaN positions and signed zeros included)
except where noted below.
"""
import json
import os
import re
import types
import warnings

import ml_dtypes
import numpy as np
import pytest

from tests.reference_data import load_reference
from axle._src.interpreters import eval as _eval  # noqa: F401  (installs the eager trace)
from axle._src.lax import elementwise as lax

_DATA = load_reference("elementwise_reference.json")
_ARRAYS = _DATA["arrays"]

# The dtype names the recorded sources use (``jnp.int8``, ...), without importing axle.numpy.
_dtype_names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]
_jnp_dtypes = types.SimpleNamespace(bfloat16=ml_dtypes.bfloat16, bool_=np.bool_,
                                    **{n: np.dtype(n).type for n in _dtype_names})


def _np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _decode(encoded):
  dtype = _np_dtype(encoded["dtype"])
  return np.frombuffer(bytes.fromhex(encoded["hex"]), dtype).reshape(encoded["shape"]).copy()


# Where XLA's result differs from the IEEE one our NumPy kernels give, and why.
_TOLERANT = {  # source prefix -> relative tolerance (libm-level differences)
    "lax.pow(": 2e-6,
}


def _subnormal(x: np.ndarray) -> np.ndarray:
  """Float elements XLA's CPU runtime flushes to zero (denormals of f32/f64; bf16 computes in f32)."""
  if x.dtype.kind == "c":
    return _subnormal(x.real) | _subnormal(x.imag)
  if x.dtype.kind != "f" and x.dtype != ml_dtypes.bfloat16:
    return np.zeros(x.shape, bool)
  if x.dtype == np.float16:
    return np.zeros(x.shape, bool)  # XLA computes float16 in float32, where these are normal
  tiny = float(ml_dtypes.finfo(x.dtype).tiny)
  wide = x.astype(np.float64)
  return (wide != 0) & (np.abs(wide) < tiny)


def _flush_mask(args, expected, actual):
  """Positions where a subnormal input or output makes XLA (flush-to-zero) differ from IEEE."""
  shape = expected.shape
  mask = np.zeros(shape, bool)
  for a in args:
    if a.shape == shape or a.ndim == 0:
      mask |= np.broadcast_to(_subnormal(a), shape)
    elif a.ndim == len(shape) - 1:  # bitcast to a narrower type: a trailing dim was added
      mask |= _subnormal(a)[..., None]
  mask |= _subnormal(actual) if actual.shape == shape else False
  return mask


# Complex arithmetic: XLA's complex multiply/divide/power use other formulas than NumPy's (last-bit
# differences on finite values; different infinities and NaNs when a part is infinite or NaN).
# Only finite inputs and results are compared, to a tolerance.
_COMPLEX_APPROXIMATE = ("lax.mul(", "lax.div(", "lax.pow(", "lax.square(", "lax.reciprocal(",
                        "lax.integer_pow(")


def _complex_approximate_mask(source, args, expected):
  """Positions to skip for approximately-compared complex ops: non-finite inputs or results."""
  if expected.dtype.kind != "c" or not source.startswith(_COMPLEX_APPROXIMATE):
    return None
  skip = ~np.isfinite(expected)
  for a in args:
    if a.dtype.kind == "c":
      skip |= np.broadcast_to(~np.isfinite(a), expected.shape)
  return skip


def _compare(source, args, expected, actual):
  actual = np.asarray(actual)
  assert actual.dtype == expected.dtype, f"{source}: dtype {actual.dtype} != {expected.dtype}"
  assert actual.shape == expected.shape, f"{source}: shape {actual.shape} != {expected.shape}"
  skip = _flush_mask(args, expected, actual)
  approximate = _complex_approximate_mask(source, args, expected)
  if approximate is not None:
    keep = ~(skip | approximate)
    rtol = 2e-6 if expected.dtype == np.complex64 else 1e-14
    if source.startswith("lax.pow("):  # XLA computes complex powers through exp and log
      rtol *= 10
    np.testing.assert_allclose(actual[keep], expected[keep], rtol=rtol, atol=1e-6 if expected.dtype == np.complex64 else 1e-15,
                               err_msg=source)
    return
  if expected.dtype.kind in "biu" and not skip.any():
    bad = actual != expected
  elif expected.dtype.kind == "c":
    bad = ~(_same_float(actual.real, expected.real, source) &
            _same_float(actual.imag, expected.imag, source)) & ~skip
  elif expected.dtype.kind in "biu":
    bad = (actual != expected) & ~skip
  else:
    bad = ~_same_float(actual, expected, source) & ~skip
  if bad.any():
    index = tuple(np.argwhere(bad)[0]) if bad.ndim else ()
    shown = [a[index] if a.shape == bad.shape else a for a in args]
    raise AssertionError(f"{source}: {bad.sum()} of {bad.size} elements differ; first at {index}: "
                         f"args {shown} -> axle {actual[index]!r}, JAX {expected[index]!r}")


def _same_float(actual, expected, source):
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  same = (a == e) & (np.signbit(a) == np.signbit(e)) | (np.isnan(a) & np.isnan(e))
  for prefix, rtol in _TOLERANT.items():
    if source.startswith(prefix):
      with np.errstate(all="ignore"):
        same |= np.isclose(a, e, rtol=rtol, atol=0) & (np.signbit(a) == np.signbit(e))
  return same


def _value_cases(section):
  for i, entry in enumerate(_DATA[section]):
    dtypes_ = ",".join(_ARRAYS[k]["dtype"] for k in entry["args"])
    yield pytest.param(entry, id=f"{i}-{entry['source']}-{dtypes_}")


def _run_value(entry):
  args = [_decode(_ARRAYS[k]) for k in entry["args"]]
  namespace = {"lax": lax, "jnp": _jnp_dtypes, "np": np}
  namespace.update({f"a{i}": a for i, a in enumerate(args)})
  if "error" in entry:
    with pytest.raises(Exception) as info:
      eval(entry["source"], namespace)
    assert type(info.value).__name__ == entry["error"]
    return
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # no RuntimeWarning may leak out of a kernel
    warnings.filterwarnings("ignore", category=np.exceptions.ComplexWarning)
    actual = eval(entry["source"], namespace)
  _compare(entry["source"], args, _decode(entry["out"]), actual)


@pytest.mark.parametrize("entry", list(_value_cases("values")))
def test_eager_values_match_jax(entry):
  _run_value(entry)


@pytest.mark.parametrize("entry", list(_value_cases("values_x64")))
def test_eager_values_match_jax_x64(entry, x64):
  _run_value(entry)


def _snippet_cases():
  for i, entry in enumerate(_DATA["snippets"]):
    yield pytest.param(entry, id=f"{i}-{entry['source'][6:70]}")


@pytest.mark.parametrize("entry", list(_snippet_cases()))
def test_snippet_matches_jax(entry):
  """Printed jaxprs, eager reprs and error types/messages are JAX's."""
  import axle
  import axle.numpy as jnp
  from axle import lax as public_lax
  namespace = {"jax": axle, "jnp": jnp, "lax": public_lax, "np": np}
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      exec(compile(entry["source"], "<snippet>", "exec"), namespace)
    got = {"out": str(namespace.get("out"))}
  except Exception as e:
    got = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
  want = {k: entry[k] for k in ("out", "error", "message") if k in entry}
  assert got == want


def test_convert_element_type_folds_scalars_and_keeps_matching_arrays():
  from axle._src.array import Array
  from axle._src.lax.elementwise import _convert_element_type
  out = _convert_element_type(3, np.dtype(np.float32), weak_type=True)
  assert type(out) is Array and out.aval.weak_type and out.dtype == np.float32
  assert float(out) == 3.0
  big = _convert_element_type(2 ** 100, np.dtype(np.float32), explicit=True)  # as lax.convert_element_type
  assert float(big) == float(np.float32(2.0 ** 100)) and not big.aval.weak_type
  with pytest.raises(OverflowError):  # implicitly (an operand of a jnp function) it must fit int32
    _convert_element_type(2 ** 100, np.dtype(np.float32))
  same = Array(np.ones(3, np.float32))
  assert _convert_element_type(same, np.dtype(np.float32)) is same
  assert _convert_element_type(same, None, weak_type=True).aval.weak_type
  with pytest.warns(np.exceptions.ComplexWarning):
    lax.convert_element_type(np.complex64(1 + 2j), np.float32)


def test_kernels_do_not_mutate_or_alias_inputs():
  x = np.array([1.0, -2.0, 3.0], np.float32)
  for fn in (lambda v: lax.bitcast_convert_type(v, np.int32), lambda v: lax.copy_p.bind(v),
             lambda v: lax.real(lax.complex(v, v))):
    out = np.asarray(fn(x))
    x_before = x.copy()
    x[0] = 99.0
    assert not np.shares_memory(out, x) and out[0] != 99.0 and (out.view(np.uint8) != 0).any()
    x[:] = x_before


def test_rounding_method_enum():
  assert int(lax.RoundingMethod.AWAY_FROM_ZERO) == 0
  assert lax.RoundingMethod(1) is lax.RoundingMethod.TO_NEAREST_EVEN
  np.testing.assert_array_equal(
      np.asarray(lax.round(np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32), 1)),
      np.array([0.0, 2.0, 2.0, -0.0, -2.0], np.float32))


def test_staged_integer_pow_and_select_n_params():
  from axle._src import core
  from axle._src.interpreters.staging import StagingTrace
  trace = StagingTrace(core.current_trace())
  with core.set_current_trace(trace):
    x = trace.new_arg(core.ShapedArray((3,), np.float32))
    y = lax.integer_pow(x, 3)
    z = lax.select_n(np.int32(1), x, y, x)
  closed = trace.to_jaxpr([z])
  assert str(closed) == ("{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=3] a\n"
                         "    c:f32[3] = select_n 1:i32[] a b a\n  in (c,) }")
