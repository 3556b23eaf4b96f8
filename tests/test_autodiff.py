"""The differentiation API: jvp, linearize, vjp, grad, value_and_grad, jacfwd/jacrev/hessian,
custom_jvp/custom_vjp, checkpoint, stop_gradient, check_grads; errors and printed jaxprs."""

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax
from axle.test_util import check_grads


def test_seeds_grad_chain():
  f = lambda x: 2 * x ** 3
  d1 = jax.grad(f)
  d2 = jax.grad(d1)
  d3 = jax.grad(d2)
  assert float(d1(1.0)) == 6.0
  assert float(d2(1.0)) == 12.0
  assert float(d3(1.0)) == 12.0


def test_value_and_grad_with_aux_on_mlp():
  rng = np.random.default_rng(0)
  params = {"W1": rng.standard_normal((4, 8)).astype(np.float32),
            "b1": np.zeros(8, np.float32),
            "W2": rng.standard_normal((8, 3)).astype(np.float32)}
  x = rng.standard_normal((5, 4)).astype(np.float32)

  def loss(p, x):
    h = jnp.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"]
    return jnp.mean(out ** 2), {"out": out}

  (value, aux), grads = jax.value_and_grad(loss, has_aux=True)(params, x)
  assert set(grads) == set(params)
  for k in params:
    assert grads[k].shape == params[k].shape
  # finite-difference check of one entry
  eps = 1e-3
  bumped = dict(params, W2=params["W2"].copy())
  bumped["W2"][1, 2] += eps
  numeric = (float(loss(bumped, x)[0]) - float(value)) / eps
  np.testing.assert_allclose(float(grads["W2"][1, 2]), numeric, rtol=2e-2, atol=1e-3)
  assert aux["out"].shape == (5, 3)
  check_grads(lambda p: loss(p, x)[0], (params,), order=1, modes=("rev",))


def test_grad_pytree_structure_and_argnums():
  f = lambda a, b: jnp.sum(a["x"] * b[0]) + b[1]
  a = {"x": jnp.arange(3.0)}
  b = (jnp.ones(3), 2.0)
  ga, gb = jax.grad(f, argnums=(0, 1))(a, b)
  assert list(ga) == ["x"]
  np.testing.assert_allclose(ga["x"], np.ones(3))
  np.testing.assert_allclose(gb[0], np.arange(3.0))
  assert float(gb[1]) == 1.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: jax.grad(lambda x: x * 2)(jnp.ones(3)), TypeError,
     "Gradient only defined for scalar-output functions. Output had shape: (3,)."),
    (lambda: jax.grad(lambda x: x)(1), TypeError,
     "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use vjp "
     "or set allow_int to True."),
    (lambda: jax.grad(lambda x: x, argnums=1)(1.0), TypeError,
     "differentiating with respect to argnums=1 requires at least 2 positional arguments to be "
     "passed by the caller, but got only 1 positional arguments."),
    (lambda: jax.grad(lambda x: x.astype(jnp.int32))(1.0), TypeError,
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but "
     "got int32. For differentiation of functions with integer outputs, use jax.vjp directly."),
    (lambda: jax.grad(lambda x: x, holomorphic=True)(1.0), TypeError,
     "grad with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: jax.jvp(lambda x: x, 1.0, 1.0), TypeError,
     "primal and tangent arguments to jax.jvp must be tuples or lists; found float and float."),
    (lambda: jax.jvp(lambda x: x, (jnp.ones(2),), (jnp.ones(3),)), ValueError,
     "jvp called with different primal and tangent shapes;Got primal shape (2,) and tangent "
     "shape as (3,)"),
    (lambda: jax.vjp(lambda x: x, 1.0)[1](jnp.ones(2)), ValueError,
     "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[2], but "
     "expected float32[] because the corresponding output of the differentiated function had "
     "JAX type float32[]"),
])
def test_errors(call, error, message):
  with pytest.raises(error) as info:
    call()
  assert str(info.value) == message


def test_jvp_dtype_mismatch_message():
  with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp do not match; "
                     "dtypes must be equal"):
    jax.jvp(lambda x: x, (1.0,), (1,))


def test_allow_int_gives_float0():
  g = jax.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(1.0, 2)
  assert float(g[0]) == 2.0
  assert np.asarray(g[1]).dtype == jax.dtypes.float0


def test_tracer_reprs():
  seen = []

  def f(x):
    seen.append(repr(x))
    return x * 2.0

  jax.grad(f)(1.0)
  jax.jvp(f, (1.0,), (1.0,))
  jax.vmap(f)(jnp.ones(3))
  assert seen == ["GradTracer(primal=1.0, typeof(tangent)=f32[])",
                  "JVPTracer(primal=1.0, tangent=1.0)",
                  "VmapTracer(aval=float32[], batched=float32[3])"]


