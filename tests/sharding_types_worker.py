"""Checks of sharding in types, unreduced arrays and shard_map under jit that need several CPU
devices, run in a fresh process by test_sharding_types.py. Prints one line per check:
``PASS name`` or ``FAIL name: error``."""
import sys
import time
import traceback

import numpy as np

import axle as jax
import axle.numpy as jnp
from axle import lax

jax.config.update("jax_num_cpu_devices", 8)

from axle.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

CHECKS = []


def check(fn):
  CHECKS.append(fn)
  return fn


def assert_equal(got, want):
  got = np.asarray(got)
  want = np.asarray(want)
  assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
  assert np.array_equal(got, want), (got, want)


@check
def shard_map_infers_in_specs_of_traced_arguments():
  # jit(shard_map(f)) without in_specs: each argument's sharded type gives its spec, so the
  # body sees per-device blocks (regression: the body saw global shapes and a dot of an
  # all_gather'ed block failed with mismatched contracting dimensions).
  mesh = jax.make_mesh((4,), ("batch",))
  with jax.set_mesh(mesh):
    w = jax.device_put(jnp.arange(32.).reshape(8, 4), P("batch"))
    x = jax.device_put(jnp.ones((8, 8)), P("batch"))
    shapes = []

    @jax.shard_map(out_specs=P())
    def loss(w_block, x_block):
      shapes.append((w_block.shape, x_block.shape))
      full_w = lax.all_gather(w_block, "batch", tiled=True)
      return lax.pmean(jnp.sum(jnp.dot(x_block, full_w)), "batch")

    want = (np.ones((8, 8)) @ np.arange(32.).reshape(8, 4)).sum() / 4
    assert float(jax.jit(loss)(w, x)) == want
    assert shapes[-1] == ((2, 4), (2, 8)), shapes
    g = jax.jit(jax.grad(loss))(w, x)
    assert_equal(g, np.full((8, 4), 2., np.float32))


@check
def remat_with_collectives_in_eager_shard_map():
  mesh = jax.make_mesh((4,), ("batch",))
  with jax.set_mesh(mesh):
    w = jax.device_put(jnp.arange(32.).reshape(8, 4), P("batch"))

    @jax.remat
    def gather(block):
      return lax.all_gather(block, "batch", tiled=True)

    # (all_gather's result still varies over the axis, as in JAX: check_vma=False for P())
    out = jax.shard_map(lambda b: gather(b).sum(0), out_specs=P(), check_vma=False)(w)
    assert_equal(out, np.arange(32., dtype=np.float32).reshape(8, 4).sum(0))


@check
def partition_spec_unreduced_field():
  p = P("X", None, unreduced={"Y"})
  assert repr(p) == "P('X', None, unreduced={'Y'})", repr(p)
  assert p.unreduced == frozenset({"Y"}) and p.reduced == frozenset() and p.partitions == ("X", None)
  assert p != P("X", None) and p == P("X", unreduced={"Y"})
  assert repr(P(unreduced={"Y"})) == "P(unreduced={'Y'})"
  assert repr(P("X", unreduced={"Y"})) == "P('X', unreduced={'Y'})"
  assert repr(P(None, reduced={"Y"})) == "P(None, reduced={'Y'})"
  import pickle
  assert pickle.loads(pickle.dumps(p)) == p
  for bad in (lambda: P("X", unreduced={"X"}), lambda: P(unreduced={None}),
              lambda: P(unreduced={"Y"}, reduced={"Y"})):
    try:
      bad()
    except ValueError:
      pass
    else:
      raise AssertionError("no error")


@check
def unreduced_arrays():
  mesh = jax.make_mesh((4, 2), ("X", "Y"))
  value = np.arange(32, dtype=np.float32).reshape(8, 4)
  with jax.set_mesh(mesh):
    x = jax.device_put(value, P("X", "Y"))
    y = jax.device_put(x, P("X", None, unreduced={"Y"}))
    assert str(y.sharding.spec) == "P('X', None, unreduced={'Y'})"
    assert str(jax.typeof(y)) == "float32[8@X,4]{U:Y}", jax.typeof(y)
    # each device along Y keeps its own block of columns; the others hold zeros
    shards = y.addressable_shards
    assert_equal(shards[0].data, np.array([[0, 1, 0, 0], [4, 5, 0, 0]], np.float32))
    assert_equal(shards[1].data, np.array([[0, 0, 2, 3], [0, 0, 6, 7]], np.float32))
    assert repr(y).startswith("Array(shape=(8, 4), dtype=float32, sharding=NamedSharding(")
    try:
      np.asarray(y)
    except NotImplementedError as e:
      assert "unreduced" in str(e)
    else:
      raise AssertionError("fetching an unreduced array did not raise")
    # reshard sums the partial values
    for spec in (P("X", None), P(), P("X", "Y")):
      z = jax.reshard(y, spec)
      assert z.sharding.spec == spec, z.sharding
      assert_equal(z, value)
    assert_equal(jax.jit(lambda a: jax.reshard(a, P()))(y), value)
    # the lowered program carries Shardy's unreduced annotation
    text = jax.jit(lambda a: jax.reshard(a, P("X", None))).lower(y).as_text()
    assert 'unreduced={"Y"}' in text, text


