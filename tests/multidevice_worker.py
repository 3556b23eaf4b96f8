"""Checks that need several CPU devices, run in a fresh process by test_multidevice.py (the
device count is fixed when XLA's client starts, so the single-device test process cannot run
them). Prints one line per check: ``PASS name`` or ``FAIL name: error``."""
import sys
import time
import traceback

import numpy as np

import axle as jax
import axle.numpy as jnp
from axle import lax

jax.config.update("jax_num_cpu_devices", 8)

from axle.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

CHECKS = []


def check(fn):
  CHECKS.append(fn)
  return fn


def assert_equal(got, want):
  got = np.asarray(got)
  want = np.asarray(want)
  assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
  assert np.array_equal(got, want), (got, want)


X = np.arange(16, dtype=np.float32).reshape(8, 2)


@check
def devices():
  assert jax.device_count() == 8 and jax.local_device_count() == 8
  assert jax.process_index() == 0 and jax.process_count() == 1
  assert repr(jax.devices()[3]) == "CpuDevice(id=3)"
  d = jax.devices()[1]
  assert (d.id, d.platform, d.device_kind, d.process_index) == (1, "cpu", "cpu", 0)
  try:
    jax.config.update("jax_num_cpu_devices", 4)
  except RuntimeError as e:
    assert "before backends are initialized" in str(e)
  else:
    raise AssertionError("no error after the backend started")


@check
def pmap_collectives():
  f = lambda g: jax.pmap(g, axis_name="i")(X)
  assert_equal(f(lambda x: lax.psum(x, "i")), np.broadcast_to(X.sum(0), X.shape))
  assert_equal(f(lambda x: lax.pmean(x, "i")), np.broadcast_to(X.sum(0) / 8, X.shape))
  assert_equal(f(lambda x: lax.pmax(x, "i")), np.broadcast_to(X.max(0), X.shape))
  assert_equal(f(lambda x: lax.pmin(x, "i")), np.broadcast_to(X.min(0), X.shape))
  assert_equal(f(lambda x: lax.all_gather(x, "i")), np.broadcast_to(X, (8, 8, 2)))
  assert_equal(f(lambda x: lax.all_gather(x, "i", tiled=True)), np.broadcast_to(X.reshape(16), (8, 16)))
  perm = [(i, (i + 1) % 8) for i in range(8)]
  assert_equal(f(lambda x: lax.ppermute(x, "i", perm)), np.roll(X, 1, axis=0))
  assert_equal(f(lambda x: lax.pshuffle(x, "i", [7, 0, 1, 2, 3, 4, 5, 6])), np.roll(X, 1, axis=0))
  assert_equal(f(lambda x: x + lax.axis_index("i")), X + np.arange(8, dtype=np.float32)[:, None])
  a = np.arange(8 * 8 * 3, dtype=np.float32).reshape(8, 8, 3)
  g = lambda h: jax.pmap(h, axis_name="i")(a)
  assert_equal(g(lambda x: lax.all_to_all(x, "i", 0, 0)), a.transpose(1, 0, 2))
  assert_equal(g(lambda x: lax.psum_scatter(x, "i")), a.sum(0))
  assert_equal(g(lambda x: lax.psum_scatter(x, "i", tiled=True)), a.sum(0)[:, None, :])
  assert_equal(g(lambda x: lax.pswapaxes(x, "i", 0)), a.transpose(1, 0, 2))