def test_grad_jaxpr_matches_jax():
  text = str(jax.make_jaxpr(jax.grad(lambda x: jnp.sin(x) * x))(1.0))
  assert text == """{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = cos a
    _:f32[] = mul b a
    d:f32[] = mul b 1.0:f32[]
    e:f32[] = mul 1.0:f32[] a
    f:f32[] = mul e c
    g:f32[] = add_any d f
  in (g,) }"""


def test_grad_of_jit_transposes_a_call():
  f = jax.jit(lambda x: jnp.sin(x) * x)
  text = str(jax.make_jaxpr(jax.grad(f))(1.0))
  assert text.count("jit[") == 2  # the known part and the transposed linear part
  np.testing.assert_allclose(jax.grad(f)(1.0), np.cos(1.0) * 1.0 + np.sin(1.0), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.grad(f))(1.0), np.cos(1.0) + np.sin(1.0), rtol=1e-6)


def test_python_control_flow_on_primals_under_grad():
  f = lambda x: x * 2.0 if x > 0 else x * 3.0
  assert float(jax.grad(f)(1.0)) == 2.0
  assert float(jax.grad(f)(-1.0)) == 3.0


def test_linearize_matches_jvp():
  f = lambda x: jnp.sin(x) * jnp.exp(x)
  x = jnp.arange(3.0)
  y, f_jvp = jax.linearize(f, x)
  t = jnp.ones(3)
  np.testing.assert_allclose(f_jvp(t), jax.jvp(f, (x,), (t,))[1], rtol=1e-6)
  np.testing.assert_allclose(y, f(x))


def test_hessian_of_quadratic_form():
  a = np.array([[2.0, 1.0, 0.0], [3.0, 1.0, 4.0], [0.0, 5.0, 1.0]], np.float32)
  f = lambda x: x @ a @ x
  h = jax.hessian(f)(jnp.ones(3))
  np.testing.assert_allclose(h, a + a.T, rtol=1e-6)


def test_jacfwd_equals_jacrev():
  f = lambda x: jnp.stack([jnp.sin(x[0]) * x[1], x[0] * x[1] * x[2], jnp.exp(x[2])])
  x = jnp.array([0.3, -1.2, 0.7])
  np.testing.assert_allclose(jax.jacfwd(f)(x), jax.jacrev(f)(x), rtol=1e-5)
  assert jax.jacobian(f)(x).shape == (3, 3)


def test_stop_gradient():
  f = lambda x: lax.stop_gradient(x) * x
  assert float(jax.grad(f)(3.0)) == 3.0
  assert "stop_gradient" in str(jax.make_jaxpr(f)(1.0))


def test_custom_jvp_log1pexp():
  @jax.custom_jvp
  def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))

  @log1pexp.defjvp
  def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = log1pexp(x)
    return ans, x_dot * (1 - 1 / (1 + jnp.exp(x)))

  assert float(jax.grad(log1pexp)(100.)) == 1.0
  assert float(jax.jit(jax.grad(log1pexp))(3.)) == pytest.approx(0.95257413, rel=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.grad(log1pexp))(jnp.array([0.0, 100.0])),
                             [0.5, 1.0], rtol=1e-6)
  text = str(jax.make_jaxpr(log1pexp)(1.0))
  assert text.splitlines()[1].strip() == "b:f32[] = custom_jvp_call["
  assert "name=log1pexp" in text and "jvp=log1pexp_jvp" in text


def test_custom_jvp_defjvps_and_nondiff_argnums():
  @jax.custom_jvp
  def f(x, y):
    return jnp.sin(x) * y

  f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
            lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)
  assert float(jax.grad(f)(2., 3.)) == pytest.approx(3 * np.cos(2.0), rel=1e-6)

  from functools import partial

  @partial(jax.custom_jvp, nondiff_argnums=(0,))
  def app(g, x):
    return g(x)

  @app.defjvp
  def app_jvp(g, primals, tangents):
    x, = primals
    x_dot, = tangents
    return g(x), 2. * x_dot

  assert float(jax.grad(app, argnums=1)(lambda x: x ** 3, 3.)) == 2.0


