"""The elementwise primitives' lowering rules: ``axle.jit`` (XLA) against real JAX 0.10.2.

Every recorded JAX output on edge inputs in ``tests/data/elementwise_reference.json`` (integer
division by zero, shifts past the width, NaN in max/min, saturating float -> int conversions,
round-half-away, reduce_precision, complex max/min, ...) is recomputed under ``axle.jit``. JAX's
values came from XLA on the CPU, as ours do, so the results must agree exactly: integers and
booleans bitwise, floats in value and sign (NaNs anywhere JAX has a NaN). Subnormals need no
special case here: both sides are XLA and flush them the same way.

The emitted StableHLO is also checked for the operations JAX emits where the choice matters
(comparison types, the nested selects of ``select_n``, integer_pow's multiplies, ``copy`` as
no operation).
"""
import re
import warnings

import numpy as np
import pytest

import axle
from axle._src.interpreters import lowering
from axle._src.lax import elementwise as lax
from tests.reference_data import load_reference
from tests.test_elementwise import _ARRAYS, _DATA, _decode, _jnp_dtypes, _np_dtype


def _value_cases(section):
  for i, entry in enumerate(_DATA[section]):
    if "error" in entry:
      continue  # trace-time errors: the shape rules, tested eagerly in test_elementwise.py
    dtypes_ = ",".join(_ARRAYS[k]["dtype"] for k in entry["args"])
    yield pytest.param(entry, id=f"{i}-{entry['source']}-{dtypes_}")


