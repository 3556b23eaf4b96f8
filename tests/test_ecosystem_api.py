"""The public API the JAX ecosystem (optax, flax, equinox, chex, ...) relies on, and the axle
bugs those libraries exposed. Expected values are JAX 0.10.2's (recorded by hand from it)."""
import textwrap

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp


# ---------------------------------------------------------------------------
# Known bugs


def test_unsigned_scalar_constructor_takes_values_above_int32():
  x = jnp.uint32(2998342421)
  assert x.dtype == np.uint32 and int(x) == 2998342421
  assert int(jnp.asarray(4294967295, dtype=jnp.uint32)) == 4294967295
  assert int(jnp.int8(-1)) == -1


@pytest.mark.parametrize("ctor,value", [(jnp.uint32, -1), (jnp.uint32, 2**32 + 5),
                                        (jnp.int32, 2998342421), (jnp.uint8, 256)])
def test_scalar_constructor_out_of_range_raises_overflow(ctor, value):
  with pytest.raises(OverflowError, match=f"Python integer {value} out of bounds"):
    ctor(value)


def _sin_with_custom_vjp():
  @jax.custom_vjp
  def f(x):
    return jnp.sin(x)

  def fwd(x):
    return jnp.sin(x), jnp.cos(x)

  def bwd(r, g):
    return (2 * r * g,)

  f.defvjp(fwd, bwd)
  return f


def test_grad_of_jit_with_custom_vjp_inside():
  f = _sin_with_custom_vjp()
  expected = np.float32(2 * np.cos(np.float32(1.0)))
  np.testing.assert_allclose(jax.grad(jax.jit(f))(1.0), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.grad(jax.jit(f)))(1.0), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.grad(jax.jit(f)))(jnp.ones(3)), [expected] * 3,
                             rtol=1e-6)
  # inside scan and cond bodies too
  loop = lambda x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=3)[0]
  np.testing.assert_allclose(jax.grad(loop)(1.0), 2.116066, rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda x: jax.lax.cond(x > 0, f, jnp.cos, x))(1.0),
                             expected, rtol=1e-6)


def test_grad_of_jit_custom_vjp_jaxpr_matches_jax():
  f = _sin_with_custom_vjp()
  text = str(jax.make_jaxpr(jax.grad(jax.jit(f)))(1.0))
  assert "_:f32[] b:f32[] = jit[" in text and "e:f32[] = mul 2.0:f32[] b" in text


def test_jvp_of_jit_custom_vjp_still_refuses_forward_mode():
  f = _sin_with_custom_vjp()
  with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
    jax.jvp(jax.jit(f), (1.0,), (1.0,))


def test_rules_under_grad_see_arrays_not_python_floats():
  seen = []

  @jax.custom_vjp
  def f(x):
    return jnp.sin(x)

  def fwd(x):
    seen.append(x)
    return jnp.sin(x), jnp.cos(x)

  f.defvjp(fwd, lambda r, g: (r * g,))

  @jax.custom_jvp
  def h(x):
    return jnp.sin(x)

  @h.defjvp
  def h_jvp(primals, tangents):
    seen.append(primals[0])
    return h(primals[0]), tangents[0]

  jax.grad(lambda x: f(jnp.asarray(x)))(1.0)
  jax.grad(h)(1.0)
  jax.jvp(h, (1.0,), (1.0,))
  assert len(seen) == 3
  for x in seen:
    assert isinstance(x, jax.Array), type(x)
    assert x.dtype == np.float32 and x.weak_type


# ---------------------------------------------------------------------------
# Public API


def test_array_isinstance_for_concrete_tracers_and_keys():
  seen = []

  def record(x):
    seen.append((isinstance(x, jax.Array), isinstance(x, jnp.ndarray)))
    return x * 2

  record(jnp.ones(2))
  jax.jit(record)(jnp.ones(2))
  jax.grad(lambda x: record(x).sum())(jnp.ones(2))
  jax.vmap(record)(jnp.ones(2))
  assert seen == [(True, True)] * 4
  assert isinstance(jax.random.key(0), jax.Array)
  assert isinstance(jax.random.PRNGKey(0), jax.Array)
  assert not isinstance(np.ones(2), jax.Array) and not isinstance(1.0, jnp.ndarray)
  assert jnp.ndarray is jax.Array


