"""NumPy-style indexing, ``.at[]`` updates and lax gather/scatter, compared with JAX 0.10.2.

``tests/data/indexing_reference.json`` is recorded by ``tools/record_indexing_reference.py``
under real JAX: values, shapes, dtypes, error types and messages for a grid of index
expressions, and printed jaxprs. The same expression strings are evaluated here with axle.
Hypothesis then compares random basic + advanced index combinations with NumPy (the reference
for in-bounds indices) for reads and updates.
"""
import json
import math
import os
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.array import Array
from axle._src.numpy.indexing import _IndexUpdateHelper, getitem

with open(os.path.join(os.path.dirname(__file__), "data", "indexing_reference.json")) as f:
  REFERENCE = json.load(f)

ARRAYS = {
    "X": np.arange(24, dtype=np.int32).reshape(2, 3, 4),
    "F": np.arange(24, dtype=np.float32).reshape(2, 3, 4),
    "V": np.arange(5, dtype=np.float32),
    "B": np.array([[True, False, True], [False, False, True]]),
    "U": np.arange(6, dtype=np.uint8).reshape(2, 3),
    "S": np.array(7, dtype=np.int32),
    "M": np.arange(12, dtype=np.float32).reshape(3, 4),
    "E": np.zeros((0, 3), dtype=np.float32),
}


def namespace():
  ns = {"np": np, "jnp": jnp, "lax": lax}
  ns.update({k: Array(v.copy()) for k, v in ARRAYS.items()})
  return ns


def _check_result(actual, case, what):
  assert "error" not in case, f"{what}: JAX raised {case.get('error')}, axle returned {actual}"
  actual_np = np.asarray(actual)
  assert list(actual_np.shape) == case["shape"], f"{what}: shape {actual_np.shape} != {case['shape']}"
  assert actual_np.dtype.name == case["dtype"], f"{what}: dtype {actual_np.dtype} != {case['dtype']}"
  expected = np.array(case["value"], dtype=np.float64 if case["dtype"] == "bfloat16" else case["dtype"])
  expected = expected.reshape(case["shape"])
  if actual_np.dtype.kind in "fc":
    np.testing.assert_array_equal(actual_np.astype(expected.dtype), expected, err_msg=what)
  else:
    np.testing.assert_array_equal(actual_np, expected, err_msg=what)
  assert bool(getattr(actual, "weak_type", False)) == case["weak_type"], f"{what}: weak_type"


def _check_error(exc, case, what):
  expected = case.get("error")
  assert expected is not None, f"{what}: axle raised {type(exc).__name__}: {exc}; JAX returned a value"
  assert type(exc).__name__ == expected["type"], f"{what}: {type(exc).__name__}: {exc}"
  message = str(exc)
  if " at 0x" in expected["message"]:  # object reprs carry addresses
    assert message.split(" at 0x")[0] == expected["message"].split(" at 0x")[0]
  else:
    assert message == expected["message"], f"{what}"


def _run(fn, case, what):
  try:
    out = fn()
  except Exception as e:  # noqa: BLE001
    _check_error(e, case, what)
    return None
  _check_result(out, case, what)
  return out


# ---------------------------------------------------------------------------
# x[idx] on the recorded grid

GETITEM = REFERENCE["getitem"]


@pytest.mark.parametrize("case", GETITEM, ids=[f"{c['array']}[{c['index']}]" for c in GETITEM])
def test_getitem_matches_jax(case):
  ns = namespace()
  arr = ns[case["array"]]
  _run(lambda: getitem(arr, eval(case["index"], ns)), case, f"{case['array']}[{case['index']}]")


def _to_axle_indices(index):
  """The same index with NumPy arrays replaced by axle Arrays (must give the same values)."""
  if isinstance(index, tuple):
    return tuple(_to_axle_indices(i) for i in index)
  if isinstance(index, np.ndarray):
    return Array(index.astype(np.int32) if index.dtype == np.int64 else index)
  return index


