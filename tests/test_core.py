"""The trace machinery, the IR and the Array protocol."""
import pickle
import sys

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle._src import core
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src.interpreters import staging


def test_pretty_printer_groups_break_only_when_too_wide():
  doc = pp.group(pp.concat([pp.text("f["), pp.nest(2, pp.concat([pp.brk(""), pp.text("a=1"),
                                                                  pp.brk(), pp.text("b=2")])),
                            pp.brk(""), pp.text("]")]))
  assert doc.format(80) == "f[a=1 b=2]"
  assert doc.format(6) == "f[\n  a=1\n  b=2\n]"


def test_make_jaxpr_fields():
  const = np.arange(3, dtype=np.float32)
  closed = axle.make_jaxpr(lambda x: jnp.sin(x) * const + 1.0)(jnp.ones(3))
  assert isinstance(closed, ir.ClosedJaxpr)
  assert len(closed.jaxpr.constvars) == 1
  np.testing.assert_array_equal(np.asarray(closed.consts[0]), const)
  assert [e.primitive.name for e in closed.eqns] == ["sin", "mul", "add"]
  assert closed.in_avals == [core.ShapedArray((3,), np.float32)]
  assert closed.out_avals == [core.ShapedArray((3,), np.float32)]
  literal = closed.eqns[2].invars[1]
  assert isinstance(literal, ir.Literal) and literal.val == 1.0


def test_eval_jaxpr_matches_direct_evaluation():
  def f(x, y):
    return jnp.tanh(x @ y) - x.sum()
  x = jnp.arange(6.).reshape(2, 3) / 6
  y = jnp.ones((3, 2))
  closed = axle.make_jaxpr(f)(x, y)
  (out,) = ir.eval_jaxpr(closed.jaxpr, closed.consts, x, y)
  np.testing.assert_allclose(np.asarray(out), np.asarray(f(x, y)), rtol=1e-6)


def test_check_jaxpr_accepts_traced_and_names_bad_equation():
  closed = axle.make_jaxpr(lambda x: jnp.sin(x) + 1.0)(jnp.ones(3))
  ir.check_jaxpr(closed.jaxpr)
  bad_eqn = closed.eqns[1].replace(outvars=[ir.Var(core.ShapedArray((4,), np.float32))])
  bad = closed.jaxpr.replace(eqns=[closed.eqns[0], bad_eqn], outvars=bad_eqn.outvars)
  with pytest.raises(ir.JaxprTypeError, match=r"equation 1: .*add"):
    ir.check_jaxpr(bad)
  undefined = closed.jaxpr.replace(eqns=[closed.eqns[1]])
  with pytest.raises(ir.JaxprTypeError, match="used before it is defined"):
    ir.check_jaxpr(undefined)


def test_nested_staging_outer_tracer_is_inner_constant():
  captured = {}

  def outer(x):
    inner = axle.make_jaxpr(lambda z: z * x)(2.0)
    captured["inner"] = inner
    return x + 1.0

  axle.make_jaxpr(outer)(1.0)
  inner = captured["inner"]
  assert len(inner.jaxpr.constvars) == 1
  assert isinstance(inner.consts[0], staging.StagingTracer)


def test_current_trace_restored_after_error():
  before = core.current_trace()
  with pytest.raises(TypeError):
    axle.make_jaxpr(lambda x: lax.add(x, jnp.ones(4)))(jnp.ones(3))
  assert core.current_trace() is before


def test_jit_traces_once_per_signature():
  traces = []

  @axle.jit
  def f(x):
    traces.append(x.aval)
    return x * 2
  f(jnp.ones(3)); f(jnp.ones(3)); f(jnp.zeros(3))
  assert len(traces) == 1
  f(jnp.ones(4))
  f(1.0)            # weak float32 scalar
  f(jnp.float32(1))  # strong float32 scalar: a different signature
  assert len(traces) == 4
  assert f._cache_size() == 4


def test_jit_static_argnums_and_unhashable_static():
  f = axle.jit(lambda x, n: x * n, static_argnums=1)
  assert float(f(jnp.float32(2), 3)) == 6.0
  with pytest.raises(ValueError, match="Non-hashable static arguments"):
    axle.jit(lambda x, n: x, static_argnums=1)(1.0, [1])


def test_jit_pytrees_in_and_out():
  @axle.jit
  def f(params, x):
    return {"y": params["w"] * x + params["b"], "n": (x, x)}
  out = f({"w": jnp.float32(2), "b": jnp.float32(1)}, jnp.arange(3.))
  np.testing.assert_array_equal(np.asarray(out["y"]), [1, 3, 5])
  assert isinstance(out["n"], tuple)


def test_dce_removes_dead_equations():
  closed = axle.make_jaxpr(lambda x: (jnp.sin(x), jnp.cos(x))[0])(1.0)
  assert len(closed.eqns) == 2
  pruned = staging.dce_jaxpr(closed.jaxpr)
  assert [e.primitive.name for e in pruned.eqns] == ["sin"]