def test_device_version_and_typing():
  assert isinstance(jax.devices()[0], jax.Device)
  assert not isinstance("cpu", jax.Device)
  assert jax.version.__version__ == "0.10.2" and jax.__version_info__ == (0, 10, 2)
  assert jax.__version__ != jax.version.__version__  # axle's own version
  from axle import typing as jtyping
  assert jax.Array in jtyping.ArrayLike.__args__ and float in jtyping.ArrayLike.__args__
  assert np.dtype in jtyping.DTypeLike.__args__


def test_ravel_pytree_matches_jax():
  from axle.flatten_util import ravel_pytree
  tree = {"a": jnp.ones(2, jnp.int32), "b": (1.0, jnp.zeros((2, 2), jnp.float16))}
  flat, unravel = ravel_pytree(tree)
  assert flat.dtype == np.float32 and flat.shape == (7,)
  np.testing.assert_array_equal(flat, [1, 1, 1, 0, 0, 0, 0])
  back = unravel(flat)
  assert back["a"].dtype == np.int32 and back["b"][1].dtype == np.float16
  assert back["b"][1].shape == (2, 2)
  empty, unravel_empty = ravel_pytree({})
  assert empty.shape == (0,) and empty.dtype == np.float32 and unravel_empty(empty) == {}
  with pytest.raises(ValueError, match="expected an array of shape"):
    unravel(jnp.ones(3))
  grads = jax.grad(lambda t: (ravel_pytree(t)[0] ** 2).sum())([jnp.ones(2), 3.0])
  np.testing.assert_array_equal(grads[0], [2.0, 2.0])
  assert float(grads[1]) == 6.0


def test_custom_vjp_symbolic_zeros():
  from axle.custom_derivatives import CustomVJPPrimal, SymbolicZero
  fwd_args, bwd_cts = [], []

  @jax.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    fwd_args.append((type(x), x.perturbed, y.perturbed))
    return x.value * y.value, (x.value, y.value)

  def bwd(res, g):
    bwd_cts.append(g)
    return res[1] * g, res[0] * g

  f.defvjp(fwd, bwd, symbolic_zeros=True)
  assert float(jax.grad(f)(2.0, 3.0)) == 3.0
  assert fwd_args[-1] == (CustomVJPPrimal, True, False)
  assert float(jax.jit(jax.grad(f))(2.0, 3.0)) == 3.0
  assert not isinstance(bwd_cts[-1], SymbolicZero)


def test_custom_jvp_symbolic_zeros():
  from axle.custom_derivatives import SymbolicZero
  seen = []

  @jax.custom_jvp
  def h(x, y):
    return x * y

  def h_jvp(primals, tangents):
    seen.append(tuple(type(t) is SymbolicZero for t in tangents))
    x, y = primals
    tx, ty = (jnp.zeros_like(p) if type(t) is SymbolicZero else t
              for p, t in zip(primals, tangents))
    return h(x, y), tx * y + x * ty

  h.defjvp(h_jvp, symbolic_zeros=True)
  assert float(jax.grad(h)(2.0, 3.0)) == 3.0
  assert seen[-1] == (False, True)
  out, tangent = jax.jvp(h, (2.0, 3.0), (1.0, 0.0))
  assert (float(out), float(tangent)) == (6.0, 3.0)
  assert seen[-1] == (False, False)  # an explicit zero tangent is not symbolic


