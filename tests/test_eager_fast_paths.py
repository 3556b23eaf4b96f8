"""The eager shortcuts (Array operators, jnp unary functions, matmul, sum, where) give exactly
what the general path gives: same values, dtype and weak type.

The general path is taken by tracing: in a jaxpr no shortcut applies (operands are tracers);
evaluating the jaxpr eagerly, equation by equation (nested jit equations inlined, so everything
runs on the NumPy kernels rather than XLA), then runs the same primitives through ``bind``.
"""
import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import axle
import axle.numpy as jnp
from axle._src import ir
from axle._src.api import jit_p
from axle._src.lax import elementwise as lax_elementwise


def _eval_inlined(jaxpr, consts, *args):
  env = dict(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))
  read = lambda a: a.as_array() if isinstance(a, ir.Literal) else env[a]
  for eqn in jaxpr.eqns:
    invals = [read(a) for a in eqn.invars]
    if eqn.primitive is jit_p:
      inner = eqn.params["jaxpr"]
      outs = _eval_inlined(inner.jaxpr, inner.consts, *invals)
    else:
      outs = eqn.primitive.bind(*invals, **eqn.params)
      outs = outs if eqn.primitive.multiple_results else [outs]
    env.update(zip(eqn.outvars, outs))
  return [read(v) for v in jaxpr.outvars]


class _GeneralPath:
  """``general(fn)(*args)``: ``fn`` traced to a jaxpr, then evaluated eagerly by ``bind``."""

  def __call__(self, fn):
    def run(*args):
      closed = axle.make_jaxpr(fn)(*args)
      (out,) = _eval_inlined(closed.jaxpr, closed.consts, *args)
      return out
    return run


general = _GeneralPath()

_DTYPES = [np.float32, np.int32, np.uint8, np.bool_, np.float16, np.complex64, np.int8]
_OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq,
              operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def _same(a, b):
  assert a.dtype == b.dtype, (a.dtype, b.dtype)
  assert a.weak_type == b.weak_type, (a, b)
  if a.dtype == jnp.bfloat16:  # (NumPy's comparison does not know bfloat16's NaN)
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (a, b)
  else:
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@settings(max_examples=150, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), op=st.sampled_from(_OPERATORS),
       shape=st.sampled_from([(), (3,), (2, 3)]), seed=st.integers(0, 2**16),
       weak=st.booleans())
def test_array_operators_match_general_path(dtype, op, shape, seed, weak):
  rng = np.random.default_rng(seed)
  value_x = rng.standard_normal(shape) * 3
  value_y = rng.standard_normal(shape) * 3 + 0.5
  if weak and not shape:  # weakly typed 0-d arrays come from Python scalars
    x, y = jnp.asarray(float(value_x)), jnp.asarray(float(value_y))
  else:
    x = jnp.asarray(value_x.astype(dtype) if dtype != np.bool_ else value_x > 0)
    y = jnp.asarray(value_y.astype(dtype) if dtype != np.bool_ else value_y > 0)
  try:
    expected = general(op)(x, y)
  except TypeError:
    with pytest.raises(TypeError):
      op(x, y)
    return
  _same(op(x, y), expected)


@settings(max_examples=100, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float16, np.int32, np.complex64, jnp.bfloat16,
                             np.uint8, np.int16]),
       op=st.sampled_from(_OPERATORS),
       scalar=st.sampled_from([0.5, -3, 7, 2.0**40, 1e-45, 3, 2**31 - 1, -2**31, 2**31, 2**40]),
       swap=st.booleans(), seed=st.integers(0, 2**16))
