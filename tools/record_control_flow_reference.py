"""Records what JAX prints and raises for control flow (cond, switch, while_loop, fori_loop,
scan, map, associative_scan) into tests/data/control_flow_reference.json.

Run with the real-JAX interpreter: $JAX_PYTHON tools/record_control_flow_reference.py
Each case is a snippet executed with ``jax``, ``jnp``, ``lax`` and ``np`` bound; it sets
``result``. The recorded outcome is ``str(result)`` for a jaxpr, ``repr(result)`` otherwise, or
the exception's type name and message. tests/test_control_flow.py replays the snippets on axle.
"""
import json
import os

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

CASES = {
    # -- printed jaxprs ---------------------------------------------------------------
    "jaxpr_cond": "result = jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda x: x, lambda x: -x, x))(1.0)",
    "jaxpr_cond_pytree": "result = jax.make_jaxpr(lambda x, y: lax.cond(x > 0, lambda x, y: (x, y*2), lambda x, y: (-x, y), x, y))(1.0, jnp.ones(3))",
    "jaxpr_cond_literal_pred": "result = jax.make_jaxpr(lambda x: lax.cond(True, lambda x: x, lambda x: -x, x))(1.0)",
    "jaxpr_cond_int_pred": "result = jax.make_jaxpr(lambda i: lax.cond(i, lambda: 1., lambda: 2.))(jnp.int32(1))",
    "jaxpr_cond_float_pred": "result = jax.make_jaxpr(lambda i: lax.cond(i, lambda: 1., lambda: 2.))(jnp.float32(1))",
    "jaxpr_cond_consts": "w = jnp.arange(3.); v = jnp.ones(3)\nresult = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x * w, lambda x: x + v, x))(True, jnp.ones(3))",
    "jaxpr_cond_shared_const": "w = jnp.arange(3.)\nresult = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x * w, lambda x: x + w, x))(True, jnp.ones(3))",
    "jaxpr_cond_forwarded": "result = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: (x, x*2), lambda x: (x, x), x))(True, 1.0)",
    "jaxpr_cond_all_forwarded": "result = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x, lambda x: x, x))(True, 1.0)",
    "jaxpr_cond_nested": "result = jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda x: lax.cond(x > 1, lambda x: x, lambda x: x + 1, x), lambda x: -x, x))(1.0)",
    "jaxpr_cond_in_jit": "f = jax.jit(lambda x: lax.cond(x > 0, lambda: x, lambda: -x))\nresult = jax.make_jaxpr(f)(1.0)",
    "jaxpr_switch": "result = jax.make_jaxpr(lambda i, x: lax.switch(i, [lambda x: x, lambda x: -x, lambda x: x*2], x))(1, 1.0)",
    "jaxpr_switch_strong_index": "result = jax.make_jaxpr(lambda i: lax.switch(i, [lambda: 1., lambda: 2.]))(jnp.int32(1))",
    "jaxpr_switch_int8_index": "result = jax.make_jaxpr(lambda i: lax.switch(i, [lambda: 1., lambda: 2.]))(jnp.int8(1))",
    "jaxpr_switch_one_branch": "result = jax.make_jaxpr(lambda i: lax.switch(i, [lambda: 1.]))(jnp.int32(1))",
    "jaxpr_switch_concrete": "result = jax.make_jaxpr(lambda x: lax.switch(2, [lambda a: a, lambda a: a + 1], x))(1.0)",
    "jaxpr_grad_cond_residuals": "result = jax.make_jaxpr(jax.grad(lambda x: lax.cond(x.sum() > 0, lambda a: a * 2.0, jnp.sin, x).sum()))(jnp.ones((3, 4)))",
    "jaxpr_grad_cond_closure": "result = jax.make_jaxpr(jax.grad(lambda x, y: lax.cond(y > 0, lambda: x * y, lambda: x + 1.0).sum(), argnums=(0, 1)))(jnp.ones((3, 4)), jnp.float32(2.0))",
    "jaxpr_grad_switch_residuals": "result = jax.make_jaxpr(jax.grad(lambda x, i: lax.switch(i, [lambda a: a, lambda a: a * 2.0, jnp.tanh, jnp.cos], x).sum()))(jnp.ones(3), 1)",
    "jaxpr_grad_scan_forwarded_xs": "result = jax.make_jaxpr(jax.grad(lambda x: sum(v.sum() for v in lax.scan(lambda c, a: (c * a, c), jnp.ones(4), x, reverse=True))))(jnp.ones((3, 4)))",
    "jaxpr_grad_scan_weak_carry": "def step(c, a):\n  return {'s': c['s'] + a[0], 'p': c['p'] * a[1]}, a[0] - a[1]\nresult = jax.make_jaxpr(jax.grad(lambda x, y: sum(v.sum() for v in jax.tree.leaves(lax.scan(step, {'s': 0.0, 'p': 1.0}, (x, y)))), argnums=(0, 1)))(jnp.ones(5), jnp.ones(5))",
    "jaxpr_grad_scan_const_cotangent": "result = jax.make_jaxpr(jax.grad(lambda x, w: sum(v.sum() for v in lax.scan(lambda c, a: (jnp.tanh(c @ w + a), c.sum()), jnp.zeros(4), x, unroll=2)), argnums=(0, 1)))(jnp.ones((3, 4)), jnp.ones((4, 4)))",
    "jaxpr_vmap_while_batched_pred": "result = jax.make_jaxpr(jax.vmap(lambda x, n: lax.fori_loop(0, n, lambda i, a: a + jnp.sin(a), x)))(jnp.ones((3, 4)), jnp.arange(3))",
    "jaxpr_vmap_while_batched_const": "result = jax.make_jaxpr(jax.vmap(lambda w, x: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * w, c[1] + 1), (x, 0)), in_axes=(1, None)))(jnp.ones((4, 3)), jnp.ones(4))",
    "value_vmap_while_batched_pred": "result = jax.jit(jax.vmap(lambda x, n: lax.fori_loop(0, n, lambda i, a: a * 2.0 + 1.0, x)))(jnp.arange(6.).reshape(3, 2), jnp.array([1, 3, 0]))",
    "jaxpr_grad_cond_in_scan_weak_carry": "def step(c, a):\n  c = lax.cond(a > 0, lambda: c + a, lambda: c * 0.5)\n  return c, c\nresult = jax.make_jaxpr(jax.grad(lambda x: sum(v.sum() for v in lax.scan(step, 1.0, x))))(jnp.ones(6))",
    "jaxpr_while": "result = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c + 1., x))(1.0)",
    "jaxpr_while_seeds": "def less_stupid_fn(x):\n  y = jnp.copy(x)\n  x = jax.lax.while_loop(cond_fun=lambda ix: ix[0] < 1000, body_fun=lambda ix: (ix[0]+1, ix[1]*ix[1]), init_val=(0, x))\n  return y\nresult = jax.make_jaxpr(less_stupid_fn)(jnp.array([1.1, -1.1]))",
    "jaxpr_while_consts_moved": "w = jnp.ones(3)\nresult = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c[0] < w.sum(), lambda c: (c[0] + w[0], c[1]), (x, 2)))(1.0)",
    "jaxpr_while_forwarded": "result = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0], c[1] + 1), (x, 0)))(1.0)",
    "jaxpr_while_weak_promotion": "result = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c + 1.5, x))(1)",
    "jaxpr_fori_dynamic": "result = jax.make_jaxpr(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x))(1, 5)",
    "jaxpr_fori_static": "result = jax.make_jaxpr(lambda x: lax.fori_loop(0, 5, lambda i, c: c + i, x))(1)",
    "jaxpr_fori_seeds": "def less_stupid_fn(x):\n  y = jnp.copy(x)\n  x = jax.lax.fori_loop(lower=0, upper=1000, body_fun=lambda i, x: x * x, init_val=x)\n  return y\nresult = jax.make_jaxpr(less_stupid_fn)(jnp.array([1.1, -1.1]))",
    "jaxpr_fori_lower2": "result = jax.make_jaxpr(lambda: lax.fori_loop(2, 7, lambda i, c: c + i, 1.0))()",
    "jaxpr_fori_unroll": "result = jax.make_jaxpr(lambda: lax.fori_loop(0, 5, lambda i, c: c + i, 1.0, unroll=True))()",
    "jaxpr_fori_forwarded": "result = jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c, x))(1.0)",
    "jaxpr_scan": "result = jax.make_jaxpr(lambda x, xs: lax.scan(lambda c, a: (c + a, c * a), x, xs))(1.0, jnp.ones(4))",
    "jaxpr_scan_reverse_unroll": "result = jax.make_jaxpr(lambda x, xs: lax.scan(lambda c, a: (c + a, c * a), x, xs, reverse=True, unroll=2))(1.0, jnp.ones(4))",
    "jaxpr_scan_no_xs": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c + 1., c), x, None, length=3))(1.0)",
    "jaxpr_scan_consts": "w = jnp.ones(3)\nresult = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c * w + a, None), x, jnp.ones((4,3))))(jnp.ones(3))",
    "jaxpr_scan_pytrees": "result = jax.make_jaxpr(lambda x, y: lax.scan(lambda c, a: ((c[0] + a['u'], c[1]), (a['v'], c[0])), (x, y), {'u': jnp.ones(4), 'v': jnp.ones((4, 2))}))(1.0, jnp.int32(3))",
    "jaxpr_scan_weak_init": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c + a, None), x, jnp.ones(4)))(1)",
    "jaxpr_scan_carry_forwarded": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c, None), x, None, length=3))(1)",
    "jaxpr_scan_swap_carry": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: ((c[1], c[0]), c), (x, x), jnp.ones(2)))(1.0)",
    "jaxpr_scan_ys_from_xs": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c, (a, a)), x, jnp.ones(2), reverse=True))(1.0)",
    "jaxpr_scan_ys_const": "w = jnp.arange(3.)\nresult = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c, w), x, jnp.ones(2)))(1.0)",
    "jaxpr_scan_nested_cond": "w = jnp.arange(3.)\nresult = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (lax.cond(c[0] > 0, lambda c: c, lambda c: c * 2., c), a * w), x, jnp.ones((2, 3))))(jnp.ones(3))",
    "jaxpr_scan_length0": "result = jax.make_jaxpr(lambda x: lax.scan(lambda c, a: (c + 1, c), x, jnp.zeros((0, 2)), length=0))(1.0)",
    "jaxpr_map": "result = jax.make_jaxpr(lambda xs: lax.map(lambda x: x * 2, xs))(jnp.ones(4))",
    "jaxpr_map_batch": "result = jax.make_jaxpr(lambda xs: lax.map(lambda x: x * 2, xs, batch_size=2))(jnp.ones(4))",
    "jaxpr_map_nested_fori": "result = jax.make_jaxpr(lambda x: lax.map(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x), x))(jnp.ones(3))",
    "jaxpr_associative_scan": "result = jax.make_jaxpr(lambda xs: lax.associative_scan(jnp.add, xs))(jnp.ones(4))",
    "jaxpr_associative_scan_odd": "result = jax.make_jaxpr(lambda xs: lax.associative_scan(jnp.multiply, xs, reverse=True))(jnp.ones(5))",
    # -- values --------------------------------------------------------------------------
    "value_cond_true": "result = lax.cond(True, lambda x: x+1, lambda x: x-1, jnp.array([0.]))",
    "value_cond_false": "result = lax.cond(False, lambda x: x+1, lambda x: x-1, jnp.array([0.]))",
    "value_cond_weak_branch0": "result = lax.cond(True, lambda: jnp.float32(2), lambda: 1.)",
    "value_cond_strong_branch0": "result = lax.cond(False, lambda: 1., lambda: jnp.float32(2))",
    "value_cond_float_pred": "result = lax.cond(1.5, lambda: 1., lambda: 2.)",
    "value_cond_operand_kw": "result = lax.cond(True, lambda x: x, lambda x: x, operand=1.)",
    "value_cond_old_form": "result = lax.cond(True, 1., lambda x: x, 2., lambda x: x+1)",
    "value_switch_clamped_high": "result = lax.switch(5, [lambda: 1., lambda: 2.])",
    "value_switch_clamped_low": "result = lax.switch(-5, [lambda: 1., lambda: 2.])",
    "value_switch_jit": "f = jax.jit(lambda x: lax.switch(x, [(lambda: True) if i % 2 == 0 else (lambda: False) for i in range(20)]))\nresult = (f(12), f(13), f(123512))",
    "value_while": "result = lax.while_loop(lambda x: x < 10, lambda x: x + 1, 0)",
    "value_while_float_body": "result = lax.while_loop(lambda c: c < 10, lambda c: c + 1.5, 1)",
    "value_while_promote_int16": "result = lax.while_loop(lambda c: c < 1, lambda c: jnp.int16(1), 0)",
    "value_while_weak_out": "result = lax.while_loop(lambda c: c < 1, lambda c: 2.0, jnp.float32(1))",
    "value_fori": "result = lax.fori_loop(0, 10, lambda i, x: x + i, 0)",
    "value_fori_empty": "result = lax.fori_loop(5, 2, lambda i, c: c + i, 1.0)",
    "value_fori_int8_upper": "result = lax.fori_loop(0, jnp.int8(5), lambda i, c: c + i, 1.0)",
    "value_scan": "result = lax.scan(lambda c, a: (c + a, c * a), 1.0, jnp.arange(4.))",
    "value_scan_reverse": "result = lax.scan(lambda c, a: (c + a, c * a), 1.0, jnp.arange(4.), reverse=True)",
    "value_scan_weak_carry_out": "result = lax.scan(lambda c, x: (2.0, x), jnp.float32(1), jnp.ones(2))",
    "value_scan_weak_ys": "result = lax.scan(lambda c, x: (c, 2.0), jnp.float32(1), jnp.ones(2))",
    "value_map": "result = lax.map(lambda x: x * 2, jnp.arange(5.))",
    "value_map_batch_remainder": "result = lax.map(lambda x: x * 2, jnp.arange(5.), batch_size=2)",
    "value_associative_scan": "result = lax.associative_scan(jnp.add, jnp.arange(7.))",
    "value_associative_scan_reverse": "result = lax.associative_scan(jnp.add, jnp.arange(7.), reverse=True)",
    "value_associative_scan_axis": "result = lax.associative_scan(jnp.maximum, jnp.array([[1., 5., 2.], [4., 0., 6.]]), axis=1)",
    "value_grad_cond": "result = jax.grad(lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x ** 3, x))(1.0)",
    "value_grad_scan": "result = jax.grad(lambda x: lax.scan(lambda c, a: (jnp.sin(c) * a, c * a), x, jnp.arange(1., 4.))[1].sum())(0.5)",
    "value_grad_fori": "result = jax.grad(lambda x: lax.fori_loop(0, 4, lambda i, c: c * x + i, 1.0))(0.7)",
    "value_jvp_while": "result = jax.jvp(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x), (1.0,), (1.0,))",
    "value_vmap_while": "result = jax.vmap(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x))(jnp.array([1.0, 3.0, 20.]))",
    "value_vmap_cond": "result = jax.vmap(lambda x: lax.cond(x > 0, lambda x: x * 2, lambda x: -x, x))(jnp.array([1.0, -3.0]))",
    # -- errors ---------------------------------------------------------------------------
    "error_scan_carry_dtype": "result = lax.scan(lambda c, a: ((c + a).astype(jnp.int32), c * a), 1.0, jnp.ones(4))",
    "error_scan_carry_dict": "result = lax.scan(lambda c, a: ({'a': c['a'] + a, 'b': c['b'].astype(jnp.int32)}, a), {'a': 1.0, 'b': jnp.ones(2)}, jnp.ones(4))",
    "error_scan_carry_two": "result = lax.scan(lambda c, a: ({'a': c['a'] + a, 'b': c['b'].astype(jnp.int32), 'c': c['c'][0]}, a), {'a': 1.0, 'b': jnp.ones(2), 'c': jnp.ones(3)}, jnp.ones(4))",
    "error_scan_carry_tree": "result = lax.scan(lambda c, a: ((c, c), a), 1.0, jnp.ones(4))",
    "error_scan_not_pair": "result = lax.scan(lambda c, a: c, 1.0, jnp.ones(4))",
    "error_scan_lengths": "result = lax.scan(lambda c, a: (c, a), 1.0, (jnp.ones(4), jnp.ones(3)))",
    "error_scan_no_length": "result = lax.scan(lambda c, a: (c, a), 1.0, None)",
    "error_scan_length_mismatch": "result = lax.scan(lambda c, a: (c, a), 1.0, jnp.ones(4), length=3)",
    "error_scan_scalar_xs": "result = lax.scan(lambda c, a: (c, a), 1.0, 3.0)",
    "error_scan_int8_carry": "result = lax.scan(lambda c, x: (c + x, x), jnp.int8(0), jnp.ones(3))",
    "error_fori_carry": "result = lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int8), 0.)",
    "error_cond_pred_shape": "result = lax.cond(jnp.ones(3) > 0, lambda: 1., lambda: 2.)",
    "error_cond_pred_str": "result = lax.cond('a', lambda: 1., lambda: 2.)",
    "error_cond_pred_traced_shape": "result = jax.jit(lambda x: lax.cond(x, lambda: 1., lambda: 2.))(jnp.ones(3) > 0)",
    "error_cond_dtypes": "result = lax.cond(True, lambda: 1., lambda: 2)",
    "error_cond_tree": "result = lax.cond(True, lambda: (1., 2.), lambda: 2.)",
    "error_cond_shapes": "result = lax.cond(True, lambda: jnp.ones(3), lambda: jnp.ones(2))",
    "error_cond_both": "result = lax.cond(True, lambda x: jnp.ones((2,2)), lambda x: jnp.ones(2, jnp.int32), 1.)",
    "error_cond_not_callable": "result = lax.cond(True, 1, lambda: 2.)",
    "error_switch_float_index": "result = lax.switch(1.0, [lambda: 1., lambda: 2.])",
    "error_switch_empty": "result = lax.switch(1, [])",
    "error_switch_shapes": "result = lax.switch(1, [lambda: 1., lambda: jnp.ones(2)])",
    "error_switch_index_shape": "result = lax.switch(jnp.array([1,2]), [lambda: 1., lambda: 2.])",
    "error_while_cond_float": "result = lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)",
    "error_while_cond_shape": "result = lax.while_loop(lambda c: jnp.array([True]), lambda c: c + 1, 1.0)",
    "error_while_cond_tuple": "result = lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c + 1, 1.0)",
    "error_while_tree": "result = lax.while_loop(lambda c: c < 10, lambda c: (c, c), 1.0)",
    "error_while_shape": "result = lax.while_loop(lambda c: c < 10, lambda c: jnp.ones(2), 1.0)",
    "error_while_dtype": "result = lax.while_loop(lambda c: c < 10, lambda c: (c + 1).astype(jnp.float32), jnp.int32(1))",
    "error_fori_dtypes": "result = lax.fori_loop(jnp.int16(0), jnp.int8(5), lambda i, c: c + i, 1.0)",
    "error_fori_float": "result = lax.fori_loop(0, 5.0, lambda i, c: c + i, 1.0)",
    "error_fori_unroll_dynamic": "result = jax.make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 1.0, unroll=2))(3)",
    "error_grad_while": "result = jax.grad(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x))(1.0)",
    "error_python_if_in_cond": "def f(x):\n  if x > 0: return x\n  return -x\nresult = jax.jit(lambda x: lax.cond(True, f, f, x))(1.0)",
    "error_python_if_in_while": "def f(x):\n  if x > 0: return x\n  return -x\nresult = jax.jit(lambda x: lax.while_loop(lambda c: f(c) < 0, f, x))(1.0)",
    "error_python_if_in_scan": "def f(x):\n  if x > 0: return x\n  return -x\nresult = jax.jit(lambda x: lax.scan(lambda c, a: (f(c), a), x, jnp.ones(2)))(1.0)",
    "error_python_if_in_fori": "def f(x):\n  if x > 0: return x\n  return -x\nresult = jax.jit(lambda x: lax.fori_loop(0, 2, lambda i, c: f(c), x))(1.0)",
    "error_python_if_jit": "@jax.jit\ndef f(x):\n  if x < 3:\n    return 3. * x ** 2\n  return -4 * x\nresult = f(2)",
}


def run_case(source: str) -> dict:
  namespace = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
  try:
    exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:  # noqa: BLE001  (recording whatever JAX raises)
    return {"error_type": type(e).__name__, "error_message": str(e)}
  result = namespace["result"]
  text = str(result) if type(result).__name__ == "ClosedJaxpr" else repr(result)
  return {"text": text}


def main():
  reference = {"jax_version": jax.__version__, "cases": {}}
  for name, source in CASES.items():
    reference["cases"][name] = {"source": source, **run_case(source)}
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "control_flow_reference.json")
  with open(path, "w") as f:
    json.dump(reference, f, indent=1, sort_keys=True)
  print(f"wrote {len(CASES)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
  main()
