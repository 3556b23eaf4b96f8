"""Eager numbers are XLA's, as JAX's are: the NumPy kernels on the exact policy give jit's bits
on edge values (subnormals, which XLA's CPU runtime flushes to zero, signed zeros, infinities,
NaN), the other primitives run eagerly on XLA, and ``axle_fast_eager`` keeps NumPy kernels."""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import elementwise as lax_elementwise
from axle._src.numpy import lax_numpy, ufuncs

_TINY32 = float(np.finfo(np.float32).tiny)


def _edge(dtype) -> np.ndarray:
  """Normal values, signed zeros, infinities, NaN and subnormals of ``dtype``."""
  dtype = np.dtype(dtype)
  tiny = float(ml_dtypes.finfo(dtype).tiny)
  values = [0.0, -0.0, 1.0, -1.5, 2.5, 3.0, 0.1, -7.25, 1e3, np.inf, -np.inf, np.nan,
            tiny, -tiny, tiny / 4, -tiny * 0.75, tiny / 64, tiny * 1.5]
  with np.errstate(over="ignore"):
    return np.array(values, dtype)


def _pairs(dtype):
  x = _edge(dtype)
  return np.repeat(x, len(x)), np.tile(x, len(x))


def _assert_same_bits(eager, jitted, what):
  eager, jitted = np.asarray(eager), np.asarray(jitted)
  assert eager.dtype == jitted.dtype and eager.shape == jitted.shape, what
  if eager.tobytes() != jitted.tobytes():
    bad = np.flatnonzero(eager.reshape(-1).view(np.uint8).reshape(eager.size, -1).tobytes() !=
                         jitted.reshape(-1).view(np.uint8).reshape(jitted.size, -1).tobytes())
    raise AssertionError(f"{what}: eager {eager!r} != jit {jitted!r} {bad}")


def _check(fun, *args, what=""):
  eager = fun(*args)
  jitted = axle.jit(fun)(*args)
  for e, j in zip(eager if isinstance(eager, (tuple, list)) else [eager],
                  jitted if isinstance(jitted, (tuple, list)) else [jitted]):
    _assert_same_bits(e, j, what)


_FLOATS = [np.float32, ml_dtypes.bfloat16, np.float16]

_BINARY = {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div, "rem": lax.rem,
           "max": lax.max, "min": lax.min, "nextafter": lax.nextafter, "eq": lax.eq,
           "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge}
_UNARY = {"neg": lax.neg, "abs": lax.abs, "sign": lax.sign, "floor": lax.floor,
          "ceil": lax.ceil, "round": lax.round, "sqrt": lax.sqrt, "is_finite": lax.is_finite,
          "square": lax.square, "cube": lambda x: lax.integer_pow(x, 3),
          "inverse": lambda x: lax.integer_pow(x, -1),
          "to_f32": lambda x: lax.convert_element_type(x, np.float32),
          "to_bf16": lambda x: lax.convert_element_type(x, ml_dtypes.bfloat16),
          "to_i32": lambda x: lax.convert_element_type(x, np.int32),
          "reduce_precision": lambda x: lax.reduce_precision(x, 5, 10)}


@pytest.mark.parametrize("dtype", _FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(_BINARY))
def test_exact_binary_kernels_give_jit_bits(name, dtype):
  x, y = _pairs(dtype)
  _check(_BINARY[name], x, y, what=f"{name} {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", _FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(_UNARY))
def test_exact_unary_kernels_give_jit_bits(name, dtype):
  _check(_UNARY[name], _edge(dtype), what=f"{name} {np.dtype(dtype).name}")


def test_clamp_select_and_operators_give_jit_bits():
  x, y = _pairs(np.float32)
  _check(lambda x: lax.clamp(np.float32(-1.0), x, np.float32(2.0)), x, what="clamp")
  predicate = np.random.default_rng(0).random(x.shape) < 0.5
  _check(lambda p, x, y: lax.select(p, x, y), predicate, x, y, what="select")
  # The operators' fast paths (Array op Array, Array op Python scalar).
  ax, ay = jnp.asarray(x), jnp.asarray(y)
  for op in (lambda a, b: a * b, lambda a, b: a + b, lambda a, b: a / b, lambda a, b: a > b,
             lambda a, b: a * 1e-39, lambda a, b: a - 2.0):
    _check(op, ax, ay, what="operator")


def test_complex_operators_run_on_xla():
  rng = np.random.default_rng(0)
  x = jnp.asarray((rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64))
  y = jnp.asarray((rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64))
  for op in (lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a + b,
             lambda a, b: jnp.abs(a), lambda a, b: a * 2.5):
    _check(op, x, y, what="complex operator")


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16], ids=["float32", "bfloat16"])
def test_order_free_reductions_and_sort_give_jit_bits(dtype):
  x = _edge(dtype)[::-1].reshape(3, 6)
  for name, fun in {"reduce_max": lambda x: lax.reduce_max(x, (1,)),
                    "reduce_min": lambda x: lax.reduce_min(x, (0,)),
                    "argmax": lambda x: lax.argmax(x, 1, np.int32),
                    "argmin": lambda x: lax.argmin(x, 0, np.int32),
                    "cummax": lambda x: lax.cummax(x, 1), "cummin": lambda x: lax.cummin(x, 0),
                    "sort": lambda x: lax.sort(x, dimension=1),
                    "top_k": lambda x: lax.top_k(x, 3)}.items():
    _check(fun, x, what=name)