def test_operators_with_python_scalars_match_general_path(dtype, op, scalar, swap, seed):
  x = jnp.asarray((np.random.default_rng(seed).standard_normal(4) * 3).astype(dtype))
  fn = (lambda a: op(scalar, a)) if swap else (lambda a: op(a, scalar))
  try:
    expected = general(fn)(x)
  except (TypeError, OverflowError):
    with pytest.raises((TypeError, OverflowError)):
      fn(x)
    return
  _same(fn(x), expected)


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "tanh", "log", "sqrt", "arctan", "expm1"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64, np.int32, jnp.bfloat16])
def test_unary_functions_match_general_path(name, dtype):
  fn = getattr(jnp, name)
  x = jnp.asarray((np.linspace(-3, 3, 7)).astype(dtype))
  fn(x)  # fills the shape-rule cache, so the shortcut is taken below
  got, want = fn(x), general(fn)(x)
  assert got.dtype == want.dtype and got.weak_type == want.weak_type
  assert np.asarray(got).tobytes() == np.asarray(want).tobytes()  # (NaN bits included)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_matmul_sum_where_match_general_path(shapes, dtype):
  rng = np.random.default_rng(0)
  a = jnp.asarray((rng.standard_normal(shapes[0]) * 3).astype(dtype))
  b = jnp.asarray((rng.standard_normal(shapes[1]) * 3).astype(dtype))
  _same(a @ b, general(operator.matmul)(a, b))
  _same(jnp.sum(a), general(jnp.sum)(a))
  _same(jnp.where(a > 0, a, a * 2), general(lambda v: jnp.where(v > 0, v, v * 2))(a))


_WHERE_OPERANDS = [np.float32, np.float16, "bfloat16", np.int32, np.uint8, np.bool_, np.complex64,
                   0.5, -3, 1e-40, -0.0, 2**31 - 1]


def _where_operand(kind, shape, rng):
  if not isinstance(kind, (type, str)):
    return kind  # a Python scalar
  values = rng.standard_normal(shape) * 3
  values.flat[::3] = 1e-40  # subnormal in float32: XLA's select keeps them
  if kind is np.bool_:
    return jnp.asarray(values > 0)
  return jnp.asarray(np.asarray(values).astype(jnp.dtype(kind)))


@settings(max_examples=150, deadline=None)
@given(x_kind=st.sampled_from(_WHERE_OPERANDS), y_kind=st.sampled_from(_WHERE_OPERANDS),
       shapes=st.sampled_from([((3,), (3,), (3,)), ((2, 3), (3,), ()), ((), (2, 3), (2, 1)),
                               ((2, 1), (), (3,))]),
       seed=st.integers(0, 2**16))
def test_where_on_host_values_gives_the_compiled_bits(x_kind, y_kind, shapes, seed):
  # jnp.where of host values selects with NumPy once its result's aval is known; the answer
  # must be the compiled program's, bit for bit, with its dtype and weak type.
  rng = np.random.default_rng(seed)
  condition = jnp.asarray(rng.standard_normal(shapes[0]) > 0)
  x, y = _where_operand(x_kind, shapes[1], rng), _where_operand(y_kind, shapes[2], rng)
  compiled = axle.jit(lambda c, a, b: jnp.where(c, a, b))(condition, x, y)
  jnp.where(condition, x, y)  # the first call records the result's aval
  out = jnp.where(condition, x, y)
  assert out.dtype == compiled.dtype and out.weak_type == compiled.weak_type
  assert out.shape == compiled.shape
  bits = lambda a: np.asarray(a).view(f"u{a.dtype.itemsize}") if a.dtype != np.bool_ else a
  np.testing.assert_array_equal(bits(out), bits(compiled))


def test_weak_scalar_arrays_keep_weak_type():
  x = jnp.asarray(2.0)
  assert x.weak_type
  _same(x * x, general(operator.mul)(x, x))
  _same(x > 1.0, general(lambda v: v > 1.0)(x))