VALUE_CASES = [c for c in GETITEM if "error" not in c]


@pytest.mark.parametrize("case", VALUE_CASES, ids=[f"{c['array']}[{c['index']}]" for c in VALUE_CASES])
def test_getitem_with_array_indices_and_under_jit(case):
  ns = namespace()
  arr = ns[case["array"]]
  index = eval(case["index"], ns)
  _check_result(getitem(arr, _to_axle_indices(index)), case, "axle-array indices")
  if not _has_bool_array(index):
    _check_result(axle.jit(lambda a: getitem(a, index))(arr), case, "jit")


def _has_bool_array(index):
  items = index if isinstance(index, tuple) else (index,)
  return any(getattr(i, "dtype", None) == np.bool_ and np.ndim(i) > 0 for i in items)


def test_operator_getitem_is_wired():
  x = Array(np.arange(6, dtype=np.int32).reshape(2, 3))
  np.testing.assert_array_equal(np.asarray(x[1, ::-1]), [5, 4, 3])
  np.testing.assert_array_equal(np.asarray(x.at[0, 1].set(9)), [[0, 9, 2], [3, 4, 5]])


# ---------------------------------------------------------------------------
# .at[] updates, lax gather/scatter

AT = REFERENCE["at"]


# Unsafe casts of updates warn as in JAX (tested in test_unsafe_update_cast_warns).
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("case", AT, ids=[c["code"] for c in AT])
def test_at_matches_jax(case):
  ns = namespace()
  _run(lambda: eval(case["code"], ns), case, case["code"])


LAX = REFERENCE["lax"]


@pytest.mark.parametrize("case", LAX, ids=[c["code"][:120] for c in LAX])
def test_lax_gather_scatter_match_jax(case):
  ns = namespace()
  _run(lambda: eval(case["code"], ns), case, case["code"])


@pytest.mark.parametrize("case", [c for c in LAX if "error" not in c][::3],
                         ids=[c["code"][:120] for c in LAX if "error" not in c][::3])
def test_lax_gather_scatter_jit_matches_eager(case):
  ns = namespace()
  eager = eval(case["code"], ns)
  jitted = axle.jit(lambda: eval(case["code"], ns))()
  np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))


# ---------------------------------------------------------------------------
# Under jit (XLA): the recorded .at[] and lax cases with their arrays as traced jit arguments


def _jit_with_array_args(code):
  """Evaluates ``code`` under ``axle.jit`` with the named arrays it uses passed as arguments.

  A boolean mask must be concrete under jit (JAX raises too), so a mask expression such as
  ``F > 12`` is computed eagerly and closed over."""
  ns = namespace()
  for k, mask in enumerate(re.findall(r"\w+ [<>]=? [\d.]+", code)):
    ns[f"MASK{k}"] = eval(mask, ns)
    code = code.replace(mask, f"MASK{k}")
  names = [n for n in ARRAYS if re.search(rf"\b{n}\b", code)]

  def fun(*arrays):
    return eval(code, {**ns, **dict(zip(names, arrays))})

  return axle.jit(fun)(*(ns[n] for n in names))


AT_VALUES = [c for c in AT if "error" not in c]


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("case", AT_VALUES, ids=[c["code"] for c in AT_VALUES])
def test_at_under_jit_matches_jax(case):
  _check_result(_jit_with_array_args(case["code"]), case, f"jit: {case['code']}")


LAX_VALUES = [c for c in LAX if "error" not in c]


@pytest.mark.parametrize("case", LAX_VALUES, ids=[c["code"][:120] for c in LAX_VALUES])
def test_lax_gather_scatter_under_jit_matches_jax(case):
  _check_result(_jit_with_array_args(case["code"]), case, f"jit: {case['code']}")


