"""Records what JAX 0.10.2 prints and computes for transformations of the reduction, windowed,
sorting, dot and conv primitives (grad/vmap jaxprs and gradient values at ties and zeros).

Run under the JAX venv:  $JAX_PYTHON tools/record_reduction_transforms_reference.py
Writes tests/data/reduction_transforms_reference.json. Each case is Python source evaluated with
``jax``, ``lax``, ``jnp`` and ``np`` bound; the tests evaluate the same source with axle bound.
"""
import json
import os

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

X34 = "np.arange(12, dtype=np.float32).reshape(3, 4) / 10"
X2345 = "np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 100"

# (name, function source, arguments source): make_jaxpr(fun)(*args) is recorded.
JAXPR_CASES = [
    ("grad_dot_general_both", "jax.grad(lambda x, w: lax.reduce_sum(lax.dot_general(x, w, "
     "(((1,), (0,)), ((), ()))), (0, 1)), argnums=(0, 1))",
     f"[{X34}, np.ones((4, 5), np.float32)]"),
    ("grad_dot_general_batched", "jax.grad(lambda x: lax.reduce_sum(lax.dot_general(x, x, "
     "(((1,), (1,)), ((0,), (0,)))), (0,)))", f"[{X34}]"),
    ("grad_dot_general_contract_two", "jax.grad(lambda x, y: lax.reduce_sum(lax.dot_general(x, y, "
     "(((2, 0), (0, 1)), ((), ()))), (0, 1)), argnums=1)",
     "[np.ones((2, 3, 4), np.float32), np.ones((4, 2, 5), np.float32)]"),
    ("grad_reduce_sum_axis0", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_sum(x, (0,)), (0,)))",
     f"[{X34}]"),
    ("grad_reduce_sum_all", "jax.grad(lambda x: lax.reduce_sum(x, (0, 1)))", f"[{X34}]"),
    ("grad_reduce_max", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_max(x, (1,)), (0,)))",
     f"[{X34}]"),
    ("grad_reduce_min", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_min(x, (0,)), (0,)))",
     f"[{X34}]"),
    ("grad_cumsum", "jax.grad(lambda x: lax.reduce_sum(lax.cumsum(x, 1), (0, 1)))", f"[{X34}]"),
    ("grad_cumsum_reverse", "jax.grad(lambda x: lax.reduce_sum(lax.cumsum(x, 0, reverse=True), "
     "(0, 1)))", f"[{X34}]"),
    ("vmap_reduce_sum_axis1", "jax.vmap(lambda x: lax.reduce_sum(x, (0,)), in_axes=1)", f"[{X34}]"),
    ("vmap_reduce_max_axis1", "jax.vmap(lambda x: lax.reduce_max(x, (0,)), in_axes=1)", f"[{X34}]"),
    ("vmap_argmax_axis1", "jax.vmap(lambda x: lax.argmax(x, 0, np.int32), in_axes=1)", f"[{X34}]"),
    ("vmap_cumsum_axis1", "jax.vmap(lambda x: lax.cumsum(x, 0), in_axes=1)", f"[{X34}]"),
    ("vmap_dot_lhs_axis1", "jax.vmap(lambda x, w: lax.dot_general(x, w, (((0,), (0,)), ((), ()))), "
     "in_axes=(1, None))", f"[{X34}, np.ones((3, 5), np.float32)]"),
    ("vmap_dot_both", "jax.vmap(lambda x, w: lax.dot_general(x, w, (((0,), (0,)), ((), ()))), "
     "in_axes=(1, 0))", f"[{X34}, np.ones((4, 3, 5), np.float32)]"),
    ("vmap_dot_rhs_axis2", "jax.vmap(lambda x, w: lax.dot_general(x, w, (((1,), (0,)), ((), ()))), "
     "in_axes=(None, 2))", f"[{X34}, np.ones((4, 5, 2), np.float32)]"),
    ("grad_conv_lhs", "jax.grad(lambda x, w: lax.reduce_sum(lax.conv_general_dilated(x, w, (1, 1), "
     "'VALID'), (0, 1, 2, 3)))", f"[{X2345}, np.ones((2, 3, 2, 2), np.float32)]"),
    ("grad_conv_rhs_strided", "jax.grad(lambda x, w: lax.reduce_sum(lax.conv_general_dilated(x, w, "
     "(2, 1), ((1, 0), (0, 1))), (0, 1, 2, 3)), argnums=1)",
     f"[{X2345}, np.ones((2, 3, 2, 2), np.float32)]"),
    ("grad_conv_nhwc_groups", "jax.grad(lambda x, w: lax.reduce_sum(lax.conv_general_dilated(x, w, "
     "(1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'), feature_group_count=5), "
     "(0, 1, 2, 3)), argnums=(0, 1))", f"[{X2345}, np.ones((2, 2, 1, 10), np.float32)]"),
    ("vmap_conv_both", "jax.vmap(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), 'VALID'))",
     "[np.ones((3, 2, 2, 4, 4), np.float32), np.ones((3, 5, 2, 2, 2), np.float32)]"),
    ("vmap_conv_lhs", "jax.vmap(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), 'VALID'), "
     "in_axes=(0, None))",
     "[np.ones((3, 2, 2, 4, 4), np.float32), np.ones((5, 2, 2, 2), np.float32)]"),
    ("vmap_conv_rhs", "jax.vmap(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), 'VALID'), "
     "in_axes=(None, 0))",
     "[np.ones((2, 2, 4, 4), np.float32), np.ones((3, 5, 2, 2, 2), np.float32)]"),
    ("grad_avg_pool", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_window(x, 0., lax.add, "
     "(1, 1, 2, 2), (1, 1, 2, 2), 'VALID'), (0, 1, 2, 3)))", f"[{X2345}]"),
    ("vmap_reduce_window_sum", "jax.vmap(lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), "
     "(1, 1), 'VALID'), in_axes=1)", "[np.ones((3, 2, 3), np.float32)]"),
    ("vmap_sort", "jax.vmap(lambda x: lax.sort(x, 0), in_axes=1)", f"[{X34}]"),
    ("vmap_top_k", "jax.vmap(lambda x: lax.top_k(x, 2), in_axes=0)", f"[{X34}]"),
]

