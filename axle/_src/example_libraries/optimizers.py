"""Optimizers as (init, update, get_params) triples over pytrees (JAX's
``jax.example_libraries.optimizers``).

An optimizer is written for one array (``opt_maker`` returns ``init(x0) -> state``,
``update(i, g, state) -> state`` and ``get_params(state) -> x``); the ``optimizer`` decorator
lifts it to pytrees of parameters, keeping the per-leaf states flattened in an
``OptimizerState`` (itself a pytree, so it can cross ``jit``).
"""
from __future__ import annotations

import functools
from collections import namedtuple
from typing import Callable

import numpy as np

from axle._src import numpy as jnp
from axle._src import tree_util

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
tree_util.register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda data, children: OptimizerState(children[0], data[0], data[1]))

Optimizer = namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])


def _unzip2(pairs):
  firsts, seconds = [], []
  for a, b in pairs:
    firsts.append(a)
    seconds.append(b)
  return tuple(firsts), tuple(seconds)


def optimizer(opt_maker: Callable) -> Callable:
  """Decorator lifting an optimizer written for single arrays to pytrees of parameters: the
  returned maker gives ``Optimizer(init_fn, update_fn, params_fn)`` whose state is an
  ``OptimizerState``."""
  @functools.wraps(opt_maker)
  def tree_opt_maker(*args, **kwargs):
    init, update, get_params = opt_maker(*args, **kwargs)

    @functools.wraps(init)
    def tree_init(x0_tree):
      x0_flat, tree = tree_util.tree_flatten(x0_tree)
      initial_states = [init(x0) for x0 in x0_flat]
      states_flat, subtrees = _unzip2(map(tree_util.tree_flatten, initial_states))
      return OptimizerState(states_flat, tree, subtrees)

    @functools.wraps(update)
    def tree_update(i, grad_tree, opt_state):
      states_flat, tree, subtrees = opt_state
      grad_flat, grad_tree_def = tree_util.tree_flatten(grad_tree)
      if grad_tree_def != tree:
        raise TypeError("optimizer update function was passed a gradient tree that did not "
                        "match the parameter tree structure with which it was initialized: "
                        f"parameter tree {tree} and grad tree {grad_tree_def}.")
      states = map(tree_util.tree_unflatten, subtrees, states_flat)
      new_states = map(functools.partial(update, i), grad_flat, states)
      new_states_flat, new_subtrees = _unzip2(map(tree_util.tree_flatten, new_states))
      for subtree, new_subtree in zip(subtrees, new_subtrees):
        if new_subtree != subtree:
          raise TypeError("optimizer update function produced an output structure that did "
                          f"not match its input structure: input {subtree} and output "
                          f"{new_subtree}.")
      return OptimizerState(new_states_flat, tree, subtrees)

    @functools.wraps(get_params)
    def tree_get_params(opt_state):
      states_flat, tree, subtrees = opt_state
      states = map(tree_util.tree_unflatten, subtrees, states_flat)
      return tree_util.tree_unflatten(tree, map(get_params, states))

    return Optimizer(tree_init, tree_update, tree_get_params)

  return tree_opt_maker


# ---------------------------------------------------------------------------
# Learning-rate schedules


def constant(step_size) -> Callable:
  """The schedule ``i -> step_size``."""
  def schedule(i):
    return step_size
  return schedule


def exponential_decay(step_size, decay_steps, decay_rate) -> Callable:
  """``i -> step_size * decay_rate ** (i / decay_steps)``."""
  def schedule(i):
    return step_size * decay_rate ** (i / decay_steps)
  return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase: bool = False) -> Callable:
  """``i -> step_size / (1 + decay_rate * i / decay_steps)`` (``floor`` of the ratio with
  ``staircase``)."""
  if staircase:
    def schedule(i):
      return step_size / (1 + decay_rate * jnp.floor(np.divide(i, decay_steps)
                                                     if isinstance(i, (int, float))
                                                     else i / decay_steps))
  else:
    def schedule(i):
      return step_size / (1 + decay_rate * i / decay_steps)
  return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Callable:
  """Decays from ``step_size`` to ``final_step_size`` over ``decay_steps`` steps as
  ``(1 - i / decay_steps) ** power``, then stays at ``final_step_size``."""

  def schedule(step_num):
    step_num = jnp.minimum(step_num, decay_steps)
    step_mult = (1 - step_num / decay_steps) ** power
    return step_mult * (step_size - final_step_size) + final_step_size
  return schedule


def piecewise_constant(boundaries, values) -> Callable:
  """``values[k]`` for steps between ``boundaries[k-1]`` and ``boundaries[k]``."""
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if not boundaries.shape[0] == values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")

  def schedule(i):
    return values[jnp.sum(i > boundaries)]
  return schedule


def make_schedule(scalar_or_schedule) -> Callable:
  """A schedule from a callable (returned as is) or a constant step size."""
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  if np.ndim(scalar_or_schedule) == 0:
    return constant(scalar_or_schedule)
  raise TypeError(type(scalar_or_schedule))


# ---------------------------------------------------------------------------
# Optimizers