def test_scalar_operands_share_a_device_buffer_that_donation_cannot_consume():
  # Eager ops on XLA reuse one device buffer per scalar value (x + 1.0 on a device array);
  # donating an equal 0-d array to a jitted function must not delete that shared buffer.
  import axle
  y = jnp.tanh(jnp.asarray(np.linspace(-1, 1, 8, dtype=np.float32)))
  expected = np.tanh(np.linspace(-1, 1, 8, dtype=np.float32)).astype(np.float32) + np.float32(1)
  for _ in range(2):
    np.testing.assert_allclose(np.asarray(y + 1.0), expected, rtol=1e-6)
  one = jnp.asarray(np.float32(1.0))
  np.testing.assert_allclose(np.asarray(y + one), expected, rtol=1e-6)
  axle.jit(lambda s: s * 2, donate_argnums=0)(one)
  np.testing.assert_allclose(np.asarray(y + 1.0), expected, rtol=1e-6)
  np.testing.assert_allclose(np.asarray(y + jnp.asarray(np.float32(1.0))), expected, rtol=1e-6)


def _on_device(x):
  """``x`` as a device-resident Array (a compiled call's result: no host value until read; an
  ahead-of-time compiled call never answers on the host, see xla/host_calls.py)."""
  out = axle.jit(jnp.copy).lower(x).compile()(x)
  assert out._value is None
  return out


def _check_placed(fn, x, y, placement):
  """``fn(x, y)`` with the operands ``placement`` names moved to the device gives the general
  path's result (or its TypeError)."""
  if placement in ("both", "first"):
    x = _on_device(x)
  if placement in ("both", "second"):
    y = _on_device(y)
  try:
    expected = general(fn)(x, y)
  except TypeError:
    with pytest.raises(TypeError):
      fn(x, y)
    return
  _same(fn(x, y), expected)


_UFUNCS = [jnp.add, jnp.subtract, jnp.multiply, jnp.maximum, jnp.minimum, jnp.equal,
           jnp.not_equal, jnp.less, jnp.less_equal, jnp.greater, jnp.greater_equal]


@settings(max_examples=150, deadline=None)
@given(dtype=st.sampled_from(_DTYPES), fn=st.sampled_from(_OPERATORS + _UFUNCS),
       shapes=st.sampled_from([((3,), (3,)), ((2, 3), ()), ((), (3,)), ((), ()), ((2, 3), (3,))]),
       placement=st.sampled_from(["both", "first", "second", "neither"]), seed=st.integers(0, 2**16))
def test_operands_on_the_device_match_general_path(dtype, fn, shapes, placement, seed):
  # Operands still on the device take the device shortcut (the op runs on XLA, nothing is
  # read back), host values the eager policy's kernel or runner; the result must be the general
  # path's: values, dtype and weak type.
  rng = np.random.default_rng(seed)
  make = lambda shape, shift: (rng.standard_normal(shape) * 3 + shift)
  values = [make(shapes[0], 0.0), make(shapes[1], 0.5)]
  x, y = [jnp.asarray(v.astype(dtype) if dtype != np.bool_ else v > 0) for v in values]
  _check_placed(fn, x, y, placement)


@settings(max_examples=100, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float16, np.int32, np.complex64]),
       fn=st.sampled_from(_OPERATORS + _UFUNCS),
       scalar=st.sampled_from([0.5, -3, 7, 2.0**40, 1e-45, 3, -0.0]),
       swap=st.booleans(), on_device=st.booleans(), seed=st.integers(0, 2**16))
def test_device_operand_with_python_scalar_matches_general_path(dtype, fn, scalar, swap, on_device,
                                                                 seed):
  x = jnp.asarray((np.random.default_rng(seed).standard_normal(4) * 3).astype(dtype))
  _check_with_scalar(fn, _on_device(x) if on_device else x, scalar, swap)


def _check_with_scalar(fn, x, scalar, swap):
  """``fn(x, scalar)`` (``fn(scalar, x)`` when ``swap``) gives the general path's result (or
  its error)."""
  op = (lambda a: fn(scalar, a)) if swap else (lambda a: fn(a, scalar))
  try:
    expected = general(op)(x)
  except (TypeError, OverflowError):
    with pytest.raises((TypeError, OverflowError)):
      op(x)
    return
  _same(op(x), expected)


