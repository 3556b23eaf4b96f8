"""axle's dtype layer against JAX 0.10.2, from tests/data/promotion_table.json.

The table is recorded under real JAX by tools/record_promotion_table.py (see its
docstring for the operand and result-cell encodings); this file never imports jax.
"""
from __future__ import annotations

import contextlib
import json
import pathlib
import re
import types
import warnings

import hypothesis.strategies as st
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

import axle.dtypes
from axle._src import dtypes
from axle._src.config import config
from axle._src.numpy import scalar_types

TABLE = json.loads((pathlib.Path(__file__).parent / "data" / "promotion_table.json").read_text())
MODES = {"x32": False, "x64": True}


@contextlib.contextmanager
def x64_mode(enabled: bool):
  """Sets jax_enable_x64 for the block and restores the previous value."""
  previous = config.jax_enable_x64
  config.update("jax_enable_x64", enabled)
  try:
    yield
  finally:
    config.update("jax_enable_x64", previous)


def _dt(name: str) -> np.dtype:
  return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


class WeakOperand:
  """A weakly typed array as the dtype layer sees one: ``.dtype`` and ``.aval.weak_type``."""

  def __init__(self, dt):
    self.dtype = dt
    self.aval = types.SimpleNamespace(shape=(), dtype=dt, weak_type=True)


PY_VALUES = {"bool": True, "int": 1, "float": 1.0, "complex": 1j}
PY_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def operand(name: str):
  if name == "None":
    return None
  if name.startswith("py:"):
    return PY_VALUES[name[3:]]
  if name.startswith("type:"):
    return PY_TYPES[name[5:]]
  if name.startswith("weak:"):
    return WeakOperand(_dt(name[5:]))
  if name.startswith("jnp:"):
    return getattr(scalar_types, name[4:])
  if name == "float0":
    return dtypes.float0
  return _dt(name)


def _normalise(message: str) -> str:
  return re.sub(r"^Input dtypes \(.*?\) have", "Input dtypes {nodes} have", message)


def cell(fn, *args):
  """``fn(*args)`` encoded like the recorded cells; errors as (type name, message)."""
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
      out = fn(*args)
    except Exception as err:  # noqa: BLE001
      return (type(err).__name__, _normalise(str(err)))
  if isinstance(out, tuple):
    text = out[0].name + ("*" if out[1] else "")
  else:
    text = out.name
  return text + ("!" if caught else "")


def expected(recorded: str):
  if recorded.startswith("E"):
    return tuple(TABLE["errors"][int(recorded[1:])])
  return recorded


def assert_cells(pairs):
  """Asserts every (label, ours, recorded) matches; reports the first mismatches together."""
  bad = [(label, ours, expected(rec)) for label, ours, rec in pairs if ours != expected(rec)]
  assert not bad, f"{len(bad)} mismatches, first: " + "\n".join(map(str, bad[:15]))


def result_type_flag(*args):
  return dtypes.result_type(*args, return_weak_type_flag=True)


# ---------------------------------------------------------------------------
# The promotion table

@pytest.mark.parametrize("mode", MODES)
def test_promote_types_table(mode):
  record = TABLE[mode]
  names = record["promote_types_operands"]
  with x64_mode(MODES[mode]):
    assert_cells((f"{a}|{b}", cell(dtypes.promote_types, operand(a), operand(b)),
                  record["promote_types"][i][j])
                 for i, a in enumerate(names) for j, b in enumerate(names))


@pytest.mark.parametrize("mode", MODES)
def test_result_type_pairs_table(mode):
  record = TABLE[mode]
  names = record["operands"]
  ops = {n: operand(n) for n in names}
  with x64_mode(MODES[mode]):
    assert_cells((f"{a}|{b}", cell(result_type_flag, ops[a], ops[b]), record["result_type"][i][j])
                 for i, a in enumerate(names) for j, b in enumerate(names))


@pytest.mark.parametrize("mode", MODES)
def test_result_type_pairs_are_stable_when_cached(mode):
  # The second pass is served from result_type's memo; it must agree with the first.
  record = TABLE[mode]
  names = record["operands"]
  with x64_mode(MODES[mode]):
    for _ in range(2):
      assert_cells((f"{a}|{b}", cell(result_type_flag, operand(a), operand(b)),
                    record["result_type"][i][j])
                   for i, a in enumerate(names) for j, b in enumerate(names))