# A traced scalar index (dynamic_slice / scatter with traced starts), in and out of bounds.
# Expected values are JAX 0.10.2's under jit: reads clamp, `get(mode='fill')` fills, updates of
# out-of-bounds positions are dropped; negative indices count from the end first.
_SCALAR_INDEX_CASES = [
    # i, x[i], x.at[i].get(fill -1), x.at[i].set(9) position or None, x2[i, 1:3], x2[:, i] column
    (-7, 0.0, -1.0, None, (1.0, 2.0), 0),
    (-5, 0.0, 0.0, 0, (1.0, 2.0), 0),
    (-1, 4.0, 4.0, 4, (16.0, 17.0), 4),
    (0, 0.0, 0.0, 0, (1.0, 2.0), 0),
    (4, 4.0, 4.0, 4, (16.0, 17.0), 4),
    (5, 4.0, -1.0, None, (16.0, 17.0), 4),
    (7, 4.0, -1.0, None, (16.0, 17.0), 4),
]


@pytest.mark.parametrize("case", _SCALAR_INDEX_CASES, ids=[str(c[0]) for c in _SCALAR_INDEX_CASES])
def test_traced_scalar_index_matches_jax(case):
  i, read, filled, set_at, row, column = case
  x_np = np.arange(5, dtype=np.float32)
  x2_np = np.arange(20, dtype=np.float32).reshape(4, 5)
  x, x2 = Array(x_np), Array(x2_np)
  expected_set = x_np.copy()
  expected_add = x_np.copy()
  if set_at is not None:
    expected_set[set_at] = 9.0
    expected_add[set_at] += 9.0
  funs = {
      "read": (lambda a, i: getitem(a, i), x, read),
      "fill": (lambda a, i: _IndexUpdateHelper(a)[i].get(mode="fill", fill_value=-1.0), x, filled),
      "set": (lambda a, i: _IndexUpdateHelper(a)[i].set(9.0), x, expected_set),
      "add": (lambda a, i: _IndexUpdateHelper(a)[i].add(9.0), x, expected_add),
      "row": (lambda a, i: getitem(a, (i, slice(1, 3))), x2, np.array(row, np.float32)),
      "column": (lambda a, i: getitem(a, (slice(None), i)), x2, x2_np[:, column]),
  }
  for what, (fun, operand, expected) in funs.items():
    jitted = axle.jit(fun)(operand, i)
    eager = fun(operand, Array(np.int32(i)))
    np.testing.assert_array_equal(np.asarray(jitted), expected, err_msg=f"jit {what} at {i}")
    np.testing.assert_array_equal(np.asarray(eager), expected, err_msg=f"eager {what} at {i}")


# ---------------------------------------------------------------------------
# Printed jaxprs and tracing-only errors

JAXPRS = REFERENCE["jaxprs"]


@pytest.mark.filterwarnings("ignore::FutureWarning")  # unsafe update casts (tested above)
@pytest.mark.parametrize("case", JAXPRS, ids=[f"{c['code']} | {c['args']}" for c in JAXPRS])
def test_jaxpr_matches_jax(case):
  ns = namespace()
  fun = eval(case["code"], ns)
  args = eval(f"({case['args']},)", ns)
  try:
    text = str(axle.make_jaxpr(fun)(*args))
  except Exception as e:  # noqa: BLE001
    _check_error(e, case, case["code"])
    return
  assert "error" not in case, f"JAX raised {case['error']}"
  expected = case["text"]
  assert text == expected, f"\naxle:\n{text}\njax:\n{expected}"


JIT_ERRORS = REFERENCE["jit_errors"]


@pytest.mark.parametrize("case", JIT_ERRORS, ids=[c["code"] for c in JIT_ERRORS])
def test_errors_under_jit_match_jax(case):
  ns = namespace()
  fun = eval(case["code"], ns)
  args = eval(f"({case['args']},)", ns)
  with pytest.raises(Exception) as info:
    axle.jit(fun)(*args)
  assert type(info.value).__name__ == case["error"]["type"], str(info.value)
  expected = case["error"]["message"]
  # Messages that name the traced function's source location differ in that location only.
  if "The error occurred while tracing" in expected:
    assert str(info.value).split("The error occurred")[0] == expected.split("The error occurred")[0]
  else:
    assert str(info.value) == expected


