"""axle.example_libraries (stax, optimizers) against real JAX 0.10.2: known answers recorded by
tools/record_example_libraries_reference.py into tests/data/example_libraries_reference.json
(cases in tests/example_libraries_cases.py)."""
import json
import os

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import random
from axle.example_libraries import optimizers, stax
from tests import example_libraries_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "example_libraries_reference.json")) as _f:
  REFERENCE = json.load(_f)

NAMESPACE = {"stax": stax, "optimizers": optimizers, "jnp": jnp, "random": random, "jax": axle,
             "np": np}


def _decode(leaf):
  return np.frombuffer(bytes.fromhex(leaf["hex"]), dtype=leaf["dtype"]).reshape(leaf["shape"])


def _assert_leaves(tree, expected, what, rtol=1e-5, atol=1e-6, check_weak=False):
  got = axle.tree_util.tree_leaves(tree)
  assert len(got) == len(expected), f"{what}: {len(got)} leaves, JAX has {len(expected)}"
  for i, (g, e) in enumerate(zip(got, expected)):
    g_np = np.asarray(g)
    assert g_np.dtype.name == e["dtype"], f"{what} leaf {i}: dtype {g_np.dtype} != {e['dtype']}"
    assert list(g_np.shape) == e["shape"], f"{what} leaf {i}: shape {g_np.shape}"
    if check_weak:
      assert bool(getattr(g, "weak_type", False)) == e["weak_type"], f"{what} leaf {i}"
    np.testing.assert_allclose(g_np, _decode(e), rtol=rtol, atol=atol,
                               err_msg=f"{what} leaf {i}")


def _shape_to_json(shape):
  if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
    return [_shape_to_json(s) for s in shape]
  return [int(d) for d in shape]


def _structure(tree):
  return repr(axle.tree_util.tree_map(lambda _: 0, tree))


# ---------------------------------------------------------------------------
# stax


def _build_layer(source, input_shape):
  init_fun, apply_fun = eval(source, NAMESPACE)
  shape = ([tuple(s) for s in input_shape] if isinstance(input_shape, list)
           else tuple(input_shape))
  return init_fun, apply_fun, shape


@pytest.mark.parametrize("case_id,source,input_shape,kwargs_source", cases.LAYER_CASES,
                         ids=[c[0] for c in cases.LAYER_CASES])
def test_stax_layer_init_and_apply_match_jax(case_id, source, input_shape, kwargs_source):
  ref = REFERENCE["layers"][case_id]
  init_fun, apply_fun, shape = _build_layer(source, input_shape)
  out_shape, params = init_fun(random.PRNGKey(0), shape)
  assert _shape_to_json(out_shape) == ref["output_shape"]
  assert _structure(params) == ref["structure"]
  # Same key, same initialisers: the parameters are JAX's bit for bit (up to float rounding of
  # the transcendental functions in the normal sampler).
  _assert_leaves(params, ref["params"], f"{case_id} params", rtol=1e-6, atol=1e-7)
  inputs = cases.layer_input(input_shape)
  kwargs = eval(kwargs_source, NAMESPACE)
  out = apply_fun(params, inputs, **kwargs)
  _assert_leaves(out, ref["apply"], f"{case_id} apply", rtol=2e-5, atol=2e-6)
  jitted = axle.jit(lambda p, x, kw: apply_fun(p, x, **kw))(params, inputs, kwargs)
  _assert_leaves(jitted, ref["apply"], f"{case_id} apply under jit", rtol=2e-5, atol=2e-6)
  # The output shape init_fun reports is the shape apply_fun produces (batch dim included).
  out_leaves = axle.tree_util.tree_leaves(out)
  multi = isinstance(out_shape, (list, tuple)) and isinstance(out_shape[0], (list, tuple))
  shapes = out_shape if multi else [out_shape]
  assert [tuple(o.shape) for o in out_leaves] == [tuple(s) for s in shapes]


def test_dropout_without_rng_raises_jax_error():
  _, apply_fun = stax.Dropout(0.5)
  with pytest.raises(ValueError, match="Dropout layer requires apply_fun to be called with a "
                                       "PRNG key argument"):
    apply_fun((), jnp.ones((2, 3)))


def test_dropout_keeps_rate_fraction_scaled():
  _, apply_fun = stax.Dropout(0.25)
  x = jnp.ones((200, 50))
  y = np.asarray(apply_fun((), x, rng=random.PRNGKey(3)))
  kept = y != 0
  assert abs(kept.mean() - 0.25) < 0.02
  np.testing.assert_allclose(y[kept], 4.0)


def test_serial_init_with_batch_placeholder():
  init_fun, apply_fun = stax.serial(stax.Dense(5), stax.Relu, stax.Dense(2))
  out_shape, params = init_fun(random.PRNGKey(0), (-1, 3))
  assert out_shape == (-1, 2)
  assert apply_fun(params, jnp.ones((7, 3))).shape == (7, 2)


