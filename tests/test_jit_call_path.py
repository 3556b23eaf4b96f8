"""The jit call path: the per-signature call plans that run repeated calls without flattening
or tracing machinery must give the same results, errors and side effects as the general path
(donation, weak types, NumPy and scalar arguments, static arguments, changing structures)."""
import collections
import dataclasses

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle._src import tree_util as tu
from axle._src.config import config


def _traces(f) -> int:
  return f._cache_size()


# ---------------------------------------------------------------------------
# The generated tree helpers


Pair = collections.namedtuple("Pair", "first second")


@dataclasses.dataclass
class Box:
  value: object
  label: str


jax.tree_util.register_pytree_node(Box, lambda b: ((b.value,), b.label),
                                   lambda label, children: Box(children[0], label))

TREES = [
    1.0, (1, 2), [1, {"b": 2, "a": (3, None)}], Pair(1, [2, 3]), Box(4, "x"), Box(4, "y"),
    Box((4, 5), "x"), collections.OrderedDict(z=1, y=2), {}, (), [], None, {"a": 1},
    {"a": 1, "b": 2}, {"a": 1, "c": 2}, [1, 2], ((1, 2),), {"a": (1,)},
]


@pytest.mark.parametrize("index", range(len(TREES)))
def test_leaf_getter_agrees_with_flatten(index):
  tree = TREES[index]
  leaves, treedef = tu.tree_flatten(tree)
  getter = tu.treedef_leaf_getter(treedef)
  assert getter(tree) == leaves
  for other in TREES:
    other_leaves, other_treedef = tu.tree_flatten(other)
    got = getter(other)
    if other_treedef == treedef:
      assert got == other_leaves
    else:
      assert got is None, (tree, other)


def test_leaf_getter_checks_leaves_unless_told_not_to():
  treedef = tu.tree_structure({"a": 1, "b": 2})
  assert tu.treedef_leaf_getter(treedef)({"a": 1, "b": (2, 3)}) is None
  assert tu.treedef_leaf_getter(treedef, check_leaves=False)({"a": 1, "b": (2, 3)}) == [1, (2, 3)]


def test_leaf_getter_dict_insertion_order_does_not_matter():
  treedef = tu.tree_structure({"a": 1, "b": 2})
  assert tu.treedef_leaf_getter(treedef)({"b": 20, "a": 10}) == [10, 20]


def test_builder_rebuilds_the_structure():
  for tree in TREES:
    leaves, treedef = tu.tree_flatten(tree)
    rebuilt = tu.treedef_builder(treedef)(leaves)
    assert tu.tree_structure(rebuilt) == treedef and tu.tree_leaves(rebuilt) == leaves


# ---------------------------------------------------------------------------
# Calls through the plans


def test_repeated_calls_do_not_retrace_and_stay_correct():
  f = jax.jit(lambda x: x + 1.0)
  x = jnp.arange(4.0)
  for i in range(5):
    np.testing.assert_array_equal(f(x + i), np.arange(4.0) + i + 1.0)
  assert _traces(f) == 1


def test_dict_in_and_out():
  scale = jax.jit(lambda d: {k: v * 2.0 for k, v in d.items()})
  params = {f"p{i}": jnp.full((3,), float(i)) for i in range(20)}
  for _ in range(3):
    out = scale(params)
    assert sorted(out) == sorted(params)
    for k, v in params.items():
      np.testing.assert_array_equal(out[k], np.asarray(v) * 2.0)
  # the outputs fed back in (a training loop)
  again = scale(out)
  np.testing.assert_array_equal(again["p7"], np.full(3, 28.0, np.float32))
  assert _traces(scale) == 1


def test_changing_tree_structures():
  f = jax.jit(lambda t: jax.tree_util.tree_map(lambda v: v * 10, t))
  a, b = jnp.ones(2), jnp.full(2, 2.0)
  cases = [{"a": a, "b": b}, {"a": a, "c": b}, [a, b], (a, b), {"a": a}, Pair(a, b),
           Box(a, "x"), Box(a, "y"), {"a": a, "b": None}, {"b": b, "a": a}]
  for _ in range(2):
    for tree in cases:
      out = f(tree)
      assert tu.tree_structure(out) == tu.tree_structure(tree)
      for got, want in zip(tu.tree_leaves(out), tu.tree_leaves(tree)):
        np.testing.assert_array_equal(got, np.asarray(want) * 10)
  # {"b": b, "a": a} is the same structure as {"a": a, "b": b}
  assert _traces(f) == len(cases) - 1