@check
def pmap_signature():
  v = np.ones(2, np.float32)
  assert_equal(jax.pmap(lambda a, b: a + b, in_axes=(0, None))(X, v), X + 1)
  assert_equal(jax.pmap(lambda a: a * 2, in_axes=1)(X.T), X * 2)
  assert_equal(jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i", out_axes=None)(X), X.sum(0))
  assert_equal(jax.pmap(lambda a: a, out_axes=1)(X), X.T)
  assert_equal(jax.pmap(lambda a, n: a * n, static_broadcasted_argnums=1)(X, 3), X * 3)
  assert_equal(jax.pmap(lambda d: {"a": d["a"] + 1})({"a": X})["a"], X + 1)
  out = jax.pmap(lambda a: a + 1, devices=jax.devices()[:2])(X[:2])
  assert [s.device.id for s in out.addressable_shards] == [0, 1]
  assert_equal(jax.pmap(lambda: lax.axis_index("i"), axis_name="i", axis_size=8)(),
               np.arange(8, dtype=np.int32))
  donated = jnp.array(X)
  donated = jax.pmap(lambda a: a)(donated)
  out = jax.pmap(lambda a: a + 1, donate_argnums=0)(donated)
  assert_equal(out, X + 1)
  assert donated.is_deleted()


@check
def pmap_errors():
  for call, kind, text in [
      (lambda: jax.pmap(lambda a: a)(np.ones((9, 2))), ValueError, "requires 9 logical devices"),
      (lambda: jax.pmap(lambda a, b: a + b)(np.ones((8, 2)), np.ones((4, 2))), ValueError,
       "partitioned 8 times"),
      (lambda: jax.pmap(lambda a: lax.psum(a, "j"), axis_name="i")(X), NameError,
       "unbound axis name: j"),
  ]:
    try:
      call()
    except kind as e:
      assert text in str(e), str(e)
    else:
      raise AssertionError(f"no {kind.__name__}")


@check
def pmap_transformations():
  grad = jax.grad(lambda a: jax.pmap(lambda b: jnp.sin(b) * 2)(a).sum())(X)
  assert np.allclose(grad, 2 * np.cos(X), atol=1e-6)
  grad = jax.grad(lambda a: jax.pmap(lambda b: lax.psum(b ** 2, "i"), axis_name="i")(a).sum())(X)
  assert_equal(grad, 16 * X)
  inner = jax.pmap(jax.grad(lambda b: (b ** 2).sum()))(X)
  assert_equal(inner, 2 * X)
  assert_equal(jax.pmap(jax.vmap(lambda a: lax.psum(a, "i")), axis_name="i")(X),
               np.broadcast_to(X.sum(0), X.shape))
  both = jax.pmap(jax.vmap(lambda a: lax.psum(a, ("i", "j")), axis_name="j"), axis_name="i")(X)
  assert_equal(both, np.full(X.shape, X.sum(), np.float32))
  batched = np.arange(32, dtype=np.float32).reshape(2, 8, 2)
  outer = jax.vmap(jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i"))(batched)
  assert_equal(outer, np.broadcast_to(batched.sum(1, keepdims=True), batched.shape))
  jitted = jax.pmap(jax.jit(lambda a: lax.psum(a * 2, "i")), axis_name="i")(X)
  assert_equal(jitted, np.broadcast_to(2 * X.sum(0), X.shape))
  outer_jit = jax.jit(jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i"))(X)
  assert_equal(outer_jit, np.broadcast_to(X.sum(0), X.shape))


@check
def pmap_outputs():
  y = jax.pmap(lambda a: a * 2, axis_name="i")(X)
  assert repr(y.sharding) == ("NamedSharding(mesh=Mesh('i': 8, axis_types=(Auto,)), "
                              "spec=P('i',), memory_kind=device)")
  assert not y.is_fully_replicated and len(y.addressable_shards) == 8
  shard = y.addressable_shards[3]
  assert shard.device.id == 3 and shard.index == (slice(3, 4), slice(None)), shard.index
  assert_equal(shard.data, 2 * X[3:4])
  assert_equal(y[2], 2 * X[2])
  assert_equal(np.asarray(y), 2 * X)
  fresh = jax.pmap(lambda a: a * 2)(X)
  z = jax.pmap(lambda a: a + 1)(fresh)  # the sharded buffer goes straight in: no host read
  assert fresh._value is None
  assert_equal(z, 2 * X + 1)


@check
def pmap_back_to_back():
  # More than 32 collectives in flight per device aborted XLA:CPU before the fix.
  f = jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i", devices=jax.devices()[:4])
  x4 = X[:4]
  x = f(x4)
  for _ in range(10_000):  # never waited on
    x = f(x4)
  x.block_until_ready()
  assert_equal(x, np.broadcast_to(x4.sum(0), x4.shape))
  g = jax.pmap(lambda a: lax.psum(a, "i") * 0.125, axis_name="i")
  y = jax.pmap(lambda a: a * 0.5)(X)
  for _ in range(200):  # chained on 8 devices
    y = g(y)
  assert_equal(y, np.broadcast_to(X.sum(0) / 16, X.shape))


@check
def sharding_objects():
  mesh = jax.make_mesh((2, 4), ("x", "y"))
  assert str(mesh) == "Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"
  assert repr(P("x", None)) == "P('x', None)" and repr(P(("x", "y"))) == "P(('x', 'y'),)"
  s = NamedSharding(mesh, P("x", "y"))
  assert repr(s) == ("NamedSharding(mesh=Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit)), "
                     "spec=P('x', 'y'), memory_kind=device)")
  a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
  arr = jax.device_put(a, s)
  assert arr.sharding == s
  assert arr.addressable_shards[5].index == (slice(4, 8), slice(4, 8))
  assert_equal(arr, a)
  rep = jax.device_put(a, NamedSharding(mesh, P("y")))
  assert [s.replica_id for s in rep.addressable_shards] == [0, 0, 0, 0, 1, 1, 1, 1]
  assert_equal(rep.addressable_shards[6].data, a[4:6])
  assert str(jax.sharding.AbstractMesh((2, 2), ("a", "b"))) == \
      "AbstractMesh('a': 2, 'b': 2, axis_types=(Auto, Auto))"
  try:
    jax.device_put(np.ones((3, 2)), s)
  except ValueError as e:
    assert "partitioned 2 times" in str(e)
  else:
    raise AssertionError("no error for an indivisible shape")


@check
def spmd_jit():
  # Auto axes: XLA picks the layouts (on Explicit axes `a @ b` below is ambiguous and raises)
  mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
  rng = np.random.default_rng(0)
  a = rng.standard_normal((8, 16)).astype(np.float32)
  b = rng.standard_normal((16, 12)).astype(np.float32)
  A = jax.device_put(a, NamedSharding(mesh, P("x", "y")))
  B = jax.device_put(b, NamedSharding(mesh, P("y", None)))
  c = jax.jit(lambda a, b: a @ b)(A, B)
  assert c.sharding.spec == P("x"), c.sharding
  assert np.allclose(c, a @ b, atol=1e-5)
  f = jax.jit(lambda x: lax.with_sharding_constraint(jnp.sin(x) * 2, NamedSharding(mesh, P(None, "y"))) + 1,
              in_shardings=NamedSharding(mesh, P("x")))
  w = f(a)
  assert w.sharding.spec == P(None, "y"), w.sharding
  assert np.allclose(w, np.sin(a) * 2 + 1, atol=1e-6)
  g = jax.jit(lambda x: x * 2, out_shardings=NamedSharding(mesh, P("y", "x")))(a)
  assert g.sharding.spec == P("y", "x") and np.allclose(g, 2 * a)
  text = jax.jit(lambda x: lax.with_sharding_constraint(x, NamedSharding(mesh, P("x")))).lower(a).as_text()
  assert "sdy.sharding_constraint" in text and "mhlo.num_partitions = 8" in text


@check
def shard_map_basic():
  mesh = jax.make_mesh((2, 4), ("x", "y"))
  a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
  f = jax.shard_map(lambda b: lax.psum(b.sum(0, keepdims=True), "x"), mesh=mesh,
                    in_specs=P("x", "y"), out_specs=P(None, "y"))
  want = np.stack([a.sum(0)])
  try:
    f(a)  # an Explicit mesh: the argument must already be laid out as in_specs says
  except ValueError as e:
    assert "does not match the specs of the input" in str(e)
  else:
    raise AssertionError("no error for an argument laid out differently from in_specs")
  a = jax.device_put(a, NamedSharding(mesh, P("x", "y")))
  assert_equal(f(a), want)
  assert_equal(jax.jit(f)(a), want)
  grad = jax.grad(lambda x: f(x).sum())(a)
  assert_equal(grad, np.ones_like(a))
  from axle.experimental.shard_map import shard_map
  auto = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
  g = shard_map(lambda b: b * lax.axis_index("y"), mesh=auto, in_specs=P(None, "y"),
                out_specs=P(None, "y"))
  a = np.asarray(a)
  assert_equal(g(a), a * np.repeat(np.arange(4, dtype=np.float32), 4)[None, :])
  for run in (lambda h: h, jax.jit):
    try:
      run(jax.shard_map(lambda b: b, mesh=auto, in_specs=P("x"), out_specs=P()))(a)
    except ValueError as e:
      assert "out_specs which require replication" in str(e)
    else:
      raise AssertionError("no replication error")
  h = jax.shard_map(lambda b: b, mesh=auto, in_specs=P("x"), out_specs=P(), check_vma=False)
  assert_equal(jax.jit(h)(a), a[:4])


@check
def make_array_and_visualize():
  import contextlib
  import io
  mesh = jax.make_mesh((4, 2), ("X", "Y"))
  host = np.arange(32, dtype=np.float32).reshape(8, 4)
  s = NamedSharding(mesh, P("X", "Y"))
  a = jax.make_array_from_callback((8, 4), s, lambda index: host[index])
  assert a.sharding == s
  assert_equal(a, host)
  shards = a.addressable_shards
  b = jax.make_array_from_single_device_arrays((8, 4), s, [x.data for x in reversed(shards)])
  assert_equal(b, host)
  c = jax.make_array_from_process_local_data(NamedSharding(mesh, P("X")), host)
  assert c.sharding.spec == P("X")
  text = io.StringIO()
  with contextlib.redirect_stdout(text):
    jax.debug.visualize_array_sharding(jax.device_put(host, NamedSharding(mesh, P("X"))))
  assert text.getvalue().count("CPU 2,3") == 1 and text.getvalue().count("\n") == 9, text.getvalue()


@check
def auto_and_explicit_axes():
  from axle.sharding import AxisType, auto_axes, explicit_axes, get_abstract_mesh
  mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
  with jax.set_mesh(mesh):
    x = jax.device_put(np.arange(16).reshape(4, 4), P("X", None))
    y = jax.device_put(np.arange(16).reshape(4, 4), P(None, "X"))
    seen = []

    @auto_axes
    def add(a, b):
      seen.append(get_abstract_mesh().axis_types)
      seen.append(jax.typeof(a).sharding.spec)  # Auto axes are not part of the type
      return a + b

    out = add(x, y, out_sharding=P("X", None))
    assert seen == [(AxisType.Auto, AxisType.Auto), P(None, None)], seen
    assert str(jax.typeof(out)) == "int32[4@X,4]", jax.typeof(out)
    assert get_abstract_mesh().axis_types == (AxisType.Explicit,) * 2  # restored
    assert_equal(out, np.arange(16, dtype=np.int32).reshape(4, 4) * 2)
    assert jax.typeof(x).sharding.spec == P("X", None)

    @explicit_axes
    def double(a):
      seen.append(str(jax.typeof(a)))
      return a * 2

    assert_equal(double(x, in_sharding=P("X", "Y")), np.arange(16, dtype=np.int32).reshape(4, 4) * 2)
    assert seen[-1] == "int32[4@X,4@Y]", seen
    for bad, needed in ((lambda: add(x, y), "out_sharding"), (lambda: double(x), "in_sharding")):
      try:
        bad()
      except TypeError as e:
        assert needed in str(e), e
      else:
        raise AssertionError(f"no error without {needed}")
  try:
    auto_axes(lambda a: a)(x, out_sharding=P("X"))
  except ValueError as e:
    assert "set_mesh" in str(e), e
  else:
    raise AssertionError("auto_axes without a mesh did not raise")


@check
def out_sharding_on_creation():
  mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
  with jax.set_mesh(mesh):
    key = jax.random.key(0)
    x = jax.random.normal(key, (8, 4), out_sharding=P("X", "Y"))
    assert str(jax.typeof(x)) == "float32[8@X,4@Y]", jax.typeof(x)
    assert_equal(x, jax.random.normal(key, (8, 4)))
    u = jax.random.uniform(key, (8,), out_sharding=P("X"))
    assert_equal(u, jax.random.uniform(key, (8,)))
    r = jax.random.randint(key, (8,), 0, 5, out_sharding=P("Y"))
    assert str(jax.typeof(r)) == "int32[8@Y]" and r.sharding.spec == P("Y")
    cases = [(jnp.zeros((8, 4), out_sharding=P("X")), np.zeros((8, 4), np.float32)),
             (jnp.ones((8, 4), out_sharding=P("X", "Y")), np.ones((8, 4), np.float32)),
             (jnp.empty((8,), out_sharding=P("X")), np.zeros(8, np.float32)),
             (jnp.full((8,), 3, out_sharding=P("X")), np.full(8, 3, np.int32)),
             (jnp.zeros_like(x, out_sharding=P(None, "Y")), np.zeros((8, 4), np.float32)),
             (jnp.ones_like(x, out_sharding=P("X")), np.ones((8, 4), np.float32)),
             (jnp.full_like(x, 2., out_sharding=P("X")), np.full((8, 4), 2, np.float32)),
             (jnp.arange(8, out_sharding=P("X")), np.arange(8, dtype=np.int32)),
             (jnp.arange(0., 4., 0.5, out_sharding=P("X")), np.arange(0., 4., 0.5, dtype=np.float32))]
    for got, want in cases:
      assert got.sharding.mesh == mesh and got.sharding.spec[0] in ("X", None), got.sharding
      assert_equal(got, want)
    jitted = jax.jit(lambda: jnp.ones((8, 2), out_sharding=P("X")))()
    assert jitted.sharding.spec[0] == "X", jitted.sharding
    try:
      jnp.zeros((3,), out_sharding=P("X"))
    except ValueError as e:
      assert "3" in str(e), e
    else:
      raise AssertionError("an indivisible out_sharding did not raise")
    try:
      jnp.zeros((8,), out_sharding=P("Z"))
    except ValueError as e:
      assert "Z" in str(e), e
    else:
      raise AssertionError("an unknown mesh axis did not raise")


@check
def lowered_and_compiled_text_over_a_mesh():
  mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
  x = jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P("X", "Y")))
  lowered = jax.jit(lambda a: a.sum(0)).lower(x)
  text = lowered.as_text()
  assert "mhlo.num_partitions = 8" in text and 'sdy.sharding<@mesh, [{"X"}, {"Y"}]>' in text, text
  compiled = lowered.compile()
  assert "all-reduce(" in compiled.as_text()
  out = compiled(x)
  assert_equal(out, np.arange(32, dtype=np.float32).reshape(8, 4).sum(0))
  assert out.sharding.spec == P("Y"), out.sharding
  try:
    compiled(jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(mesh, P("X", "Y"))))
  except TypeError as e:
    assert "f32[8@X,4@Y]" in str(e) and "f32[4@X,4@Y]" in str(e), e
  else:
    raise AssertionError("a wrong shape did not raise")
  # One device: the single-device module, as before.
  single = jax.jit(lambda a: a * 2).lower(jnp.ones(3))
  assert "sdy.sharding" not in single.as_text() and "all-reduce" not in single.compile().as_text()


