"""axle.numpy behaviour the reference table does not cover: vectorize / apply_along_axis (vmap),
ufunc objects, Array methods, einsum path options, value-dependent shapes eagerly."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import axle
import axle.numpy as jnp


def test_vectorize_signature_eager_and_jit():
  f = jnp.vectorize(lambda a, b: a @ b, signature="(n,m),(m)->(n)")
  x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
  v = np.arange(4.0, dtype=np.float32)
  np.testing.assert_allclose(f(x, v), x @ v)
  np.testing.assert_allclose(axle.jit(f)(x, v), x @ v)


def test_vectorize_broadcasts_and_excludes():
  g = jnp.vectorize(lambda a, b: a + 2 * b)
  np.testing.assert_array_equal(g(jnp.arange(3), jnp.ones((2, 1))), np.arange(3) + 2 * np.ones((2, 1)))
  h = jnp.vectorize(lambda a, n: a * n, excluded={1})
  np.testing.assert_array_equal(h(jnp.arange(3.0), 2), [0.0, 2.0, 4.0])


def test_vectorize_bad_signature():
  with pytest.raises(ValueError, match="not a valid gufunc signature"):
    jnp.vectorize(lambda a: a, signature="(n")(jnp.ones(2))


def test_apply_along_axis_matches_numpy():
  x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
  for axis in (0, 1, 2):
    np.testing.assert_allclose(jnp.apply_along_axis(lambda r: r.sum() * r[0], axis, x),
                               np.apply_along_axis(lambda r: r.sum() * r[0], axis, x))
  np.testing.assert_allclose(jnp.apply_along_axis(jnp.cumsum, 0, x), np.apply_along_axis(np.cumsum, 0, x))


def test_ufunc_methods():
  add = jnp.frompyfunc(jnp.add, 2, 1, identity=0)
  x = np.arange(12, dtype=np.int32).reshape(3, 4)
  assert repr(add) == "<jnp.ufunc 'add'>"
  np.testing.assert_array_equal(add(x, 1), x + 1)
  np.testing.assert_array_equal(add.reduce(x, axis=1), np.add.reduce(x, axis=1))
  np.testing.assert_array_equal(add.accumulate(x, axis=1), np.add.accumulate(x, axis=1))
  np.testing.assert_array_equal(add.outer(x[0], x[1]), np.add.outer(x[0], x[1]))
  np.testing.assert_array_equal(add.reduceat(x[0], [0, 2]), np.add.reduceat(x[0], [0, 2]))
  np.testing.assert_array_equal(add.at(x, (0, 1), 5, inplace=False)[0, 1], 6)
  with pytest.raises(NotImplementedError, match="inplace=False"):
    add.at(x, 0, 1)
  mul = jnp.frompyfunc(jnp.multiply, 2, 1)
  with pytest.raises(ValueError, match="does not have an identity"):
    mul.reduce(x, where=x > 2)


def test_array_methods():
  x = jnp.arange(6.0).reshape(2, 3)
  np.testing.assert_allclose(x.std(), np.arange(6.0).std(), rtol=1e-6)
  np.testing.assert_allclose(x.var(axis=0), [2.25] * 3)
  np.testing.assert_array_equal(x.sort(axis=0), np.arange(6.0).reshape(2, 3))
  np.testing.assert_array_equal(x.argsort(axis=1), [[0, 1, 2], [0, 1, 2]])
  assert float(x.trace()) == 4.0
  assert x.repeat(2).shape == (12,)
  np.testing.assert_allclose(axle.jit(lambda a: a.std())(x), np.arange(6.0).std(), rtol=1e-6)


@pytest.mark.parametrize("optimize", ["auto", "greedy", "optimal", True, False])
def test_einsum_optimize_options(optimize):
  rng = np.random.default_rng(0)
  a, b, c = (rng.normal(size=s).astype(np.float32) for s in ((3, 4), (4, 5), (5, 2)))
  out = jnp.einsum("ij,jk,kl->il", a, b, c, optimize=optimize)
  np.testing.assert_allclose(out, a @ b @ c, rtol=1e-5, atol=1e-5)


def test_einsum_path_reports_opt_einsum_path():
  path, info = jnp.einsum_path("ij,jk,kl->il", np.ones((3, 4)), np.ones((4, 5)), np.ones((5, 2)))
  assert len(path) == 2 and "Optimized" in str(info) or "scaling" in str(info)


def test_value_dependent_shapes_eagerly():
  x = jnp.array([3, 1, 3, 0, 2])
  np.testing.assert_array_equal(jnp.unique(x), [0, 1, 2, 3])
  values, index, inverse, counts = jnp.unique(x, True, True, True)
  np.testing.assert_array_equal(index, [3, 1, 4, 0])
  np.testing.assert_array_equal(values[inverse], x)
  np.testing.assert_array_equal(counts, [1, 1, 1, 2])
  np.testing.assert_array_equal(jnp.nonzero(x)[0], [0, 1, 2, 4])
  np.testing.assert_array_equal(jnp.where(x > 1)[0], [0, 2, 4])
  np.testing.assert_array_equal(jnp.setdiff1d(x, jnp.array([3])), [0, 1, 2])
  np.testing.assert_array_equal(jnp.compress(x > 1, x), [3, 3, 2])
  np.testing.assert_array_equal(jnp.bincount(x), [1, 1, 1, 2])


def test_where_one_argument_under_jit_needs_size():
  f = axle.jit(lambda x: jnp.where(x > 0, size=3, fill_value=-1))
  np.testing.assert_array_equal(f(jnp.array([0, 2, 0, 5]))[0], [1, 3, -1])
  with pytest.raises(axle.errors.ConcretizationTypeError, match="size argument of jnp.nonzero"):
    axle.jit(lambda x: jnp.where(x > 0))(jnp.ones(3))


def test_list_arguments_refused():
  with pytest.raises(TypeError, match="sort requires ndarray or scalar arguments"):
    jnp.sort([3, 1])
  with pytest.raises(TypeError, match="median requires ndarray or scalar arguments"):
    jnp.median([1.0, 2.0])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=12), st.integers(1, 14))
def test_unique_with_size_matches_numpy(values, size):
  x = np.array(values, np.int32)
  expected = np.unique(x)
  got = axle.jit(lambda a: jnp.unique(a, size=size, fill_value=99))(x)
  k = min(size, expected.size)
  np.testing.assert_array_equal(np.asarray(got)[:k], expected[:k])
  assert np.all(np.asarray(got)[k:] == 99)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-10, 10, width=32), min_size=1, max_size=9),
       # a subnormal q is flushed to 0 by XLA (JAX 0.10.2: quantile([0, 1], 1e-45, 'higher') is
       # 0.0 where NumPy says 1.0), so q is 0 or a normal float32
       st.one_of(st.just(0.0), st.floats(1e-30, 1)),
       st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
def test_quantile_matches_numpy(values, q, method):
  x = np.array(values, np.float32)
  q = np.float32(q)
  # jnp computes in the input's precision, as NumPy does on float32 operands: the position
  # q * (n - 1) rounds there (float32(1/3) * 3 is 1.0, not 1.00000003, so 'higher' picks x[1])
  position = q * np.float32(x.size - 1)
  if method == "nearest" and position % 1 == 0.5:
    method_numpy = "lower"  # JAX takes the lower neighbour at a tie, NumPy the even one
  else:
    method_numpy = method
  np.testing.assert_allclose(jnp.quantile(x, float(q), method=method),
                             np.quantile(x, q, method=method_numpy), rtol=1e-5, atol=1e-5)


def test_quantile_position_rounds_in_float32():
  # (found by the test above when it compared with float64 NumPy: JAX 0.10.2 also gives 0.0)
  x = jnp.asarray([0.0, 0.0, 1.0, 1.0])
  assert float(jnp.quantile(x, float(np.float32(1 / 3)), method="higher")) == 0.0
  # ties of 'nearest' (JAX 0.10.2: the lower neighbour; NumPy: the even one)
  x = jnp.arange(8.0)
  assert [float(jnp.quantile(x[:n], q, method="nearest")) for n, q in
          [(6, 0.5), (4, 0.5), (8, 0.5), (5, 0.375), (3, 0.25), (3, 0.75)]] == [2, 1, 3, 1, 0, 1]


@pytest.mark.parametrize("pad_width", [0, 2, (3,), [1], (1, 2), [0, 3], ((1, 2),), ((1, 0), (0, 2)),
                                       [[2, 1], [0, 0]], np.array([1, 2]), (np.int64(1), 2),
                                       ((1, 2), (3,)), -1, (1, -2), (1.0, 2), ((1, 2), (3, 4), (5, 6))])
def test_pad_widths_are_read_as_numpy_reads_them(pad_width):
  # jnp.pad reads the usual spellings of pad_width without NumPy; each must mean what
  # np.pad makes of it, and the ones NumPy refuses are refused.
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  try:
    expected = np.pad(x, pad_width)
  except (ValueError, TypeError) as error:
    with pytest.raises(type(error)):
      jnp.pad(jnp.asarray(x), pad_width)
    return
  np.testing.assert_array_equal(np.asarray(jnp.pad(jnp.asarray(x), pad_width)), expected)