def test_outputs_of_every_shape_of_tree():
  outputs = [None, (), {}, 5.0, (1.0, None), {"x": [1.0, 2.0]}]
  for target in outputs:
    f = jax.jit(lambda x, target=target: jax.tree_util.tree_map(lambda v: x * v, target))
    x = jnp.float32(2.0)
    for _ in range(2):
      out = f(x)
      assert tu.tree_structure(out) == tu.tree_structure(target)


def test_donated_arguments_are_deleted_on_every_call():
  f = jax.jit(lambda x, y: x * 2.0 + y, donate_argnums=0)
  y = jnp.ones(8)
  for i in range(3):
    x = jnp.full(8, float(i))
    out = f(x, y)
    np.testing.assert_array_equal(out, np.full(8, 2.0 * i + 1.0, np.float32))
    assert x.is_deleted()
    assert not y.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    f(x, y)
  assert _traces(f) == 1


def test_weak_typed_arguments():
  f = jax.jit(lambda x: x * 2)
  out = f(3.0)
  assert out.dtype == jnp.float32 and out.weak_type
  for value in (4.0, 5.5, -1.0):
    out = f(value)
    assert float(out) == value * 2 and out.weak_type
  strong = f(jnp.float32(3.0))  # a strong float32: another signature
  assert not strong.weak_type and float(strong) == 6.0
  assert f(2).dtype == jnp.int32 and f(2).weak_type and int(f(7)) == 14
  assert _traces(f) == 3
  weak_array = jnp.asarray(2.0) * 1.0  # weak 0-d Array
  assert f(weak_array).weak_type == weak_array.weak_type


def test_python_int_too_large_raises_on_every_call():
  f = jax.jit(lambda x: x + 1)
  assert int(f(3)) == 4
  for _ in range(2):
    with pytest.raises(OverflowError):
      f(2 ** 40)


def test_numpy_arguments_are_read_on_every_call():
  f = jax.jit(lambda x: x * 2.0)
  host = np.arange(4.0, dtype=np.float32)
  np.testing.assert_array_equal(f(host), host * 2)
  host[0] = 100.0  # mutated after the call: the next call sees the new value
  np.testing.assert_array_equal(f(host), host * 2)
  wide = np.arange(4.0)  # float64 -> float32
  assert f(wide).dtype == jnp.float32
  np.testing.assert_array_equal(f(wide), (wide * 2).astype(np.float32))
  np.testing.assert_array_equal(f(np.arange(6.0, dtype=np.float32)), np.arange(6.0) * 2)
  assert float(f(np.float32(1.5))) == 3.0
  assert _traces(f) == 3  # f32[4] (f64[4] canonicalises to it), f32[6], a float32 scalar


def test_mixed_array_numpy_and_scalar_leaves():
  f = jax.jit(lambda d: d["a"] * d["b"] + d["c"])
  for i in range(3):
    tree = {"a": jnp.ones(3), "b": np.full(3, float(i), np.float32), "c": float(i)}
    np.testing.assert_array_equal(f(tree), np.full(3, 2.0 * i, np.float32))
  assert _traces(f) == 1


def test_static_arguments():
  f = jax.jit(lambda x, n: x * n, static_argnums=1)
  x = jnp.ones(3)
  for n in (2, 3, 2, 3, 4):
    np.testing.assert_array_equal(f(x, n), np.full(3, float(n), np.float32))
  assert _traces(f) == 3
  # 2 and 2.0 are equal but of different types: another trace, as in JAX
  assert f(x, 2.0).dtype == jnp.float32 and _traces(f) == 4
  with pytest.raises(ValueError, match="Non-hashable static arguments"):
    f(x, [1])
  # equal static values that are not the same object still take the call's plan
  g = jax.jit(lambda x, n: x + n, static_argnums=1)
  big = 10 ** 6
  for n in (big, int(str(big)), int(str(big)) + 1, int(str(big))):
    np.testing.assert_array_equal(g(x, n), np.full(3, 1.0 + n, np.float32))
  assert _traces(g) == 2


def test_unused_arguments_are_still_checked():
  f = jax.jit(lambda x, y: x * 2)
  x = jnp.ones(2)
  for _ in range(2):
    np.testing.assert_array_equal(f(x, jnp.ones(3)), np.full(2, 2.0, np.float32))
  with pytest.raises(TypeError, match="at path y"):
    f(x, "not an array")