def test_integer_sums_and_products_stay_on_numpy_and_wrap():
  x = np.array([2**30, 2**30, 7, -3], np.int32)
  _check(lambda x: lax.reduce_sum(x, (0,)), x, what="int sum")
  _check(lambda x: lax.cumprod(x, 0), x, what="int cumprod")
  assert eval_interpreter.runs_kernel(lax.reduce_sum_p, [axle.core.ShapedArray((4,), np.int32)],
                                      {"axes": (0,)})


@pytest.mark.parametrize("name,fun", [
    ("exp", jnp.exp), ("log", jnp.log), ("tanh", jnp.tanh), ("sin", jnp.sin),
    ("logistic", lax.logistic), ("erf", lax.erf), ("sum", jnp.sum),
    ("cumsum", lambda x: jnp.cumsum(x)), ("matmul", lambda x: x.reshape(8, 16) @ x.reshape(16, 8)),
    ("pow", lambda x: x ** 1.7), ("rsqrt", lax.rsqrt),
])
def test_other_primitives_run_on_xla(name, fun):
  x = jnp.asarray(np.random.default_rng(1).uniform(0.1, 3.0, 128).astype(np.float32))
  _check(fun, x, what=name)


def test_xla_results_stay_on_the_device_until_read():
  x = jnp.asarray(np.linspace(0, 1, 16, dtype=np.float32))
  y = jnp.exp(jnp.exp(x))  # (the second exp is deferred: its operand is on the device)
  assert y._value is None
  y.block_until_ready()
  assert y._value is None and y._buffer is not None
  np.testing.assert_array_equal(np.asarray(y), np.asarray(axle.jit(lambda v: jnp.exp(jnp.exp(v)))(x)))
  assert (y * 2.0).dtype == np.float32  # a NumPy kernel reads it back


def test_subnormal_results_follow_xla():
  x = jnp.asarray(np.array([_TINY32, 1.0, -_TINY32], np.float32))
  np.testing.assert_array_equal(np.asarray(x * 0.5), [0.0, 0.5, -0.0])
  np.testing.assert_array_equal(np.asarray(x / 4), [0.0, 0.25, -0.0])
  sub = jnp.asarray(np.array([1e-39, -1e-39, 1.0], np.float32))
  np.testing.assert_array_equal(np.asarray(sub > 0), [False, False, True])
  np.testing.assert_array_equal(np.asarray(sub * 1e10), [0.0, -0.0, 1e10])