def test_stax_layers_differentiate():
  init_fun, apply_fun = stax.serial(stax.Conv(2, (2, 2)), stax.BatchNorm(), stax.Gelu,
                                    stax.Flatten, stax.Dense(1))
  _, params = init_fun(random.PRNGKey(0), (3, 4, 4, 1))
  x = jnp.asarray(cases.layer_input((3, 4, 4, 1)))
  axle.test_util.check_grads(lambda p: jnp.sum(apply_fun(p, x) ** 2), (params,), order=1,
                             modes=("rev",), atol=3e-2, rtol=3e-2)


# ---------------------------------------------------------------------------
# optimizers


def _loss_and_grad():
  loss = eval(cases.LOSS_SOURCE, NAMESPACE)
  return loss, axle.grad(loss)


@pytest.mark.parametrize("case_id,source", cases.OPTIMIZER_CASES,
                         ids=[c[0] for c in cases.OPTIMIZER_CASES])
def test_optimizer_steps_match_jax(case_id, source):
  ref = REFERENCE["optimizers"][case_id]
  loss, grad = _loss_and_grad()
  opt_init, opt_update, get_params = eval(source, NAMESPACE)
  params, targets, curvature = cases.quadratic_problem()
  state = opt_init(params)
  for i in range(cases.OPTIMIZER_STEPS):
    g = grad(get_params(state), targets, curvature)
    state = opt_update(i, g, state)
    _assert_leaves(get_params(state), ref["steps"][i], f"{case_id} step {i}")
  _assert_leaves(state, ref["final_state"], f"{case_id} final state")
  np.testing.assert_allclose(float(loss(get_params(state), targets, curvature)),
                             ref["final_loss"], rtol=1e-5)


@pytest.mark.parametrize("case_id,source", cases.OPTIMIZER_CASES[::3],
                         ids=[c[0] for c in cases.OPTIMIZER_CASES[::3]])
def test_optimizer_steps_under_jit_match_jax(case_id, source):
  ref = REFERENCE["optimizers"][case_id]
  _, grad = _loss_and_grad()
  opt_init, opt_update, get_params = eval(source, NAMESPACE)
  params, targets, curvature = cases.quadratic_problem()

  @axle.jit
  def step(i, state):
    return opt_update(i, grad(get_params(state), targets, curvature), state)

  state = opt_init(params)
  for i in range(cases.OPTIMIZER_STEPS):
    state = step(i, state)
  _assert_leaves(get_params(state), ref["steps"][-1], f"{case_id} under jit")


def test_optimizer_state_is_a_pytree():
  opt_init, _, _ = optimizers.momentum(0.1, 0.9)
  params, _, _ = cases.quadratic_problem()
  state = opt_init(params)
  assert isinstance(state, optimizers.OptimizerState)
  leaves, treedef = axle.tree_util.tree_flatten(state)
  assert len(leaves) == 2 * 3  # (x, velocity) for each of the three parameters
  again = axle.tree_util.tree_unflatten(treedef, leaves)
  assert again.tree_def == state.tree_def and again.subtree_defs == state.subtree_defs


def test_optimizer_rejects_mismatched_grad_tree():
  opt_init, opt_update, _ = optimizers.sgd(0.1)
  state = opt_init({"a": jnp.ones(2), "b": jnp.ones(3)})
  with pytest.raises(TypeError, match="did not match the parameter tree structure"):
    opt_update(0, {"a": jnp.ones(2)}, state)


@pytest.mark.parametrize("case_id,source", cases.SCHEDULE_CASES,
                         ids=[c[0] for c in cases.SCHEDULE_CASES])
def test_schedule_values_match_jax(case_id, source):
  schedule = eval(source, NAMESPACE)
  for i, expected in zip(cases.SCHEDULE_STEPS, REFERENCE["schedules"][case_id]):
    value = schedule(i)
    got = np.asarray(value)
    assert got.dtype.name == expected["dtype"], f"{case_id}({i}): {got.dtype}"
    np.testing.assert_allclose(got, _decode(expected), rtol=1e-6, err_msg=f"{case_id}({i})")


def test_schedules_trace_under_jit():
  for case_id, source in cases.SCHEDULE_CASES:
    schedule = eval(source, NAMESPACE)
    ref = REFERENCE["schedules"][case_id]
    got = axle.jit(lambda i: jnp.asarray(schedule(i), jnp.float32))(np.int32(4))
    np.testing.assert_allclose(np.asarray(got), _decode(ref[4]).astype(np.float32), rtol=1e-6,
                               err_msg=case_id)


def test_piecewise_constant_validates_arguments():
  with pytest.raises(ValueError, match="one shorter"):
    optimizers.piecewise_constant([1, 2], [1.0, 2.0])