def test_mismatched_leaf_error_names_the_argument_after_plans_exist():
  g = jax.jit(lambda d: d["a"] * 2)
  good = {"a": jnp.ones(2), "b": jnp.ones(2)}
  g(good)
  g(good)
  with pytest.raises(TypeError, match=r"at path d\['b'\]"):
    g({"a": jnp.ones(2), "b": "str"})
  with pytest.raises(TypeError, match=r"at path d\['b'\]\[1\]"):
    g({"a": jnp.ones(2), "b": (jnp.ones(2), object())})


def test_keyword_arguments_still_work():
  f = jax.jit(lambda x, y=1.0: x * y)
  x = jnp.ones(2)
  f(x, 2.0)
  for _ in range(2):
    np.testing.assert_array_equal(f(x, y=3.0), np.full(2, 3.0, np.float32))
    np.testing.assert_array_equal(f(x=x, y=4.0), np.full(2, 4.0, np.float32))


def test_many_signatures_keep_few_plans_and_stay_correct():
  f = jax.jit(lambda x: x.sum())
  arrays = [jnp.ones(n) for n in range(1, 21)]
  for _ in range(2):
    for n, a in enumerate(arrays, 1):
      assert float(f(a)) == n
  assert len(f._plans) <= 8
  assert _traces(f) == 20


def test_host_backed_and_deleted_arrays():
  f = jax.jit(lambda x: x + 1.0)
  x = jnp.asarray(np.arange(3.0, dtype=np.float32))
  f(x)
  y = jnp.asarray(np.arange(3.0, dtype=np.float32) * 2)
  np.testing.assert_array_equal(f(y), np.arange(3.0) * 2 + 1)
  y.delete()
  with pytest.raises(RuntimeError, match="deleted"):
    f(y)


def test_disable_jit_bypasses_plans():
  calls = []

  def fun(x):
    calls.append(1)
    return x + 1.0
  f = jax.jit(fun)
  x = jnp.ones(2)
  f(x)
  f(x)
  assert len(calls) == 1
  with jax.disable_jit():
    f(x)
  assert len(calls) == 2
  f(x)
  assert len(calls) == 2


def test_debug_nans_applies_to_planned_calls():
  f = jax.jit(lambda x: jnp.log(x))
  x = jnp.array([-1.0, 1.0])
  f(x)
  f(x)
  config.update("jax_debug_nans", True)
  try:
    with pytest.raises(FloatingPointError):
      f(x)
  finally:
    config.update("jax_debug_nans", False)
  assert np.isnan(np.asarray(f(x))[0])


def test_clear_cache_drops_plans():
  f = jax.jit(lambda x: x * 3.0)
  x = jnp.ones(2)
  f(x)
  f(x)
  assert f._plans
  f.clear_cache()
  assert not f._plans
  np.testing.assert_array_equal(f(x), np.full(2, 3.0, np.float32))


def test_grad_and_vmap_of_jitted_function_called_again():
  loss = jax.jit(lambda w, x: jnp.sum(jnp.tanh(w * x)))
  w = jnp.linspace(0.0, 1.0, 16)
  grad = jax.grad(loss)
  first = np.asarray(grad(w, w))
  for _ in range(3):
    np.testing.assert_array_equal(grad(w, w), first)
  per_row = jax.vmap(loss, in_axes=(None, 0))
  rows = jnp.ones((8, 16))
  first = np.asarray(per_row(w, rows))
  for _ in range(3):
    np.testing.assert_array_equal(per_row(w, rows), first)


def test_donated_python_scalars_and_numpy_arrays_can_be_passed_again():
  # a donated scalar must not consume a buffer shared with later calls
  f = jax.jit(lambda x: x * 2, donate_argnums=0)
  assert [float(f(2.0)) for _ in range(3)] == [4.0, 4.0, 4.0]
  host = np.ones(3, np.float32)
  for _ in range(3):
    np.testing.assert_array_equal(f(host), np.full(3, 2.0, np.float32))
  np.testing.assert_array_equal(host, np.ones(3, np.float32))  # the caller's array is untouched
  h = jax.jit(lambda x: x + 1.0)
  assert float(h(2.0)) == 3.0


