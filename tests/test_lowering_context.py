"""Lowering rules registered with ``jax.interpreters.mlir.register_lowering``: what they receive
(JAX's ``LoweringRuleContext``, printed as JAX prints it), the per-module lowering cache, and
the errors raised while lowering. Expected texts are JAX 0.10.2's (the "How JAX primitives
work" tutorial's outputs, recorded with it), with memory addresses masked."""
import re
import sys

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import core as jcore
from axle.extend import core
from axle.interpreters import mlir

_ADDRESS = re.compile(r"0x[0-9a-f]+")

# str(ctx) for multiply_add(x, x, y) of weak f32 scalars under jit, from JAX 0.10.2.
JAX_CONTEXT_TEXT = (
    "LoweringRuleContext(module_context=ModuleContext(context=<{mod}.JaxIrContext object at 0x>, "
    "module=<jaxlib.mlir._mlir_libs._mlir.ir.Module object at 0x>, "
    "ip=<jaxlib.mlir._mlir_libs._mlir.ir.InsertionPoint object at 0x>, "
    "symbol_table=<jaxlib.mlir._mlir_libs._mlir.ir.SymbolTable object at 0x>, platforms=('cpu',), "
    "backend=<jaxlib._jax.Client object at 0x>, axis_context=ShardingContext(num_devices=1, "
    "device_assignment=None, abstract_mesh=None), keepalives=[], channel_iterator=count(2), "
    "host_callbacks=[], shape_poly_state=<{mod}.ShapePolyLoweringState object at 0x>, "
    "all_default_mem_kind=True, lowering_cache={{}}, cached_primitive_lowerings={{}}, "
    "sharding_attr_cache={{}}, aval_to_ir_types_cache={{ShapedArray(float32[], weak_type=True): "
    "RankedTensorType(tensor<f32>), ShapedArray(float32[]): RankedTensorType(tensor<f32>), "
    "ShapedArray(int32[]): RankedTensorType(tensor<i32>)}}, pallas_lowering_cache={{}}, "
    "traceback_caches=TracebackCaches(traceback_to_location_cache=<jaxlib.mlir._mlir_libs."
    "_jax_mlir_ext.TracebackToLocationCache object at 0x>, canonical_name_cache={{}}), "
    "lowering_parameters=LoweringParameters(override_lowering_rules=None, "
    "global_constant_computation=False, for_export=False, export_ignore_forward_compatibility="
    "False, hoist_constants_as_args=False)), name_stack=NameStack(stack=()), traceback=None, "
    "primitive={name}, avals_in=(ShapedArray(float32[], weak_type=True), ShapedArray(float32[], "
    "weak_type=True), ShapedArray(float32[], weak_type=True)), avals_out=[ShapedArray(float32[])], "
    "tokens_in=<{mod}.TokenSet object at 0x>, tokens_out=None, const_lowering={{}}, "
    "axis_size_env=None, dim_var_values=[], jaxpr_eqn_ctx=JaxprEqnContext(compute_type=None, "
    "threefry_partitionable=True, cur_abstract_mesh=AbstractMesh((), axis_types=()), "
    "remove_size_one_mesh_axis=False, xla_metadata=None), platforms=None)")


def _multiply_add(name):
  """A multiply-add primitive whose lowering rule records what it receives."""
  from axle._src.lib.mlir.dialects import hlo
  prim = core.Primitive(name)
  prim.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
  prim.def_abstract_eval(lambda xs, ys, zs: jcore.ShapedArray(xs.shape, xs.dtype))
  calls = []

  def rule(ctx, x, y, z):
    calls.append((str(ctx), [str(v) for v in (x, y, z)], dict(ctx.module_context.lowering_cache)))
    return [hlo.AddOp(hlo.MulOp(x, y), z).result]

  assert mlir.register_lowering(prim, rule, platform="cpu") is None
  return prim, calls


def test_rule_context_prints_as_jax():
  prim, calls = _multiply_add("multiply_add_ctx")
  assert float(jax.jit(lambda a, b: prim.bind(a, a, b))(2.0, 10.0)) == 14.0
  (text, operands, _), = calls
  expected = JAX_CONTEXT_TEXT.format(mod="axle._src.interpreters.mlir", name=prim.name)
  assert _ADDRESS.sub("0x", text) == expected
  # The rule lowers into its own function: the operands are its block arguments.
  assert operands == [f"BlockArgument(<block argument> of type 'tensor<f32>' at index: {i})"
                      for i in range(3)]