def test_nonconcrete_boolean_index_error_class():
  from axle.errors import NonConcreteBooleanIndexError
  x = Array(np.arange(4.0, dtype=np.float32))
  with pytest.raises(NonConcreteBooleanIndexError):
    axle.jit(lambda x: x[x > 1])(x)
  with pytest.raises(IndexError):  # it is an IndexError too
    axle.jit(lambda x: _IndexUpdateHelper(x)[x > 1].set(0.0))(x)


# ---------------------------------------------------------------------------
# Random index expressions vs NumPy


def _index_entry(draw, size, allow_advanced):
  kind = draw(st.sampled_from(["int", "slice", "none", "array", "list"] if allow_advanced
                              else ["int", "slice", "none"]))
  if kind == "int":
    return draw(st.integers(-size, size - 1)), 1
  if kind == "slice":
    bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0)))
    return slice(draw(bound), draw(bound), step), 1
  if kind == "none":
    return None, 0
  shape = draw(st.sampled_from([(2,), (1,), (3,), (2, 1), (0,)]))
  values = np.array(draw(st.lists(st.integers(-size, size - 1), min_size=math.prod(shape),
                                   max_size=math.prod(shape))), dtype=np.int32).reshape(shape)
  if kind == "list":
    return values.tolist(), 1
  return values, 1


@st.composite
def index_and_shape(draw):
  ndim = draw(st.integers(1, 4))
  shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
  entries = []
  consumed = 0
  n_entries = draw(st.integers(0, ndim + 1))
  for _ in range(n_entries):
    if consumed >= ndim:
      entries.append(None)
      continue
    entry, used = _index_entry(draw, shape[consumed], allow_advanced=True)
    entries.append(entry)
    consumed += used
  if draw(st.booleans()) and consumed < ndim:
    position = draw(st.integers(0, len(entries)))
    entries.insert(position, Ellipsis)
  return shape, tuple(entries)


def _numpy_accepts(x_np, index):
  """Inserting Ellipsis may move an int onto a shorter axis: NumPy raises, so skip those."""
  try:
    x_np[index]
    return True
  except IndexError:
    return False


@settings(max_examples=150, deadline=None)
@given(index_and_shape(), st.booleans())
def test_random_getitem_matches_numpy(shape_and_index, under_jit):
  shape, index = shape_and_index
  x_np = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
  assume(_numpy_accepts(x_np, index))
  expected = x_np[index]
  x = Array(x_np)
  if under_jit:
    actual = axle.jit(lambda a: getitem(a, index))(x)
  else:
    actual = getitem(x, index)
  assert np.shape(actual) == expected.shape, (index, np.shape(actual), expected.shape)
  np.testing.assert_array_equal(np.asarray(actual), expected)


@settings(max_examples=120, deadline=None)
@given(index_and_shape(), st.sampled_from(["set", "add", "mul", "min", "max"]), st.booleans())
def test_random_updates_match_numpy(shape_and_index, op, under_jit):
  shape, index = shape_and_index
  rng = np.random.default_rng(0)
  x_np = rng.integers(-5, 5, size=shape).astype(np.float32)
  assume(_numpy_accepts(x_np, index))
  target_shape = x_np[index].shape
  y_np = rng.integers(-5, 5, size=target_shape).astype(np.float32)
  expected = x_np.copy()
  # ufunc.at applies every repeated index, as scatter-add/mul/min/max do; set keeps the last.
  flat_positions = np.arange(x_np.size).reshape(shape)[index]
  if op == "set":
    expected.reshape(-1)[flat_positions.reshape(-1)] = y_np.reshape(-1)
  else:
    ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    ufunc.at(expected.reshape(-1), flat_positions.reshape(-1), y_np.reshape(-1))
  x = Array(x_np)
  fun = lambda a, b: getattr(_IndexUpdateHelper(a)[index], op)(b)  # noqa: E731
  actual = axle.jit(fun)(x, Array(y_np)) if under_jit else fun(x, Array(y_np))
  np.testing.assert_array_equal(np.asarray(actual), expected)