def test_custom_gradient():
  @jax.custom_gradient
  def f(x):
    return jnp.sin(x), lambda g: (g * 5.0,)

  @jax.custom_gradient
  def g(x, y):
    return x * y, lambda ct: (ct * y * 10, ct * x)

  assert float(jax.grad(f)(1.0)) == 5.0
  assert float(jax.jit(jax.grad(f))(1.0)) == 5.0
  np.testing.assert_allclose(f(1.0), np.sin(np.float32(1.0)), rtol=1e-6)
  gx, gy = jax.grad(g, argnums=(0, 1))(2.0, 3.0)
  assert (float(gx), float(gy)) == (30.0, 2.0)


def test_custom_root_differentiates_through_the_root():
  def sqrt_newton(a):
    f = lambda x: x * x - a

    def solve(f, x0):
      return jax.lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-6, lambda x: x - f(x) / (2 * x), x0)

    return jax.lax.custom_root(f, 1.0, solve, lambda g, y: y / g(1.0))

  np.testing.assert_allclose(sqrt_newton(2.0), np.sqrt(2.0), rtol=1e-6)
  expected = 0.5 / np.sqrt(2.0)
  np.testing.assert_allclose(jax.grad(sqrt_newton)(2.0), expected, rtol=1e-5)
  np.testing.assert_allclose(jax.jit(jax.grad(sqrt_newton))(2.0), expected, rtol=1e-5)
  np.testing.assert_allclose(jax.jvp(sqrt_newton, (2.0,), (1.0,))[1], expected, rtol=1e-5)


def test_custom_linear_solve_gradients_match_direct_solve():
  a = jnp.array([[4.0, 1.0], [1.0, 3.0]])
  b = jnp.array([1.0, 2.0])

  def solve(a, b):
    return jax.lax.custom_linear_solve(lambda x: a @ x, b,
                                       lambda matvec, rhs: jnp.linalg.solve(a, rhs),
                                       symmetric=True)

  direct = lambda a, b: jnp.linalg.solve(a, b).sum()
  implicit = lambda a, b: solve(a, b).sum()
  np.testing.assert_allclose(solve(a, b), jnp.linalg.solve(a, b), rtol=1e-6)
  want = jax.grad(direct, argnums=(0, 1))(a, b)
  for got in (jax.grad(implicit, argnums=(0, 1))(a, b),
              jax.jit(jax.grad(implicit, argnums=(0, 1)))(a, b),
              jax.grad(jax.jit(implicit), argnums=(0, 1))(a, b)):
    for w, g in zip(want, got):
      np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)
  _, tangent = jax.jvp(lambda a: solve(a, b), (a,), (a,))
  np.testing.assert_allclose(tangent, -jnp.linalg.solve(a, b), rtol=1e-5)


def test_custom_linear_solve_without_transpose_solve_refuses_reverse_mode():
  a = jnp.eye(2) * 2.0
  f = lambda b: jax.lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: r / 2.0).sum()
  with pytest.raises(TypeError, match="transpose_solve required"):
    jax.grad(f)(jnp.ones(2))


# ---------------------------------------------------------------------------
# A user-defined primitive, as in JAX's "How primitives work"


def _multiply_add_primitive():
  from axle.extend import core
  from axle.interpreters import ad, batching, mlir
  from axle._src.lib.mlir.dialects import hlo
  from axle import core as jcore

  prim = core.Primitive("multiply_add_test")
  bind = lambda x, y, z: prim.bind(x, y, z)
  prim.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
  prim.def_abstract_eval(lambda xs, ys, zs: jcore.ShapedArray(xs.shape, xs.dtype))
  mlir.register_lowering(prim, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result],
                         platform="cpu")

  def jvp(primals, tangents):
    x, y, z = primals
    zero = lambda t: jax.lax.full_like(x, 0) if type(t) is ad.Zero else t
    xt, yt, zt = map(zero, tangents)
    return bind(x, y, z), bind(xt, y, bind(x, yt, zt))

  def transpose(ct, x, y, z):
    if not ad.is_undefined_primal(x):
      return None, bind(x, ct, jax.lax.full_like(x, 0)), ct
    return bind(ct, y, jax.lax.full_like(y, 0)), None, ct

  ad.primitive_jvps[prim] = jvp
  ad.primitive_transposes[prim] = transpose
  batching.primitive_batchers[prim] = lambda args, dims: (bind(*args), dims[0])
  return prim, bind


