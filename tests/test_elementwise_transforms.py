"""JVP, transpose and batching rules of the elementwise primitives (elementwise.py,
elementwise_convert.py, special.py): printed grad/jvp/vjp/vmap jaxprs and derivative values at
special points against what real JAX printed and returned (recorded by
tools/record_elementwise_transforms_reference.py), JAX's conventions (max/min ties, abs at 0,
sqrt at 0), complex VJPs, batch dimensions in unusual positions, and compositions of grad,
vmap and jit. The op-record drivers in test_lax_ops.py add check_grads and vmap-vs-loop for
every primitive."""
import json
import os

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax
from axle._src.test_util import numerical_jvp

_DATA = os.path.join(os.path.dirname(__file__), "data", "elementwise_transforms_reference.json")
with open(_DATA) as _f:
  REFERENCE = json.load(_f)

ENV = {"jax": jax, "lax": lax, "jnp": jnp, "np": np, "f32": np.float32, "c64": np.complex64}

# Where our printed jaxpr differs from JAX's on purpose: (name, JAX's text, our text).
_INTENDED: dict = {}


def _eval(source):
  return eval(source, dict(ENV))  # noqa: S307  (sources are the recorded test cases)


@pytest.mark.parametrize("case", REFERENCE["grad_jaxprs"], ids=lambda c: c["name"])
def test_grad_jaxpr_matches_jax(case):
  fun = _eval(case["fun"])
  if not case["fun"].startswith("jax.grad"):
    fun = jax.grad(fun)
  text = str(jax.make_jaxpr(fun)(*_eval(case["args"])))
  expected = case["text"]
  if case["name"] in _INTENDED:
    theirs, ours = _INTENDED[case["name"]]
    expected = expected.replace(theirs, ours)
  assert text == expected


@pytest.mark.parametrize("case", REFERENCE["jaxprs"], ids=lambda c: c["name"])
def test_jvp_vjp_vmap_jaxpr_matches_jax(case):
  text = str(jax.make_jaxpr(_eval(case["fun"]))(*_eval(case["args"])))
  assert text == case["text"]


def _decode(entry):
  return np.frombuffer(bytes.fromhex(entry["hex"]), entry["kind"]).reshape(entry["shape"])


@pytest.mark.parametrize("case", REFERENCE["values"], ids=lambda c: c["name"])
def test_derivative_values_match_jax(case):
  out = jax.tree_util.tree_leaves(_eval(case["expr"]))
  assert len(out) == len(case["out"])
  for actual, entry in zip(out, case["out"]):
    actual = np.asarray(actual)
    assert str(actual.dtype) == entry["dtype"]
    expected = _decode(entry)
    np.testing.assert_allclose(actual.astype(expected.dtype), expected, rtol=2e-6, atol=1e-7,
                               equal_nan=True)


# ---------------------------------------------------------------------------
# JAX's conventions, spelled out


