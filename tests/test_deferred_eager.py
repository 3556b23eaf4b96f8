"""Deferred eager ops (``xla/deferred.py``): an eager op on device values returns a pending
Array; a chain of them runs op by op the first time and as one compiled program once seen
again, with the bits of the op-by-op run either way."""
import contextlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.xla import deferred


def _on_device(values):
  """An Array whose value lives only in a device buffer, as an XLA result's does."""
  x = jnp.asarray(np.asarray(values, np.float32))
  x._device_buffer()
  x._value = None
  return x


def _pending(x) -> bool:
  return x._value is None and x._buffer is None and getattr(x, "_node", None) is not None


@contextlib.contextmanager
def _deferral(on: bool):
  before = axle.config.read("axle_deferred_eager")
  axle.config.update("axle_deferred_eager", on)
  try:
    yield
  finally:
    axle.config.update("axle_deferred_eager", before)


_VALUES = np.linspace(0.2, 1.9, 37).astype(np.float32)
_OTHER = np.linspace(1.3, 0.4, 37).astype(np.float32)

# one-operand steps of a chain (operand and result stay within (0, 3))
_STEPS = {
    "sin": jnp.sin, "cos": lambda x: jnp.cos(x) + 1.5, "tanh": jnp.tanh,
    "exp": lambda x: jnp.exp(x * 0.3), "log": lambda x: jnp.log(x + 1.0), "sqrt": jnp.sqrt,
    "abs": lambda x: jnp.abs(x - 0.7), "neg": lambda x: -x + 2.0, "mul": lambda x: x * 1.0001,
    "add": lambda x: x + 0.1, "div": lambda x: x / 1.7, "max": lambda x: jnp.maximum(x, 0.5),
    "min": lambda x: jnp.minimum(x, 1.5), "square": lambda x: jnp.square(x) * 0.5,
    "rsqrt": lambda x: lax.rsqrt(x + 0.5), "erf": lambda x: lax.erf(x) + 0.2,
    "floor": lambda x: jnp.floor(x * 7.0) / 7.0 + 0.1, "logistic": lambda x: lax.logistic(x),
    "mean": lambda x: x - jnp.mean(x) + 1.0, "atan2": lambda x: jnp.arctan2(x, 0.8) + 0.3,
    "reduce_max": lambda x: x - lax.reduce_max(x, (0,)) + 2.5,
    "cumsum": lambda x: lax.cumsum(x) * 0.05 + 0.1,
    "dot": lambda x: x * (lax.dot(x, x) * 0.01) + 0.1,
    "select": lambda x: lax.select(x > 1.0, x, x * 0.5 + 0.6),
    "pow": lambda x: lax.pow(x, 1.3) * 0.7, "expm1": lambda x: jnp.expm1(x * 0.5),
    "log1p": jnp.log1p, "reverse": lambda x: lax.rev(x, (0,)),
}


@contextlib.contextmanager
def _compile_after(ops: int):
  """Graphs of any size compile once ``ops`` ops of them have run op by op (0: at once)."""
  before = deferred._COMPILE_AFTER_OPS, deferred._MIN_COMPILED_OPS
  deferred._COMPILE_AFTER_OPS, deferred._MIN_COMPILED_OPS = ops, 0
  try:
    yield
  finally:
    deferred._COMPILE_AFTER_OPS, deferred._MIN_COMPILED_OPS = before


def _run_chain(names, x, y):
  for name in names:
    x = _STEPS[name](x)
    x = x * y + 0.01  # a second device operand
  return x


def _check_chain(names):
  with _deferral(False):
    expected = np.asarray(_run_chain(names, _on_device(_VALUES), _on_device(_OTHER)))
  for threshold in (10**9, 0, 0):  # op by op, compiled, then the compiled program again
    with _compile_after(threshold):
      out = _run_chain(names, _on_device(_VALUES), _on_device(_OTHER))
      assert _pending(out)
      np.testing.assert_array_equal(np.asarray(out), expected, err_msg=" -> ".join(names))


def test_every_step_in_a_chain_keeps_the_op_by_op_bits():
  _check_chain(list(_STEPS))
  _check_chain(list(reversed(_STEPS)))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(sorted(_STEPS)), min_size=1, max_size=8))
