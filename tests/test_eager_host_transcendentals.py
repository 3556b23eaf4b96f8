"""Eager float32 tanh, sin, cos and tan on the host (the C module's functions: a copy of
XLA's tanh approximation, and the C library's functions XLA calls for the others) give the
compiled program's bits; where the module cannot give them, the program runs."""
import contextlib
import platform

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.core import ShapedArray
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import special

_FUNCTIONS = {"tanh": jnp.tanh, "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan}
_LAX = {"tanh": lax.tanh, "sin": lax.sin, "cos": lax.cos, "tan": lax.tan}
_COMPILED = {name: axle.jit(function) for name, function in _FUNCTIONS.items()}


def _built(name):
  return pytest.param(name, marks=pytest.mark.skipif(
      special._c_kernels[name] is None,
      reason=f"the C module's {name} is not used on this machine (not built, or unverified)"))


_NAMES = [_built(name) for name in _FUNCTIONS]


@contextlib.contextmanager
def _without_c_kernel(name):
  saved = special._c_kernels[name]
  special._c_kernels[name] = None
  eval_interpreter._policy_changed()
  try:
    yield
  finally:
    special._c_kernels[name] = saved
    eval_interpreter._policy_changed()


def _bits(x):
  x = np.asarray(x)
  return x.dtype, x.shape, x.tobytes()


def _patterns(rng, n):
  """float32 inputs of every kind: random bit patterns (every exponent, subnormals, NaNs with
  payloads, infinities), a dense grid, and the edges of tanh's approximation."""
  bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
  edges = np.array([0.0, -0.0, 4e-4, -4e-4, 7.99881172180175781, -7.99881172180175781, 9.0,
                    20.0, -20.0, np.pi / 2, 1e4, 1e30, np.inf, -np.inf, np.nan], np.float32)
  near = np.concatenate([np.nextafter(edges[2:12], np.float32(np.inf)),
                         np.nextafter(edges[2:12], np.float32(-np.inf))]).astype(np.float32)
  grid = np.linspace(-25, 25, n, dtype=np.float32)
  return np.concatenate([bits.view(np.float32), edges, near, grid])


def test_the_c_module_has_the_functions():
  # setup.py builds the module where a compiler exists (as here); tanh needs x86-64 with FMA,
  # the others glibc on x86-64, where they were compared on every input
  if platform.machine() == "x86_64" and platform.libc_ver()[0] == "glibc":
    assert all(kernel is not None for kernel in special._c_kernels.values()), special._c_kernels


@pytest.mark.parametrize("name", _NAMES)
def test_the_kernel_gives_the_programs_bits(name):
  # (tools/check_float32_host_kernels.py compares all 2**32 inputs; here a sample of every
  # kind, in tanh's vector loop and in its tail)
  c_kernel = special._c_kernels[name]
  x = _patterns(np.random.default_rng(0), 1 << 18)
  want = np.asarray(_COMPILED[name](x))
  for offset in (0, 1, 5):
    out = np.empty(x.size - offset, np.float32)
    c_kernel(x[offset:], out)
    assert out.tobytes() == want[offset:].tobytes()
  out = np.empty(7, np.float32)  # shorter than the eight lanes: the scalar loop alone
  for start in range(0, 7 * 2000, 7):
    c_kernel(x[start:start + 7], out)
    assert out.tobytes() == want[start:start + 7].tobytes(), start


_SHAPES = {
    "matrix": lambda rng: rng.standard_normal((100, 100)).astype(np.float32),
    "vector": lambda rng: rng.standard_normal(7).astype(np.float32) * 5,
    "scalar": lambda rng: np.float32(0.25),
    "empty": lambda rng: np.zeros((0, 3), np.float32),
    "ones": lambda rng: np.asarray(jnp.ones((100, 100))),  # one element broadcast
    "full": lambda rng: np.asarray(jnp.full((3, 4), -0.3)),
    "strided": lambda rng: rng.standard_normal((6, 8)).astype(np.float32)[::2, 1::3],
    "transposed": lambda rng: rng.standard_normal((5, 4)).astype(np.float32).T,
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize("name", _NAMES)
def test_eager_op_runs_on_the_host_with_the_programs_bits(name, shape):
  x = _SHAPES[shape](np.random.default_rng(1))
  out = _FUNCTIONS[name](x)
  assert out._buffer is None and out._value is not None  # the host kernel answered
  assert _bits(out) == _bits(_COMPILED[name](x))
  assert _bits(_LAX[name](jnp.asarray(x))) == _bits(out)


@pytest.mark.parametrize("name", _NAMES)
def test_subnormal_operands_and_other_dtypes_run_the_program(name):
  tiny = np.array([1e-40, -3e-39, 0.5], np.float32)
  assert _bits(_FUNCTIONS[name](tiny)) == _bits(_COMPILED[name](tiny))
  for dtype in (np.float16, jnp.bfloat16, np.float64):
    x = np.linspace(-3, 3, 11).astype(dtype)
    with axle.enable_x64(dtype == np.float64):
      assert _bits(_FUNCTIONS[name](x)) == _bits(_COMPILED[name](x))


@pytest.mark.parametrize("name", ["tanh", "sin", "cos", "tan"])
def test_accuracy_other_than_default_runs_the_program(name):
  aval = ShapedArray((11,), np.dtype(np.float32))
  assert not special._on_host(name)((aval,), {"accuracy": lax.AccuracyMode.HIGHEST})
  x = np.linspace(-3, 3, 11, dtype=np.float32)
  out = _LAX[name](x, accuracy=lax.AccuracyMode.HIGHEST)
  assert out._buffer is not None or out._value is None  # not the host kernel's result


@pytest.mark.parametrize("name", _NAMES)
def test_without_the_c_module_the_program_answers(name):
  x = np.random.default_rng(2).standard_normal(100).astype(np.float32)
  with _without_c_kernel(name):
    out = _FUNCTIONS[name](x)
    assert out._value is None or out._buffer is not None
    assert _bits(out) == _bits(_COMPILED[name](x))


@pytest.mark.parametrize("name", _NAMES)
def test_transformations_see_the_same_numbers(name):
  # vmap(grad) eagerly, op by op: the host kernels where they apply, the programs otherwise (jit
  # would fuse the derivative's arithmetic, as in JAX, and round it differently)
  x = np.linspace(-1.2, 1.2, 9, dtype=np.float32)
  f = axle.vmap(axle.grad(lambda v: _FUNCTIONS[name](v) * 2.0))
  with _without_c_kernel(name):
    want = f(x)
  assert _bits(f(x)) == _bits(want)