@pytest.mark.parametrize("mode", MODES)
def test_result_type_single_operand(mode):
  record = TABLE[mode]
  with x64_mode(MODES[mode]):
    assert_cells((n, cell(result_type_flag, operand(n)), rec)
                 for n, rec in record["result_type_single"].items())


@pytest.mark.parametrize("mode", MODES)
def test_result_type_three_and_four_operands(mode):
  record = TABLE[mode]
  with x64_mode(MODES[mode]):
    assert_cells((tuple(names), cell(result_type_flag, *map(operand, names)), rec)
                 for names, rec in record["result_type_nary"])


def test_result_type_without_flag_returns_dtype_only():
  with x64_mode(False):
    assert dtypes.result_type(np.dtype("int8"), 1.0) == np.dtype("float32")
    assert dtypes.result_type(WeakOperand(np.dtype("float16")), np.dtype("int32")) == np.float32
    assert dtypes.result_type(2**40) == np.dtype("int32")  # no overflow check at the dtype level


def test_result_type_bad_inputs():
  bad = TABLE["bad_inputs"]
  assert_cells([
      ("no_args", cell(result_type_flag), bad["no_args"]),
      ("list", cell(result_type_flag, [1, 2]), bad["list"]),
      ("str_value", cell(result_type_flag, "str"), bad["str_value"]),
      ("object_array", cell(result_type_flag, np.zeros(2, object)), bad["object_array"]),
      ("float0_and_int8", cell(result_type_flag, dtypes.float0, np.dtype("int8")),
       bad["float0_and_int8"]),
      ("promote_object", cell(dtypes.promote_types, "object", "int8"), bad["promote_object"]),
      ("promote_float0", cell(dtypes.promote_types, dtypes.float0, "int8"), bad["promote_float0"]),
  ])


def test_promotion_error_names_the_operands_in_order():
  with pytest.raises(dtypes.TypePromotionError, match=r"Input dtypes \('int4', 'int8'\) have no"):
    dtypes.promote_types("int4", "int8")
  with pytest.raises(axle.dtypes.TypePromotionError, match="8-bit floats"):
    dtypes.promote_types(np.dtype(ml_dtypes.float8_e4m3fn), np.float32)
  assert issubclass(dtypes.TypePromotionError, ValueError)