# (name, function source, arguments source): the function's value (a gradient) is recorded.
VALUE_CASES = [
    ("grad_reduce_max_ties", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_max(x, (1,)), (0,)))",
     "[np.array([[1., 2., 2.], [3., 1., 0.], [5., 5., 5.]], np.float32)]"),
    ("grad_reduce_min_ties", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_min(x, (0,)), (0,)))",
     "[np.array([[1., 2., 0.], [1., 1., 0.]], np.float32)]"),
    ("grad_reduce_prod_one_zero", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_prod(x, (1,)), (0,)))",
     "[np.array([[1., 2., 0., 3.], [2., 3., 4., 0.5]], np.float32)]"),
    ("grad_reduce_prod_two_zeros", "jax.grad(lambda x: lax.reduce_prod(x, (0,)))",
     "[np.array([0., 2., 0., 3., 5.], np.float32)]"),
    ("grad_reduce_prod_axes02", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_prod(x, (0, 2)), (0,)))",
     "[np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4) / 10]"),
    ("hessian_reduce_prod", "jax.hessian(lambda x: lax.reduce_prod(x, (0,)))",
     "[np.array([1., 2., 0., 3.], np.float32)]"),
    ("grad_cumprod_zero", "jax.grad(lambda x: lax.reduce_sum(lax.cumprod(x, 0), (0,)))",
     "[np.array([2., 0., 3., 4., 0.5], np.float32)]"),
    ("grad_cumprod_reverse", "jax.grad(lambda x: lax.reduce_sum(lax.cumprod(x, 1, reverse=True), (0, 1)))",
     "[np.array([[2., 1., 3.], [0.5, 4., -1.]], np.float32)]"),
    ("grad_cummax_ties", "jax.grad(lambda x: lax.reduce_sum(lax.cummax(x, 0), (0,)))",
     "[np.array([1., 3., 3., 2., 5., 5.], np.float32)]"),
    ("grad_cummin_reverse", "jax.grad(lambda x: lax.reduce_sum(lax.cummin(x, 0, reverse=True), (0,)))",
     "[np.array([4., 1., 3., 1., 5.], np.float32)]"),
    ("grad_cumlogsumexp", "jax.grad(lambda x: lax.reduce_sum(lax.cumlogsumexp(x, 0), (0,)))",
     "[np.array([0.5, -1., 2., 30., -40.], np.float32)]"),
    ("grad_max_pool_ties", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_window(x, -np.inf, lax.max, "
     "(2, 2), (2, 2), 'VALID'), (0, 1)))",
     "[np.array([[1., 1., 2., 0.], [0., 1., 2., 2.], [3., 3., 3., 3.], [3., 3., 3., 3.]], np.float32)]"),
    ("grad_max_pool_overlap", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_window(x, -np.inf, lax.max, "
     "(2, 2), (1, 1), ((0, 1), (1, 0))), (0, 1)))",
     "[np.array([[1., 4., 2.], [0., 1., 5.], [3., 2., 6.]], np.float32)]"),
    ("grad_min_pool", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_window(x, np.inf, lax.min, "
     "(3,), (2,), 'SAME'), (0,)))", "[np.array([3., 1., 4., 1., 5., 9., 2.], np.float32)]"),
    ("grad_window_sum_dilated", "jax.grad(lambda x: lax.reduce_sum(lax.reduce_window(x, 0., lax.add, "
     "(2,), (2,), ((1, 2),), (2,), (2,)) * np.arange(1., 5., dtype=np.float32), (0,)))",
     "[np.array([1., 2., 3., 4.], np.float32)]"),
    ("grad_sort_ties", "jax.grad(lambda x: lax.reduce_sum(lax.sort(x, 0) * "
     "np.arange(5, dtype=np.float32), (0,)))", "[np.array([3., 1., 3., 2., 1.], np.float32)]"),
    ("grad_sort_key_val", "jax.grad(lambda k, v: lax.reduce_sum(lax.sort((k, v), 0, num_keys=1)[1] * "
     "np.arange(4, dtype=np.float32), (0,)), argnums=(0, 1))",
     "[np.array([2., 0., 3., 1.], np.float32), np.array([10., 20., 30., 40.], np.float32)]"),
    ("grad_top_k", "jax.grad(lambda x: lax.reduce_sum(lax.top_k(x, 2)[0] * np.array([1., 10.], "
     "np.float32), (0, 1)))", "[np.array([[3., 1., 4., 1.], [5., 9., 2., 6.]], np.float32)]"),
    ("grad_argmax_zero", "jax.grad(lambda x: lax.reduce_sum(x * lax.convert_element_type("
     "lax.argmax(x, 0, np.int32), np.float32), (0,)))", "[np.array([1., 3., 2.], np.float32)]"),
    ("grad_dot_preferred", "jax.grad(lambda x, y: lax.reduce_sum(lax.dot_general(x, y, (((1,), (0,)), "
     "((), ())), preferred_element_type=np.float32), (0, 1)), argnums=(0, 1))",
     "[np.ones((2, 3), np.float16), np.arange(12, dtype=np.float16).reshape(3, 4)]"),
    ("grad_conv_dilated", "jax.grad(lambda x, w: lax.reduce_sum(lax.conv_general_dilated(x, w, (2,), "
     "((2, 1),), (2,), (2,)) ** 2, (0, 1, 2)), argnums=(0, 1))",
     "[np.arange(14, dtype=np.float32).reshape(1, 2, 7) / 7, "
     "np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 12 - 0.5]"),
    ("grad_conv_batch_group", "jax.grad(lambda x, w: lax.reduce_sum(lax.conv_general_dilated(x, w, "
     "(1,), 'VALID', batch_group_count=2) ** 2, (0, 1, 2)), argnums=(0, 1))",
     "[np.arange(24, dtype=np.float32).reshape(4, 2, 3) / 24, "
     "np.arange(16, dtype=np.float32).reshape(4, 2, 2) / 16 - 0.5]"),
    ("hessian_dot_quadratic", "jax.hessian(lambda x: lax.dot_general(x, lax.dot_general("
     "np.array([[2., 1.], [1., 3.]], np.float32), x, (((1,), (0,)), ((), ()))), (((0,), (0,)), ((), ()))))",
     "[np.array([1., -1.], np.float32)]"),
]


def _to_json(value):
  leaves = jax.tree_util.tree_leaves(value)
  return [{"shape": list(np.shape(x)), "dtype": str(np.asarray(x).dtype),
           "values": np.asarray(x, np.float64).ravel().tolist()} for x in leaves]


def main():
  env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
  out = {"jax_version": jax.__version__, "jaxprs": {}, "values": {}}
  for name, fun_src, args_src in JAXPR_CASES:
    fun, args = eval(fun_src, env), eval(args_src, env)
    out["jaxprs"][name] = {"fun": fun_src, "args": args_src,
                           "jaxpr": str(jax.make_jaxpr(fun)(*args))}
  for name, fun_src, args_src in VALUE_CASES:
    fun, args = eval(fun_src, env), eval(args_src, env)
    out["values"][name] = {"fun": fun_src, "args": args_src, "value": _to_json(fun(*args))}
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                      "reduction_transforms_reference.json")
  with open(path, "w") as f:
    json.dump(out, f, indent=1)
  print(f"wrote {len(out['jaxprs'])} jaxprs and {len(out['values'])} values to {path}")


if __name__ == "__main__":
  main()