def test_compiled_control_flow_matches_jit():
  x = jnp.asarray(np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32))
  body = lambda c: (c[0] + 1, c[1] * 1.1 + 0.5)
  _check(lambda x: lax.while_loop(lambda c: c[0] < 5, body, (0, x))[1], x, what="while")
  _check(lambda x: lax.scan(lambda c, a: (jnp.tanh(c * 1.1 + a), c.sum()), jnp.zeros(4), x),
         x, what="scan")
  _check(lambda x: lax.cond(x.sum() > 0, lambda v: v * 1.1 + 0.5, lambda v: v - 1.0, x), x,
         what="cond")


def test_loops_that_call_back_still_run_eagerly(capsys):
  def body(c):
    axle.debug.print("step {}", c[0])
    return c[0] + 1, c[1] * 2.0
  out = lax.while_loop(lambda c: c[0] < 3, body, (0, jnp.float32(1.0)))
  assert float(out[1]) == 8.0
  assert capsys.readouterr().out.split() == ["step", "0", "step", "1", "step", "2"]


def test_fast_eager_keeps_numpy_kernels():
  x = jnp.asarray(np.linspace(-3, 3, 101, dtype=np.float32))
  exact = np.asarray(jnp.exp(x))
  axle.config.update("axle_fast_eager", True)
  try:
    fast = jnp.exp(x)
    assert fast._value is not None  # a NumPy kernel's result, on the host
    np.testing.assert_array_equal(np.asarray(fast),
                                  np.exp(np.asarray(x).astype(np.float64)).astype(np.float32))
    tiny = jnp.asarray(np.array([1e-39], np.float32))
    assert float((tiny * 1.0)[0]) != 0.0  # IEEE subnormals, not XLA's flush
  finally:
    axle.config.update("axle_fast_eager", False)
  np.testing.assert_array_equal(np.asarray(jnp.exp(x)), exact)
  np.testing.assert_array_equal(exact, np.asarray(axle.jit(jnp.exp)(x)))


def test_fast_eager_environment_variable():
  code = "import axle; print(axle.config.read('axle_fast_eager'))"
  env = dict(os.environ, AXLE_FAST_EAGER="1")
  out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True)
  assert out.stdout.strip() == "True"


def _compiled_names(caplog, fun):
  import logging
  caplog.clear()
  with caplog.at_level(logging.WARNING), axle.log_compiles():
    out = fun()
  names = [r.getMessage().split("Compiling ")[1].split(" ")[0] for r in caplog.records
           if r.getMessage().startswith("Compiling ")]
  return out, names


@pytest.mark.parametrize("name,fun,args", [
    ("mean", lambda x, m: jnp.mean(m), ()),  # (a whole 1-D vector takes a host shortcut)
    # (one axis of a float32 matrix takes a host shortcut too)
    ("sum", lambda x, m: jnp.sum(m, axis=(0, 1), keepdims=True), ()),
    ("max", lambda x, m: jnp.max(m, axis=0), ()),
    ("argmax", lambda x, m: jnp.argmax(m, axis=0), ()),
    ("matmul", lambda x, m: m @ m, ()),
    ("dot", lambda x, m: jnp.dot(x, x), ()),
    ("stack", lambda x, m: jnp.stack([x, x], axis=1), ()),
    ("einsum", lambda x, m: jnp.einsum("ij,jk->ik", m, m), ()),
    ("average", lambda x, m: jnp.average(m, axis=1, weights=x), ()),
    ("vdot", lambda x, m: jnp.vdot(x, x), ()),
    ("sici", lambda x, m: axle.scipy.special.sici(x), ()),
])
def test_library_functions_run_eagerly_as_one_compiled_program(caplog, name, fun, args):
  # As JAX's jnp.mean etc. (jitted inline): one program eagerly, so its bits are jit's, and the
  # function stays inlined in jaxprs.
  x = jnp.asarray(np.linspace(-1.0, 3.0, 7, dtype=np.float32))
  m = jnp.asarray(np.linspace(0.1, 2.0, 49, dtype=np.float32).reshape(7, 7))
  out, names = _compiled_names(caplog, lambda: fun(x, m))
  assert names == [f"jit({'_einsum' if name == 'einsum' else name})"], names
  np.testing.assert_array_equal(np.asarray(out), np.asarray(axle.jit(fun)(x, m)))
  _, again = _compiled_names(caplog, lambda: fun(x, m))
  assert again == []  # the compiled program is reused
  jaxpr = str(axle.make_jaxpr(fun)(x, m))
  if name == "sici":  # JAX's sici is a custom_jvp function over jit[name=sici]: named in jaxprs
    assert "custom_jvp_call[\n      name=sici" in jaxpr and "jit[\n" in jaxpr
  else:
    assert f"name={name}" not in jaxpr