@check
def sharded_types_of_traced_values():
  # JAX 0.10.2's sharding-in-types rules (values from explicitly sharded inputs under jit)
  mesh = jax.make_mesh((4, 2), ("X", "Y"))
  with jax.set_mesh(mesh):
    a = jax.device_put(np.arange(32.).reshape(8, 4), P("X", "Y"))
    b = jax.device_put(np.arange(32.).reshape(4, 8), P("Y", None))
    v = jax.device_put(np.arange(4.), P("Y"))
    seen = {}

    @jax.jit
    def f(a, b, v):
      values = {"sin": jnp.sin(a), "T": a.T, "sum0": a.sum(0), "sum1": a.sum(1), "a+v": a + v,
                "a*2": a * 2, "split": a.reshape(4, 2, 4), "merge": a.reshape(32),
                "dot": jnp.dot(a, b, out_sharding=P("X", None)),
                "free": jnp.dot(jax.reshard(a, P("X", None)), b),
                "broadcast": jnp.broadcast_to(v, (3, 4)), "expand": a[None],
                "astype": a.astype(jnp.int32), "where": jnp.where(a > 0, a, 0.),
                "max": jnp.max(a, axis=0)}
      seen.update({k: str(jax.typeof(x)) for k, x in values.items()})
      return a
    f(a, b, v)
    want = {"sin": "float32[8@X,4@Y]", "T": "float32[4@Y,8@X]", "sum0": "float32[4@Y]",
            "sum1": "float32[8@X]", "a+v": "float32[8@X,4@Y]", "a*2": "float32[8@X,4@Y]",
            "split": "float32[4@X,2,4@Y]", "merge": "float32[32@(X,Y)]",
            "dot": "float32[8@X,8]", "free": "float32[8@X,8]", "broadcast": "float32[3,4@Y]",
            "expand": "float32[1,8@X,4@Y]", "astype": "int32[8@X,4@Y]",
            "where": "float32[8@X,4@Y]", "max": "float32[4@Y]"}
    assert seen == want, {k: (seen.get(k), w) for k, w in want.items() if seen.get(k) != w}
    text = str(jax.make_jaxpr(lambda x: jnp.sin(x).T)(a))
    assert "a:f32[8@X,4@Y]" in text and "f32[4@Y,8@X] = transpose" in text, text


@check
def explicit_axes_inside_jit_types_values():
  auto = jax.sharding.AxisType.Auto
  mesh = jax.make_mesh((4, 2), ("X", "Y"), (auto, auto))
  seen = []

  @jax.sharding.explicit_axes
  def g(y):
    z = y * 2
    seen.extend([repr(jax.typeof(y)), repr(jax.typeof(z))])
    return z

  with jax.set_mesh(mesh):
    x = jax.device_put(np.arange(16.).reshape(4, 4), P("X", "Y"))
    out = jax.jit(lambda a: g(jnp.sin(a), in_sharding=P("X", "Y")) + 1)(x)
  assert seen == ["ShapedArray(float32[4@X,4@Y])"] * 2, seen
  np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(16.).reshape(4, 4)) * 2 + 1,
                             rtol=1e-6)