def test_user_primitive_end_to_end():
  _, bind = _multiply_add_primitive()
  square_add = lambda a, b: bind(a, a, b)
  assert float(square_add(2.0, 10.0)) == 14.0
  assert float(jax.jit(square_add)(2.0, 10.0)) == 14.0
  assert float(jax.jit(square_add, static_argnums=1)(2.0, 10.0)) == 14.0
  assert tuple(map(float, jax.jvp(square_add, (2.0, 10.0), (1.0, 1.0)))) == (14.0, 5.0)
  assert float(jax.grad(square_add)(2.0, 10.0)) == 4.0
  assert float(jax.jit(jax.grad(square_add))(2.0, 10.0)) == 4.0
  xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])
  np.testing.assert_array_equal(jax.vmap(square_add)(xs, ys), [14.0, 29.0])
  np.testing.assert_array_equal(jax.jit(jax.vmap(square_add))(xs, ys), [14.0, 29.0])
  assert "multiply_add_test" in str(jax.make_jaxpr(square_add)(2.0, 10.0))


def test_user_primitive_missing_rules_raise_jax_errors():
  from axle.extend import core
  prim = core.Primitive("bare_test_primitive")
  with pytest.raises(NotImplementedError, match="Evaluation rule for 'bare_test_primitive'"):
    prim.bind(1.0)
  with pytest.raises(NotImplementedError, match="Abstract evaluation for 'bare_test_primitive'"):
    jax.jit(prim.bind)(1.0)
  prim.def_impl(lambda x: x)
  prim.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive"):
    jax.jit(prim.bind)(1.0)
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'bare_test_primitive'"):
    jax.jvp(prim.bind, (1.0,), (1.0,))
  with pytest.raises(NotImplementedError, match="Batching rule for 'bare_test_primitive'"):
    jax.vmap(prim.bind)(jnp.ones(2))


def test_user_primitive_impl_gets_arrays_and_lower_fun():
  from axle.extend import core
  from axle.interpreters import mlir
  prim = core.Primitive("double_test_primitive")
  seen = []

  def impl(x):
    seen.append(type(x))
    return jnp.multiply(x, 2)

  prim.def_impl(impl)
  prim.def_abstract_eval(lambda x: x)
  mlir.register_lowering(prim, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
  assert float(prim.bind(jnp.float32(3))) == 6.0
  assert len(seen) == 1 and issubclass(seen[0], jax.Array)
  np.testing.assert_array_equal(jax.jit(prim.bind)(jnp.arange(3.0)), [0.0, 2.0, 4.0])


def test_trace_to_jaxpr_dynamic_and_partial_eval():
  from axle.extend import linear_util as lu
  from axle.interpreters import partial_eval as pe
  from axle import core as jcore
  aval = jcore.ShapedArray((3,), np.float32)
  jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(
      lu.wrap_init(lambda x: [jnp.sin(x) * 2]), [aval])
  assert out_avals == [aval] and consts == []
  assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "mul"]
  out = jcore.eval_jaxpr(jaxpr, consts, jnp.zeros(3))
  np.testing.assert_array_equal(out[0], np.zeros(3))
  jaxpr, out_pvals, residuals = pe.trace_to_jaxpr_nounits(
      lambda a, b: [a * 2, a * b], [pe.PartialVal.known(jnp.float32(3)),
                                    pe.PartialVal.unknown(jcore.ShapedArray((), np.float32))])
  assert out_pvals[0].is_known() and float(out_pvals[0].get_known()) == 6.0
  assert not out_pvals[1].is_known()
  assert [e.primitive.name for e in jaxpr.eqns] == ["mul"]


# ---------------------------------------------------------------------------
# Running JAX programs on axle