def test_small_numpy_arguments_share_buffers_by_value_only():
  # Small NumPy arguments are put once per distinct value: outputs (even of the identity) keep
  # their values when the caller mutates the array, a value seen before comes back right, and
  # a donated call with the same bytes does not consume the shared buffer.
  ident = jax.jit(lambda x: x)
  add = jax.jit(lambda x: x + 1.0)
  donate = jax.jit(lambda x: x * 2.0, donate_argnums=0)
  host = np.array([1.0, 2.0, 3.0], np.float32)
  first = ident(host)
  host[0] = -5.0
  second = ident(host)
  host[0] = 1.0
  third = add(host)
  np.testing.assert_array_equal(donate(host), [2.0, 4.0, 6.0])
  np.testing.assert_array_equal(add(host), [2.0, 3.0, 4.0])
  np.testing.assert_array_equal(first, [1.0, 2.0, 3.0])
  np.testing.assert_array_equal(second, [-5.0, 2.0, 3.0])
  np.testing.assert_array_equal(third, [2.0, 3.0, 4.0])
  np.testing.assert_array_equal(ident(host), [1.0, 2.0, 3.0])
  signed = np.array([0.0, 1.0], np.float32)
  assert np.signbit(np.asarray(ident(-signed)))[0] and not np.signbit(np.asarray(ident(signed)))[0]


def test_non_contiguous_numpy_arguments():
  f = jax.jit(lambda x: x * 2.0)
  base = np.arange(16.0, dtype=np.float32)
  for step in (2, 2, 4, 4):
    np.testing.assert_array_equal(f(base[::step][:4]), base[::step][:4] * 2)
  np.testing.assert_array_equal(f(base.reshape(4, 4).T[0]), base.reshape(4, 4).T[0] * 2)


def test_keyword_calls_take_plans_and_stay_correct():
  def fun(x, y=1.0, *, scale, mode="add"):
    return x * scale + y if mode == "add" else x * scale - y
  f = jax.jit(fun, static_argnames="mode")
  x, y = jnp.ones(3), jnp.full(3, 2.0)
  for _ in range(3):
    np.testing.assert_array_equal(f(x, y, scale=3.0), np.full(3, 5.0, np.float32))
    np.testing.assert_array_equal(f(x, scale=3.0, y=y), np.full(3, 5.0, np.float32))
    np.testing.assert_array_equal(f(y=y, x=x, scale=2.0, mode="sub"), np.zeros(3, np.float32))
    np.testing.assert_array_equal(f(x, y, scale=2.0, mode="add"), np.full(3, 4.0, np.float32))
    np.testing.assert_array_equal(f(x, scale=2.0), np.full(3, 3.0, np.float32))
  assert len(f._plans) <= 8
  # five signatures, as in JAX: keywords stay keywords (f(x, y) and f(x, y=y) trace apart)
  assert _traces(f) <= 5
  with pytest.raises(TypeError):
    f(x, y, scale=2.0, other=1.0)


def test_keyword_static_argnums_by_name():
  f = jax.jit(lambda x, n: x * n, static_argnums=1)
  x = jnp.ones(2)
  for n in (2, 3, 2):
    np.testing.assert_array_equal(f(x, n=n), np.full(2, float(n), np.float32))
  assert _traces(f) == 2


@pytest.mark.parametrize("values", [(0.0, -0.0), (-0.0, 0.0), (float("nan"), float("nan")),
                                    (complex(1, 0.0), complex(1, -0.0)), (1, True), (1.0, 1)])
def test_python_scalar_arguments_keep_their_bits(values):
  # Python scalars passed to a jitted function share device buffers per value; equal values of
  # other bits (0.0 and -0.0) or types must not share one.
  identity = jax.jit(lambda s: s)
  for value in values:
    out = np.asarray(identity(value))
    expected = np.asarray(value, out.dtype)
    assert out.tobytes() == expected.tobytes(), (value, out)


def test_calls_whose_keywords_are_all_static_check_every_static_value():
  # Calls whose keyword arguments are all static take a plan that only compares them: each
  # value (and a static positional one passed by keyword) must still select its own trace.
  traces = []

  def f(x, axis, *, keepdims=False, scale=1):
    traces.append((axis, keepdims, scale))
    return jnp.sum(x, axis=axis, keepdims=keepdims) * scale

  g = jax.jit(f, static_argnames=("axis", "keepdims", "scale"))
  x = jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
  calls = [((x,), dict(axis=0)), ((x,), dict(axis=1)), ((x,), dict(axis=1, keepdims=True)),
           ((x,), dict(keepdims=True, axis=1)), ((x,), dict(axis=0, scale=2)),
           ((x,), dict(axis=0, scale=2.0)), ((x, 1), dict(keepdims=True)), ((x,), dict(axis=0))]
  for _ in range(3):
    for args, kwargs in calls:
      out = g(*args, **kwargs)
      axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
      expected = np.sum(np.asarray(x), axis=axis, keepdims=kwargs.get("keepdims", False))
      expected = expected * kwargs.get("scale", 1)
      np.testing.assert_array_equal(np.asarray(out), expected)
      assert type(kwargs.get("scale", 1)) is float or out.dtype == np.float32
  # one trace per signature: static values with their types (scale 2 and 2.0 trace apart),
  # positional and keyword arguments apart, keyword order ignored
  signatures = {(len(args), args[1:], tuple(sorted((k, type(v).__name__, v)
                                                    for k, v in kwargs.items())))
                for args, kwargs in calls}
  assert len(traces) == len(signatures)


