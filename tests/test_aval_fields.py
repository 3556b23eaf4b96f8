"""ShapedArray's JAX 0.10.2 keyword fields (sharding=, manual_axis_type=/vma=, memory_space=),
as libraries such as flax.linen's scan build avals, and NamedSharding.update."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle._src import core
from axle.sharding import AbstractMesh, NamedSharding, PartitionSpec as P


def test_defaults_are_jax_defaults():
  aval = core.ShapedArray((2, 3), np.float32)
  assert aval.sharding.mesh.empty and tuple(aval.sharding.spec) == (None, None)
  assert aval.vma == frozenset() and aval.manual_axis_type.empty
  assert repr(aval.memory_space) == "MemorySpace.Device"   # JAX prints this
  assert repr(aval) == "ShapedArray(float32[2,3])"


def test_rebuilding_from_an_arrays_own_sharding_gives_an_equal_plain_aval():
  x = jnp.ones((5, 3))
  aval = core.ShapedArray(x.shape, x.dtype, sharding=x.aval.sharding, weak_type=False)
  assert type(aval) is core.ShapedArray and aval == x.aval
  # flax drops the scanned axis this way
  spec = x.aval.sharding.spec
  row = x.aval.sharding.update(spec=P(*spec[1:]))
  assert tuple(row.spec) == (None,)
  assert core.ShapedArray((3,), np.float32, sharding=row).shape == (3,)


def test_a_mesh_sharding_or_varying_axes_make_a_typed_aval():
  mesh = AbstractMesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
  aval = core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(mesh, P("x", None)))
  assert str(aval) == "float32[8@x,4]"
  assert aval.sharding.spec == P("x", None)
  varying = core.ShapedArray((3,), np.float32, vma={"i"})
  assert str(varying) == "float32[3]{V:i}" and varying.vma == frozenset({"i"})
  assert varying.update(shape=(4,), vma=frozenset()) == core.ShapedArray((4,), np.float32)


def test_update_keeps_fields_and_rejects_other_memory_spaces():
  aval = core.ShapedArray((2,), np.float32, weak_type=True)
  assert aval.update(dtype=np.int32) == core.ShapedArray((2,), np.int32, True)
  with pytest.raises(NotImplementedError, match="memory_space"):
    core.ShapedArray((2,), np.float32, memory_space=core.MemorySpace.Host)
  with pytest.raises(TypeError, match="spec="):
    aval.sharding.update(specs=P())
