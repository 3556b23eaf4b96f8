"""Records real JAX's outputs for jax.example_libraries (stax, optimizers).

    $JAX_PYTHON tools/record_example_libraries_reference.py

Writes ``tests/data/example_libraries_reference.json``, read by
``tests/test_example_libraries.py``; the cases are in ``tests/example_libraries_cases.py``.
Recorded: each stax layer's output shape, parameters (for ``PRNGKey(0)``) and apply output on a
fixed input; the parameters after each step of each optimizer on a fixed quadratic, and the
final optimizer state; schedule values; l2_norm / clip_grads; the losses of a small conv net
trained with adam under jit. Arrays are stored as dtype, weak type, shape and hex bytes.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import random
from jax.example_libraries import optimizers, stax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tests import example_libraries_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "example_libraries_reference.json")
NAMESPACE = {"stax": stax, "optimizers": optimizers, "jnp": jnp, "random": random, "jax": jax,
             "np": np}


def encode(x):
  weak = bool(getattr(x, "weak_type", False))
  x = np.asarray(x)
  return {"dtype": x.dtype.name, "weak_type": weak, "shape": list(x.shape),
          "hex": x.tobytes().hex()}


def leaves(tree):
  return [encode(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def structure(tree):
  return repr(jax.tree_util.tree_map(lambda _: 0, tree))


def shape_to_json(shape):
  if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
    return [shape_to_json(s) for s in shape]
  return [int(d) for d in shape]


def record_layers():
  out = {}
  for case_id, source, input_shape, kwargs_source in cases.LAYER_CASES:
    init_fun, apply_fun = eval(source, NAMESPACE)
    shape = ([tuple(s) for s in input_shape] if isinstance(input_shape, list)
             else tuple(input_shape))
    out_shape, params = init_fun(random.PRNGKey(0), shape)
    inputs = cases.layer_input(input_shape)
    result = apply_fun(params, inputs, **eval(kwargs_source, NAMESPACE))
    out[case_id] = {"output_shape": shape_to_json(out_shape), "params": leaves(params),
                    "structure": structure(params), "apply": leaves(result)}
  return out


def record_optimizers():
  loss = eval(cases.LOSS_SOURCE, NAMESPACE)
  grad = jax.grad(loss)
  out = {}
  for case_id, source in cases.OPTIMIZER_CASES:
    opt_init, opt_update, get_params = eval(source, NAMESPACE)
    params, targets, curvature = cases.quadratic_problem()
    state = opt_init(params)
    steps = []
    for i in range(cases.OPTIMIZER_STEPS):
      g = grad(get_params(state), targets, curvature)
      state = opt_update(i, g, state)
      steps.append(leaves(get_params(state)))
    out[case_id] = {"steps": steps, "final_state": leaves(state),
                    "final_loss": float(loss(get_params(state), targets, curvature))}
  return out


def record_schedules():
  out = {}
  for case_id, source in cases.SCHEDULE_CASES:
    schedule = eval(source, NAMESPACE)
    out[case_id] = [encode(schedule(i)) for i in cases.SCHEDULE_STEPS]
  return out


def record_utilities():
  params, _, _ = cases.quadratic_problem()
  return {"l2_norm": encode(optimizers.l2_norm(params)),
          "clip_grads.1": leaves(optimizers.clip_grads(params, 1.0)),
          "clip_grads.100": leaves(optimizers.clip_grads(params, 100.0))}


def record_conv_net():
  init_fun, apply_fun = eval(cases.CONV_NET_SOURCE, NAMESPACE)
  images, labels = cases.conv_net_data()
  out_shape, params = init_fun(random.PRNGKey(0), (-1,) + images.shape[1:])
  opt_init, opt_update, get_params = optimizers.adam(0.01)

  def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(apply_fun(params, inputs) * targets, axis=1))

  @jax.jit
  def update(i, opt_state, batch):
    value, g = jax.value_and_grad(loss)(get_params(opt_state), batch)
    return opt_update(i, g, opt_state), value

  state = opt_init(params)
  losses = []
  for i in range(cases.CONV_NET_STEPS):
    state, value = update(i, state, (images, labels))
    losses.append(float(value))
  return {"output_shape": shape_to_json(out_shape), "init_params": leaves(params),
          "losses": losses, "final_params": leaves(get_params(state))}


def main():
  out = {"jax_version": jax.__version__, "layers": record_layers(),
         "optimizers": record_optimizers(), "schedules": record_schedules(),
         "utilities": record_utilities(), "conv_net": record_conv_net()}
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
  print(f"wrote {OUT}; conv net losses {out['conv_net']['losses']}")


if __name__ == "__main__":
  main()
