"""axle: JAX's API, rebuilt from scratch. ``import axle as jax``."""
from axle._src.config import config as config
from axle._src.interpreters import eval as _eval  # installs the eager trace
from axle._src.basearray import Array as Array
from axle._src.xla.client import Device as Device
from axle._src.numpy import array_methods as _array_methods  # operators and methods
from axle._src.api import (
    jit as jit,
    make_jaxpr as make_jaxpr,
    eval_shape as eval_shape,
    ShapeDtypeStruct as ShapeDtypeStruct,
)
from axle._src.api import (
    clear_caches as clear_caches,
    disable_jit as disable_jit,
    ensure_compile_time_eval as ensure_compile_time_eval,
)
from axle._src.config import (
    check_tracer_leaks as check_tracer_leaks,
    checking_leaks as checking_leaks,
    debug_infs as debug_infs,
    debug_nans as debug_nans,
    default_matmul_precision as default_matmul_precision,
    enable_checks as enable_checks,
    enable_x64 as enable_x64,
    log_compiles as log_compiles,
    numpy_dtype_promotion as numpy_dtype_promotion,
    numpy_rank_promotion as numpy_rank_promotion,
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
    custom_gradient as custom_gradient,
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
from axle._src.lax.callback import pure_callback as pure_callback
from axle._src.xla.execution import effects_barrier as effects_barrier
from axle import dtypes as dtypes
from axle import debug as debug
from axle import experimental as experimental
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

from axle._src.jax_names import alias_as_jax as alias_as_jax
from axle import api_util as api_util
from axle import core as core
from axle import monitoring as monitoring
from axle import custom_derivatives as custom_derivatives
from axle import extend as extend
from axle import flatten_util as flatten_util
from axle import interpreters as interpreters
from axle import stages as stages
from axle import typing as typing
from axle import version as version
from axle._src.version import __version_info__ as __version_info__

# axle's own version; ``axle.version.__version__`` / ``__version_info__`` are the JAX API
# version axle implements (0.10.2).
from axle._src.version import axle_version as __version__
from axle._src.state.types import Ref as Ref, freeze as freeze, new_ref as new_ref