def test_eval_shape_with_shape_dtype_struct():
  out = axle.eval_shape(lambda x, y: x @ y, axle.ShapeDtypeStruct((2, 3), jnp.float32),
                        axle.ShapeDtypeStruct((3, 5), jnp.float32))
  assert out.shape == (2, 5) and out.dtype == np.float32


def test_array_is_immutable_unhashable_and_pickles():
  x = jnp.arange(3)
  with pytest.raises(TypeError, match=r"x.at\[idx\].set\(y\)"):
    x[0] = 1
  with pytest.raises(TypeError, match="unhashable"):
    hash(x)
  y = pickle.loads(pickle.dumps(jnp.array(2.0)))
  assert repr(y) == "Array(2., dtype=float32, weak_type=True)"
  z = pickle.loads(pickle.dumps(x))
  np.testing.assert_array_equal(np.asarray(z), [0, 1, 2])


def test_array_python_protocol():
  x = jnp.arange(6.).reshape(2, 3)
  assert len(x) == 2
  assert [r.shape for r in x] == [(3,), (3,)]
  assert np.asarray(x).dtype == np.float32
  assert bool(jnp.array(1)) and int(jnp.array(3)) == 3 and float(jnp.array(2.5)) == 2.5
  assert [10, 20, 30][jnp.array(1)] == 20
  with pytest.raises(ValueError, match="ambiguous"):
    bool(jnp.ones(3))
  with pytest.raises(TypeError):
    len(jnp.array(1.0))
  assert f"{jnp.float32(1.5):.2f}" == "1.50"


def test_numpy_operands_defer_to_array():
  out = np.ones(3, np.float32) + jnp.ones(3)
  assert isinstance(out, axle.Array)
  assert isinstance(np.sin(jnp.ones(3)), np.ndarray)


def test_x64_flag_switches_canonicalisation():
  assert jnp.array(1.0, dtype=np.float32).dtype == np.float32
  with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
    assert jnp.array(1.0, dtype=np.float64).dtype == np.float32
  axle.config.update("jax_enable_x64", True)
  try:
    assert jnp.array(1.0, dtype=np.float64).dtype == np.float64
    assert jnp.arange(3).dtype == np.int64
    assert (jnp.ones(3) + 1).dtype == np.float64
  finally:
    axle.config.update("jax_enable_x64", False)
  assert jnp.arange(3).dtype == np.int32


def test_jax_is_never_imported():
  assert "jax" not in sys.modules


def test_leaked_tracer_error_says_where_it_was_created():
  leaked = []

  def f(x):
    y = jnp.sin(x) * 2
    leaked.extend([y, x])
    return x

  axle.jit(f)(1.0)
  with pytest.raises(axle.errors.UnexpectedTracerError, match=r"created on line .*test_core.py:\d+:\d+ \(.*f\)"):
    leaked[0] + 1
  with pytest.raises(axle.errors.UnexpectedTracerError, match="the traced argument x"):
    leaked[1] + 1


def test_bool_conversion_error_lists_the_operations_and_lines():
  def f(x):
    return bool(jnp.ones(3).sum() > 1)

  with pytest.raises(axle.errors.TracerBoolConversionError, match=r"(?s)reduce_sum.*from line .*test_core.py:\d+:\d+ \(.*f\)"):
    axle.jit(f)(1.0)


def test_jit_keyword_arguments_after_a_defaulted_parameter():
  def f(x, a=1.0, b=2.0):
    return x * a + b

  jitted = axle.jit(f)
  assert float(jitted(jnp.float32(1), b=5.0)) == 6.0
  assert float(jitted(jnp.float32(1), a=3.0)) == 5.0
  assert float(jitted(x=jnp.float32(1), b=5.0, a=2.0)) == 7.0
  assert float(axle.jit(f, static_argnames="b")(jnp.float32(1), b=4.0)) == 5.0


def test_array_of_traced_scalars_stages_as_jax_does():
  # JAX 0.10.2's printed jaxpr (recorded): each element converted to the common strong dtype,
  # then given its leading axis, then concatenated.
  expected = """{ lambda ; a:i32[] b:f32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    d:f32[1] = broadcast_in_dim c
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    f:f32[1] = broadcast_in_dim e
    g:f32[2] = concatenate[dimension=0] d f
  in (g,) }"""
  assert str(axle.make_jaxpr(lambda x, y: jnp.array([x, y]))(1, 2.0)) == expected


def test_numpy_views_of_arrays_are_read_only():
  # As JAX's CPU arrays: np.asarray and device_get hand out views that cannot be written (a
  # write would change an immutable Array and what eager kernels remember about its value).
  x = jnp.asarray(np.arange(4.0, dtype=np.float32))
  for view in (np.asarray(x), axle.device_get(x), np.asarray(x * 2), np.asarray(jnp.zeros(3))):
    with pytest.raises(ValueError, match="read-only"):
      view[0] = 5.0
  np.testing.assert_array_equal(x, np.arange(4.0))
  copied = np.array(x)  # a copy is the caller's own
  copied[0] = 5.0
  assert float(x[0]) == 0.0