@settings(max_examples=150, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.int32, np.float16, np.complex64, np.bool_]),
       fn=st.sampled_from(_OPERATORS + _UFUNCS),
       shapes=st.sampled_from([((3,), (3,)), ((2, 3), ()), ((), (3,)), ((), ())]),
       weak=st.sampled_from(["first", "second", "both"]),
       placement=st.sampled_from(["both", "first", "second", "neither"]), seed=st.integers(0, 2**16))
def test_weakly_typed_operands_match_general_path(dtype, fn, shapes, weak, placement, seed):
  # A weakly typed Array next to an Array of its dtype (jnp.full(shape, 0.1) is weak) is only
  # retyped by promotion: the shortcuts run the op directly; the result is weak only if both are.
  rng = np.random.default_rng(seed)
  values = [(rng.standard_normal(shape) * 3 + shift) for shape, shift in zip(shapes, (0.0, 0.5))]
  values = [v > 0 if dtype is np.bool_ else v.astype(dtype) for v in values]
  x, y = [jnp.asarray(v) for v in values]
  make_weak = lambda v: lax_elementwise._convert_element_type(v, np.dtype(dtype), True)
  if weak in ("both", "first"):
    x = make_weak(values[0])
  if weak in ("both", "second"):
    y = make_weak(values[1])
  assert x.weak_type == (weak in ("both", "first")) and y.weak_type == (weak in ("both", "second"))
  _check_placed(fn, x, y, placement)


@pytest.mark.parametrize("fn", _OPERATORS + _UFUNCS)
@pytest.mark.parametrize("scalar", [2, 0.5])
@pytest.mark.parametrize("swap", [False, True])
def test_weak_device_operand_with_python_scalar_stays_weak(fn, scalar, swap):
  x = jnp.exp(jnp.asarray(0.5))  # a weakly typed 0-d result, on the device
  assert x.weak_type and x._value is None
  op = (lambda a: fn(scalar, a)) if swap else (lambda a: fn(a, scalar))
  _same(op(x), general(op)(x))


@pytest.mark.parametrize("name", ["abs", "sin", "sqrt", "tanh", "negative"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int32, np.uint8])
def test_unary_functions_on_the_device_match_general_path(name, dtype):
  fn = getattr(jnp, name)
  x = _on_device(jnp.asarray(np.linspace(-3, 3, 7).astype(dtype)))
  fn(x)
  _same(fn(x), general(fn)(x))


def test_host_operand_next_to_a_device_operand_is_transferred_once(monkeypatch):
  # m (a host value) - mx (still on the device) runs on XLA; m's device buffer is made once
  # and kept, not transferred again on every call.
  from axle._src.xla import client
  host = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
  m = jnp.asarray(host)
  mx = _on_device(jnp.asarray(np.ones((3, 1), np.float32)))
  expected = host - np.float32(1)
  np.testing.assert_array_equal(np.asarray(m - mx), expected)
  assert mx._value is None
  puts = []
  real_put = client.put
  monkeypatch.setattr(client, "put", lambda *a, **k: puts.append(a) or real_put(*a, **k))
  for _ in range(3):
    out = m - mx
  np.testing.assert_array_equal(np.asarray(out), expected)
  assert puts == []


def test_stop_gradient_of_an_eager_array_is_the_array():
  x = _on_device(jnp.asarray(np.arange(3.0, dtype=np.float32)))
  assert axle.lax.stop_gradient(x) is x
  assert x._value is None  # nothing was read back


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["any", "all"]),
       shape=st.sampled_from([(), (5,), (2, 3), (2, 0, 3), (3, 1, 2)]),
       axis=st.sampled_from([None, 0, -1, (0,), (0, -1), 5]), keepdims=st.booleans(),
       density=st.sampled_from([0.0, 0.5, 1.0]), seed=st.integers(0, 2**16))