def test_max_min_ties_split_the_gradient():
  assert jax.grad(lax.max, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
  assert jax.grad(lax.min, argnums=(0, 1))(2.0, 2.0) == (0.5, 0.5)
  assert jax.grad(lax.max, argnums=(0, 1))(3.0, 1.0) == (1.0, 0.0)
  x = np.array([1.0, 2.0, 3.0], np.float32)
  grads = jax.grad(lambda x, y: lax.reduce_sum(lax.max(x, y), (0,)), argnums=(0, 1))(x, np.float32(2.0))
  np.testing.assert_array_equal(grads[0], [0.0, 0.5, 1.0])
  assert float(grads[1]) == 1.5


def test_abs_sqrt_sign_at_zero():
  # JAX's abs JVP is select(x >= 0, g, -g): slope +1 at 0 (and at -0.0).
  assert float(jax.grad(lax.abs)(0.0)) == 1.0
  assert float(jax.grad(lax.abs)(-2.0)) == -1.0
  assert np.isinf(float(jax.grad(lax.sqrt)(0.0)))
  assert float(jax.grad(lax.sign)(3.0)) == 0.0
  assert np.asarray(jax.jvp(lax.sign, (np.complex64(1 + 1j),), (np.complex64(1),))[1]) == 0


def test_pow_at_zero_base():
  assert jax.grad(lax.pow, argnums=(0, 1))(np.float32(0.0), np.float32(2.0)) == (0.0, 0.0)
  assert float(jax.grad(lambda x: lax.pow(x, np.int32(0)))(np.float32(0.0))) == 0.0
  assert float(jax.grad(lambda x: lax.integer_pow(x, 0))(np.float32(5.0))) == 0.0


def test_higher_order_derivatives():
  d = jax.grad
  x = np.float32(0.7)
  np.testing.assert_allclose(d(d(d(lax.sin)))(x), -np.cos(x), rtol=1e-6)
  np.testing.assert_allclose(d(d(lax.exp))(x), np.exp(x), rtol=1e-6)
  np.testing.assert_allclose(d(d(lambda x: lax.integer_pow(x, 4)))(np.float32(2.0)), 48.0)
  np.testing.assert_allclose(d(d(lax.tanh))(x), -2 * np.tanh(x) * (1 - np.tanh(x) ** 2), rtol=1e-5)
  np.testing.assert_allclose(d(d(lax.lgamma))(np.float32(3.0)), np.pi ** 2 / 6 - 1 - 0.25, rtol=1e-5)
  h = jax.hessian(lambda x: lax.mul(lax.sin(x), lax.exp(x)))(x)
  np.testing.assert_allclose(h, 2 * np.cos(x) * np.exp(x), rtol=1e-5)


def test_grad_of_integer_input_gives_float0():
  x = np.int32(3)
  _, tangent = jax.jvp(lambda x: lax.convert_element_type(x, np.float32),
                       (x,), (np.zeros((), jax.dtypes.float0),))
  assert float(tangent) == 0.0
  g = jax.grad(lambda x: lax.convert_element_type(x, np.float32), allow_int=True)(x)
  assert g.dtype == jax.dtypes.float0


# ---------------------------------------------------------------------------
# Errors where JAX has no derivative


def test_not_differentiable_errors():
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'nextafter'"):
    jax.grad(lax.nextafter)(np.float32(1.0), np.float32(2.0))
  with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
    jax.grad(lax.polygamma)(np.float32(1.0), np.float32(2.0))
  with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
    jax.grad(lax.betainc)(np.float32(1.0), np.float32(2.0), np.float32(0.5))
  with pytest.raises(NotImplementedError, match="'zeta' with respect to x"):
    jax.grad(lax.zeta)(np.float32(3.0), np.float32(2.0))
  with pytest.raises(NotImplementedError, match="'igamma_grad_a' with respect to a"):
    jax.grad(jax.grad(lax.igamma))(np.float32(2.0), np.float32(1.0))


def test_zeta_derivative_in_q():
  # Beyond JAX (which differentiates zeta in neither argument): d/dq zeta(s, q) = -s zeta(s+1, q).
  s, q = np.float32(3.0), np.float32(2.0)
  np.testing.assert_allclose(jax.grad(lax.zeta, argnums=1)(s, q), -s * lax.zeta(s + 1, q), rtol=1e-5)


# ---------------------------------------------------------------------------
# Complex differentiation: VJPs are transposes (no conjugation), so for every tangent v and
# cotangent c: <conj(vjp(conj(c))), v> == <c, jvp(v)> (JAX's check_vjp identity).


def _inner(x, y):
  return np.sum(np.conj(np.asarray(x, np.complex128)) * np.asarray(y, np.complex128)).real


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("name,fun,args", [
    ("mul", lax.mul, (np.complex64(1 + 2j), np.complex64(0.5 - 1j))),
    ("div", lax.div, (np.complex64(1 + 2j), np.complex64(0.5 - 1j))),
    ("exp", lax.exp, (np.complex64(0.3 + 0.2j),)),
    ("log", lax.log, (np.complex64(1 + 2j),)),
    ("sin", lax.sin, (np.complex64(0.3 + 0.2j),)),
    ("tanh", lax.tanh, (np.complex64(0.3 + 0.2j),)),
    ("sqrt", lax.sqrt, (np.complex64(1 + 2j),)),
    ("pow", lax.pow, (np.complex64(1 + 0.5j), np.complex64(1.5 - 0.2j))),
    ("integer_pow", lambda z: lax.integer_pow(z, 3), (np.complex64(1 + 0.5j),)),
    ("abs", lax.abs, (np.complex64(3 + 4j),)),
    ("real", lax.real, (np.complex64(3 + 4j),)),
    ("imag", lax.imag, (np.complex64(3 + 4j),)),
    ("conj", lax.conj, (np.complex64(3 + 4j),)),
    ("conj_of_real", lax.conj, (np.float32(3.0),)),
    ("complex", lax.complex, (np.float32(3.0), np.float32(-1.0))),
    ("convert_to_real", lambda z: lax.convert_element_type(z, np.float32), (np.complex64(3 + 4j),)),
    ("convert_to_complex", lambda x: lax.convert_element_type(x, np.complex64), (np.float32(3.0),)),
    ("select", lambda x, y: lax.select(True, x, y), (np.complex64(1 + 2j), np.complex64(2 - 1j))),
])
def test_complex_vjp_is_the_transpose_of_the_jvp(name, fun, args):
  rng = np.random.default_rng(0)

  def rand_like(x):
    x = np.asarray(x)
    v = rng.standard_normal(x.shape) + (1j * rng.standard_normal(x.shape) if x.dtype.kind == "c" else 0)
    return np.asarray(v, x.dtype)

  tangents = [rand_like(a) for a in args]
  out, pullback = jax.vjp(fun, *args)
  cotangent = rand_like(out)
  cts = pullback(np.conj(cotangent).astype(cotangent.dtype))
  cts = [np.conj(np.asarray(c)) for c in cts]
  _, jvp_out = jax.jvp(fun, tuple(args), tuple(tangents))
  lhs = sum(_inner(c, t) for c, t in zip(cts, tangents))
  rhs = _inner(cotangent, jvp_out)
  np.testing.assert_allclose(lhs, rhs, rtol=1e-5, atol=1e-6)
  numeric = numerical_jvp(fun, args, tangents, 1e-3)
  np.testing.assert_allclose(np.asarray(jvp_out), np.asarray(numeric), rtol=2e-2, atol=2e-2)


def test_holomorphic_grads():
  z = np.complex64(1 + 2j)
  np.testing.assert_allclose(jax.grad(lax.exp, holomorphic=True)(z), np.exp(z), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lax.sin, holomorphic=True)(z), np.cos(z), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda z: lax.integer_pow(z, 3), holomorphic=True)(z),
                             3 * z ** 2, rtol=1e-6)
  # a real-valued function of a complex input: grad is the conjugate of the Wirtinger gradient
  # times 2, i.e. for |z|**2 it is 2 conj(z) under JAX's convention
  np.testing.assert_allclose(jax.grad(lambda z: lax.real(lax.mul(z, lax.conj(z))))(z),
                             2 * np.conj(z), rtol=1e-6)