def test_library_functions_with_other_arguments_run_op_by_op(caplog):
  m = jnp.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4))
  out, names = _compiled_names(caplog, lambda: jnp.sum(m, axis=[0]))  # a list: not hashable
  assert not any(n == "jit(sum)" for n in names)
  np.testing.assert_array_equal(np.asarray(out), np.arange(12.0).reshape(3, 4).sum(0))
  with axle.disable_jit():
    _, names = _compiled_names(caplog, lambda: jnp.mean(m))
  assert "jit(mean)" not in names


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16, np.complex64])
@pytest.mark.parametrize("form", ["scalar", "0-d", "array"])
def test_subnormal_detection_of_numbers_and_arrays(dtype, form):
  # The eager kernels hand operands holding subnormals to XLA (which flushes them); a single
  # number is tested by its magnitude, an array by its exponents: both must agree.
  tiny = float(ml_dtypes.finfo(dtype).tiny) if dtype is ml_dtypes.bfloat16 else float(
      np.finfo(dtype).tiny)
  for value in [0.0, -0.0, 1.0, tiny, tiny / 2, -tiny / 4, np.nan, np.inf, -np.inf]:
    number = np.asarray(value).astype(dtype)
    expected = 0 < abs(complex(number)) < tiny
    operand = {"scalar": number[()], "0-d": number, "array": np.full((2, 3), number)}[form]
    assert eval_interpreter.has_subnormal(operand) == expected, (value, form)


_SCALAR_OPS = {"x + c": lambda x, c: x + c, "c - x": lambda x, c: c - x,
               "x * c": lambda x, c: x * c, "x / c": lambda x, c: x / c,
               "c / x": lambda x, c: c / x}


def _near_cancellation(c: float, dtype) -> np.ndarray:
  """Values of ``dtype`` around ``-c`` and ``c`` (a step of a few ulps), and fractions of c."""
  dtype = np.dtype(dtype)
  center = np.array([c, -c], dtype)
  values = [center]
  for direction in (np.inf, -np.inf):
    step = center
    for _ in range(3):
      step = np.nextafter(step, np.array(direction, dtype)) if dtype != ml_dtypes.bfloat16 else \
          (step.astype(np.float32) * np.float32(1 + 2 ** -7 * np.sign(direction))).astype(dtype)
      values.append(step)
  values.append(np.array([c / 3, c * 0.75, 0.0, 1.0, -2.5], np.float64).astype(dtype))
  return np.concatenate(values)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64, ml_dtypes.bfloat16]),
       exponent=st.integers(-140, 4), mantissa=st.floats(1.0, 2.0, exclude_max=True),
       negative=st.booleans())
