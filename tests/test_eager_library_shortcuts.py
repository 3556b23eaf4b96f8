"""Eager shortcuts of jnp library functions that JAX runs as one compiled program: sum/mean/
max/min/argmax/argmin of a 1-D Array with a host value (``numpy.reductions``) and ``clip``
between Python-number bounds (``numpy.lax_numpy``) skip the program and must still give its
bits: XLA's summation order, +0.0 for sums of -0.0, subnormals flushed, NaN and signed zeros as
XLA returns them."""
import contextlib
import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axle
import axle.numpy as jnp
from axle._src.numpy import reductions, statistics

_NAMES = ["sum", "mean", "max", "min", "argmax", "argmin", "var", "std"]
_TINY = np.float32(1.1754944e-38)  # the smallest normal float32
_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 1e-40, -1e-40, 1.0, -2.5, 0.0, -0.0,
                     2 * _TINY, 3e38, -3e38], np.float32)


def _jitted(name, **kwargs):
  """The compiled program an eager call of jnp's ``name`` runs in JAX (for var and std, whose
  ``ddof`` JAX passes to its program as an argument: that program run eagerly, not a jit of the
  call, where ddof is a constant and XLA may round the division otherwise)."""
  if name in ("var", "std"):
    def compiled(x):
      with _without_c_module():
        return getattr(jnp, name)(jnp.asarray(x), **kwargs)
    return compiled
  return axle.jit(lambda x: getattr(jnp, name)(x, **kwargs))


def _assert_same_bits(got, want):
  got, want = np.asarray(got), np.asarray(want)
  assert got.dtype == want.dtype and got.shape == want.shape
  assert got.tobytes() == want.tobytes(), (got, want)


def _inputs(n, rng):
  yield rng.standard_normal(n).astype(np.float32)
  yield (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(np.float32)
  yield np.full(n, -0.0, np.float32)
  yield np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(np.float32)
  yield (rng.standard_normal(n) * 1e37).astype(np.float32)  # partial sums overflow
  yield rng.choice(_SPECIAL, n)
  # normal elements whose partial sums can fall in the subnormal range (XLA flushes them)
  yield rng.integers(-5, 6, n).astype(np.float32) * _TINY * np.float32(1.5)


@contextlib.contextmanager
def _without_c_module():
  """The reductions answered by the NumPy fallback, as where the C module is not built."""
  saved = (reductions._c_sum, reductions._c_extremum, reductions._c_matrix_sum,
           statistics._c_variance)
  reductions._c_sum = reductions._c_extremum = reductions._c_matrix_sum = None
  statistics._c_variance = None
  try:
    yield
  finally:
    (reductions._c_sum, reductions._c_extremum, reductions._c_matrix_sum,
     statistics._c_variance) = saved


_MODES = {"C module": contextlib.nullcontext, "NumPy fallback": _without_c_module}


def test_the_c_module_is_built():
  # setup.py builds it optionally (a machine without a C compiler gets the fallback); where a
  # compiler exists, as here, a build error must not pass unnoticed.
  assert reductions._host_kernels is not None, "axle/_src/_host_kernels.c did not build"


# Lengths around the 32-element windows of XLA's order and its limit (4096 is summed otherwise).
@pytest.mark.parametrize("mode", sorted(_MODES))
@pytest.mark.parametrize("n", [1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 1023, 1024, 1025, 1057, 4095,
                               4096])
def test_shortcuts_give_the_compiled_bits(n, mode):
  rng = np.random.default_rng(n)
  jitted = {name: _jitted(name) for name in _NAMES}
  host = 0
  with _MODES[mode]():
    for x in _inputs(n, rng):
      array = jnp.asarray(x)
      for name in _NAMES:
        out = getattr(jnp, name)(array)
        host += out._buffer is None
        _assert_same_bits(out, jitted[name](x))
  assert host >= (4 if n < 4096 else 0)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.sampled_from(list(_SPECIAL)) | st.floats(-1e6, 1e6, width=32),
                       min_size=1, max_size=70))
def test_shortcuts_on_arbitrary_vectors(values):
  x = np.array(values, np.float32)
  for mode in _MODES.values():
    with mode():
      for name in _NAMES:
        _assert_same_bits(getattr(jnp, name)(jnp.asarray(x)), _jitted(name)(x))