def test_custom_vjp_clip_gradient():
  @jax.custom_vjp
  def clip_gradient(lo, hi, x):
    return x

  def fwd(lo, hi, x):
    return x, (lo, hi)

  def bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))

  clip_gradient.defvjp(fwd, bwd)
  t = jnp.linspace(0, 10, 5)
  grads = jax.vmap(jax.grad(lambda x: clip_gradient(-0.75, 0.75, jnp.sin(x))))(t)
  # the cotangent 1.0 is clipped to 0.75 before the chain rule multiplies by cos(x)
  np.testing.assert_allclose(grads, 0.75 * np.cos(np.asarray(t)), rtol=1e-6)
  with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
    jax.jvp(lambda x: clip_gradient(-1., 1., x), (1.0,), (1.0,))


def test_custom_vjp_f_and_jaxpr():
  @jax.custom_vjp
  def f(x, y):
    return jnp.sin(x) * y

  def f_fwd(x, y):
    return f(x, y), (jnp.cos(x), jnp.sin(x), y)

  def f_bwd(res, g):
    cos_x, sin_x, y = res
    return (cos_x * g * y, sin_x * g)

  f.defvjp(f_fwd, f_bwd)
  assert float(jax.grad(f)(2., 3.)) == pytest.approx(3 * np.cos(2.0), rel=1e-6)
  assert float(jax.jit(jax.grad(f, argnums=1))(2., 3.)) == pytest.approx(np.sin(2.0), rel=1e-6)
  text = str(jax.make_jaxpr(f)(1.0, 2.0))
  assert "custom_vjp_call[" in text and "fwd=f_fwd" in text and "bwd=f_bwd" in text


def test_checkpoint_matches_plain_grad_and_prints_remat():
  g = lambda x: jnp.sin(jnp.sin(x))
  f = jax.checkpoint(g)
  np.testing.assert_allclose(jax.grad(f)(1.0), jax.grad(g)(1.0), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.grad(f))(1.0), jax.grad(g)(1.0), rtol=1e-6)
  text = str(jax.make_jaxpr(jax.grad(f))(1.0))
  assert """    b:f32[] = sin a
    _:f32[] = sin b
    c:f32[] = remat2[
      differentiated=True""" in text
  policy = jax.checkpoint_policies.dots_saveable
  w = jnp.ones((3, 3))
  h = jax.checkpoint(lambda x: jnp.sum(jnp.tanh(x @ w)), policy=policy)
  np.testing.assert_allclose(jax.grad(h)(jnp.arange(3.0)),
                             jax.grad(lambda x: jnp.sum(jnp.tanh(x @ w)))(jnp.arange(3.0)),
                             rtol=1e-6)


def test_closure_convert():
  w = jnp.array([1.0, 2.0])
  f = lambda x: jnp.sum(w * x)
  converted, consts = jax.closure_convert(f, jnp.ones(2))
  assert len(consts) == 1
  np.testing.assert_allclose(converted(jnp.ones(2), *consts), 3.0)


def test_check_grads_detects_a_wrong_rule():
  @jax.custom_jvp
  def wrong(x):
    return jnp.sin(x)

  wrong.defjvp(lambda p, t: (wrong(p[0]), 2.0 * t[0]))
  with pytest.raises(AssertionError):
    check_grads(wrong, (0.5,), order=1, modes=("fwd",))
  check_grads(jnp.sin, (0.5,), order=2)


def test_nested_jit_grad_vmap_compositions():
  f = lambda w, x: jnp.tanh(jnp.dot(x, w)).sum()
  w = jnp.arange(6.0).reshape(3, 2) / 10
  xs = jnp.arange(12.0).reshape(4, 3) / 10
  per_example = jax.vmap(jax.grad(f), in_axes=(None, 0))(w, xs)
  loop = np.stack([np.asarray(jax.grad(f)(w, x)) for x in xs])
  np.testing.assert_allclose(per_example, loop, rtol=1e-5)
  np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f), in_axes=(None, 0)))(w, xs), loop,
                             rtol=1e-5)
  np.testing.assert_allclose(jax.grad(lambda w: jax.vmap(f, in_axes=(None, 0))(w, xs).sum())(w),
                             loop.sum(0), rtol=1e-5)


def test_linear_transpose():
  f = lambda x, y: x * 2.0 + jnp.sum(y)
  transposed = jax.linear_transpose(f, 1.0, jnp.ones(3))
  ct_x, ct_y = transposed(1.5)
  assert float(ct_x) == 3.0
  np.testing.assert_allclose(ct_y, [1.5, 1.5, 1.5])
  with pytest.raises(TypeError, match="cotangent type does not match function output"):
    transposed(jnp.ones(2))
  with pytest.raises(NotImplementedError):  # sin is not linear: it has no transpose rule
    jax.linear_transpose(jnp.sin, 1.0)(1.0)