def test_strict_promotion_mode():
  previous = config.jax_numpy_dtype_promotion
  config.update("jax_numpy_dtype_promotion", "strict")
  try:
    assert dtypes.result_type(np.dtype("float32"), 1.0) == np.dtype("float32")
    assert dtypes.promote_types("int8", "int8") == np.dtype("int8")
    with pytest.raises(dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
      dtypes.promote_types("int8", "int16")
    with pytest.raises(dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
      dtypes.result_type(np.dtype("float32"), np.dtype("float16"))
  finally:
    config.update("jax_numpy_dtype_promotion", previous)
  assert dtypes.promote_types("int8", "int16") == np.dtype("int16")


STRONG = st.sampled_from(TABLE["main_dtypes"]).map(_dt)
OPERAND = st.one_of(
    STRONG,
    STRONG.map(WeakOperand),
    st.sampled_from([True, 1, 1.0, 1j, int, float, complex, bool, None]),
    STRONG.map(lambda d: np.zeros((2,), d)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(OPERAND, min_size=1, max_size=5), st.booleans())
def test_result_type_ignores_operand_order(operands, x64):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with x64_mode(x64):
      forward = cell(result_type_flag, *operands)
      assert forward == cell(result_type_flag, *reversed(operands))
      # Mixing cached results across x64 modes would make this differ from a fresh join.
      key = ()
      for x in operands:
        key += dtypes._operand_key(x)
      fresh = forward.rstrip("!") if isinstance(forward, str) else forward
      assert cell(lambda: dtypes._join(key)) == fresh


@settings(max_examples=100, deadline=None)
@given(STRONG, STRONG, st.booleans())
def test_promote_types_is_commutative_and_matches_result_type(a, b, x64):
  with x64_mode(x64):
    joined = dtypes.promote_types(a, b)
    assert joined == dtypes.promote_types(b, a)
    # NumPy arrays are canonicalised before they are joined.
    canonical_join = dtypes.promote_types(dtypes.canonicalize_dtype(a), dtypes.canonicalize_dtype(b))
    assert dtypes.result_type(np.zeros(1, a), np.zeros(1, b)) == dtypes.canonicalize_dtype(
        canonical_join)


# ---------------------------------------------------------------------------
# Canonicalisation, user dtypes, defaults

@pytest.mark.parametrize("mode", MODES)
def test_canonicalize_dtype_table(mode):
  with x64_mode(MODES[mode]):
    assert_cells((n, cell(dtypes.canonicalize_dtype, operand(n)), rec)
                 for n, rec in TABLE[mode]["canonicalize_dtype"].items())


@pytest.mark.parametrize("mode", MODES)
def test_check_user_dtype_table(mode):
  def check(name, fun_name):
    arg = name[4:] if name.startswith("str:") else operand(name)
    return cell(dtypes.check_and_canonicalize_user_dtype, arg, fun_name)

  with x64_mode(MODES[mode]):
    assert_cells((n, check(n, fun_name), rec)
                 for n, (fun_name, rec) in TABLE[mode]["check_user_dtype"].items())


@pytest.mark.parametrize("name", ["float64", "int64", "uint64", "complex128"])
def test_explicit_64bit_warning_text(name):
  expected_warnings = [tuple(w) for w in TABLE["x32"]["warnings"][name]]
  with x64_mode(False), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert dtypes.check_user_dtype_supported(name, "array") == dtypes.canonicalize_dtype(name)
    dtypes.check_user_dtype_supported(np.dtype(name))
  assert [(w.category.__name__, str(w.message)) for w in caught] == expected_warnings
  with x64_mode(True), warnings.catch_warnings():
    warnings.simplefilter("error")
    assert dtypes.check_user_dtype_supported(name, "array") == np.dtype(name)


def test_explicit_64bit_warning_points_at_the_caller_of_the_jnp_function():
  def zeros(shape, dtype):  # stands in for a jnp function that checks its dtype argument
    return np.zeros(shape, dtypes.check_user_dtype_supported(dtype, "zeros"))

  with x64_mode(False), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = zeros(3, "float64")
  assert out.dtype == np.float32
  assert len(caught) == 1 and caught[0].filename == __file__
  assert "requested in zeros is not available" in str(caught[0].message)


def test_check_user_dtype_supported_passes_none_and_rejects_arrays():
  assert dtypes.check_user_dtype_supported(None, "zeros") is None
  with pytest.raises(ValueError, match="dtype must be specified"):
    dtypes.check_and_canonicalize_user_dtype(None)

  class FakeArray:
    aval = types.SimpleNamespace(shape=(), dtype=np.dtype("float32"), weak_type=False)
    dtype = np.dtype("float32")

  with pytest.raises(ValueError, match="instead of dtype=arr use dtype=arr.dtype"):
    dtypes.check_user_dtype_supported(FakeArray(), "zeros")


def test_x64_flag_toggles_canonicalisation_and_defaults():
  before = config.jax_enable_x64
  for enabled in (False, True, False):
    with x64_mode(enabled):
      assert dtypes.canonicalize_dtype(np.float64) == (np.float64 if enabled else np.float32)
      assert dtypes.canonicalize_dtype("int64") == (np.int64 if enabled else np.int32)
      assert dtypes.canonicalize_dtype(scalar_types.complex128) == (
          np.complex128 if enabled else np.complex64)
      assert dtypes.result_type(1.0) == (np.float64 if enabled else np.float32)
      assert dtypes.default_int_dtype() == (np.int64 if enabled else np.int32)
      mode = "x64" if enabled else "x32"
      assert {k: getattr(dtypes, f"default_{k}_dtype")().name for k in TABLE[mode]["defaults"]} \
          == TABLE[mode]["defaults"]
  assert config.jax_enable_x64 == before


@pytest.mark.parametrize("mode", MODES)
def test_scalar_type_of_table(mode):
  with x64_mode(MODES[mode]):
    assert_cells((n, cell(lambda x: np.dtype(dtypes.scalar_type_of(x)), operand(n)), rec)
                 for n, rec in TABLE[mode]["scalar_type_of"].items())


def test_dtype_of_values():
  assert dtypes.dtype(1) == np.int64 and dtypes.dtype(1.0) == np.float64
  assert dtypes.dtype(True) == np.bool_ and dtypes.dtype(1j) == np.complex128
  assert dtypes.dtype(np.float16(1)) == np.float16
  assert dtypes.dtype(np.zeros(2, np.int64)) == np.int64
  assert dtypes.dtype(scalar_types.bfloat16) == dtypes.bfloat16
  assert dtypes.dtype(WeakOperand(np.dtype("uint8"))) == np.uint8
  with x64_mode(False):
    assert dtypes.dtype(1, canonicalize=True) == np.int32
    assert dtypes.dtype(np.zeros(2, np.int64), canonicalize=True) == np.int32
    with pytest.warns(UserWarning, match="float64 requested in dtype"):
      assert dtypes.dtype("float64", canonicalize=True) == np.float32
  with pytest.raises(TypeError, match="Cannot determine dtype of"):
    dtypes.dtype([1, 2])
  with pytest.raises(ValueError, match="Invalid argument to dtype"):
    dtypes.dtype(None)


def test_python_scalar_helpers():
  assert dtypes.is_python_scalar(1.0) and dtypes.is_python_scalar(True)
  assert not dtypes.is_python_scalar(np.float64(1.0)) and not dtypes.is_python_scalar(np.zeros(()))
  with x64_mode(False):
    assert dtypes.python_scalar_dtype(3) == np.int32
    assert dtypes.python_scalar_dtype(3.0) == np.float32
    assert dtypes.python_scalar_dtype(True) == np.bool_
    assert dtypes.python_scalar_dtype(complex) == np.complex64
    with pytest.raises(OverflowError, match="Python int 1099511627776 too large to convert to int32"):
      dtypes.python_scalar_dtype(2**40)
  with x64_mode(True):
    assert dtypes.python_scalar_dtype(2**40) == np.int64
    with pytest.raises(OverflowError, match="too large to convert to int64"):
      dtypes.python_scalar_dtype(2**63)
  with pytest.raises(TypeError, match="python_scalar_dtype expects"):
    dtypes.python_scalar_dtype("3")


def test_is_weakly_typed():
  values = {"py:bool": True, "py:int": 1, "py:float": 1.0, "py:complex": 1j,
            "np:float32": np.float32(1), "np:float64": np.float64(1), "np:array": np.zeros(2),
            "weak:float32": WeakOperand(np.dtype("float32")),
            "strong:float32": types.SimpleNamespace(
                aval=types.SimpleNamespace(dtype=np.dtype("float32"), weak_type=False))}
  assert {k: dtypes.is_weakly_typed(v) for k, v in values.items()} == TABLE["is_weakly_typed"]


# ---------------------------------------------------------------------------
# Type predicates and machine limits

def test_issubdtype_grid():
  categories = {"generic": np.generic, "number": np.number, "integer": np.integer,
                "signedinteger": np.signedinteger, "unsignedinteger": np.unsignedinteger,
                "inexact": np.inexact, "floating": np.floating,
                "complexfloating": np.complexfloating, "bool_": np.bool_,
                "extended": axle.dtypes.extended, "prng_key": axle.dtypes.prng_key}
  def decode(name):
    return categories[name] if name in categories else operand(name)
  pairs = []
  for key, want in TABLE["issubdtype"].items():
    a, b = key.split("|")
    pairs.append((key, dtypes.issubdtype(decode(a), decode(b)), want))
  bad = [p for p in pairs if p[1] != p[2]]
  assert not bad, bad[:15]


def test_can_cast_grid():
  bad = []
  for key, want in TABLE["can_cast"].items():
    a, b, casting = key.split("|")
    got = bool(dtypes.can_cast(_dt(a), _dt(b), casting=casting))
    via_scalar_types = bool(dtypes.can_cast(getattr(scalar_types, a if a != "bool" else "bool_"),
                                            getattr(scalar_types, b if b != "bool" else "bool_"),
                                            casting=casting))
    if got != want or via_scalar_types != want:
      bad.append((key, got, via_scalar_types, want))
  assert not bad, bad[:15]


@pytest.mark.parametrize("name", sorted(TABLE["finfo"]))
def test_finfo(name):
  want = TABLE["finfo"][name]
  for arg in (_dt(name), getattr(scalar_types, name, _dt(name))):
    info = axle.dtypes.finfo(arg)
    assert f"{type(info).__module__}.{type(info).__qualname__}" == want["type"]
    assert info.dtype.name == want["dtype"] and int(info.bits) == want["bits"]
    for field in ["eps", "epsneg", "max", "min", "tiny", "resolution", "smallest_normal",
                  "smallest_subnormal"]:
      assert float(getattr(info, field)) == want[field], field
    for field in ["nmant", "nexp", "precision", "machep", "negep", "minexp", "maxexp"]:
      assert int(getattr(info, field)) == want[field], field


@pytest.mark.parametrize("name", sorted(TABLE["iinfo"]))
def test_iinfo(name):
  want = TABLE["iinfo"][name]
  info = axle.dtypes.iinfo(_dt(name))
  assert f"{type(info).__module__}.{type(info).__qualname__}" == want["type"]
  assert (info.dtype.name, int(info.bits), int(info.min), int(info.max)) == (
      want["dtype"], want["bits"], want["min"], want["max"])


def test_dtype_conversions_and_names():
  for table_name, fn in [("short_dtype_name", dtypes.short_dtype_name),
                         ("to_inexact_dtype", lambda d: dtypes.to_inexact_dtype(d).name),
                         ("to_complex_dtype", lambda d: dtypes.to_complex_dtype(d).name),
                         ("itemsize_bits", axle.dtypes.itemsize_bits)]:
    got = {n: fn(_dt(n)) for n in TABLE[table_name]}
    assert got == TABLE[table_name], table_name
  # jaxprs print float0 avals as float0[...].
  assert dtypes.short_dtype_name(dtypes.float0) == "float0"


def test_isdtype_grid():
  got = {}
  for key in TABLE["isdtype"]:
    name, kind = key.split("|")
    got[key] = dtypes.isdtype(_dt(name), kind)
  assert got == TABLE["isdtype"]
  with pytest.raises(ValueError, match="Unrecognized kind"):
    dtypes.isdtype("float32", "reals")


def test_float0():
  assert repr(axle.dtypes.float0) == TABLE["float0"]
  assert dtypes.canonicalize_dtype(dtypes.float0) == dtypes.float0
  assert not dtypes.issubdtype(dtypes.float0, np.floating)


# ---------------------------------------------------------------------------
# Scalar types and the public namespace

@pytest.mark.parametrize("name", sorted(TABLE["scalar_types"]))
def test_scalar_type_objects(name):
  want = TABLE["scalar_types"][name]
  t = getattr(scalar_types, name)
  assert repr(t) == want["repr"].replace("jax.numpy", "axle.numpy")
  assert (t.__name__, t.dtype.name, t == t.dtype.type) == (want["name"], want["dtype"],
                                                          want["eq_numpy"])
  assert np.dtype(t) == t.dtype and isinstance(t.dtype, np.dtype)
  assert np.zeros(2).astype(t).dtype == t.dtype
  assert hash(t) == hash(t.dtype.type) and {t.dtype.type: "found"}[t] == "found"
  assert t != np.dtype("object").type
  assert isinstance(t.dtype.type(0), t) and not isinstance(0.5, t)


def test_scalar_types_canonicalise():
  with x64_mode(False):
    assert dtypes.canonicalize_dtype(scalar_types.float32) == np.float32
    assert dtypes.canonicalize_dtype(scalar_types.int_) == np.int32
    assert dtypes.canonicalize_dtype(scalar_types.bfloat16) == dtypes.bfloat16
    assert dtypes.promote_types(scalar_types.bfloat16, scalar_types.float16) == np.float32
    assert dtypes.issubdtype(scalar_types.bfloat16, np.floating)
  assert scalar_types.bool is scalar_types.bool_
  assert set(scalar_types.__all__) >= {"float32", "bool", "int_", "single", "cdouble"}


def test_calling_a_scalar_type_makes_an_array():
  creation = pytest.importorskip("axle._src.numpy.creation")
  with x64_mode(False):
    x = scalar_types.float32(3)
    assert x.dtype == np.float32 and x.shape == () and not x.weak_type
    assert float(x) == 3.0
    y = scalar_types.int8([1, 2])
    assert y.dtype == np.int8 and y.shape == (2,)
    # JAX's text says "requested in asarray" (jnp.float64(x) is asarray(x, float64)).
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested in"):
      assert scalar_types.float64(1).dtype == np.float32
  assert creation.asarray is not None


def test_public_dtypes_namespace_matches_jax():
  public = sorted(n for n in dir(axle.dtypes) if not n.startswith("_"))
  assert public == TABLE["jax_dtypes_public_names"]
  assert axle.dtypes.bfloat16 is ml_dtypes.bfloat16
  assert issubclass(axle.dtypes.prng_key, axle.dtypes.extended)


def test_result_type_with_axle_arrays():
  array_module = pytest.importorskip("axle._src.array")
  with x64_mode(False):
    weak = array_module.Array(np.zeros((), np.float32), weak_type=True)
    strong = array_module.Array(np.zeros((2,), np.float16))
    assert result_type_flag(weak, strong) == (np.dtype("float16"), False)
    assert result_type_flag(weak, 2) == (np.dtype("float32"), True)
    assert dtypes.is_weakly_typed(weak) and not dtypes.is_weakly_typed(strong)