def test_any_all_of_host_booleans_match_compiled(name, shape, axis, keepdims, density, seed):
  # jnp.any/jnp.all of a boolean host value reduce with NumPy; the answer (and any error for
  # a bad axis) must be the compiled program's.
  fn = getattr(jnp, name)
  a = jnp.asarray(np.random.default_rng(seed).random(shape) < density)
  compiled = axle.jit(fn, static_argnames=("axis", "keepdims"))
  try:
    expected = compiled(a, axis=axis, keepdims=keepdims)
  except Exception as error:  # noqa: BLE001 - the same error type eagerly
    with pytest.raises(type(error)):
      fn(a, axis=axis, keepdims=keepdims)
    return
  out = fn(a, axis=axis, keepdims=keepdims)
  _same(out, expected)
  assert out.shape == expected.shape


@settings(max_examples=120, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float16, np.int32]),
       scalar_type=st.sampled_from([np.float32, np.float64, np.float16, np.int32]),
       fn=st.sampled_from(_OPERATORS + _UFUNCS), value=st.sampled_from([0.5, -3.0, 1e-45, -0.0, 7.0]),
       swap=st.booleans(), weak=st.booleans(), on_device=st.booleans(), seed=st.integers(0, 2**16))
def test_numpy_scalar_operands_match_general_path(dtype, scalar_type, fn, value, swap, weak,
                                                  on_device, seed):
  # A NumPy scalar of the array's dtype (np.sqrt(2 / np.pi).astype(x.dtype) * x, as in
  # nn.gelu) is a strongly typed 0-d operand: the shortcut runs the op with it directly.
  values = (np.random.default_rng(seed).standard_normal(4) * 3).astype(dtype)
  x = jnp.asarray(values)
  if weak:
    x = lax_elementwise._convert_element_type(values, np.dtype(dtype), True)
    assert x.weak_type
  _check_with_scalar(fn, _on_device(x) if on_device else x, scalar_type(value), swap)


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float16, np.int32, np.complex64]),
       exponent=st.sampled_from([0, 1, 2, 3, 7, -1, -2, 65, -65]), on_device=st.booleans(),
       scale=st.sampled_from([1.0, 1e-20, 1e20]), seed=st.integers(0, 2**16))
def test_power_by_python_int_matches_general_path(dtype, exponent, on_device, scale, seed):
  values = np.random.default_rng(seed).standard_normal(5) * scale
  values[0] = 0.0
  with np.errstate(over="ignore", invalid="ignore"):  # (1e20 overflows float16 and int32)
    x = jnp.asarray(values.astype(dtype))
  if on_device:
    x = _on_device(x)
  op = lambda a: a ** exponent
  try:
    expected = general(op)(x)
  except (TypeError, ValueError):
    with pytest.raises((TypeError, ValueError)):
      op(x)
    return
  _same(op(x), expected)
  assert np.asarray(op(x)).tobytes() == np.asarray(expected).tobytes()


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float16, np.int32, np.complex64]),
       exponent=st.sampled_from([0.5, -1.5, 2.0, 0.0, -0.0, 1e10, float("nan")]),
       on_device=st.booleans(), seed=st.integers(0, 2**16))
def test_power_by_python_float_and_reciprocal_match_general_path(dtype, exponent, on_device, seed):
  values = np.random.default_rng(seed).standard_normal(5) * 3
  values[:2] = [0.0, -2.0]
  x = jnp.asarray(values.astype(dtype))
  if on_device:
    x = _on_device(x)
  for op in (lambda a: a ** exponent, lambda a: jnp.power(a, exponent), jnp.reciprocal):
    try:
      expected = general(op)(x)
    except (TypeError, ValueError):
      with pytest.raises((TypeError, ValueError)):
        op(x)
      continue
    _same(op(x), expected)
    assert np.asarray(op(x)).tobytes() == np.asarray(expected).tobytes()
