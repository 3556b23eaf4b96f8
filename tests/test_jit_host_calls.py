"""Small jitted programs answered on the host (xla/host_calls.py): a call of a signature seen
before, with host-valued Array arguments, runs the equations' exact NumPy kernels instead of
the compiled program. Its results must be the compiled program's bits; programs XLA would
compute differently (fused multiply-adds, simplifications that change a bit), subnormal
values and device-resident, donated or non-Array arguments must run the program."""
import random

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax
from axle._src.xla import host_calls

# (no product or square of two of them is subnormal)
SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1.5e-18,
                     -2.5, 0.1, 7.0, 1e-10, -1e20, 0.75], np.float32)


def _bits(tree):
  return [(np.asarray(leaf).dtype, np.asarray(leaf).shape, np.asarray(leaf).tobytes())
          for leaf in jax.tree_util.tree_leaves(tree)]


def _on_host(tree) -> bool:
  """Whether every result was computed on the host (a compiled call's results are
  device-backed Arrays until read)."""
  return all(leaf._buffer is None and leaf._value is not None
             for leaf in jax.tree_util.tree_leaves(tree))


def _compiled(f, *args):
  """The compiled program's answer (an ahead-of-time compiled call never answers on the
  host)."""
  return jax.jit(f).lower(*args).compile()(*args)


def _host_call(f, *args):
  """The second call of ``jit(f)`` (the first compiles and makes the call plan)."""
  jitted = jax.jit(f)
  jitted(*args)
  return jitted(*args)


def _arrays(*values):
  return [jnp.asarray(v) for v in values]


ANSWERED_ON_HOST = {
    "x + 1.0": lambda x, y: x + 1.0,
    "x * y": lambda x, y: x * y,
    "x - x": lambda x, y: x - x,
    "where": lambda x, y: jnp.where(x > 0, x, y),
    "comparisons": lambda x, y: ((x < y) & (x >= -1.0), x != y),
    "abs, neg": lambda x, y: (abs(x) - y, -x),
    "x ** 3": lambda x, y: x ** 3,
    "square": lambda x, y: jnp.square(x),
    "floor, ceil, sign": lambda x, y: jnp.floor(x) + jnp.ceil(y) - jnp.sign(x),
    "astype": lambda x, y: (x.astype(jnp.int32), (x > y).astype(jnp.float32) + y),
    "reshape, transpose": lambda x, y: x.reshape(4, 4).T + 1.0,
    "outer broadcast": lambda x, y: x[None, :] - y[:, None],
    "a dict": lambda x, y: {"a": x * 2.0, "b": y - 1.0, "c": x},
    "a constant result": lambda x, y: (x, 3),
    "stack, concatenate": lambda x, y: (jnp.stack([x, y]), jnp.concatenate([y, x, y])),
    "slices, reversal, padding": lambda x, y: (x[2:9:3], y[::-1], jnp.pad(x, (2, 1))),
    "gather, dynamic slice": lambda x, y: (x[jnp.array([3, 0, 15, -1])], lax.dynamic_slice(y, (5,), (4,)),
                                           lax.dynamic_update_slice(x, y[:3], (14,))),
    "clamp, shifts": lambda x, y: (lax.clamp(-1.0, x, 2.0),
                                   lax.shift_left(x.astype(jnp.int32), 3) >> 1),
    # a select between sums with constants keeps XLA from folding them
    "where between sums": lambda x, y: jnp.where(x > 0, -(x + jnp.full_like(x, 0.1)), y) + 0.7,
}


@pytest.fixture
def free_kernels(monkeypatch):
  """Every kernel estimated as cheap as an elementwise one (programs the cost model would send
  to XLA answer on the host: their bits are what is tested)."""
  monkeypatch.setattr(host_calls, "_HOST_EQUATION_COSTS", {})
  monkeypatch.setattr(host_calls, "_HOST_FLOAT_TO_INTEGER_COST", host_calls._HOST_PER_EQUATION)