@pytest.mark.parametrize("n", [33, 100, 1000])
def test_variance_with_ddof_and_keepdims_gives_the_compiled_bits(n):
  rng = np.random.default_rng(n)
  host = 0
  for x in _inputs(n, rng):
    array = jnp.asarray(x)
    for name in ["var", "std"]:
      for kwargs in [{"ddof": 1}, {"ddof": 5}, {"ddof": n - 1}, {"ddof": n}, {"ddof": n + 1},
                     {"keepdims": True}, {"axis": 0, "ddof": 2}, {"dtype": np.float32},
                     {"correction": 1}]:
        out = getattr(jnp, name)(array, **kwargs)
        host += out._buffer is None
        _assert_same_bits(out, _jitted(name, **kwargs)(x))
  assert host > 20


def test_c_sums_agree_with_the_numpy_model():
  # Two implementations of one order: the C module's loops and NumPy's windowed accumulate.
  rng = np.random.default_rng(5)
  for n in [2, 17, 32, 33, 100, 129, 1000, 1024, 1025, 2047, 4095]:
    for x in _inputs(n, rng):
      c_total = reductions._host_sum(x)
      with _without_c_module():
        numpy_total = reductions._host_sum(x)
      if c_total is not None and numpy_total is not None:
        _assert_same_bits(c_total, numpy_total)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int16, np.float32])
def test_argument_forms(dtype):
  x = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3] * 5, dtype)
  array = jnp.asarray(x)
  for name in ["max", "min", "argmax", "argmin"] + (["sum", "mean"] if dtype == np.float32 else []):
    fun = getattr(jnp, name)
    for kwargs in [{}, {"axis": 0}, {"axis": -1}, {"keepdims": True}, {"axis": 0, "keepdims": True}]:
      _assert_same_bits(fun(array, **kwargs), _jitted(name, **kwargs)(x))
  if dtype == np.float32:
    _assert_same_bits(jnp.sum(array, dtype=jnp.float32), _jitted("sum", dtype=jnp.float32)(x))
    _assert_same_bits(jnp.mean(array, dtype=np.float32), _jitted("mean", dtype=np.float32)(x))
    _assert_same_bits(array.sum(), _jitted("sum")(x))
    _assert_same_bits(array.mean(0), _jitted("mean")(x))


def test_shortcuts_run_on_the_host_and_others_compile(caplog):
  x = jnp.asarray(np.linspace(-1.0, 3.0, 100, dtype=np.float32))
  jnp.sum(jnp.asarray(np.ones((3, 3), np.float32)))  # (compiles once, before capturing)
  with caplog.at_level(logging.DEBUG, logger="axle"):
    caplog.clear()
    results = [getattr(jnp, name)(x) for name in _NAMES]
    assert not [r for r in caplog.records if r.getMessage().startswith("Compiling ")]
  for out in results:  # computed on the host: never handed to XLA
    assert out._value is not None and out._buffer is None
  # Not shortcuts (the compiled program answers): other dtypes, ranks, arguments, weak types.
  for out in [jnp.sum(x.astype(jnp.bfloat16)), jnp.sum(x, dtype=jnp.int32),
              jnp.sum(x.reshape(10, 10)), jnp.sum(x, where=x > 0), jnp.sum(x, initial=1.0),
              jnp.max(x, initial=5.0), jnp.sum(axle.lax.full((3,), 2.0))]:  # (weakly typed)
    assert out._buffer is not None
  np.testing.assert_array_equal(jnp.sum(jnp.asarray([1, 2, 3])), 6)  # integer sums: compiled


def test_device_arrays_stay_on_the_device():
  x = jnp.exp(jnp.asarray(np.linspace(0.1, 1.0, 50, dtype=np.float32)))  # an XLA result
  assert x._value is None
  out = jnp.sum(x)
  assert out._buffer is not None
  _assert_same_bits(out, _jitted("sum")(np.asarray(x)))


def test_errors_and_traced_calls_are_unchanged():
  with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
    jnp.max(jnp.asarray(np.zeros(0, np.float32)))
  with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
    jnp.argmax(jnp.asarray(np.zeros(0, np.float32)))
  assert float(jnp.sum(jnp.asarray(np.zeros(0, np.float32)))) == 0.0
  jaxpr = str(axle.make_jaxpr(lambda x: (jnp.sum(x), jnp.max(x), jnp.argmax(x)))(np.ones(4, np.float32)))
  assert "reduce_sum" in jaxpr and "reduce_max" in jaxpr and "argmax" in jaxpr


def test_debug_nans_still_raises():
  x = jnp.asarray(np.array([1.0, np.inf, -np.inf], np.float32))
  with axle.debug_nans(True), pytest.raises(FloatingPointError):
    jnp.sum(x)