_PROGRAM = textwrap.dedent("""
    import sys
    import jax, jax.numpy as jnp
    from jax._src import dispatch, traceback_util
    from jax.extend import core
    from jax.interpreters import ad, batching, mlir
    import jax.numpy.linalg
    print(jax.__name__, float(jax.grad(lambda x: x * x)(3.0)), sys.argv[1:])
    real = [n for n, m in sys.modules.items() if (n == "jax" or n.startswith("jax."))
            and not (getattr(m, "__name__", "") or "").startswith("axle")]
    print("real jax modules:", real)
    try:
      import jax._src.no_such_module
    except ModuleNotFoundError as e:
      print("missing ok")
    """)


def _run(args, tmp_path):
  import os
  import subprocess
  import sys
  env = dict(os.environ)
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
  return subprocess.run([sys.executable, "-m", "axle.run", *args], capture_output=True,
                        text=True, env=env, cwd=tmp_path, timeout=120)


def test_axle_run_script_and_module(tmp_path):
  (tmp_path / "prog.py").write_text(_PROGRAM)
  result = _run(["prog.py", "a", "b"], tmp_path)
  assert result.returncode == 0, result.stderr
  assert result.stdout.splitlines() == ["axle 6.0 ['a', 'b']", "real jax modules: []",
                                        "missing ok"]
  result = _run(["-m", "prog", "c"], tmp_path)
  assert result.returncode == 0, result.stderr
  assert result.stdout.splitlines()[0] == "axle 6.0 ['c']"


def test_custom_vjp_primal_is_a_leaf_and_static_residuals_reach_bwd():
  from axle.custom_derivatives import CustomVJPPrimal
  seen = []

  @jax.custom_vjp
  def f(x):
    return x * 2

  def fwd(x):
    assert jax.tree_util.tree_leaves(x) == [x] and type(x) is CustomVJPPrimal
    return x.value * 2, (x.value, x.perturbed, "tag")

  def bwd(res, g):
    seen.append(res[1:])
    return (g * 2,)

  f.defvjp(fwd, bwd, symbolic_zeros=True)
  assert float(jax.grad(f)(1.0)) == 2.0
  assert seen == [(True, "tag")]  # a Python bool stays a Python bool


def test_shaped_array_to_tangent_aval():
  from axle import core as jcore
  assert jcore.ShapedArray((2,), np.float32).to_tangent_aval() == jcore.ShapedArray((2,), np.float32)
  assert jcore.ShapedArray((2,), np.int32).to_tangent_aval().dtype == jax.dtypes.float0


def test_flag_contexts_and_compile_time_eval():
  assert jax.config.jax_numpy_dtype_promotion == "standard"
  with jax.numpy_dtype_promotion("strict"):
    assert jax.config.jax_numpy_dtype_promotion == "strict"
  assert jax.config.jax_numpy_dtype_promotion == "standard"

  @jax.numpy_rank_promotion("raise")
  def rank():
    return jax.config.jax_numpy_rank_promotion

  assert rank() == "raise" and jax.config.jax_numpy_rank_promotion == "allow"
  kinds = []

  @jax.jit
  def f(x):
    with jax.ensure_compile_time_eval():
      y = jnp.arange(3.0) * 2
    kinds.append(isinstance(y, jax.core.Tracer))
    return x + y

  np.testing.assert_array_equal(f(jnp.ones(3)), [1.0, 3.0, 5.0])
  assert kinds == [False]


def test_monitoring_listeners():
  events = []
  jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
  try:
    jax.monitoring.record_event("/test/event")
  finally:
    jax.monitoring.clear_event_listeners()
  assert events == ["/test/event"]


def test_compile_time_eval_traces_operations_on_traced_values():
  from axle._src.core import Tracer
  seen = {}

  @jax.jit
  def f(x):
    with jax.ensure_compile_time_eval():
      doubled = x * 2                 # a traced operand: traced by jit, as in JAX
      constant = jnp.ones(3).sum()  # concrete operands: computed right away
    seen["doubled"], seen["constant"] = doubled, constant
    return doubled + constant

  assert float(f(1.0)) == 5.0
  assert isinstance(seen["doubled"], Tracer) and not isinstance(seen["constant"], Tracer)