@pytest.mark.parametrize("name", sorted(ANSWERED_ON_HOST))
def test_programs_of_exact_kernels_answer_on_the_host_with_xlas_bits(name, free_kernels):
  f = ANSWERED_ON_HOST[name]
  x, y = _arrays(SPECIALS, np.roll(SPECIALS, 5))
  out = _host_call(f, x, y)
  assert _on_host(out)
  assert _bits(out) == _bits(_compiled(f, x, y))


RUN_COMPILED = {
    # XLA contracts a product feeding a sum into one fused multiply-add (one rounding)
    "x * y + 1.0": lambda x, y: x * y + 1.0,
    "-(x * y) + y": lambda x, y: -(x * y) + y,
    "where(x > 0, x * y, 0.0) - y": lambda x, y: jnp.where(x > 0, x * y, 0.0) - y,
    # XLA folds constants of chained sums and products: x - 3.0 and x * 0.3 (other bits)
    "(x - 1.5) - 1.5": lambda x, y: (x - 1.5) - 1.5,
    "3.0 + (3.0 - x)": lambda x, y: 3.0 + (3.0 - x),
    "(x * 0.1) * 3.0": lambda x, y: (x * 0.1) * 3.0,
    "-(x + full_like) + 0.7": lambda x, y: -(x + jnp.full_like(x, 0.1)) + 0.7,
    # XLA simplifies x + 0.0 to x: -0.0 stays -0.0 (NumPy: +0.0); the probe finds it
    "x + 0.0": lambda x, y: x + 0.0,
    # kernels that are not exact (NaN signs of max, XLA's division and reductions)
    "maximum": lambda x, y: jnp.maximum(x, y),
    "x / 3.0": lambda x, y: x / 3.0,
    "sum": lambda x, y: jnp.sum(x),
    "sin": lambda x, y: jnp.sin(x),
}


@pytest.mark.parametrize("name", sorted(RUN_COMPILED))
def test_programs_xla_computes_otherwise_run_compiled(name):
  f = RUN_COMPILED[name]
  x, y = _arrays(SPECIALS, np.roll(SPECIALS, 3))
  out = _host_call(f, x, y)
  assert not _on_host(out)
  assert _bits(out) == _bits(_compiled(f, x, y))


def test_subnormal_arguments_and_results_run_compiled():
  f = jax.jit(lambda x, y: x * y)
  normal = jnp.asarray(np.float32([1.0, 2.0, 3.0]))
  f(normal, normal)
  assert _on_host(f(normal, normal))
  tiny = jnp.asarray(np.float32([1e-39, 2.0, 3.0]))  # a subnormal argument: XLA reads 0
  out = f(tiny, normal)
  assert not _on_host(out)
  assert np.asarray(out)[0] == 0.0
  small = jnp.asarray(np.float32([1e-20, 1.0, 1.0]))  # a subnormal product: XLA writes 0
  out = f(small, jnp.asarray(np.float32([1e-19, 1.0, 1.0])))
  assert not _on_host(out)
  assert np.asarray(out)[0] == 0.0 and not np.signbit(np.asarray(out)[0])
  assert _on_host(f(normal, normal))  # the plan keeps answering on the host after


def test_device_resident_arguments_run_compiled():
  f = jax.jit(lambda x: x + 1.0)
  x = jnp.arange(4.0)
  f(x)
  on_device = jnp.exp(x)  # an XLA result not read yet
  assert on_device._value is None
  out = f(on_device)
  assert not _on_host(out)
  assert on_device._value is None  # not waited for
  np.testing.assert_array_equal(np.asarray(out), np.asarray(jnp.exp(x)) + 1.0)


def test_donated_arguments_run_compiled():
  donating = jax.jit(lambda x: x + 1.0, donate_argnums=0)
  x = jnp.arange(4.0)
  donating(x)
  y = jnp.arange(4.0)
  out = donating(y)
  assert not _on_host(out) and y.is_deleted()


