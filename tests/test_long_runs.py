"""Long runs: repeated jitted calls and short-lived jitted functions must not grow memory.

These tests count allocated blocks and live objects (never time)."""
import gc
import sys
import weakref

import numpy as np

import axle as jax
import axle.numpy as jnp
from axle._src.xla import execution


def _blocks_after(step, count):
  gc.collect()
  before = sys.getallocatedblocks()
  step(count)
  gc.collect()
  return sys.getallocatedblocks() - before


def test_jitted_calls_on_device_arrays_do_not_leak():
  f = jax.jit(lambda p, b: p + b)
  b = jnp.ones(3)
  state = {"p": jnp.zeros(3)}

  def step(count):
    p = state["p"]
    for _ in range(count):
      p = f(p, b)
    state["p"] = p

  step(2_000)  # warm up: compile, fill the caches
  grown = _blocks_after(step, 20_000)
  # Before the fix every call kept one block (jaxlib's per-execution traceback): +20,000.
  assert grown < 500, f"{grown} blocks still allocated after 20,000 jitted calls"
  np.testing.assert_allclose(np.asarray(state["p"]), 22_000.0)


def test_jitted_calls_with_scalar_and_pytree_args_do_not_leak():
  f = jax.jit(lambda params, lr: jax.tree_util.tree_map(lambda w: w - lr * w, params))
  state = {"p": {"w": jnp.ones(4), "b": jnp.ones(2)}}

  def step(count):
    p = state["p"]
    for _ in range(count):
      p = f(p, 0.0)
    state["p"] = p

  step(500)
  assert _blocks_after(step, 5_000) < 500


def _jitted_and_called(scale):
  fun = lambda a: a * scale + 1.0  # noqa: E731
  jitted = jax.jit(fun)
  jitted(jnp.ones(3))
  entries = list(jitted._cache.values())
  executable = entries[0].compiled.executable
  return weakref.ref(fun), weakref.ref(jitted), weakref.ref(executable)


def test_dead_jitted_functions_are_freed():
  refs = [_jitted_and_called(float(i)) for i in range(5)]
  gc.collect()
  assert [r() for r, _, _ in refs] == [None] * 5, "a jitted function outlived its last reference"
  assert [r() for _, r, _ in refs] == [None] * 5


def test_executables_of_dead_functions_are_freed():
  # More distinct programs than the small strongly-held recent set.
  count = execution._RECENT_EXECUTABLES + 8
  refs = [_jitted_and_called(float(i) + 0.25) for i in range(count)]
  gc.collect()
  alive = [r() is not None for _, _, r in refs]
  assert not any(alive[:8]), "executables of dead jitted functions are still alive"
  jax.clear_caches()
  gc.collect()
  assert not any(r() is not None for _, _, r in refs)


def test_cache_does_not_keep_first_call_arguments_alive():
  big = jnp.ones(1000)
  ref = weakref.ref(big)
  jitted = jax.jit(lambda a: a + 1)
  jitted(big)
  del big
  gc.collect()
  assert ref() is None, "the jit cache keeps the arguments of the first call alive"
  assert jitted._cache_size() == 1


def test_clear_caches_and_clear_cache_retrace():
  traces = []

  def f(x):
    traces.append(1)
    return x * 2

  jitted = jax.jit(f)
  x = jnp.arange(3.0)
  jitted(x)
  jitted(x)
  assert len(traces) == 1
  jitted.clear_cache()
  assert jitted._cache_size() == 0
  np.testing.assert_allclose(np.asarray(jitted(x)), [0.0, 2.0, 4.0])
  assert len(traces) == 2
  jax.clear_caches()
  assert jitted._cache_size() == 0
  np.testing.assert_allclose(np.asarray(jitted(x)), [0.0, 2.0, 4.0])
  assert len(traces) == 3
  # jit of the same function shares the cleared cache, as in JAX
  jax.jit(f)(x)
  assert len(traces) == 3