def test_random_chains_keep_the_op_by_op_bits(names):
  _check_chain(names)


def test_a_graph_run_often_in_a_loop_is_compiled_and_a_one_off_graph_is_not():
  deferred.clear_caches()
  y = _on_device(_OTHER)

  def step(x):  # 8 ops
    return jnp.tanh(jnp.sin(jnp.cos(x) * y + 0.5) - 0.25) * 1.5 + 0.1

  one_off = jnp.exp(step(_on_device(_VALUES)) + 1.0)
  one_off_key = one_off._node.key
  np.asarray(one_off)
  small = jnp.cos(jnp.sin(_on_device(_VALUES)))
  small_key = small._node.key
  runs = -(-deferred._COMPILE_AFTER_OPS // 8)
  for _ in range(runs):
    out = step(_on_device(_VALUES))
    key = out._node.key
    assert key not in deferred._fused
    np.asarray(out)
    np.asarray(jnp.cos(jnp.sin(_on_device(_VALUES))))  # too small to be worth a compile
  assert deferred._fused.get(key) is not None
  assert one_off_key not in deferred._fused and small_key not in deferred._fused


def test_shared_operands():
  def f(d):
    a = jnp.sin(d)
    b = a * a + a  # a is read by two ops
    return jnp.maximum(b, a) - jnp.cos(a)
  with _deferral(False):
    expected = np.asarray(f(_on_device(_VALUES)))
  for _ in range(3):
    np.testing.assert_array_equal(np.asarray(f(_on_device(_VALUES))), expected)


def test_a_pending_array_behaves_as_an_array():
  d = _on_device(_VALUES)
  with _deferral(False):
    expected = jnp.cos(d) * 2.0
  p = jnp.cos(d) * 2.0
  assert _pending(p) and not p.is_deleted()
  assert p.shape == expected.shape and p.dtype == expected.dtype
  assert repr(p) == repr(expected)
  assert p.block_until_ready() is p and p._buffer is not None and not _pending(p)
  q = jnp.cos(d) * 2.0
  assert float(q[3]) == float(expected[3])
  np.testing.assert_array_equal(np.asarray(axle.jit(lambda v: v + 1.0)(jnp.cos(d) * 2.0)),
                                np.asarray(expected + 1.0))
  np.testing.assert_array_equal(np.asarray((jnp.cos(d) * 2.0).at[0].set(7.0))[1:],
                                np.asarray(expected)[1:])


def test_deleting_a_pending_array():
  p = jnp.exp(_on_device(_VALUES))
  p.delete()
  assert p.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    np.asarray(p)
  with pytest.raises(RuntimeError, match="deleted"):
    jnp.sin(p)


def test_donating_or_deleting_an_operand_of_pending_ops():
  d = _on_device(_VALUES)
  with _deferral(False):
    expected = [np.asarray(jnp.cos(d)), np.asarray(jnp.exp(d) * 3.0)]
  readers = [jnp.cos(d), jnp.exp(d) * 3.0]
  assert all(_pending(r) for r in readers)
  axle.jit(lambda v: v * 2.0, donate_argnums=0)(d)
  assert d.is_deleted()
  for reader, want in zip(readers, expected):
    np.testing.assert_array_equal(np.asarray(reader), want)
  e = _on_device(_VALUES)
  reader = jnp.sin(e)
  e.delete()
  with _deferral(False):
    expected = np.asarray(jnp.sin(_on_device(_VALUES)))
  np.testing.assert_array_equal(np.asarray(reader), expected)


def test_long_chains_run_in_pieces():
  def f(x):
    for _ in range(1000):
      x = x * 1.0001 + 0.001
    return x
  with _deferral(False):
    expected = np.asarray(f(_on_device(_VALUES)))
  out = f(_on_device(_VALUES))
  assert out._node.size <= deferred.MAX_OPS
  np.testing.assert_array_equal(np.asarray(out), expected)


def test_off_and_under_debug_nans_every_op_runs_at_once():
  with _deferral(False):
    out = jnp.cos(_on_device(_VALUES))
    assert out._buffer is not None
  with axle.debug_nans(True):
    with pytest.raises(FloatingPointError):
      jnp.log(_on_device(_VALUES) - 5.0)


def _check_program(f, *args):
  with _deferral(False):
    expected = np.asarray(f(*args))
  for threshold in (10**9, 0, 0):
    with _compile_after(threshold):
      np.testing.assert_array_equal(np.asarray(f(*args)), expected)


def test_matrix_ops_keep_the_op_by_op_bits():
  rng = np.random.default_rng(0)
  m = _on_device(rng.standard_normal((24, 16)))
  w = _on_device(rng.standard_normal((16, 8)))
  _check_program(lambda m, w: jnp.tanh(m @ w).T @ jnp.sin(m) * 0.5 + jnp.sum(m, axis=0), m, w)
  _check_program(lambda m, w: lax.dot(jnp.sin(m) * 1.5, jnp.exp(w)) - lax.dot(m, w), m, w)
  _check_program(lambda m, w: lax.reduce_sum(jnp.cos(m), (1,)) * lax.reduce_max(m, (1,)), m, w)
  image = _on_device(rng.standard_normal((2, 3, 12, 12)))
  kernel = _on_device(rng.standard_normal((4, 3, 3, 3)))
  _check_program(
      lambda x, k: jnp.maximum(lax.conv_general_dilated(jnp.cos(x), k * 0.5, (1, 1), "SAME"),
                               0.0).reshape(2, -1) @ jnp.ones((576, 3)),
      image, kernel)


def test_a_compiled_graph_whose_leaf_was_deleted_after_its_reader_ran():
  y = _on_device(_OTHER)

  def step(a):  # 8 ops, the first reading a
    return jnp.tanh(jnp.sin(jnp.cos(a) * y + 0.5) - 0.25) * 1.5 + 0.1

  with _compile_after(0):
    np.asarray(step(_on_device(_VALUES)))  # compiled
    x = _on_device(_VALUES)
    first = jnp.cos(x)
    out = jnp.tanh(jnp.sin(first * y + 0.5) - 0.25) * 1.5 + 0.1
    np.asarray(first)
    x.delete()  # the compiled graph of out would read x: op by op instead
    with _deferral(False):
      expected = np.asarray(step(_on_device(_VALUES)))
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_ops_on_large_arrays_run_at_once():
  big = _on_device(np.ones(deferred.MAX_ELEMENTS + 1))
  assert jnp.sin(big)._buffer is not None  # (a pending op would keep its operand alive)
  small = _on_device(np.ones(deferred.MAX_ELEMENTS))
  assert _pending(jnp.sin(small))


def test_compiling_a_graph_part_of_which_was_already_computed():
  y = _on_device(_OTHER)
  with _deferral(False):
    expected = np.asarray(jnp.tanh(jnp.sin(jnp.cos(_on_device(_VALUES)) * y + 0.5)))
  deferred.clear_caches()
  with _compile_after(0):
    first = jnp.cos(_on_device(_VALUES))
    out = jnp.tanh(jnp.sin(first * y + 0.5))
    np.asarray(first)  # computed on its own; the compiled graph of out recomputes it
    key = out._node.key
    np.testing.assert_array_equal(np.asarray(out), expected)
  assert deferred._fused.get(key) is not None


def test_block_until_ready_of_flat_tuples_and_lists():
  # (a flat tuple or list of Arrays is waited for without flattening the tree)
  device = jnp.exp(jnp.ones(3))
  host = jnp.asarray(np.ones(2, np.float32))
  pending = device * 2.0  # (a deferred op: computed by the wait)
  assert pending._node is not None
  for tree in [(device, host, pending), [pending, device], (), (device, {"a": host}), (1, device)]:
    assert axle.block_until_ready(tree) is tree
  assert pending._node is None
  np.testing.assert_allclose(np.asarray(pending), 2 * np.exp(np.ones(3)), rtol=1e-6)
  deleted = jnp.exp(jnp.ones(4))
  deleted.delete()
  with pytest.raises(RuntimeError, match="Array has been deleted"):
    axle.block_until_ready((device, deleted))
  with pytest.raises(RuntimeError, match="Array has been deleted"):
    axle.block_until_ready([deleted])