@check
def explicit_sharding_rules():
  from axle.sharding import AxisType, auto_axes
  mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
  with jax.set_mesh(mesh):
    a = jax.device_put(np.arange(32.).reshape(8, 4), P(None, "X"))
    b = jax.device_put(np.arange(64.).reshape(4, 16), P("X", None))
    try:
      jnp.dot(a, b)
    except Exception as e:
      assert type(e).__name__ == "ShardingTypeError", type(e)
      assert "lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)" in str(e), e
    else:
      raise AssertionError("a contraction over sharded dimensions did not raise")
    x = jax.device_put(np.arange(16).reshape(4, 4), P("X", None))
    y = jax.device_put(np.arange(16).reshape(4, 4), P(None, "X"))
    try:
      x + y
    except Exception as e:
      assert str(e) == ("add operation with inputs: i32[4@X,4], i32[4,4@X] produces an "
                        "illegally sharded result: i32[4@X,4@X]"), e
    else:
      raise AssertionError("an illegally sharded add did not raise")
    z = jax.device_put(np.arange(16).reshape(4, 4), P("Y", None))
    try:
      x * z
    except Exception as e:
      assert "incompatible" in str(e), e
    else:
      raise AssertionError("conflicting shardings did not raise")
    assert str(jax.typeof(x + x)) == "int32[4@X,4]" and str(jax.typeof(x * 2)) == "int32[4@X,4]"
    # (the operators' eager shortcuts leave sharded operands to the general path)
    f = jax.device_put(np.arange(16.0).reshape(4, 4), P("X", None))
    assert str(jax.typeof(f * 2.0)) == "float32[4@X,4]" and str(jax.typeof(2 * x)) == "int32[4@X,4]"
    assert str(jax.typeof(f < 1.0)) == "bool[4@X,4]" and str(jax.typeof(1.0 - f)) == "float32[4@X,4]"
    assert_equal(auto_axes(lambda p, q: p + q)(x, y, out_sharding=P("X", None)),
                 np.arange(16, dtype=np.int32).reshape(4, 4) * 2)  # Auto axes: no rule
  auto_mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(AxisType.Auto,) * 2)
  x = jax.device_put(np.arange(16).reshape(4, 4), NamedSharding(auto_mesh, P("X", None)))
  y = jax.device_put(np.arange(16).reshape(4, 4), NamedSharding(auto_mesh, P(None, "X")))
  assert_equal(x + y, np.arange(16, dtype=np.int32).reshape(4, 4) * 2)