@check
def axis_index_groups_in_pmap_and_shard_map():
  # JAX 0.10.2: groups work in pmap (and shard_map with check_vma=False); psum/pmean with
  # groups are NotImplementedError under shard_map's check_vma; vmap does not support them.
  x = np.arange(8, dtype=np.float32)
  groups = [[0, 1, 2, 3], [4, 5, 6, 7]]
  pm = lambda fn: np.asarray(jax.pmap(fn, axis_name="i")(x)).astype(np.float64)
  assert_equal(pm(lambda v: lax.psum(v, "i", axis_index_groups=groups)), np.repeat([6., 22.], 4))
  assert_equal(pm(lambda v: lax.pmean(v, "i", axis_index_groups=groups)), np.repeat([1.5, 5.5], 4))
  assert_equal(pm(lambda v: lax.pmax(v, "i", axis_index_groups=groups)), np.repeat([3., 7.], 4))
  assert_equal(pm(lambda v: lax.all_gather(v, "i", axis_index_groups=groups)),
               np.repeat(x.reshape(2, 1, 4), 4, axis=1).reshape(8, 4).astype(np.float64))
  assert_equal(pm(lambda v: lax.psum_scatter(jnp.stack([v] * 4), "i", axis_index_groups=groups)),
               np.repeat([6., 22.], 4))
  # uneven groups (psum) and pmean's divisor (the first group's size, as JAX)
  uneven = [[0, 1], [2, 3, 4, 5, 6, 7]]
  assert_equal(pm(lambda v: lax.psum(v, "i", axis_index_groups=uneven)),
               np.array([1., 1.] + [27.] * 6))
  assert_equal(pm(lambda v: lax.pmean(v, "i", axis_index_groups=uneven)),
               np.array([.5, .5] + [13.5] * 6))
  assert_equal(pm(jax.grad(lambda v: lax.psum(v * v, "i", axis_index_groups=groups))),
               8 * x.astype(np.float64))
  mesh = jax.make_mesh((8,), ("i",))
  xs = jax.device_put(x, NamedSharding(mesh, P("i")))
  sm = lambda fn, **kw: jax.shard_map(fn, mesh=mesh, in_specs=P("i"), out_specs=P("i"), **kw)
  for run in (lambda f: np.asarray(f(xs)).astype(np.float64),
              lambda f: np.asarray(jax.jit(f)(xs)).astype(np.float64)):
    assert_equal(run(sm(lambda v: lax.pmin(v, "i", axis_index_groups=groups))),
                 np.repeat([0., 4.], 4))
    assert_equal(run(sm(lambda v: lax.psum(v, "i", axis_index_groups=groups), check_vma=False)),
                 np.repeat([6., 22.], 4))
    try:
      run(sm(lambda v: lax.psum(v, "i", axis_index_groups=groups)))
    except NotImplementedError:
      pass
    else:
      raise AssertionError("psum with groups under check_vma did not raise")
  try:
    jax.vmap(lambda v: lax.psum(v, "i", axis_index_groups=groups), axis_name="i")(x)
  except NotImplementedError as e:
    assert "vmap" in str(e)
  else:
    raise AssertionError("vmap psum with groups did not raise")
  try:
    pm(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1, 2, 3], [4, 5, 6]]))
  except ValueError as e:
    assert "partition" in str(e)
  else:
    raise AssertionError("groups that miss an index did not raise")


@check
def grad_through_explicit_pcast_in_shard_map():
  # regression: pcast(..., to='varying') of an unsplit input counted each device's cotangent
  # twice (pvary's psum and the boundary's); JAX gives [0, 14, 36]
  mesh = jax.make_mesh((2,), ("i",))
  w = jax.device_put(jnp.arange(1., 7.), NamedSharding(mesh, P("i")))
  x = jnp.arange(3.)

  def loss(x, w, explicit):
    def body(x, w):
      xv = lax.pcast(x, "i", to="varying") if explicit else x
      return jnp.sum(xv * w * xv)[None]
    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))(x, w).sum()

  for explicit in (False, True):
    assert_equal(jax.grad(loss)(x, w, explicit), np.array([0., 14., 36.], np.float32))
    assert_equal(jax.jit(jax.grad(loss), static_argnums=2)(x, w, explicit),
                 np.array([0., 14., 36.], np.float32))