def test_compiled_calls_take_the_generated_call_and_stay_correct():
  # jit(f).lower(...).compile() objects: from the second call on, a generated call like jit's
  f = jax.jit(lambda d, s: {"out": jnp.sin(d["a"]) * s + d["b"]})
  a = jnp.linspace(0.0, 1.0, 5)
  compiled = f.lower({"a": a, "b": a}, 2.0).compile()
  expected = np.asarray(f({"a": a, "b": a}, 2.0)["out"])
  for i in range(3):
    out = compiled({"a": a, "b": a}, 2.0)
    assert set(out) == {"out"} and out["out"].dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out["out"]), expected)
  assert compiled._runner is not None and compiled._leaf_getter(({"a": a, "b": a}, 2.0)) is not None
  host = np.asarray(a)  # NumPy and Python-scalar leaves of the compiled types go the same way
  np.testing.assert_array_equal(np.asarray(compiled({"a": host, "b": a}, 2.0)["out"]), expected)
  np.testing.assert_array_equal(
      np.asarray(compiled({"a": a, "b": a}, 3.0)["out"]),
      np.asarray(f({"a": a, "b": a}, 3.0)["out"]))
  # other types, shapes or structures still raise JAX's errors after the generated call exists
  with pytest.raises(TypeError, match="Argument types differ"):
    compiled({"a": jnp.ones(6), "b": jnp.ones(6)}, 2.0)
  with pytest.raises(TypeError, match="Argument types differ"):
    compiled({"a": a.astype(jnp.int32), "b": a}, 2.0)
  with pytest.raises(TypeError, match="input pytree does not match"):
    compiled({"a": a}, 2.0)
  with pytest.raises(TypeError, match="input pytree does not match"):
    compiled({"a": a, "b": a}, s=2.0)


def test_compiled_calls_with_donation_delete_on_every_call():
  f = jax.jit(lambda x, y: x * 2.0 + y, donate_argnums=0)
  y = jnp.ones(8)
  compiled = f.lower(jnp.zeros(8), y).compile()
  for i in range(3):
    x = jnp.full(8, float(i))
    np.testing.assert_array_equal(np.asarray(compiled(x, y)), np.full(8, 2.0 * i + 1.0))
    assert x.is_deleted() and not y.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    compiled(x, y)


def test_compiled_calls_of_exact_programs_keep_the_compiled_bits():
  # a program of exact kernels may be answered on the host from the second call on: the same
  # bits as the compiled program (signed zeros, NaN, a Python float argument)
  f = jax.jit(lambda x, s: (x * s - x) * -1.0 + jnp.abs(x))
  x = jnp.asarray(np.array([0.0, -0.0, 1.5, np.nan, -np.inf, 3e38, -2.5, 7.0], np.float32))
  compiled = f.lower(x, 1.25).compile()
  first = np.asarray(compiled(x, 1.25))
  for s in (1.25, -0.0, 2.0):
    reference = np.asarray(f.lower(x, s).compile()(x, s))  # a fresh object: its first call
    np.testing.assert_array_equal(np.asarray(compiled(x, s)).view(np.uint32),
                                  reference.view(np.uint32))
  np.testing.assert_array_equal(first.view(np.uint32),
                                np.asarray(compiled(x, 1.25)).view(np.uint32))


def test_compiled_calls_under_other_flags_check_their_arguments_fully():
  f = jax.jit(lambda x, s: x * s)
  x = jnp.arange(3.0)
  compiled = f.lower(x, 2.0).compile()
  compiled(x, 2.0)
  np.testing.assert_array_equal(np.asarray(compiled(x, 3.0)), [0.0, 3.0, 6.0])
  with jax.enable_x64(True):  # a Python float now reads as float64, as in JAX: a TypeError
    with pytest.raises(TypeError, match="Argument types differ"):
      compiled(x, 3.0)
  np.testing.assert_array_equal(np.asarray(compiled(x, 4.0)), [0.0, 4.0, 8.0])
  runs = []  # (the flags back as they were: the generated call again)
  runner = compiled._runner
  compiled._runner = lambda leaves: runs.append(1) or runner(leaves)
  np.testing.assert_array_equal(np.asarray(compiled(x, 5.0)), [0.0, 5.0, 10.0])
  assert runs == [1]
