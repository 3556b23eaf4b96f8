"""axle: JAX's API, rebuilt from scratch. ``import axle as jax``."""
from axle._src.config import config as config
from axle._src.interpreters import eval as _eval  # installs the eager trace
from axle._src.array import Array as Array
from axle._src.numpy import array_methods as _array_methods  # operators and methods
from axle._src.api import (
    jit as jit,
    make_jaxpr as make_jaxpr,
    eval_shape as eval_shape,
    ShapeDtypeStruct as ShapeDtypeStruct,
)
from axle._src.devices import default_device as _default_device
from axle._src.tree_util import (
    tree_flatten as tree_flatten,
    tree_leaves as tree_leaves,
    tree_map as tree_map,
    tree_structure as tree_structure,
    tree_unflatten as tree_unflatten,
)
from axle import dtypes as dtypes
from axle import errors as errors
from axle import lax as lax
from axle import numpy as numpy
from axle import tree as tree
from axle import tree_util as tree_util

__version__ = "0.1.0"


def devices(backend=None):
  """The list of devices (one CPU device until the XLA client lands)."""
  return [_default_device()]


def local_devices(process_index=None, backend=None, host_id=None):
  """The devices attached to this process."""
  return [_default_device()]


def device_count(backend=None) -> int:
  """How many devices there are."""
  return 1


def local_device_count(backend=None) -> int:
  """How many devices this process has."""
  return 1


def default_backend() -> str:
  """The name of the default backend: ``'cpu'``."""
  return "cpu"


def block_until_ready(x):
  """Waits until every array in the pytree ``x`` is computed; returns ``x``."""
  for leaf in tree_leaves(x):
    if hasattr(leaf, "block_until_ready"):
      leaf.block_until_ready()
  return x


def device_get(x):
  """The pytree ``x`` with every Array turned into a NumPy array."""
  import numpy as _np
  return tree_map(lambda leaf: _np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)
