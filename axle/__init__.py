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
from axle._src.api import (
    disable_jit as disable_jit,
)
from axle._src.differentiation import (
    grad as grad,
    hessian as hessian,
    jacfwd as jacfwd,
    jacobian as jacobian,
    jacrev as jacrev,
    jvp as jvp,
    linear_transpose as linear_transpose,
    linearize as linearize,
    value_and_grad as value_and_grad,
    vjp as vjp,
)
from axle._src.vmap import vmap as vmap
from axle._src.dtypes import float0 as float0
from axle._src.api import named_call as named_call, named_scope as named_scope, typeof as typeof
from axle._src.checkpoint import (
    checkpoint as checkpoint,
    checkpoint_policies as checkpoint_policies,
    remat as remat,
)
from axle._src.custom_derivatives import (
    closure_convert as closure_convert,
    custom_jvp as custom_jvp,
    custom_vjp as custom_vjp,
)
from axle._src.devices import (
    block_until_ready as block_until_ready,
    default_backend as default_backend,
    device_count as device_count,
    device_get as device_get,
    device_put as device_put,
    devices as devices,
    local_device_count as local_device_count,
    local_devices as local_devices,
    process_count as process_count,
    process_index as process_index,
)
from axle._src.shard_map import pmap as pmap, shard_map as shard_map
from axle._src.sharding import make_mesh as make_mesh, set_mesh as set_mesh
from axle._src.sharding import NamedSharding as NamedSharding, PartitionSpec as P
from axle._src.xla.spmd_jit import reshard as reshard
from axle._src.sharded_array import (
    make_array_from_callback as make_array_from_callback,
    make_array_from_process_local_data as make_array_from_process_local_data,
    make_array_from_single_device_arrays as make_array_from_single_device_arrays,
)
from axle._src.tree_util import (
    tree_flatten as tree_flatten,
    tree_leaves as tree_leaves,
    tree_map as tree_map,
    tree_structure as tree_structure,
    tree_unflatten as tree_unflatten,
)
from axle import dtypes as dtypes
from axle import example_libraries as example_libraries
from axle import errors as errors
from axle import lax as lax
from axle import nn as nn
from axle import numpy as numpy
from axle import random as random
from axle import scipy as scipy
from axle import sharding as sharding
from axle import experimental as experimental
from axle import debug as debug
from axle import distributed as distributed
from axle import tree as tree
from axle import test_util as test_util
from axle import tree_util as tree_util

__version__ = "0.1.0"