def test_rule_is_lowered_once_per_signature_and_cached():
  prim, calls = _multiply_add("multiply_add_cache")
  f = lambda x, y: (prim.bind(x, y, 1.0), prim.bind(y, x, 2.0), prim.bind(x, y, jnp.float32(3)))
  out = jax.jit(f)(2.0, 10.0)
  assert [float(v) for v in out] == [21.0, 22.0, 23.0]
  # Three equations, two signatures (the third operand's weak type differs): two lowerings,
  # the second seeing the first in the module's lowering cache.
  assert len(calls) == 2
  assert calls[0][2] == {}
  (key, value), = calls[1][2].items()
  assert type(key).__name__ == "LoweringCacheKey" and key.primitive is prim
  assert [a.weak_type for a in key.avals_in] == [True, True, True]
  assert key.params == () and key.effects == frozenset() and key.platforms == ("cpu",)
  assert value.inline and str(value.output_treedef) == "PyTreeDef([*])"
  assert [str(t) for t in value.flat_output_types] == ["tensor<f32>"]
  # A new module has a new cache.
  jax.jit(lambda x, y: f(x, y))(2.0, 10.0)
  assert len(calls) == 4 and calls[2][2] == {}


def test_rule_builds_constants_and_types_and_calls_lower_fun():
  from axle._src.lib.mlir.dialects import hlo
  prim = core.Primitive("scale_add_rule")
  prim.def_impl(lambda x: x * 3 + 1)
  prim.def_abstract_eval(lambda x: x)
  times_three = mlir.lower_fun(lambda x: x * 3, multiple_results=False)

  def rule(ctx, x):
    assert str(mlir.aval_to_ir_type(ctx.avals_in[0])) == "tensor<3xf32>"
    one = hlo.BroadcastInDimOp(mlir.aval_to_ir_type(ctx.avals_out[0]),
                               mlir.ir_constant(np.float32(1)), [])
    (tripled,) = times_three(ctx, x)
    return [hlo.AddOp(tripled, one).result]

  mlir.register_lowering(prim, rule)
  np.testing.assert_array_equal(jax.jit(prim.bind)(jnp.arange(3.0)), [1.0, 4.0, 7.0])