# ---------------------------------------------------------------------------
# Batching with batch dimensions in unusual positions


def _loop(fun, in_axes, args, size):
  outs = []
  for i in range(size):
    sliced = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
    outs.append(np.asarray(fun(*sliced)))
  return np.stack(outs)


_RNG = np.random.default_rng(3)
_X = _RNG.uniform(0.5, 2, (4, 3, 2)).astype(np.float32)   # batch of 2 along axis 2
_Y = _RNG.uniform(0.5, 2, (2, 4, 3)).astype(np.float32)   # batch of 2 along axis 0
_S = np.array([0.7, 1.3], np.float32)                     # a scalar per example


@pytest.mark.parametrize("name,fun,in_axes,args", [
    ("add_axes_2_0", lax.add, (2, 0), (_X, _Y)),
    ("pow_axes_2_0", lax.pow, (2, 0), (_X, _Y)),
    ("atan2_axes_2_0", lax.atan2, (2, 0), (_X, _Y)),
    ("mul_scalar_per_example", lax.mul, (0, 2), (_S, _X)),
    ("max_unbatched_array", lax.max, (2, None), (_X, _Y[0])),
    ("div_unbatched_scalar", lax.div, (None, 2), (np.float32(2.0), _X)),
    ("pow_int_exponent", lax.pow, (2, 0), (_X, np.arange(24, dtype=np.int32).reshape(2, 4, 3) % 4)),
    ("igamma_axes", lax.igamma, (2, 0), (_X, _Y)),
    ("select_pred_per_example", lax.select, (0, 2, 0), (np.array([True, False]), _X, _Y)),
    ("select_pred_array_batched", lax.select, (2, None, 0), (_X > 1, _X[..., 0], _Y)),
    ("select_unbatched_pred", lax.select, (None, 2, 0), (_X[..., 0] > 1, _X, _Y)),
    ("select_n_int_which", lambda w, a, b, c: lax.select_n(w, a, b, c), (1, 2, 0, None),
     (_RNG.integers(-1, 5, (4, 2, 3)).astype(np.int32), _X, _Y, _X[..., 0])),
    ("clamp_scalar_bounds_per_example", lax.clamp, (0, 2, None), (_S, _X, np.float32(1.5))),
    ("clamp_array_bounds", lax.clamp, (0, 2, None), (_Y - 0.5, _X, _Y[0] + 0.2)),
    ("convert_axis_last", lambda x: lax.convert_element_type(x, np.int32), (2,), (_X * 10,)),
    ("bitcast_wider_batch_last", lambda x: lax.bitcast_convert_type(x, np.float32), (2,),
     (np.arange(12, dtype=np.uint16).reshape(3, 2, 2) + 16000,)),
    ("bitcast_narrower_batch_last", lambda x: lax.bitcast_convert_type(x, np.uint8), (2,), (_X,)),
    ("integer_pow_axis1", lambda x: lax.integer_pow(x, 3), (1,), (_X,)),
    ("complex_parts", lax.complex, (2, 0), (_X, _Y)),
    ("round_axis1", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), (1,), (_X * 3,)),
])
def test_vmap_unusual_batch_dims(name, fun, in_axes, args):
  size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
  expected = _loop(fun, in_axes, args, size)
  for wrap in (lambda f: f, jax.jit):
    actual = wrap(jax.vmap(fun, in_axes=in_axes))(*args)
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-6)
  out_axis = np.ndim(expected) - 1
  actual = jax.vmap(fun, in_axes=in_axes, out_axes=out_axis)(*args)
  np.testing.assert_allclose(np.moveaxis(np.asarray(actual), out_axis, 0), expected, rtol=1e-6)