@check
def varying_types_in_traced_shard_map_bodies():
  # as JAX 0.10.2 prints them: blocks split over a manual axis are f32[3]{V:i}; an invariant
  # operand meeting a varying one is pvary'd first; collectives change the variation
  mesh = jax.make_mesh((2,), ("i",))
  with jax.set_mesh(mesh):
    @jax.shard_map(in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
      return x * y

    x = jax.device_put(jnp.arange(6.), P("i"))
    y = jnp.arange(3.)
    text = str(jax.make_jaxpr(f)(x, y))
    for line in ("{ lambda ; a:f32[6@i] b:f32[3]. let", "c:f32[6@i] = shard_map[",
                 "jaxpr={ lambda ; d:f32[3]{V:i} e:f32[3]. let",
                 "f:f32[3]{V:i} = pvary[axes=('i',)] e", "g:f32[3]{V:i} = mul d f",
                 "newly_manual_axes=frozenset({'i'})",
                 "mesh=AbstractMesh('i': 2, axis_types=(Explicit,), device_kind=cpu, "
                 "num_cores=None, platform=cpu)"):
      assert line in text, (line, text)
    seen = []

    @jax.shard_map(in_specs=P("i"), out_specs=P("i"))
    def g(x):
      gathered = lax.all_gather(x, "i")
      seen.extend(str(jax.typeof(v)) for v in (
          x, gathered, lax.psum_scatter(gathered, "i"), lax.pmax(x, "i"), lax.axis_index("i"),
          x * 2))
      return x
    jax.jit(g)(x)
    assert seen == ["float32[3]{V:i}", "float32[2,3]{V:i}", "float32[3]{V:i}", "float32[3]",
                    "int32[]{V:i}", "float32[3]{V:i}"], seen
    # the values and gradients are unchanged by the inserted pvary (JAX's numbers)
    loss = lambda x, y: jnp.sum(f(x, y) ** 2)
    gx, gy = jax.jit(jax.grad(loss, (0, 1)))(x, y)
    assert_equal(gx, np.array([0, 2, 16, 0, 8, 40], np.float32))
    assert_equal(gy, np.array([0, 34, 116], np.float32))


@check
def sharding_type_errors_under_jit():
  # JAX 0.10.2 raises ShardingTypeError while tracing, with these messages (recorded from it)
  explicit = (jax.sharding.AxisType.Explicit,) * 2
  mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=explicit)
  with jax.set_mesh(mesh):
    x = jax.device_put(np.arange(32.).reshape(8, 4), P("X", None))
    y = jax.device_put(np.arange(32.).reshape(8, 4), P(None, "X"))
    z = jax.device_put(np.arange(32.).reshape(4, 8), P("X", None))
    w = jax.device_put(np.arange(32.).reshape(8, 4), P("Y", None))
    mesh_repr = ("AbstractMesh('X': 2, 'Y': 4, axis_types=(Explicit, Explicit), "
                 "device_kind=cpu, num_cores=None, platform=cpu)")
    cases = [
        (lambda: jax.jit(lambda a, b: a + b)(x, y),
         "add operation with inputs: f32[8@X,4], f32[8,4@X] produces an illegally sharded "
         "result: f32[8@X,4@X]"),
        (lambda: x + y, "add operation with inputs: f32[8@X,4], f32[8,4@X] produces an "
         "illegally sharded result: f32[8@X,4@X]"),
        (lambda: jax.jit(lambda a, b: a + b)(x, w),
         "add got incompatible shardings for broadcasting: ('X', None), ('Y', None)."),
        (lambda: x + w,
         "add got incompatible shardings for broadcasting: ('X', None), ('Y', None)."),
        (lambda: jax.jit(lambda a, b: a @ b)(y, z),
         "Contracting dimensions are sharded and it is ambiguous how the output should be "
         "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
         "lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)"),
        (lambda: jax.jit(lambda a: a.reshape(4, 8))(y),
         "This reshape is not supported. Please specify the sharding of the output via the "
         "`out_sharding` argument of jax.lax.reshape. Got operand type: float32[8,4@X], new "
         "sizes: (4, 8)"),
        (lambda: jax.jit(lambda a, b: jnp.where(a > 0, a, b))(x, y),
         f"select cases must have the same shardings, got [NamedSharding(mesh={mesh_repr}, "
         f"spec=P(None, 'X')), NamedSharding(mesh={mesh_repr}, spec=P('X', None))]."),
        (lambda: jax.jit(lambda a, b: jnp.concatenate([a, b], 1))(x, y),
         f"All operands should have the same sharding. Got shardings NamedSharding(mesh="
         f"{mesh_repr}, spec=P('X', None)), NamedSharding(mesh={mesh_repr}, spec=P(None, 'X'))"),
        (lambda: jax.jit(jax.grad(lambda a, b: (a * b).sum()))(x, y),
         "mul operation with inputs: f32[8@X,4], f32[8,4@X] produces an illegally sharded "
         "result: f32[8@X,4@X]"),
    ]
    for run, message in cases:
      try:
        run()
      except Exception as e:
        assert type(e).__name__ == "ShardingTypeError", (type(e), e)
        assert str(e) == message, (str(e), message)
      else:
        raise AssertionError(f"no ShardingTypeError; expected {message!r}")
    # a traced argument whose type is not split as in_specs says (JAX's ValueError)
    body = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("X"), out_specs=P("X"))
    try:
      jax.jit(body)(jnp.arange(8.))
    except ValueError as e:
      assert "in_specs passed to shard_map: P('X',) does not match the specs of the input: " \
          "P(None,) for arg: float32[8]" in str(e), e
    else:
      raise AssertionError("no in_specs error for a traced unsplit argument")
    assert_equal(jax.jit(body)(jax.device_put(np.arange(8.), P("X"))),
                 np.arange(8., dtype=np.float32) * 2)
    # out_sharding= resolves the ambiguous cases, as in JAX
    got = jax.jit(lambda a, b: jnp.matmul(a, b, out_sharding=P("X", None)))(y, z)
    assert str(jax.typeof(got)) == "float32[8@X,8]", jax.typeof(got)
    assert_equal(got, (np.arange(32.).reshape(8, 4) @ np.arange(32.).reshape(4, 8)).astype(np.float32))
    got = jax.jit(lambda a: lax.reshape(a, (4, 8), out_sharding=P("X", None)))(y)
    assert str(jax.typeof(got)) == "float32[4@X,8]", jax.typeof(got)
    assert_equal(got, np.arange(32, dtype=np.float32).reshape(4, 8))
    # operations JAX accepts keep working
    assert str(jax.typeof(jax.jit(lambda a, b: a + b)(y, jnp.arange(4.)))) == "float32[8,4@X]"
    assert str(jax.typeof(jax.jit(lambda a, b: jnp.concatenate([a, b], 0))(x, x))) == \
        "float32[16@X,4]"