def test_lower_fun_registered_directly_is_inlined():
  prim = core.Primitive("double_inline")
  prim.def_impl(lambda x: x * 2)
  prim.def_abstract_eval(lambda x: x)
  mlir.register_lowering(prim, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
  np.testing.assert_array_equal(jax.jit(prim.bind)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
  assert "func.call" not in jax.jit(prim.bind).lower(jnp.arange(3.0)).as_text()


def test_rule_returning_wrong_count_is_a_clear_error():
  prim = core.Primitive("wrong_count_rule")
  prim.def_impl(lambda x: x)
  prim.def_abstract_eval(lambda x: x)
  mlir.register_lowering(prim, lambda ctx, x: [x, x])
  with pytest.raises(ValueError, match="returned 2 values for 1 output"):
    jax.jit(prim.bind)(1.0)


def test_full_like_of_a_tracer_is_a_tracer_and_a_literal():
  # JAX 0.10.2: full_like under jit binds broadcast_in_dim, which a scalar constant forwards.
  seen = []
  jax.jit(lambda x: (seen.append(str(jax.lax.full_like(x, 0))), x)[1])(1.0)
  assert seen == ["JitTracer(~float32[])"]
  assert str(jax.make_jaxpr(lambda x: jax.lax.full_like(x, 0))(2.0)) == (
      "{ lambda ; a:f32[]. let  in (0.0:f32[],) }")
  assert str(jax.make_jaxpr(lambda x: jnp.ones_like(x))(2)) == (
      "{ lambda ; a:i32[]. let  in (1:i32[],) }")
  assert str(jax.make_jaxpr(lambda x: jax.lax.full_like(x, 0) + x)(2.0)) == (
      "{ lambda ; a:f32[]. let b:f32[] = add 0.0:f32[] a in (b,) }")
  assert repr(jax.jit(lambda x: jax.lax.full_like(x, 0))(2.0)) == (
      "Array(0., dtype=float32, weak_type=True)")


def test_grad_seed_under_jit_is_traced():
  seeds = []

  @jax.custom_vjp
  def f(x):
    return x * 2.0

  f.defvjp(lambda x: (x * 2.0, None), lambda _, g: (seeds.append(str(g)) or g * 2.0,))
  assert float(jax.jit(jax.grad(f))(jnp.float32(3))) == 2.0
  assert seeds == ["JitTracer(float32[])"]


def test_bindings_do_not_import_jax():
  assert "jax" not in sys.modules


def _bind_line(fun):
  import inspect
  lines, start = inspect.getsourcelines(fun)
  return start + next(i for i, text in enumerate(lines) if ".bind(" in text)


def test_missing_lowering_rule_error_is_caused_by_the_users_stack():
  import traceback
  prim = core.Primitive("no_lowering_rule")
  prim.def_impl(lambda x: x)
  prim.def_abstract_eval(lambda x: x)

  def user_function(x):
    return prim.bind(x)

  with pytest.raises(NotImplementedError) as info:
    jax.jit(user_function)(1.0)
  message = "MLIR translation rule for primitive 'no_lowering_rule' not found for platform cpu"
  assert str(info.value) == message
  source = info.value.__cause__
  assert type(source).__name__ == "JaxStackTraceBeforeTransformation"
  assert str(source) == (
      f"NotImplementedError: {message}\n\nThe preceding stack trace is the source of the JAX "
      "operation that, once transformed by JAX, triggered the following exception.\n\n"
      "--------------------")
  text = "".join(traceback.format_exception(info.value))
  # The source traceback names the user's line (without column markers), then the error.
  assert (f'  File "{__file__}", line {_bind_line(user_function)}, in user_function\n'
          "    return prim.bind(x)\n"
          f"{type(source).__module__}.JaxStackTraceBeforeTransformation: NotImplementedError: "
          f"{message}\n") in text
  assert "The above exception was the direct cause of the following exception:" in text


def test_error_inside_a_rule_and_missing_transpose_are_chained_the_same_way():
  prim = core.Primitive("failing_rule")
  prim.def_impl(lambda x: x)
  prim.def_abstract_eval(lambda x: x)

  def rule(ctx, x):
    raise ValueError("this rule cannot lower")

  mlir.register_lowering(prim, rule)

  def user_function(x):
    return prim.bind(x)

  with pytest.raises(ValueError, match="this rule cannot lower") as info:
    jax.jit(user_function)(1.0)
  assert info.value.__cause__.__traceback__.tb_lineno == _bind_line(user_function)

  from axle.interpreters import ad
  linear = core.Primitive("linear_without_transpose")
  linear.def_impl(lambda x: x)
  linear.def_abstract_eval(lambda x: x)
  ad.primitive_jvps[linear] = lambda primals, tangents: (linear.bind(*primals),
                                                          linear.bind(*tangents))

  def uses_linear(x):
    return linear.bind(x)

  with pytest.raises(NotImplementedError, match="Transpose rule .* for "
                     "'linear_without_transpose' not implemented") as info:
    jax.grad(uses_linear)(1.0)
  source = info.value.__cause__
  assert type(source).__name__ == "JaxStackTraceBeforeTransformation"
  # The linear equation was staged by the JVP rule (its innermost user frame).
  assert source.__traceback__.tb_frame.f_code.co_name == "<lambda>"
  assert type(source.__cause__) is KeyError  # JAX's: the failed lookup of the rule


def test_conversion_of_a_literal_tracer_is_folded():
  # JAX 0.10.2: grad under make_jaxpr transposes the conversions on the literal seed.
  f = lambda x: jax.lax.convert_element_type(x, jnp.float16).astype(jnp.float32)
  text = str(jax.make_jaxpr(jax.grad(f))(1.0))
  assert text.endswith("in (1.0:f32[],) }")
  assert str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x * jnp.ones_like(x))))(1.0)).endswith(
      "    d:f32[] = mul 1.0:f32[] 1.0:f32[]\n  in (d,) }")