def test_vmap_keeps_batch_dim_in_place():
  # unary ops and binary ops with the same batch axis do not move it
  jaxpr = jax.make_jaxpr(jax.vmap(lambda x, y: lax.sin(lax.mul(x, y)), in_axes=1, out_axes=1))(
      _X, _X)
  assert "transpose" not in str(jaxpr)
  jaxpr = jax.make_jaxpr(jax.vmap(lambda x: lax.add(x, np.float32(1)), in_axes=2, out_axes=2))(_X)
  assert "transpose" not in str(jaxpr)
  jaxpr = jax.make_jaxpr(jax.vmap(lambda x: lax.clamp(np.float32(0), x, np.float32(1)), in_axes=2,
                                  out_axes=2))(_X)
  assert "transpose" not in str(jaxpr)


def test_per_example_gradients_and_grad_of_vmap():
  w = np.float32(0.5)
  xs = np.array([1.0, 2.0, 3.0], np.float32)
  loss = lambda w, x: lax.square(lax.sub(lax.tanh(lax.mul(w, x)), np.float32(0.3)))
  per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0))(w, xs)
  loop = np.array([jax.grad(loss)(w, x) for x in xs])
  np.testing.assert_allclose(per_example, loop, rtol=1e-6)
  total = jax.grad(lambda w: lax.reduce_sum(jax.vmap(loss, in_axes=(None, 0))(w, xs), (0,)))(w)
  np.testing.assert_allclose(total, loop.sum(), rtol=1e-5)
  jitted = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(w, xs)
  np.testing.assert_allclose(jitted, loop, rtol=1e-6)