@check
def psum_invariant_and_its_transpose_in_shard_map():
  # JAX 0.10.2's jaxprs: psum inside a check_vma body is psum_invariant (an invariant operand is
  # first marked varying with pvary); its transpose is pvary, pvary's is psum_invariant, and a
  # varying residual leaves the known body split along its first dimension.
  auto = (jax.sharding.AxisType.Auto,)
  mesh = jax.make_mesh((4,), ("i",), axis_types=auto)
  f = jax.shard_map(lambda x, w: lax.psum(jnp.sin(x) * w, "i"), mesh=mesh,
                    in_specs=(P("i"), P()), out_specs=P())
  x, w = jnp.arange(8.), jnp.float32(2.)
  text = str(jax.make_jaxpr(f)(x, w))
  assert "g:f32[]{V:i} = pvary[axes=('i',)] e" in text, text
  assert "i:f32[2] = psum_invariant[axes=('i',)] h" in text, text
  loss = lambda x, w: f(x, w).sum()
  text = str(jax.make_jaxpr(jax.grad(loss, (0, 1)))(x, w))
  assert "c:f32[8] d:f32[4] e:f32[8] f:f32[2] = shard_map[" in text, text
  assert "n:f32[1]{V:i} = broadcast_in_dim k" in text, text
  assert "w:f32[2]{V:i} = pvary[axes=('i',)] r" in text, text
  assert "ba:f32[] = psum_invariant[axes=('i',)] y" in text, text
  gx, gw = jax.jit(jax.grad(loss, (0, 1)))(x, w)
  xs = np.arange(8., dtype=np.float32)
  np.testing.assert_allclose(np.asarray(gx), 2 * np.cos(xs), rtol=1e-6)
  np.testing.assert_allclose(float(gw), np.sin(xs).sum(), rtol=1e-5)
  # pmean and a psum of an invariant value (pvary first), and their gradients
  mesh2 = jax.make_mesh((2, 2), ("a", "b"), axis_types=auto * 2)
  g = jax.shard_map(lambda x, w: lax.psum(x, "a") + lax.psum(w, ("a", "b")) + lax.pmean(x, "a"),
                    mesh=mesh2, in_specs=(P("a", "b"), P()), out_specs=P(None, "b"))
  x2 = jnp.arange(16.).reshape(4, 4)
  gx, gw = jax.grad(lambda x, w: g(x, w).sum(), (0, 1))(x2, w)
  assert_equal(gx, np.full((4, 4), 1.5, np.float32))  # each of 2 output rows: 1 + 1/2
  assert float(gw) == 32.0, gw  # 8 outputs, each summing w over 4 devices
  # a helper traced inside one shard_map body is not reused with another's types
  h = jax.shard_map(lambda x: jnp.where(x > 3, x, 2 * x).sum(keepdims=True), mesh=mesh2,
                    in_specs=P(("a", "b")), out_specs=P(("a", "b")))
  assert_equal(jax.grad(lambda x: h(x).sum())(jnp.arange(8.)),
               np.array([2, 2, 2, 2, 1, 1, 1, 1], np.float32))
  k = jax.shard_map(lambda x: jnp.where(x > 3, x, 2 * x).sum(keepdims=True), mesh=mesh,
                    in_specs=P("i"), out_specs=P("i"))
  assert_equal(jax.jit(jax.grad(lambda x: k(x).sum()))(jnp.arange(8.)),
               np.array([2, 2, 2, 2, 1, 1, 1, 1], np.float32))


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