def _params_of(state):
  """get_params of optimizers whose per-parameter state is ``(x, *statistics)``."""
  return state[0]


def _with_zeros(count: int):
  """init of optimizers whose state is ``x0`` followed by ``count`` zero arrays like it."""
  def init(x0):
    return (x0, *[jnp.zeros_like(x0) for _ in range(count)])
  return init


@optimizer
def sgd(step_size):
  """Stochastic gradient descent: ``x -= step_size(i) * g``."""
  step_size = make_schedule(step_size)

  def init(x0):
    return x0

  def update(i, g, x):
    return x - step_size(i) * g

  def get_params(x):
    return x

  return init, update, get_params


@optimizer
def momentum(step_size, mass: float):
  """Gradient descent with momentum ``mass``."""
  step_size = make_schedule(step_size)
  init = _with_zeros(1)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * velocity, velocity

  return init, update, _params_of


@optimizer
def nesterov(step_size, mass: float):
  """Gradient descent with Nesterov momentum ``mass``."""
  step_size = make_schedule(step_size)
  init = _with_zeros(1)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * (mass * velocity + g), velocity

  return init, update, _params_of


@optimizer
def adagrad(step_size, momentum=0.9):
  """Adagrad with momentum: steps scaled by the inverse root of the summed squared gradients."""
  step_size = make_schedule(step_size)
  init = _with_zeros(2)

  def update(i, g, state):
    x, g_sq, m = state
    g_sq = g_sq + jnp.square(g)
    g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
    m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
    return x - step_size(i) * m, g_sq, m

  return init, update, _params_of


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
  """RMSProp: steps scaled by a running average of squared gradients (decay ``gamma``)."""
  step_size = make_schedule(step_size)
  init = _with_zeros(1)

  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

  return init, update, _params_of


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
  """RMSProp with momentum."""
  step_size = make_schedule(step_size)
  init = _with_zeros(2)

  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x - mom, avg_sq_grad, mom

  return init, update, _params_of


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Adam: bias-corrected running averages of the gradient (``b1``) and its square (``b2``)."""
  step_size = make_schedule(step_size)
  init = _with_zeros(2)

  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * jnp.square(g) + b2 * v
    mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
    vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
    return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

  return init, update, _params_of


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """AdaMax: Adam with the infinity norm of past gradients."""
  step_size = make_schedule(step_size)
  init = _with_zeros(2)

  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m
    u = jnp.maximum(b2 * u, jnp.abs(g))
    x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
    return x, m, u

  return init, update, _params_of


@optimizer
def sm3(step_size, momentum=0.9):
  """SM3: memory-efficient adaptive steps with one accumulator per axis."""
  step_size = make_schedule(step_size)

  def splice(seq, i, x):
    lst = list(seq)
    lst[i:i + 1] = x
    return lst

  def broadcast_into(ndim, x, axis):
    idx = splice([None] * ndim, axis, [slice(None)])
    return x[tuple(idx)]

  def init(x0):
    x_shape = x0.shape
    x0 = jnp.atleast_1d(x0)
    vs = [jnp.zeros(size, dtype=x0.dtype) for size in x0.shape]
    return x0, jnp.zeros_like(x0), vs, x_shape

  def update(i, g, state):
    x, m, vs, x_shape = state
    g = jnp.atleast_1d(g)
    vs = [broadcast_into(g.ndim, v, axis) for axis, v in enumerate(vs)]
    accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
    accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
    m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
    x = x - step_size(i) * m
    vs = [accum.max(tuple(splice(range(x.ndim), j, []))) for j in range(x.ndim)]
    return x, m, vs, x_shape

  def get_params(state):
    x, _, _, x_shape = state
    return x.reshape(x_shape)

  return init, update, get_params


# ---------------------------------------------------------------------------
# Utilities


def l2_norm(tree):
  """The l2 norm of all the leaves of ``tree`` together."""
  leaves = tree_util.tree_leaves(tree)
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
  """Scales ``grad_tree`` down so its l2 norm is at most ``max_norm``."""
  norm = l2_norm(grad_tree)
  return tree_util.tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                            grad_tree)


class JoinPoint:
  """Marks where a per-parameter optimizer state subtree sits in an unpacked state."""

  def __init__(self, subtree):
    self.subtree = subtree

  def __iter__(self):
    yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState):
  """The optimizer state as a pytree of the parameters' structure whose leaves are
  ``JoinPoint``s holding each parameter's state (for saving; see pack_optimizer_state)."""
  states_flat, tree_def, subtree_defs = opt_state
  subtrees = map(tree_util.tree_unflatten, subtree_defs, states_flat)
  return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree) -> OptimizerState:
  """Inverse of ``unpack_optimizer_state``."""
  sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
  if not all(isinstance(s, JoinPoint) for s in sentinels):
    raise TypeError("pack_optimizer_state expects a pytree whose leaves are the JoinPoints made "
                    "by unpack_optimizer_state")
  states_flat, subtree_defs = _unzip2(tree_util.tree_flatten(s.subtree) for s in sentinels)
  return OptimizerState(states_flat, tree_def, subtree_defs)