def test_array_and_python_scalar_results_match_jit(dtype, exponent, mantissa, negative):
  # An array and a Python scalar: the result of add/sub with |c| >= 2**-90 and of mul/div that
  # cannot shrink is known to hold no subnormal (and is marked so for the next kernel); every
  # other result is checked. Near-cancelling sums and scalars at the bounds must give XLA's bits,
  # and so must the next kernel reading the result.
  if dtype == np.float64:
    exponent = exponent * 7 - 62  # down to 2**-1042: around float64's bound (2**-950) too
  c = (-1.0 if negative else 1.0) * mantissa * 2.0 ** exponent
  # A scalar that rounds to zero is left out: jit simplifies x + 0 to x (-0.0 stays -0.0) where
  # an eager add, JAX's too, gives +0.0.
  assume(np.array(c).astype(dtype) != 0)
  with axle.enable_x64(dtype == np.float64):
    x = jnp.asarray(_near_cancellation(c, dtype))
    assert x.dtype == dtype
    for name, op in _SCALAR_OPS.items():
      _check(lambda v: op(v, c), x, what=f"{name} with c={c!r} {np.dtype(dtype).name}")
      # the next kernel reads the result (one program per step: under one jit XLA may fold
      # the two constants into one, which is not what an eager chain computes)
      first = op(x, c)
      _assert_same_bits(first * 0.5, axle.jit(lambda v: v * 0.5)(axle.jit(lambda v: op(v, c))(x)),
                        f"({name}) * 0.5 with c={c!r}")


_CHAIN_STEPS = {
    "x * y": lambda x, y: x * y, "x + y": lambda x, y: x + y, "x - y": lambda x, y: x - y,
    "y - x": lambda x, y: y - x, "square": lambda x, y: lax.square(x),
    "cube": lambda x, y: lax.integer_pow(x, 3), "abs": lambda x, y: lax.abs(x),
    "sqrt(abs)": lambda x, y: lax.sqrt(lax.abs(x)), "x / 0.75": lambda x, y: x / 0.75,
    "x / 4.0": lambda x, y: x / 4.0, "x / y": lambda x, y: x / y,
    "max(x, -y)": lambda x, y: lax.max(x, -y), "min(x, y)": lambda x, y: lax.min(x, y),
    "x * 3.0": lambda x, y: x * 3.0, "x * 1e-3": lambda x, y: x * 1e-3,
    "x + 2**-95": lambda x, y: x + 2.0 ** -95, "floor": lambda x, y: lax.floor(x),
    "clamp": lambda x, y: lax.clamp(-y, x, y),
    # jnp's unary shortcuts (eval.eager_unary): a known exponent bound skips the guard
    "jnp.abs": lambda x, y: jnp.abs(x), "jnp.sqrt(jnp.abs)": lambda x, y: jnp.sqrt(jnp.abs(x)),
    # comparisons of operands with known bounds (the guard's two-operand shortcut), against a
    # normal and a subnormal (for float32) Python number
    # (as terms: XLA rewrites select(x < y, x, y) to min, and a product with a converted
    # comparison to a select, which differ from the eager ops on subnormals and zero signs)
    "(x < y) + y": lambda x, y: (x < y).astype(x.dtype) + y,
    "(x >= 2**-120) + x": lambda x, y: (x >= 2.0 ** -120).astype(x.dtype) + x,
    "(x > 1e-40) + y": lambda x, y: (x > 1e-40).astype(x.dtype) + y,
    # jnp's host shortcuts for maximum/minimum/clip (NaN and zero flags memoised per operand)
    "jnp.maximum(x, y)": lambda x, y: jnp.maximum(x, y),
    "jnp.minimum(x, -0.0)": lambda x, y: jnp.minimum(x, -0.0),
    "jnp.clip(x, -0.5, 0.5)": lambda x, y: jnp.clip(x, -0.5, 0.5)}


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64, ml_dtypes.bfloat16]),
       exponents=st.lists(st.integers(-135, 8), min_size=6, max_size=6),
       mantissas=st.lists(st.floats(-2.0, 2.0), min_size=6, max_size=6),
       steps=st.lists(st.sampled_from(sorted(_CHAIN_STEPS)), min_size=1, max_size=8))