_CLIP_BOUNDS = [(-0.5, 0.5), (0.5, -0.5), (None, 1.0), (-1.0, None), (0.0, 1.0), (-1, 2), (1e-40, 1.0),
                (-0.5, 1e39), (-0.0, 0.0), (2, 3), (float("nan"), 1.0), (None, 0.0), (None, -0.0),
                (0.0, None), (-0.0, None), (-1.0, 0.0), (-0.0, 1.0), (0, None)]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # the 1e39 bound, compiled
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_shortcut_gives_the_compiled_bits(dtype):
  rng = np.random.default_rng(3)
  jitted = axle.jit(jnp.clip)  # the eager program: bounds are arguments, not constants
  host = 0
  with axle.enable_x64(dtype == np.float64):
    for trial in range(40):
      n = int(rng.integers(1, 40))
      x = (rng.choice(_SPECIAL, n) if trial % 2 else rng.standard_normal(n)).astype(dtype)
      array = jnp.asarray(x)
      for low, high in _CLIP_BOUNDS:
        out = jnp.clip(array, low, high)
        host += out._buffer is None
        _assert_same_bits(out, jitted(x, low, high))
      _assert_same_bits(jnp.clip(array, max=0.25), jitted(x, max=0.25))
  assert host > 100  # the shortcut did run (inputs without NaN or subnormals, normal bounds)


def test_clip_shortcut_leaves_other_calls_to_the_program():
  x = jnp.asarray(np.linspace(-1.0, 1.0, 9, dtype=np.float32))
  for out in [jnp.clip(x, 0.0, 0.5), jnp.clip(x, jnp.asarray(-0.5), 0.5),
              jnp.clip(x.astype(jnp.bfloat16), -0.5, 0.5), jnp.clip(x, 1e-40, 1.0),
              jnp.clip(axle.lax.full((3,), 2.0), 0.5, 1.0)]:
    assert out._buffer is not None
  assert jnp.clip(x, -0.5, 0.5)._buffer is None
  jaxpr = str(axle.make_jaxpr(lambda x: jnp.clip(x, -0.5, 0.5))(x))
  assert "name=clip" in jaxpr


def _creations():
  x = jnp.asarray(np.linspace(-1.0, 1.0, 6, dtype=np.float32))
  calls = []
  for shape in [3, (2, 3), (), (0,), (300, 300)]:
    for dtype in [None, jnp.float32, np.int32, jnp.bfloat16, np.float16, bool, np.complex64, "uint8"]:
      calls += [("zeros", lambda s=shape, d=dtype: jnp.zeros(s, d)),
                ("ones", lambda s=shape, d=dtype: jnp.ones(s, d))]
      for fill in [0.1, -0.0, 0.0, 1 / 3, 2, True, 1e-40, float("inf"), 7]:
        calls.append(("full", lambda s=shape, f=fill, d=dtype: jnp.full(s, f, d)))
  for dtype in [None, np.int32, jnp.bfloat16, bool]:
    for shape in [None, (4,)]:
      calls += [("zeros_like", lambda d=dtype, s=shape: jnp.zeros_like(x, d, s)),
                ("ones_like", lambda d=dtype, s=shape: jnp.ones_like(x, d, s))]
  for n in [0, 1, 5, 100]:
    for dtype in [None, np.float32, np.int16, jnp.bfloat16]:
      calls.append(("arange", lambda n=n, d=dtype: jnp.arange(n, dtype=d)))
  return calls


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("x64", [False, True])
def test_repeated_creation_gives_the_general_paths_array(x64):
  # The first call of each signature takes the general path; later ones share its value.
  with axle.enable_x64(x64):
    for name, make in _creations():
      try:
        first = make()
      except Exception as e:  # noqa: BLE001  (the same error again, not a remembered value)
        with pytest.raises(type(e)):
          make()
        continue
      again = make()
      assert again is not first and again.aval == first.aval, name
      assert again.weak_type == first.weak_type, name
      _assert_same_bits(again, first)
      with axle.disable_jit():
        _assert_same_bits(make(), first)