def test_jacfwd_equals_jacrev_elementwise():
  f = lambda x: lax.mul(lax.exp(lax.sin(x)), lax.logistic(x))
  x = np.array([0.1, -0.5, 1.2], np.float32)
  np.testing.assert_allclose(jax.jacfwd(f)(x), jax.jacrev(f)(x), rtol=1e-6)
  np.testing.assert_allclose(np.diag(np.asarray(jax.jacfwd(f)(x))), jax.vmap(jax.grad(f))(x),
                             rtol=1e-6)


def test_grad_through_jit_of_elementwise_mlp():
  def loss(w1, b1, w2, x):
    hidden = lax.tanh(lax.add(lax.mul(w1, x), b1))
    return lax.reduce_sum(lax.logistic(lax.mul(w2, hidden)), (0,))

  args = [np.float32(0.5), np.float32(0.1), np.float32(-1.2), np.linspace(-1, 1, 5, dtype=np.float32)]
  eager = jax.grad(loss, argnums=(0, 1, 2))(*args)
  jitted = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(*args)
  of_jit = jax.grad(jax.jit(loss), argnums=(0, 1, 2))(*args)
  for a, b, c in zip(eager, jitted, of_jit):
    np.testing.assert_allclose(a, b, rtol=1e-5)
    np.testing.assert_allclose(a, c, rtol=1e-5)
  # finite differences in w2
  h = 1e-2
  fd = (loss(args[0], args[1], args[2] + h, args[3]) - loss(args[0], args[1], args[2] - h, args[3])) / (2 * h)
  np.testing.assert_allclose(eager[2], fd, rtol=1e-2)


def test_transposes_unbroadcast_to_operand_shapes():
  x = np.ones((1, 3), np.float32)
  y = np.ones((2, 3), np.float32)
  ct = np.arange(6, dtype=np.float32).reshape(2, 3)
  for op in (lax.add, lax.sub, lax.mul, lax.div):
    cts = jax.vjp(op, x, y)[1](ct)
    assert cts[0].shape == (1, 3) and cts[1].shape == (2, 3)
  ct_x, ct_s = jax.vjp(lax.mul, y, np.float32(2.0))[1](ct)
  assert ct_s.shape == () and float(ct_s) == ct.sum()
  cts = jax.vjp(lax.complex, np.float32(1.0), np.ones(3, np.float32))[1](np.ones(3, np.complex64))
  assert cts[0].shape == () and cts[1].shape == (3,)
  ct = jax.vjp(lambda x: lax.convert_element_type(x, np.float16), np.ones(3, np.float32))[1](
      np.ones(3, np.float16))[0]
  assert ct.dtype == np.float32


def test_select_n_out_of_range_index_gets_no_cotangent():
  # As in JAX: each case's cotangent is where which == its index; XLA clamps an out-of-range
  # which in the forward pass (5 picks the last case, -1 the first) but passes it no cotangent.
  which = np.array([5, -1, 1], np.int32)
  cases = [np.full(3, float(i), np.float32) for i in range(3)]
  np.testing.assert_array_equal(lax.select_n(which, *cases), [2, 0, 1])
  cts = jax.vjp(lambda *c: lax.select_n(which, *c), *cases)[1](np.ones(3, np.float32))
  np.testing.assert_array_equal(cts[0], [0, 0, 0])
  np.testing.assert_array_equal(cts[1], [0, 0, 1])
  np.testing.assert_array_equal(cts[2], [0, 0, 0])