def test_chains_of_exact_kernels_match_single_op_programs(dtype, exponents, mantissas, steps):
  # Each kernel's result carries a lower bound of its exponents to the next kernel, which skips
  # scanning its own result when the bounds keep it out of the subnormal range: a chain of
  # eager kernels must give the bits of the same chain run as one XLA program per step.
  scale = 7 if dtype == np.float64 else 1  # reach float64's subnormals too
  values = np.array([m * 2.0 ** (e * scale) for m, e in zip(mantissas, exponents)])
  with axle.enable_x64(dtype == np.float64):
    x = jnp.asarray(values.astype(dtype))
    y = jnp.asarray(np.abs(values[::-1]).astype(dtype))
    assert x.dtype == dtype
    eager, reference = x, x
    for step in steps:
      fn = _CHAIN_STEPS[step]
      eager = fn(eager, y)
      reference = axle.jit(fn)(reference, y)
      _assert_same_bits(eager, reference, f"{' -> '.join(steps)} at {step}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("step", sorted(_CHAIN_STEPS))
def test_result_bounds_at_the_edge_of_the_subnormal_range(dtype, step):
  # Operands of every magnitude from the smallest normal up, one magnitude per array, so the
  # results cross into the subnormal range somewhere; next to them, the same values nudged by a
  # relative ulp (near-cancelling differences).
  fn = _CHAIN_STEPS[step]
  info = ml_dtypes.finfo(dtype)
  eps = float(info.eps)
  with axle.enable_x64(dtype == np.float64):
    jitted = axle.jit(fn)
    for k in range(int(info.minexp), 4, 1 if dtype != np.float64 else 8):
      base = np.array([1.0, 1.5, -1.75, 1.0 + eps]) * 2.0 ** k
      x = jnp.asarray(base.astype(dtype))
      for y_values in (base * (1 + eps), np.abs(base[::-1]) * 2.0 ** (-k // 2)):
        y = jnp.asarray(np.abs(y_values).astype(dtype))
        _assert_same_bits(fn(x, y), jitted(x, y), f"{step} at 2**{k}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16, np.float16])
def test_unary_shortcuts_with_known_bounds_at_the_subnormal_edge(dtype):
  # The second call of jnp.abs/jnp.sqrt on an Array takes the shortcut that trusts its
  # remembered exponent bound and marks its result with the bound it derives; at every
  # magnitude, the result and a product of it that may cross into the subnormal range (the
  # multiplication trusts that mark) must stay jit's.
  info = ml_dtypes.finfo(dtype)
  step = 1 if dtype != np.float64 else 16
  scaled = axle.jit(lambda v, scale: v * scale)
  with axle.enable_x64(dtype == np.float64):
    for name, fn in [("abs", jnp.abs), ("sqrt", jnp.sqrt)]:
      jitted = axle.jit(fn)
      for k in range(int(info.minexp) - 3, 3, step):
        x = jnp.asarray((np.array([1.0, 1.5, 1.75, 0.0]) * 2.0 ** k).astype(dtype))
        for _ in range(2):
          _assert_same_bits(fn(x), jitted(x), f"{name} at 2**{k}")
        for j in range(0, -int(info.minexp) + 8, 4 * step):
          scale = 2.0 ** -j  # (one program per step, as JAX runs them eagerly)
          _assert_same_bits(fn(x) * scale, scaled(jitted(x), scale),
                            f"{name} at 2**{k} times 2**-{j}")


@pytest.mark.parametrize("dtype", _FLOATS)
def test_unary_kernels_keep_xla_nan_signs(dtype):
  # One NaN operand of either sign: the NaN XLA returns (bfloat16 square once lost the sign).
  x = jnp.asarray(np.array([np.nan, -np.nan, 1.0, -2.0], dtype))
  for name, fn in _UNARY.items():
    _check(fn, x, what=f"{name} {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_by_a_scalar_whose_reciprocal_is_subnormal(dtype):
  # XLA divides by a broadcast scalar as a multiplication by its reciprocal, which it flushes
  # to zero when subnormal: JAX's x / 3e38 is 0 (not 3.3e-9 for x = 1e30), eagerly and jitted
  with axle.enable_x64(dtype == np.float64):
    big = float(np.finfo(dtype).max)
    # (no element small enough for x / c to be subnormal: that alone would send it to XLA)
    x = jnp.asarray(np.array([1e30, -3e38, 1e12, -0.0, np.inf, 2.5e20], np.float64).astype(dtype))
    for c in [big, -big / 2, big / 4, big / 16, 2.0 ** (np.finfo(dtype).maxexp - 2), 3.0, 1e-30]:
      _check(lambda v: v / c, x, what=f"x / {c!r}")
      _check(lambda v: jnp.divide(v, jnp.asarray(c, dtype)), x, what=f"x / array({c!r})")
      shaped = jnp.full((2, 1), c, dtype)
      _assert_same_bits(x[None] / shaped, axle.jit(lambda v, s: v[None] / s)(x, shaped),
                        f"x / full((2, 1), {c!r})")
    assert float((x / big)[0]) == 0.0


@pytest.mark.parametrize("source, target", [(np.float32, np.float16), (np.float16, np.float32),
                                            (np.float16, np.int32), (np.float32, ml_dtypes.bfloat16),
                                            (ml_dtypes.bfloat16, np.float32), (np.int32, np.float32)])
def test_large_narrow_float_conversions_run_on_xla(source, target):
  # NumPy's float16 and bfloat16 conversions are exact but slow on large arrays: those above
  # 4,096 elements run on XLA (a device result), the small ones and the other dtypes keep the
  # NumPy kernel (below the size where every elementwise kernel moves to XLA)
  values = np.random.default_rng(3).standard_normal(5000) * 1e3
  values[:6] = [1e-40, -1e-40, 7e4, -1e-7, np.nan, -0.0]
  if np.dtype(source).kind == "i":
    values = np.nan_to_num(values)
  with np.errstate(over="ignore", invalid="ignore"):
    big = jnp.asarray(values.astype(source))
  small = big[:100]
  narrow = {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)}
  on_xla = np.dtype(source) in narrow or np.dtype(target) in narrow
  for x, on_xla in [(big, on_xla), (small, False)]:
    out = lax.convert_element_type(x, target)
    assert (out._buffer is not None and out._value is None) == on_xla
    _check(lambda v: lax.convert_element_type(v, target), x, what=f"{source} -> {target}")


# Eager ops whose NumPy kernel XLA beats on large arrays: below the size limit they run on the
# host (a host-backed result), above it on XLA (a device-backed one); both give jit's bits.
_SIZE_LIMITED = {
    "where": (lambda x, y: jnp.where(x > 0, x, y), lax_elementwise.HOST_SELECT_LIMIT),
    "where scalar": (lambda x, y: jnp.where(x > 0, x, 0.0), lax_elementwise.HOST_SELECT_LIMIT),
    "select": (lambda x, y: lax.select(x > y, x, y), lax_elementwise.HOST_SELECT_LIMIT),
    "sign": (lambda x, y: jnp.sign(x), 16384),
    "x / y": (lambda x, y: x / y, eval_interpreter.HOST_KERNEL_LIMIT),
    "x / 3.0": (lambda x, y: x / 3.0, eval_interpreter.HOST_KERNEL_LIMIT),
    "maximum": (lambda x, y: jnp.maximum(x, y), ufuncs.HOST_EXTREMUM_LIMIT),
    "minimum scalar": (lambda x, y: jnp.minimum(x, 0.5), ufuncs.HOST_EXTREMUM_LIMIT),
    "clip": (lambda x, y: jnp.clip(x, -0.5, 0.5), lax_numpy.HOST_CLIP_LIMIT),
    "clamp": (lambda x, y: lax.clamp(np.float32(-0.5), x, np.float32(0.5)), 8192),
    "round": (lambda x, y: lax.round(x), 4096),
    "sqrt": (lambda x, y: jnp.sqrt(y), eval_interpreter.HOST_KERNEL_LIMIT),
    "astype int32": (lambda x, y: (x * 1e9).astype(jnp.int32), eval_interpreter.HOST_KERNEL_LIMIT),
}


@pytest.mark.parametrize("name", list(_SIZE_LIMITED))
def test_large_operands_run_on_xla_with_the_same_bits(name):
  fun, limit = _SIZE_LIMITED[name]
  rng = np.random.default_rng(0)
  for size in (limit, limit + 1):
    # (no subnormal or NaN: those send any size to XLA)
    x = rng.standard_normal(size).astype(np.float32)
    x[:4] = [0.0, -0.0, 1.5, -2.5]
    y = np.abs(rng.standard_normal(size)).astype(np.float32) + np.float32(0.25)
    fun(jnp.asarray(x), jnp.asarray(y))  # (a first call may learn the signature on XLA)
    out = fun(jnp.asarray(x), jnp.asarray(y))
    on_device = out._value is None
    assert on_device == (size > limit), (name, size, on_device)
    _check(fun, jnp.asarray(x), jnp.asarray(y), what=f"{name} of {size} elements")


_NARROW_SIZE_LIMITED = {
    "x + y": lambda x, y: x + y, "x * y": lambda x, y: x * y, "x < y": lambda x, y: x < y,
    "x - 1.5": lambda x, y: x - 1.5, "floor": jnp.floor, "sqrt": lambda x, y: jnp.sqrt(y),
    "x / y": lambda x, y: x / y,
}


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(_NARROW_SIZE_LIMITED))
def test_large_narrow_float_operands_run_on_xla_with_the_same_bits(name, dtype):
  fun = _NARROW_SIZE_LIMITED[name]
  if name == "floor":
    fun = lambda x, y: jnp.floor(x)  # noqa: E731
  limit = eval_interpreter.NARROW_HOST_LIMIT
  rng = np.random.default_rng(1)
  for size in (limit, limit + 1):
    x = rng.standard_normal(size).astype(dtype)
    y = (np.abs(rng.standard_normal(size)) + 0.25).astype(dtype)
    fun(jnp.asarray(x), jnp.asarray(y))
    out = fun(jnp.asarray(x), jnp.asarray(y))
    assert (out._value is None) == (size > limit), (name, size)
    _check(fun, jnp.asarray(x), jnp.asarray(y), what=f"{name} of {size} elements")


@pytest.mark.parametrize("name", ["x * y", "x + 1.0", "x < y", "abs", "neg", "x.astype(f16)"])
def test_elementwise_kernels_above_the_host_limit_run_on_xla(name):
  # Every elementwise kernel leaves operands above HOST_KERNEL_LIMIT elements to XLA (so a
  # computation on large arrays stays on the device); the bits are jit's either way.
  fun = {"x * y": lambda x, y: x * y, "x + 1.0": lambda x, y: x + 1.0, "x < y": lambda x, y: x < y,
         "abs": lambda x, y: jnp.abs(x), "neg": lambda x, y: -x,
         "x.astype(f16)": lambda x, y: x.astype(jnp.float16)}[name]
  limit = eval_interpreter.HOST_KERNEL_LIMIT
  rng = np.random.default_rng(2)
  for size, on_xla in ((1000, False), (limit + 1, True)):
    x = jnp.asarray(rng.standard_normal(size).astype(np.float32))
    y = jnp.asarray(rng.standard_normal(size).astype(np.float32))
    fun(x, y)
    out = fun(x, y)
    assert (out._value is None) == on_xla, size
    _check(fun, x, y, what=f"{name} of {size} elements")