@check
def reshard_under_use_abstract_mesh():
  from axle.sharding import AbstractMesh, AxisType, use_abstract_mesh
  with jax.set_mesh(jax.make_mesh((4, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)):
    host = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = jax.device_put(host, P("X", "Y"))

    @jax.jit
    def f(v):
      with use_abstract_mesh(AbstractMesh((8,), ("A",), (AxisType.Explicit,))):
        return jax.reshard(v, P("A", None)) * 2

    z = f(x)
    assert str(jax.typeof(z)) == "float32[8@A,4]", jax.typeof(z)
    assert_equal(z, host * 2)
    try:  # 3 devices cannot hold an 8-device mesh's layout: a clear error
      with use_abstract_mesh(AbstractMesh((3,), ("B",))):
        jax.reshard(x, P("B", None))
    except ValueError as e:
      assert "B" in str(e), e
    else:
      raise AssertionError("an axis of a mesh of another size did not raise")


@check
def typeof_of_jit_argument_over_a_mesh():
  from axle.sharding import AxisType
  mesh = jax.make_mesh((4, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
  x = jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P("X", "Y")))
  seen = []
  out = jax.jit(lambda v: (seen.append(jax.typeof(v)), v * 2)[1])(x)
  assert str(seen[0]) == "float32[8@X,4@Y]", seen
  assert seen[0].sharding.spec == P("X", "Y") and seen[0].sharding.mesh == mesh.abstract_mesh
  assert_equal(out, np.arange(32, dtype=np.float32).reshape(8, 4) * 2)
  seen.clear()
  jax.jit(lambda v: seen.append(jax.typeof(v)))(np.ones(3, np.float32))
  assert str(seen[0]) == "float32[3]" and seen[0].sharding.spec == P(None)


def main():
  names = sys.argv[1:]
  for fn in CHECKS:
    if names and fn.__name__ not in names:
      continue
    start = time.perf_counter()
    try:
      fn()
    except BaseException as e:  # report, keep going
      detail = "".join(traceback.format_exception_only(type(e), e)).strip().replace("\n", " | ")
      print(f"FAIL {fn.__name__}: {detail}", flush=True)
      traceback.print_exc(file=sys.stderr)
    else:
      print(f"PASS {fn.__name__} {time.perf_counter() - start:.2f}s", flush=True)


if __name__ == "__main__":
  main()
