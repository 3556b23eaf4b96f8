"""``axle.lax``: the primitive operations (JAX's ``jax.lax``). Re-exports only."""
from axle._src.lax.elementwise import *  # noqa: F401,F403
from axle._src.lax.special import *  # noqa: F401,F403
from axle._src.lax.structural import *  # noqa: F401,F403
from axle._src.lax.slicing import *  # noqa: F401,F403
from axle._src.lax.reductions import *  # noqa: F401,F403
from axle._src.lax.windowed import *  # noqa: F401,F403
from axle._src.lax.sorting import *  # noqa: F401,F403
from axle._src.lax.dot import *  # noqa: F401,F403
from axle._src.lax.conv import *  # noqa: F401,F403
from axle._src.lax.control_flow import *  # noqa: F401,F403
from axle._src.differentiation import stop_gradient as stop_gradient  # noqa: F401
from axle._src.lax.parallel import *  # noqa: F401,F403
from axle._src.lax import parallel_spmd as _parallel_spmd  # collectives in shard_map/pmap
from axle._src.lax.parallel_spmd import pcast as pcast, pvary as pvary
from axle._src.xla.spmd_jit import with_sharding_constraint as with_sharding_constraint
from axle._src.lax.fft import *  # noqa: F401,F403
from axle.lax import linalg as linalg  # noqa: F401,E402