def test_l2_norm_and_clip_grads_match_jax():
  params, _, _ = cases.quadratic_problem()
  ref = REFERENCE["utilities"]
  _assert_leaves(optimizers.l2_norm(params), [ref["l2_norm"]], "l2_norm")
  _assert_leaves(optimizers.clip_grads(params, 1.0), ref["clip_grads.1"], "clip_grads(1)")
  _assert_leaves(optimizers.clip_grads(params, 100.0), ref["clip_grads.100"], "clip_grads(100)")
  clipped = optimizers.clip_grads(params, 1.0)
  np.testing.assert_allclose(float(optimizers.l2_norm(clipped)), 1.0, rtol=1e-6)


def test_pack_unpack_round_trip_continues_training():
  loss, grad = _loss_and_grad()
  params, targets, curvature = cases.quadratic_problem()
  opt_init, opt_update, get_params = optimizers.adam(0.1)
  state = opt_init(params)
  for i in range(3):
    state = opt_update(i, grad(get_params(state), targets, curvature), state)
  unpacked = optimizers.unpack_optimizer_state(state)
  # The unpacked state has the parameters' structure, with a JoinPoint per parameter.
  assert sorted(unpacked) == ["m", "s", "w"]
  assert all(isinstance(v, optimizers.JoinPoint) for v in unpacked.values())
  x, m, v = unpacked["w"].subtree
  np.testing.assert_array_equal(np.asarray(x), np.asarray(get_params(state)["w"]))
  packed = optimizers.pack_optimizer_state(unpacked)
  assert packed.tree_def == state.tree_def and packed.subtree_defs == state.subtree_defs
  for a, b in zip(axle.tree_util.tree_leaves(packed), axle.tree_util.tree_leaves(state)):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  s1 = opt_update(3, grad(get_params(state), targets, curvature), state)
  s2 = opt_update(3, grad(get_params(packed), targets, curvature), packed)
  for a, b in zip(axle.tree_util.tree_leaves(s1), axle.tree_util.tree_leaves(s2)):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  # The adam optimizer reaches JAX's final state after the round trip.
  for i in range(4, cases.OPTIMIZER_STEPS):
    s2 = opt_update(i, grad(get_params(s2), targets, curvature), s2)
  _assert_leaves(s2, REFERENCE["optimizers"]["adam"]["final_state"], "adam after round trip")


def test_pack_rejects_non_joinpoint_leaves():
  with pytest.raises(TypeError):
    optimizers.pack_optimizer_state({"a": jnp.ones(2)})


def test_custom_optimizer_with_decorator():
  @optimizers.optimizer
  def halving():
    def init(x0):
      return (x0,)

    def update(i, g, state):
      return (state[0] - 0.5 * g,)

    def get_params(state):
      return state[0]
    return init, update, get_params

  opt_init, opt_update, get_params = halving()
  state = opt_update(0, {"a": jnp.ones(2)}, opt_init({"a": jnp.full(2, 3.0)}))
  np.testing.assert_allclose(np.asarray(get_params(state)["a"]), [2.5, 2.5])


# ---------------------------------------------------------------------------
# End to end: a small conv net trained with adam under jit


def test_conv_net_trained_with_adam_under_jit_gives_jax_losses():
  ref = REFERENCE["conv_net"]
  init_fun, apply_fun = eval(cases.CONV_NET_SOURCE, NAMESPACE)
  images, labels = cases.conv_net_data()
  out_shape, params = init_fun(random.PRNGKey(0), (-1,) + images.shape[1:])
  assert _shape_to_json(out_shape) == ref["output_shape"]
  _assert_leaves(params, ref["init_params"], "conv net init", rtol=1e-6, atol=1e-7)
  opt_init, opt_update, get_params = optimizers.adam(0.01)

  def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(apply_fun(params, inputs) * targets, axis=1))

  @axle.jit
  def update(i, opt_state, batch):
    value, g = axle.value_and_grad(loss)(get_params(opt_state), batch)
    return opt_update(i, g, opt_state), value

  state = opt_init(params)
  losses = []
  for i in range(cases.CONV_NET_STEPS):
    state, value = update(i, state, (images, labels))
    losses.append(float(value))
  np.testing.assert_allclose(losses, ref["losses"], rtol=2e-5)
  assert losses[-1] < losses[0]
  # The first conv's bias feeds BatchNorm, which removes any shift: its gradient is rounding
  # noise (in JAX too), which adam normalises into +-step_size moves. Compare the other leaves.
  final = axle.tree_util.tree_leaves(get_params(state))
  keep = [i for i in range(len(final)) if i != 1]
  assert final[1].shape == (1, 1, 1, 6)
  _assert_leaves([final[i] for i in keep], [ref["final_params"][i] for i in keep],
                 "conv net final params", rtol=2e-4, atol=2e-5)