def test_numpy_and_python_scalar_arguments():
  f = jax.jit(lambda x, s: (x + s, x.reshape(2, 2), s))
  host = np.arange(4.0, dtype=np.float32)
  f(host, 2.0)
  out = f(host, 2.0)
  assert _on_host(out)
  assert _bits(out) == _bits(_compiled(f, host, 2.0))
  host[0] = 10.0  # the caller's array may change: the results (even a reshape) do not
  np.testing.assert_array_equal(np.asarray(out[0]), [2.0, 3.0, 4.0, 5.0])
  np.testing.assert_array_equal(np.asarray(out[1]), [[0.0, 1.0], [2.0, 3.0]])
  assert out[2].weak_type
  for scalar in [-0.0, 0.0, float("nan"), 1e39, -1e-40, 3.5]:  # 1e39: inf; -1e-40: XLA's -0.0
    with np.errstate(over="ignore"):
      got = f(host, scalar)
    with np.errstate(over="ignore"):
      want = _compiled(f, host, scalar)
    assert _bits(got) == _bits(want), scalar
  assert not _on_host(f(host, -1e-40))  # a subnormal scalar: the compiled program
  g = jax.jit(lambda x, n: x * n)
  i = jnp.arange(3)
  g(i, 3)
  assert _on_host(g(i, 5))
  np.testing.assert_array_equal(np.asarray(g(i, -2)), [0, -2, -4])
  with pytest.raises(OverflowError):
    g(i, 2 ** 40)  # as the compiled call: a Python int beyond int32
  g(np.arange(3, dtype=np.int32), 2)  # (a new form of call: its plan is made)
  assert _on_host(g(np.arange(3, dtype=np.int32), 2))


def test_small_numpy_arguments_are_remembered_by_their_contents():
  f = jax.jit(lambda x: (x * 2.0, x.T))
  host = np.array([[1.0, -0.0], [np.nan, 4.0]], np.float32)
  f(host)
  first = f(host)
  assert _on_host(first)
  host[0, 1] = 0.0  # +0.0: other bytes, another value
  second = f(host)
  assert np.signbit(np.asarray(first[0])[0, 1]) and not np.signbit(np.asarray(second[0])[0, 1])
  assert np.signbit(np.asarray(first[1])[1, 0])  # the first results did not change
  strided = np.arange(8.0, dtype=np.float32).reshape(2, 4)[:, ::2]  # not contiguous
  out = f(np.ascontiguousarray(strided))
  out = f(strided)
  assert _bits(out) == _bits(_compiled(f, strided))
  wide = np.array([[1.0, 2.0], [3.0, 1e-300]])  # float64 in, float32 (a subnormal: flushed)
  f(wide)
  assert _bits(f(wide)) == _bits(_compiled(f, wide))


def test_host_results_are_fresh_immutable_arrays():
  f = jax.jit(lambda x: (x, x.reshape(2, 2), 7.0))
  x = jnp.arange(4.0)
  f(x)
  a, b, c = f(x)
  assert _on_host((a, b, c))
  assert a is not x
  for out in (a, b, c):
    with pytest.raises(ValueError):
      np.asarray(out)[...] = 0
  assert c.weak_type and c.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(c), 7.0)


def test_large_or_long_programs_run_compiled():
  big = jnp.ones(4096)
  f = jax.jit(lambda x: x + 1.0)
  f(big)
  assert not _on_host(f(big))

  def long_chain(x):
    for _ in range(12):
      x = -x
    return x
  g = jax.jit(long_chain)
  x = jnp.arange(3.0)
  g(x)
  assert not _on_host(g(x))
  # a few equations with expensive kernels: jnp.take (index normalisation, a gather)
  x, i = _arrays(np.linspace(0.0, 1.0, 100, dtype=np.float32), np.arange(100, dtype=np.int32) % 7)
  take = jax.jit(lambda x, i: jnp.take(x, i))
  take(x, i)
  assert not _on_host(take(x, i))
  assert _on_host(_host_call(lambda x, i: x[3:50] * 2.0, x, i))  # cheap ones still do