def test_compile_time_eval_stages_jitted_calls_on_traced_values():
  # diffrax's solve does this: equinox's Enumeration.where calls jnp.where (a jitted library
  # function) on a traced predicate inside ensure_compile_time_eval.
  from axle._src.core import Tracer
  seen = {}
  helper = jax.jit(lambda p, a, b: jnp.where(p, a, b))

  @jax.jit
  def f(x):
    pred = x > 0
    with jax.ensure_compile_time_eval():
      chosen = jnp.where(pred, 1, 2)
      by_helper = helper(pred, 3, 4)
      concrete = helper(True, 5, 6)
    seen["chosen"], seen["concrete"] = chosen, concrete
    return chosen + by_helper + concrete

  assert int(f(1.0)) == 1 + 3 + 5 and int(f(-1.0)) == 2 + 4 + 5
  assert isinstance(seen["chosen"], Tracer) and not isinstance(seen["concrete"], Tracer)


def test_sharding_impls_alias_gives_single_device_shardings():
  from axle._src import sharding_impls
  device = jax.devices()[0]
  sharding = sharding_impls.make_single_device_sharding(device, memory_kind="device")
  assert sharding == jax.sharding.SingleDeviceSharding(device)
  assert sharding.memory_kind == "device" and sharding.device_set == {device}
  from axle._src.jax_names import JAX_INTERNAL_MODULES
  assert JAX_INTERNAL_MODULES["jax._src.sharding_impls"] == "axle._src.sharding_impls"


def test_layout_and_error_category_names():
  from axle.experimental import checkify, layout
  assert layout.Format(layout.Layout((1, 0))).layout == layout.Layout((1, 0))
  assert layout.Format().layout is None
  assert issubclass(checkify.FailedCheckError, checkify.JaxException)
  assert checkify.ErrorCategory == type[checkify.JaxException]


def test_sparse_bcoo_refuses_clearly():
  from axle.experimental import sparse
  with pytest.raises(NotImplementedError, match="sparse"):
    sparse.BCOO.fromdense(jnp.ones(3))


def test_trace_state_clean_is_false_only_under_a_transformation():
  import axle.core
  seen = []
  jax.jit(lambda x: seen.append(axle.core.trace_state_clean()) or x)(1.0)
  jax.grad(lambda x: seen.append(axle.core.trace_state_clean()) or x)(1.0)
  assert axle.core.trace_state_clean() and seen == [False, False]


def test_custom_linear_solve_forward_over_reverse_under_jit():
  # jit(hessian) differentiates the tangent solve forwards (it used to be a custom_vjp, which
  # refused jvp). Expected values printed by JAX 0.10.2 for the same code.
  a0 = jnp.array([[2., 1.], [1., 3.]])
  b = jnp.array([1., 2.])

  def solve(a, b):
    return jax.lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: jnp.linalg.solve(a, r),
                                       symmetric=True)
  hess = jax.jit(jax.hessian(lambda a, b: solve(a, b).sum()))(a0, b)
  expected = [[[[0.096, 0.168], [-0.032, -0.056]], [[0.128, 0.024], [-0.016, 0.072]]],
              [[[0.008, 0.064], [0.024, -0.008]], [[-0.056, -0.048], [0.112, 0.096]]]]
  np.testing.assert_allclose(np.asarray(hess), expected, rtol=1e-5, atol=1e-6)
  primal, tangent = jax.jit(lambda a, b: jax.jvp(solve, (a, b), (a, b)))(a0, b)
  np.testing.assert_allclose(np.asarray(primal), [0.2, 0.6], rtol=1e-6)
  np.testing.assert_allclose(np.asarray(tangent), [0.0, 0.0], atol=1e-6)  # JAX: [0. 0.]