# ---------------------------------------------------------------------------
# Kernel details


def test_gather_fill_default_values_per_dtype():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
  for dtype, fill in [(np.float32, np.nan), (np.int8, -128), (np.uint16, 65535), (np.bool_, True),
                      (np.complex64, complex(np.nan, 0))]:
    x = Array(np.zeros(3, dtype))
    out = np.asarray(lax.gather(x, np.array([[5], [1]], np.int32), dn, (1,), mode="fill"))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, np.array([fill, 0], dtype))


def test_scatter_apply_repeats_function_on_duplicates():
  x = Array(np.ones(4, np.float32))
  out = _IndexUpdateHelper(x)[np.array([1, 1, 1, 3])].apply(lambda v: v * 2)
  np.testing.assert_array_equal(np.asarray(out), [1, 8, 1, 2])


def test_scatter_operand_is_not_mutated():
  value = np.arange(5, dtype=np.float32)
  x = Array(value)
  _IndexUpdateHelper(x)[np.array([0, 0])].add(1.0)
  _IndexUpdateHelper(x)[2].set(9.0)
  np.testing.assert_array_equal(value, np.arange(5, dtype=np.float32))


def test_unsafe_update_cast_warns():
  with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float32 to dtype=int32"):
    out = jnp.arange(3).at[0].set(2.5)
  np.testing.assert_array_equal(np.asarray(out), [2, 1, 2])


@settings(max_examples=150, deadline=None)
@given(operand_shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       batch_shape=st.lists(st.integers(0, 3), min_size=0, max_size=2),
       columns=st.integers(1, 3), mode=st.sampled_from(["clip", "fill", "promise_in_bounds"]),
       index_dtype=st.sampled_from([np.int32, np.int64, np.uint8, np.int8]),
       operand_dtype=st.sampled_from([np.float32, np.int32, np.bool_]),
       fill=st.sampled_from([None, 7]), seed=st.integers(0, 2 ** 16))
def test_point_gather_kernel_agrees_with_the_general_one(operand_shape, batch_shape, columns, mode,
                                                         index_dtype, operand_dtype, fill, seed):
  # the eager gather kernel's shortcut for whole trailing slices at index points (x[i],
  # jnp.take) gives what its general window reader gives, out-of-bounds indices included
  from axle._src.lax import slicing
  assume(columns <= len(operand_shape))
  rng = np.random.default_rng(seed)
  operand = (rng.standard_normal(operand_shape) * 5).astype(operand_dtype)
  high = max(operand_shape) + 3
  indices = rng.integers(-3 if np.dtype(index_dtype).kind == "i" else 0, high,
                         (*batch_shape, columns)).astype(index_dtype)
  k, batch = columns, len(batch_shape)
  dn = slicing.GatherDimensionNumbers(
      offset_dims=tuple(range(batch, batch + len(operand_shape) - k)),
      collapsed_slice_dims=tuple(range(k)), start_index_map=tuple(range(k)),
      operand_batching_dims=(), start_indices_batching_dims=())
  params = dict(dimension_numbers=dn, slice_sizes=(1,) * k + tuple(operand_shape[k:]),
                indices_are_sorted=False, unique_indices=False,
                mode=slicing.GatherScatterMode.from_any(mode), fill_value=fill)
  fast = slicing._point_gather(operand, indices, dn, params["slice_sizes"], params["mode"], fill)
  assert fast is not None
  original = slicing._point_gather
  try:
    slicing._point_gather = lambda *args: None  # the general reader
    general = slicing._gather_impl(operand, indices, **params)
  finally:
    slicing._point_gather = original
  assert fast.dtype == general.dtype and fast.shape == general.shape
  np.testing.assert_array_equal(fast, general)
  np.testing.assert_array_equal(slicing._gather_impl(operand, indices, **params), general)