def test_remembered_creation_keeps_signs_dtypes_and_modes_apart():
  assert np.signbit(np.asarray(jnp.full((2,), -0.0))).all()
  assert not np.signbit(np.asarray(jnp.full((2,), 0.0))).any()
  assert np.signbit(np.asarray(jnp.full((2,), -0.0))).all()
  assert jnp.full((2,), 1).dtype == np.int32 and jnp.full((2,), 1.0).dtype == np.float32
  assert jnp.full((2,), True).dtype == np.bool_ and jnp.full((2,), 1).weak_type
  assert jnp.zeros(3).dtype == np.float32
  with axle.enable_x64(True):
    assert jnp.zeros(3).dtype == np.float64 and jnp.arange(3).dtype == np.int64
  assert jnp.zeros(3).dtype == np.float32 and jnp.arange(3).dtype == np.int32
  jaxpr = str(axle.make_jaxpr(lambda: jnp.zeros((2,)) + jnp.arange(2))())
  assert "broadcast_in_dim" in jaxpr and "iota" in jaxpr
  with pytest.raises(TypeError):
    jnp.zeros((2.5,))
  with pytest.raises(TypeError):
    jnp.zeros((2.5,))


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")  # (floats into ints)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16, np.int32, np.uint8, bool,
                                   np.complex64])