def test_x64_and_integer_programs():
  with jax.enable_x64(True):
    x = jnp.asarray(np.array([1.0, -0.0, np.inf, 1e300, -2.5]))
    i = jnp.asarray(np.array([1, -2, 2 ** 62, -(2 ** 63), 5]))
    f = lambda x, i: (x * 3.0, x - 1e-300, i * 3 + 1, (i > 0) & (x > 0))
    out = _host_call(f, x, i)
    assert _on_host(out)
    assert _bits(out) == _bits(_compiled(f, x, i))


def test_debug_nans_still_raises():
  f = jax.jit(lambda x: x - x)
  x = jnp.asarray(np.float32([1.0, np.inf]))
  f(x)
  f(x)
  with jax.debug_nans(True):
    with pytest.raises(FloatingPointError):
      f(x)


# Random programs of the equations a host function runs, on special values: the host answer
# (where it is used) must be the compiled program's.
_UNARY = [lambda a: -a, abs, jnp.floor, jnp.ceil, jnp.sign, lambda a: a ** 2,
          lambda a: a.reshape(4, 4).T.reshape(16), lambda a: jnp.where(a > 0.5, a, -a)]
_BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
           lambda a, b: jnp.where(a < b, a, b), lambda a, b: (a == b).astype(a.dtype) + b,
           lambda a, b: a * 0.25, lambda a, b: a - 1.5, lambda a, b: 3.0 + b]


def _random_program(seed: int):
  rng = random.Random(seed)
  steps = [(rng.random() < 0.4, rng.randrange(8), rng.randrange(8), rng.randrange(8))
           for _ in range(rng.randrange(1, 6))]

  def program(x, y, z):
    values = [x, y, z]
    for unary, op, first, second in steps:
      a, b = values[first % len(values)], values[second % len(values)]
      values.append(_UNARY[op](a) if unary else _BINARY[op](a, b))
    return values[3:]
  return program


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_agree_with_the_compiled_program(seed):
  program = _random_program(seed)
  rng = np.random.default_rng(seed)
  x, y, z = _arrays(rng.permutation(SPECIALS), rng.permutation(SPECIALS),
                    rng.uniform(-3, 3, 16).astype(np.float32))
  out = _host_call(program, x, y, z)
  assert _bits(out) == _bits(_compiled(program, x, y, z))


def test_random_programs_mostly_answer_on_the_host():
  answered = 0
  for seed in range(20):
    program = _random_program(seed)
    x, y, z = _arrays(SPECIALS, np.roll(SPECIALS, 7), np.linspace(-3, 3, 16, dtype=np.float32))
    answered += _on_host(_host_call(program, x, y, z))
  assert answered >= 12


def test_host_function_refuses_programs_it_cannot_run():
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) + 1.0)(jnp.ones(3))
  assert host_calls.host_function(closed, ["array"]) is None
  closed = jax.make_jaxpr(lambda x, y: x * y + 1.0)(jnp.ones(3), jnp.ones(3))
  assert host_calls.host_function(closed, ["array"] * 2) is None
  closed = jax.make_jaxpr(lambda x: x + 1.0)(jnp.ones(3, jnp.complex64))
  assert host_calls.host_function(closed, ["array"]) is None
  closed = jax.make_jaxpr(lambda x: x + np.float32(1e-40))(jnp.ones(3))  # a subnormal constant
  assert host_calls.host_function(closed, ["array"]) is None
  closed = jax.make_jaxpr(lambda x: lax.add(x, x))(jnp.ones(3))
  assert host_calls.host_function(closed, ["array"]) is not None