def _same(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
  """Elementwise: equal bits for integers/bools; equal value and sign, or both NaN, for floats."""
  if expected.dtype.kind == "c":
    return _same(actual.real, expected.real) & _same(actual.imag, expected.imag)
  if expected.dtype.kind in "biu":
    return actual == expected
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  return ((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))


def _run_jitted(entry):
  args = [_decode(_ARRAYS[k]) for k in entry["args"]]
  names = [f"a{i}" for i in range(len(args))]
  source = entry["source"]
  fun = eval(f"lambda {', '.join(names)}: {source}", {"lax": lax, "jnp": _jnp_dtypes, "np": np})
  with warnings.catch_warnings():
    warnings.filterwarnings("ignore", category=np.exceptions.ComplexWarning)
    actual = np.asarray(axle.jit(fun)(*args))
  expected = _decode(entry["out"])
  assert actual.dtype == expected.dtype, f"{source}: dtype {actual.dtype} != {expected.dtype}"
  assert actual.shape == expected.shape, f"{source}: shape {actual.shape} != {expected.shape}"
  bad = ~_same(actual, expected)
  if bad.any():
    index = tuple(np.argwhere(bad)[0]) if bad.ndim else ()
    shown = [a[index] if a.shape == bad.shape else a for a in args]
    raise AssertionError(f"{source} under jit: {bad.sum()} of {bad.size} elements differ; first at "
                         f"{index}: args {shown} -> axle {actual[index]!r}, JAX {expected[index]!r}")


@pytest.mark.parametrize("entry", list(_value_cases("values")))
def test_jit_values_match_jax(entry):
  _run_jitted(entry)


@pytest.mark.parametrize("entry", list(_value_cases("values_x64")))
def test_jit_values_match_jax_x64(entry, x64):
  _run_jitted(entry)


# ---------------------------------------------------------------------------
# tests/data/elementwise_lowering_reference.json (tools/record_elementwise_lowering_reference.py)

_LOWERING = load_reference("elementwise_lowering_reference.json")


def _make_fun(source, nargs):
  names = [f"a{i}" for i in range(nargs)]
  return eval(f"lambda {', '.join(names)}: {source}", {"lax": lax, "jnp": _jnp_dtypes, "np": np})


@pytest.mark.parametrize("entry", _LOWERING["ops"],
                         ids=[f"{i}-{e['source']}-{','.join(a[0] for a in e['args'])}"
                              for i, e in enumerate(_LOWERING["ops"])])
def test_emitted_operations_are_jaxs(entry):
  """The same StableHLO/CHLO operations as JAX's lowering, the same number of times (constants
  aside: how many the module holds is the lowering core's business)."""
  args = [np.zeros(shape, _np_dtype(dtype)) for dtype, shape in entry["args"]]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
    text = _module_text(_make_fun(entry["source"], len(args)), *args)
  ours = sorted(o for o in _ops(text) if o != "stablehlo.constant")
  assert ours == [o for o in entry["ops"] if o != "stablehlo.constant"]


@pytest.mark.parametrize("entry", _LOWERING["values"],
                         ids=[f"{i}-{e['source']}-{','.join(a['dtype'] + str(a['shape']) for a in e['args'])}"
                              for i, e in enumerate(_LOWERING["values"])])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_xla_specific_values_are_jaxs(entry, mode):
  """XLA's answers that are not NumPy's: x / broadcast(y) is x * (1 / y); complex clamp compares
  real parts; complex pow is exp(y * log(x)). Eager and jit must both give them exactly."""
  args = [_decode(a) for a in entry["args"]]
  fun = _make_fun(entry["source"], len(args))
  actual = np.asarray((axle.jit(fun) if mode == "jit" else fun)(*args))
  expected = _decode(entry["out"])
  assert actual.dtype == expected.dtype and actual.shape == expected.shape
  bad = ~_same(actual, expected)
  assert not bad.any(), (f"{entry['source']} ({mode}): {bad.sum()} of {bad.size} differ, e.g. "
                         f"axle {actual[bad][:3]} JAX {expected[bad][:3]}")


# ---------------------------------------------------------------------------
# The emitted StableHLO


def _module_text(fun, *args):
  return lowering.lower_jaxpr_to_module(axle.make_jaxpr(fun)(*args), "f")


def _ops(text):
  """The operations of ``text``, leaving out converts and broadcasts to the same type (no
  operation; the recorder leaves them out of JAX's list too)."""
  ops = []
  for line in text.splitlines():
    same = re.search(r": \((tensor<[^>]*>)\) -> (tensor<[^>]*>)$", line)
    if same and same.group(1) == same.group(2) and (
        '"stablehlo.convert"' in line or '"stablehlo.broadcast_in_dim"' in line):
      continue
    ops += re.findall(r'"((?:stablehlo|chlo|func)\.[a-z_]+)"', line)
  return ops


@pytest.mark.parametrize("dtype, kind", [(np.float32, "FLOAT"), (np.complex64, "FLOAT"),
                                         (np.int8, "SIGNED"), (np.uint32, "UNSIGNED"),
                                         (np.bool_, "UNSIGNED")])
def test_comparisons_use_the_dtypes_comparison_type(dtype, kind):
  x = np.zeros(3, dtype)
  text = _module_text(lax.eq, x, x)
  assert f"#stablehlo<comparison_direction EQ>" in text
  assert f"#stablehlo<comparison_type {kind}>" in text


def test_select_n_lowers_to_a_tree_of_selects():
  which = np.zeros(3, np.int32)
  cases = [np.full(3, float(i), np.float32) for i in range(5)]
  text = _module_text(lambda w, *c: lax.select_n(w, *c), which, *cases)
  assert _ops(text).count("stablehlo.select") == 4
  assert _ops(text).count("stablehlo.compare") == 4  # which < 2, < 1, < 3, < 4
  text = _module_text(lambda p, a, b: lax.select(p, a, b), np.zeros(3, bool), cases[0], cases[1])
  assert _ops(text).count("stablehlo.select") == 1 and "stablehlo.compare" not in _ops(text)
  # a scalar index selects whole arrays; out-of-range indices pick the first or last case
  out = axle.jit(lambda w, *c: lax.select_n(w, *c))(np.int32(7), *cases[:3])
  np.testing.assert_array_equal(np.asarray(out), cases[2])
  out = axle.jit(lambda w, *c: lax.select_n(w, *c))(np.array([-1, 1, 9], np.int32), *cases[:3])
  np.testing.assert_array_equal(np.asarray(out), np.array([0.0, 1.0, 2.0], np.float32))


@pytest.mark.parametrize("y, multiplies, divides", [(0, 0, 0), (1, 0, 0), (2, 1, 0), (3, 2, 0),
                                                    (7, 4, 0), (8, 3, 0), (-1, 0, 1), (-3, 2, 1)])
def test_integer_pow_is_repeated_squaring(y, multiplies, divides):
  text = _module_text(lambda x: lax.integer_pow(x, y), np.ones(3, np.float32))
  ops = _ops(text)
  assert ops.count("stablehlo.multiply") == multiplies
  assert ops.count("stablehlo.divide") == divides
  x = np.array([1.5, -2.0, 3.0], np.float32)
  np.testing.assert_allclose(np.asarray(axle.jit(lambda v: lax.integer_pow(v, y))(x)),
                             x.astype(np.float64) ** y, rtol=1e-6)


def test_pow_converts_an_integer_exponent_to_the_base_dtype():
  text = _module_text(lax.pow, np.ones(3, np.float32), np.ones(3, np.int8))
  assert "stablehlo.convert" in _ops(text) and "stablehlo.power" in _ops(text)
  out = axle.jit(lax.pow)(np.array([2.0, 2.0, -2.0], np.float32), np.array([3, -1, 3], np.int8))
  np.testing.assert_array_equal(np.asarray(out), np.array([8.0, 0.5, -8.0], np.float32))


def test_copy_and_same_dtype_conversion_emit_no_operation():
  x = np.ones(3, np.float32)
  assert _ops(_module_text(lambda v: lax.copy_p.bind(v), x)) == []
  out = axle.jit(lambda v: lax.copy_p.bind(v))(x)
  np.testing.assert_array_equal(np.asarray(out), x)


def test_convert_to_bool_compares_with_zero_and_complex_takes_the_real_part():
  text = _module_text(lambda v: lax.convert_element_type(v, np.bool_), np.ones(3, np.float32))
  assert "stablehlo.compare" in _ops(text) and "stablehlo.convert" not in _ops(text)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
    x = np.array([1 + 2j, -0.0 + 1j, 300.7 - 1j], np.complex64)
    out = axle.jit(lambda v: lax.convert_element_type(v, np.uint8))(x)
    flags = axle.jit(lambda v: lax.convert_element_type(v, np.bool_))(x)
  np.testing.assert_array_equal(np.asarray(out), np.array([1, 0, 255], np.uint8))
  np.testing.assert_array_equal(np.asarray(flags), np.array([True, False, True]))


def test_unsigned_sign_and_complex_max_match_eager():
  u = np.array([0, 1, 200], np.uint8)
  np.testing.assert_array_equal(np.asarray(axle.jit(lax.sign)(u)), np.array([0, 1, 1], np.uint8))
  a = np.array([1 + 1j, 1 + 2j, np.nan + 0j, 2 + 0j], np.complex64)
  b = np.array([1 + 2j, 1 + 1j, 1 + 0j, np.nan + 0j], np.complex64)
  for fn in (lax.max, lax.min):
    np.testing.assert_array_equal(np.asarray(axle.jit(fn)(a, b)), np.asarray(fn(a, b)))


def test_elementwise_broadcasting_of_scalars_and_unit_dims():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  out = axle.jit(lambda a, b: lax.add(a, b))(x, np.ones((1, 3), np.float32))
  np.testing.assert_array_equal(np.asarray(out), x + 1)
  out = axle.jit(lambda a: lax.clamp(np.float32(1), a, np.float32(4)))(x)
  np.testing.assert_array_equal(np.asarray(out), np.clip(x, 1, 4))
  out = axle.jit(lambda a: lax.max(a, 2.0))(x)
  np.testing.assert_array_equal(np.asarray(out), np.maximum(x, 2))
