"""Eager float32 tanh on the host (the C module's copy of XLA's approximation) gives the
compiled program's bits; where the module cannot give them, the program runs."""
import contextlib

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import special

pytestmark = pytest.mark.skipif(special._c_tanh is None,
                                reason="the C module's tanh needs x86-64 with AVX2 and FMA")

_compiled_tanh = axle.jit(jnp.tanh)


@contextlib.contextmanager
def _without_c_tanh():
  saved = special._c_tanh
  special._c_tanh = None
  eval_interpreter._policy_changed()
  try:
    yield
  finally:
    special._c_tanh = saved
    eval_interpreter._policy_changed()


def _bits(x):
  x = np.asarray(x)
  return x.dtype, x.shape, x.tobytes()


def _patterns(rng, n):
  """float32 inputs of every kind: random bit patterns (every exponent, subnormals, NaNs with
  payloads, infinities), a dense grid over the approximation's range and its edges."""
  bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
  edges = np.array([0.0, -0.0, 4e-4, -4e-4, 7.99881172180175781, -7.99881172180175781, 9.0,
                    20.0, -20.0, np.inf, -np.inf, np.nan], np.float32)
  near = np.concatenate([np.nextafter(edges[2:10], np.float32(np.inf)),
                         np.nextafter(edges[2:10], np.float32(-np.inf))]).astype(np.float32)
  grid = np.linspace(-25, 25, n, dtype=np.float32)
  return np.concatenate([bits.view(np.float32), edges, near, grid])


def test_the_kernel_is_xlas_tanh_bit_for_bit():
  # (tools/check_float32_tanh.py compares all 2**32 inputs; here a sample of every kind, in
  # the vector loop and in its tail)
  x = _patterns(np.random.default_rng(0), 1 << 20)
  want = np.asarray(_compiled_tanh(x))
  for offset in (0, 1, 5):
    out = np.empty(x.size - offset, np.float32)
    special._c_tanh(x[offset:], out)
    assert out.tobytes() == want[offset:].tobytes()
  # arrays shorter than the eight lanes: the scalar loop alone
  out = np.empty(7, np.float32)
  for start in range(0, 7 * 4000, 7):
    special._c_tanh(x[start:start + 7], out)
    assert out.tobytes() == want[start:start + 7].tobytes(), start


@pytest.mark.parametrize("make", [
    lambda rng: rng.standard_normal((100, 100)).astype(np.float32),
    lambda rng: rng.standard_normal(7).astype(np.float32) * 5,
    lambda rng: np.float32(0.25),
    lambda rng: np.zeros((0, 3), np.float32),
    lambda rng: np.asarray(jnp.ones((100, 100))),          # one element broadcast
    lambda rng: np.asarray(jnp.full((3, 4), -0.3)),
    lambda rng: rng.standard_normal((6, 8)).astype(np.float32)[::2, 1::3],  # strided
    lambda rng: rng.standard_normal((5, 4)).astype(np.float32).T,
], ids=["matrix", "vector", "scalar", "empty", "ones", "full", "strided", "transposed"])
def test_eager_tanh_runs_on_the_host_with_the_compiled_bits(make):
  x = make(np.random.default_rng(1))
  out = jnp.tanh(x)
  assert out._buffer is None and out._value is not None  # the host kernel answered
  assert _bits(out) == _bits(_compiled_tanh(x))
  assert _bits(lax.tanh(jnp.asarray(x))) == _bits(out)


def test_subnormal_operands_and_other_dtypes_run_the_program():
  tiny = np.array([1e-40, -3e-39, 0.5], np.float32)
  out = jnp.tanh(tiny)
  assert _bits(out) == _bits(_compiled_tanh(tiny))
  for dtype in (np.float16, jnp.bfloat16, np.float64):
    x = np.linspace(-3, 3, 11).astype(dtype)
    with axle.enable_x64(dtype == np.float64):
      assert _bits(jnp.tanh(x)) == _bits(_compiled_tanh(x))


def test_accuracy_other_than_default_runs_the_program():
  x = np.linspace(-3, 3, 11, dtype=np.float32)
  assert not special._host_tanh((axle.core.ShapedArray((11,), np.dtype(np.float32)),),
                                {"accuracy": lax.AccuracyMode.HIGHEST})
  out = lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)
  assert out._buffer is not None or out._value is None  # not the host kernel's result


def test_without_the_c_module_the_program_answers():
  x = np.random.default_rng(2).standard_normal(100).astype(np.float32)
  with _without_c_tanh():
    out = jnp.tanh(x)
    assert out._value is None or out._buffer is not None
    assert _bits(out) == _bits(_compiled_tanh(x))


def test_transformations_see_the_same_numbers():
  # vmap(grad) eagerly, op by op: the host kernel where it applies, the programs otherwise (jit
  # would fuse the derivative's arithmetic, as in JAX, and round it differently)
  x = np.linspace(-2, 2, 9, dtype=np.float32)
  f = axle.vmap(axle.grad(lambda v: jnp.tanh(v) * 2.0))
  with _without_c_tanh():
    want = f(x)
  assert _bits(f(x)) == _bits(want)
