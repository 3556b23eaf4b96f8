"""The lax namespace: every lax primitive and function, by family (JAX's ``jax.lax``).

``from axle._src import lax`` gives what ``axle.lax`` re-exports (``lax.add``, ``lax.scan``,
``lax.linalg``, ...). ``__all__`` lists the public names; importing any module of this package
runs this file first, so the families are imported here in their layer order.
"""
from axle._src.differentiation import stop_gradient
from axle._src.lax import (contractions, control_flow, convolution, custom_solvers,  # noqa: F401
                           elementwise, fourier, linalg, parallel, ragged, reductions, slicing,
                           sorting, special, special_loops, structural, structural_extra,
                           windowed)

__all__ = ["stop_gradient"] + [
    name for family in (elementwise, special, structural, structural_extra, slicing, reductions, windowed, sorting,
                        contractions, ragged, convolution, control_flow, special_loops, parallel,
                        fourier, custom_solvers)
    for name in family.__all__]

from axle._src.lax.elementwise import *  # noqa: E402,F401,F403
from axle._src.lax.special import *  # noqa: E402,F401,F403
from axle._src.lax.structural import *  # noqa: E402,F401,F403
from axle._src.lax.structural_extra import *  # noqa: E402,F401,F403
from axle._src.lax.slicing import *  # noqa: E402,F401,F403
from axle._src.lax.reductions import *  # noqa: E402,F401,F403
from axle._src.lax.windowed import *  # noqa: E402,F401,F403
from axle._src.lax.sorting import *  # noqa: E402,F401,F403
from axle._src.lax.contractions import *  # noqa: E402,F401,F403
from axle._src.lax.ragged import *  # noqa: E402,F401,F403
from axle._src.lax.convolution import *  # noqa: E402,F401,F403
from axle._src.lax.control_flow import *  # noqa: E402,F401,F403
from axle._src.lax.special_loops import *  # noqa: E402,F401,F403
from axle._src.lax.parallel import *  # noqa: E402,F401,F403
from axle._src.lax.fourier import *  # noqa: E402,F401,F403
from axle._src.lax.custom_solvers import *  # noqa: E402,F401,F403
# Collectives inside shard_map/pmap, and sharding constraints.
from axle._src.lax.parallel_spmd import pcast, pvary  # noqa: E402
from axle._src.xla.spmd_jit import with_sharding_constraint  # noqa: E402

__all__ += ["pcast", "pvary", "with_sharding_constraint"]