def test_at_set_of_one_position_gives_the_scatters_result(dtype):
  # x.at[i].set(v) with a Python int i and a Python number v copies the host value and sets one
  # position; the same as the general scatter path and jit, errors included.
  from axle._src.numpy import indexing
  jitted = axle.jit(lambda a, i, b: a.at[i].set(b), static_argnums=1)
  values = [0.0, -0.0, 1.5, float("nan"), float("inf"), 1e-40, 1e39, 3, -7, 2 ** 31, 255, 256,
            1 / 3]
  for shape in [(5,), (3, 4)]:
    x = (np.arange(np.prod(shape)).reshape(shape) - 2).astype(dtype)
    array = jnp.asarray(x)
    for index in [0, 2, -1, -3, 4, 5]:
      for value in values:
        try:
          want = indexing._scatter_update(array, index, value, axle.lax.scatter, False, False)
        except Exception as e:  # noqa: BLE001
          with pytest.raises(type(e)):
            array.at[index].set(value)
          continue
        got = array.at[index].set(value)
        _assert_same_bits(got, want)
        assert got.weak_type == want.weak_type
        _assert_same_bits(got, jitted(x, index, value))
  np.testing.assert_array_equal(x, (np.arange(np.prod(shape)).reshape(shape) - 2).astype(dtype))


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")  # (floats into ints)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, bool])
def test_at_set_of_a_slice_gives_the_scatters_result(dtype):
  # x.at[a:b:c].set(v) with a Python number or an Array of the same dtype copies the host value
  # and assigns the slice; the same as the general scatter path and jit, errors included.
  from axle._src.numpy import indexing
  for shape in [(6,), (4, 3)]:
    x = (np.arange(np.prod(shape)).reshape(shape) - 2).astype(dtype)
    array = jnp.asarray(x)
    updates = [1.5, -0.0, float("nan"), 1e-40, 7, 2 ** 31,
               jnp.asarray(np.array(9).astype(dtype)),
               jnp.asarray(np.full(shape[1:], 5).astype(dtype)),
               jnp.asarray(np.arange(2 * int(np.prod(shape[1:]))).reshape((2, *shape[1:]))
                           .astype(dtype)),
               jnp.asarray(np.full((1, 2), 3).astype(dtype)),
               jnp.asarray(np.full((3,), 3).astype(np.int8)),  # another dtype: the general path
               jnp.asarray(np.array([1e-40, 1.0], np.float32))]  # a subnormal: the general path
    for start, stop, step in [(1, 3, None), (None, None, None), (-2, None, None), (5, 1, -2),
                              (0, 10, 3), (4, 2, None), (-9, 9, 2)]:
      for value in updates:
        try:
          want = indexing._scatter_update(array, slice(start, stop, step), value,
                                          axle.lax.scatter, False, False)
        except Exception as e:  # noqa: BLE001
          with pytest.raises(type(e)):
            array.at[start:stop:step].set(value)
          continue
        got = array.at[start:stop:step].set(value)
        _assert_same_bits(got, want)
        assert got.weak_type == want.weak_type
        # (an Array update is an argument of the program: XLA flushes subnormal constants; a
        # Python number is a constant: one beyond int32 is no argument)
        if isinstance(value, axle.Array):
          jitted = axle.jit(lambda a, b: a.at[start:stop:step].set(b))(x, value)
        elif value == 1e-40:
          continue
        else:
          jitted = axle.jit(lambda a: a.at[start:stop:step].set(value))(x)
        _assert_same_bits(got, jitted)
  np.testing.assert_array_equal(x, (np.arange(np.prod(shape)).reshape(shape) - 2).astype(dtype))
  # these take the shortcut (the general scatter path is not called)
  original = indexing._scatter_update
  indexing._scatter_update = None
  try:
    vector = jnp.asarray(np.arange(10.0, dtype=np.float32))
    fast = vector.at[2:5].set(jnp.ones(3)).at[::3].set(-1.0).at[4].set(2)
  finally:
    indexing._scatter_update = original
  np.testing.assert_array_equal(np.asarray(fast), [-1, 1, 1, -1, 2, 5, -1, 7, 8, -1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_at_add_at_positions_gives_the_scatters_result(dtype):
  # x.at[idx].add(v) with in-bounds positions and a Python number: np.add.at on a copy, as the
  # general scatter-add and jit (repeated positions, negative ones, NaN/inf/subnormal neighbours).
  from axle._src.numpy import indexing
  rng = np.random.default_rng(5)
  jitted = axle.jit(lambda a, i, b: a.at[i].add(b))
  host = 0
  with axle.enable_x64(dtype == np.float64):
    for trial in range(30):
      shape = (7,) if trial % 3 else (5, 3)
      x = (rng.choice(_SPECIAL, shape) if trial % 2 else rng.standard_normal(shape)).astype(dtype)
      array = jnp.asarray(x)
      n = shape[0]
      for index in [rng.integers(-n, n, 6).astype(np.int32), np.array([1, 1, 1, 2], np.int32), 3, -1,
                    np.array([0, n], np.int32)]:
        positions = jnp.asarray(index) if isinstance(index, np.ndarray) else index
        for value in [1.0, -0.5, 1e-38, 3e38, float("nan"), -0.0, 2, 1e-45, float("inf")]:
          out = array.at[positions].add(value)
          host += out._buffer is None
          want = indexing._scatter_update(array, positions, value, axle.lax.scatter_add, False,
                                          False)
          _assert_same_bits(out, want)
          _assert_same_bits(out, jitted(x, index, value))
  assert host > 300


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # the 1e39 operand, compiled
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_on_the_host_give_xlas_bits(name, dtype):
  # The host shortcut (numpy.ufuncs._host_extremum) must give the compiled op's bits wherever it
  # answers: zeros that could tie, NaN and subnormals are left to XLA.
  rng = np.random.default_rng(7)
  fun = getattr(jnp, name)
  jitted = axle.jit(fun)
  host = 0
  with axle.enable_x64(dtype == np.float64):
    for trial in range(60):
      x = (rng.choice(_SPECIAL, 13) if trial % 3 == 0 else rng.standard_normal(13)).astype(dtype)
      y = (rng.choice(_SPECIAL, 13) if trial % 4 == 0 else rng.standard_normal(13)).astype(dtype)
      if trial % 5 == 0:
        x[rng.integers(0, 13, 3)] = rng.choice([0.0, -0.0], 3)
      xa, ya = jnp.asarray(x), jnp.asarray(y)
      for a, b in [(xa, ya), (xa, 0.0), (0.0, xa), (xa, -0.0), (ya, 0.5), (xa, -1), (xa, 1e-45),
                   (xa, float("inf")), (xa, 1e39), (xa, float("nan"))]:
        out = fun(a, b)
        if out._buffer is None:  # answered on the host
          host += 1
          _assert_same_bits(out, jitted(np.asarray(a) if isinstance(a, axle.Array) else a,
                                        np.asarray(b) if isinstance(b, axle.Array) else b))
  assert host > 100


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_eager_nan_bits_are_the_compiled_functions(name):
  # JAX runs jnp.maximum/minimum eagerly as one compiled program; where an operand is converted
  # (a Python int, an integer or narrower array), XLA returns the other operand's NaN as it is
  # (checked against JAX 0.10.2: eager minimum(-1, x) keeps a +NaN of x; the single-primitive
  # min of a float32 -1.0 returned XLA's own -NaN).
  fun = getattr(jnp, name)
  jitted = axle.jit(fun)
  x = jnp.asarray(np.array([np.nan, -np.nan, 1.0, -0.0, 0.0, -3.0], np.float32))
  h = jnp.asarray(np.array([np.nan, -np.nan, 1.0, -0.0, 0.0, -3.0], np.float16))
  i = jnp.asarray(np.array([0, 1, -1, 2, 0, 5], np.int32))
  operands = [-1, 1, 0, True, -1.0, 0.0, -0.0, float("nan"), x, x[::-1], h, i,
              i.astype(jnp.uint8), np.float32(np.nan)]
  for a in operands:
    for b in operands:
      if not any(isinstance(v, axle.Array) for v in (a, b)):
        continue
      _assert_same_bits(fun(a, b), jitted(a, b))
  nan_kept = fun(-1 if name == "minimum" else 1, x)
  assert np.asarray(nan_kept).view(np.uint32)[0] == np.asarray(x).view(np.uint32)[0]


def test_one_hot_of_host_integers_gives_the_compiled_array():
  from axle._src.nn import functions
  for dtype in [np.int32, np.uint8, np.int8]:
    x = np.array([[0, 3, -1, 9], [10, 2, 2, 5]]).astype(dtype)
    array = jnp.asarray(x)
    for classes in [0, 1, 4, 10, 200]:
      for axis in [-1, 0, 1, 2, -2]:
        for out_dtype in [None, jnp.bfloat16, np.int32, bool]:
          resolved = axle._src.dtypes.default_float_dtype() if out_dtype is None \
              else axle._src.dtypes.canonicalize_dtype(out_dtype)
          want = functions._one_hot(array, classes, dtype=resolved, axis=axis)  # the program
          for _ in range(2):  # the second call of a signature answers on the host
            got = axle.nn.one_hot(array, classes, dtype=out_dtype, axis=axis)
            assert got.aval == want.aval
            _assert_same_bits(got, want)
          # (an iota beyond the input's integer range wraps: the program answers then, itself
          # on the host where small enough, see xla/host_calls.py)
          if classes <= np.iinfo(dtype).max + 1:
            assert got._buffer is None
  with pytest.raises(ValueError):
    axle.nn.one_hot(jnp.asarray(np.arange(3, dtype=np.int32)), 4, axis=3)
  labels = jnp.asarray(np.arange(3, dtype=np.int32))
  assert axle.nn.one_hot(labels, 4).dtype == np.float32
  with axle.enable_x64(True):
    assert axle.nn.one_hot(labels, 4).dtype == np.float64
  assert axle.nn.one_hot(labels, 4).dtype == np.float32


def _matrix_inputs(shape, rng):
  yield (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)
  yield np.full(shape, -0.0, np.float32)
  yield np.where(rng.random(shape) < 0.5, -0.0, 1.5).astype(np.float32)
  yield (rng.standard_normal(shape) * 1e37).astype(np.float32)  # partial sums overflow
  yield rng.choice(_SPECIAL, shape)
  yield rng.integers(-5, 6, shape).astype(np.float32) * _TINY * np.float32(1.5)
  yield (rng.standard_normal(shape) * 2.0 ** -100).astype(np.float32)  # near the subnormal range


# Shapes on both sides of the bounds of the measured loops (4096 and 32768 elements, 32 and 256
# rows, 500 columns) and outside them (answered by the compiled program).
@pytest.mark.parametrize("shape", [(100, 100), (33, 127), (32, 100), (8, 500), (256, 16),
                                   (64, 64), (2, 1000), (500, 16), (1, 50), (50, 1), (15, 501),
                                   (257, 16), (128, 300)])
def test_matrix_sums_and_means_give_the_compiled_bits(shape):
  rng = np.random.default_rng(shape[0] * 1000 + shape[1])
  host = 0
  for x in _matrix_inputs(shape, rng):
    array = jnp.asarray(x)
    for name in ["sum", "mean"]:
      for kwargs in [{"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True},
                     {"axis": (0,), "keepdims": True}, {"axis": -2, "dtype": np.float32}]:
        out = getattr(jnp, name)(array, **kwargs)
        host += out._buffer is None
        _assert_same_bits(out, _jitted(name, **kwargs)(x))
  if reductions._host_kernels is not None and shape in [(100, 100), (64, 64)]:
    assert host > 30


def test_strided_host_views_take_the_numpy_versions():
  # A host value can be a strided NumPy view (x[::2]); the C module reads only contiguous
  # vectors and says so (NotImplemented), and the NumPy versions answer instead.
  x = np.random.default_rng(11).standard_normal(301).astype(np.float32)
  view = jnp.asarray(x)[::3]
  assert view._value is not None and not view._value.flags.c_contiguous
  for name in ["sum", "mean", "max", "min"]:
    out = getattr(jnp, name)(view)
    assert out._buffer is None, name
    _assert_same_bits(out, _jitted(name)(x[::3]))
