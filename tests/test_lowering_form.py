"""The StableHLO that ``jit(f).lower(...).as_text()`` prints is the program JAX 0.10.2 prints.

The expected bodies below were printed by JAX 0.10.2 for the same functions (its
``jax.result_info`` result attributes removed: axle does not print them).
"""
import numpy as np

import axle
import axle.numpy as jnp
from axle import lax


def _main(fun, *args, **jit_options):
  text = axle.jit(fun, **jit_options).lower(*args).as_text()
  return text.split("func.func public @main", 1)[1].rstrip()


_X = np.float32([1, 2])


def test_scalar_literals_are_a_fresh_scalar_constant_and_a_broadcast_per_use():
  assert _main(lambda x: x * 2.0 + 2.0, _X) == """\
(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %3 = stablehlo.add %1, %2 : tensor<2xf32>
    return %3 : tensor<2xf32>
  }
}"""


def test_closed_over_arrays_are_one_constant_each():
  c = np.float32([1, 2])
  assert _main(lambda x: (x + c) * np.float32([1, 2]), _X) == """\
(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<2xf32>
    %1 = stablehlo.multiply %0, %cst_0 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}"""


def test_convert_element_type_emits_a_convert_even_to_the_same_type():
  assert _main(lambda x: jnp.full((2,), 3.0) + x, _X) == """\
(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.convert %0 : tensor<2xf32>
    %2 = stablehlo.add %1, %arg0 : tensor<2xf32>
    return %2 : tensor<2xf32>
  }
}"""
  assert _main(lambda x: lax.convert_element_type(x, bool), _X) == """\
(%arg0: tensor<2xf32>) -> tensor<2xi1> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.compare NE, %arg0, %0, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %2 = stablehlo.convert %1 : tensor<2xi1>
    return %2 : tensor<2xi1>
  }
}"""


def test_cumulative_reductions_are_outlined_once_per_signature():
  x = np.float32([[1, 2], [3, 4]])
  assert _main(lambda x: lax.cumsum(x, 1) + lax.cumsum(x, 1), x) == """\
(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = call @cumsum(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = call @cumsum(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x2xf32>
    return %2 : tensor<2x2xf32>
  }
  func.func private @cumsum(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    return %1 : tensor<2x2xf32>
  }
}"""
  np.testing.assert_array_equal(axle.jit(lambda x: lax.cumsum(x, 1))(x), [[1, 3], [3, 7]])


def _f(x, y):
  jnp.sin(x)  # dead
  return x * 2


def test_unused_arguments_and_dead_equations_are_pruned_unless_keep_unused():
  pruned = _main(_f, _X, _X)
  assert pruned.startswith("(%arg0: tensor<2xf32>) -> tensor<2xf32> {")
  assert "sine" not in pruned
  kept = _main(_f, _X, _X, keep_unused=True)
  assert kept.startswith("(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {")
  assert "stablehlo.sine" in kept
  # The pruned program is still called with every argument, by the cached path and AOT.
  np.testing.assert_array_equal(axle.jit(_f)(_X, _X), [2, 4])
  np.testing.assert_array_equal(axle.jit(_f)(_X, _X), [2, 4])
  np.testing.assert_array_equal(axle.jit(_f).lower(_X, _X).compile()(_X, _X), [2, 4])
  a, b = jnp.array(_X), jnp.array(_X)
  np.testing.assert_array_equal(axle.jit(_f)(a, b), [2, 4])
  np.testing.assert_array_equal(axle.jit(_f)(a, b), [2, 4])


def test_a_donated_unused_argument_is_not_deleted():
  a, b = jnp.array(_X), jnp.array(_X)
  out = axle.jit(_f, donate_argnums=(1,))(a, b)
  np.testing.assert_array_equal(out, [2, 4])
  assert not b.is_deleted()
  np.testing.assert_array_equal(b, _X)


def test_effects_keep_their_equations():
  printed = []
  def g(x, y):
    axle.debug.callback(lambda: printed.append(1))
    return x
  text = _main(g, _X, _X)
  assert text.startswith("(%arg0: tensor<2xf32>) -> tensor<2xf32> {")
  assert "custom_call" in text
  axle.jit(g)(_X, _X)
  axle.effects_barrier()
  assert printed == [1]


def _nested_dead(x, y):
  @axle.jit
  def h(a, b):
    jnp.cos(a)  # dead
    return a * 3.0, jnp.sin(b)
  return h(x, y)[0]


def test_nested_jit_keeps_only_the_results_and_operands_its_caller_uses():
  # JAX's dead-code elimination before lowering: h loses its unused result, the cosine and
  # the operand b, and @main the argument y.
  assert _main(_nested_dead, _X, _X) == """\
(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = call @h(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func private @h(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}"""


def test_scan_is_a_while_calling_the_body_and_index_helpers():
  # JAX's scan: the loop state is (xs, consts, i, carry, ys); reverse indexes length - i - 1.
  f = lambda w, xs: lax.scan(lambda c, x: (c * w + x, c), np.float32(0), xs, reverse=True)
  assert _main(f, np.float32(2), _X) == """\
(%arg0: tensor<f32>, %arg1: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg1, %iterArg_1 = %arg0, %iterArg_2 = %c, %iterArg_3 = %cst, %iterArg_4 = %0) : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<2xf32>
    cond {
      %c_5 = stablehlo.constant dense<2> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_2, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %c_5 = stablehlo.constant dense<2> : tensor<i32>
      %2 = stablehlo.subtract %c_5, %iterArg_2 : tensor<i32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.subtract %2, %c_6 : tensor<i32>
      %4 = func.call @dynamic_index_in_dim(%iterArg, %3) : (tensor<2xf32>, tensor<i32>) -> tensor<f32>
      %5:2 = func.call @closed_call(%iterArg_1, %iterArg_3, %4) : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      %6 = func.call @dynamic_update_index_in_dim(%iterArg_4, %5#1, %3) : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<2xf32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg_2, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %7, %5#0, %6 : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<2xf32>
    }
    return %1#3, %1#4 : tensor<f32>, tensor<2xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<2xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<f32>
    %1 = stablehlo.add %0, %arg2 : tensor<f32>
    return %1, %arg1 : tensor<f32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<2xf32>, tensor<1xf32>, tensor<i32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}"""


def test_renamed_private_functions_share_one_module_counter():
  # Printed by JAX 0.10.2: a taken name gets the next number of one counter for the module.
  import re
  x = np.ones((3, 4), np.float32)
  names = lambda f: re.findall(r"func\.func (?:public |private )?@(\w+)",  # noqa: E731
                               axle.jit(f).lower(x).as_text())
  assert names(lambda x: jnp.pad(x, ((1, 2), (2, 1)), mode="linear_ramp")) == [
      "main", "_pad", "_linspace", "_linspace_0", "_flip", "_linspace_1", "_linspace_2",
      "_flip_3"]
  assert names(lambda x: jnp.insert(x, 1, 9.0, axis=0)) == [
      "main", "_where", "clip", "argsort", "cumsum", "cumsum_0", "clip_1", "cumsum_2",
      "cumsum_3", "floor_divide", "_where_4", "remainder", "_where_5"]
