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
from axle._src.differentiation import stop_gradient as stop_gradient, stop_gradient_p as stop_gradient_p  # noqa: F401,E501
from axle._src.lax.parallel import *  # noqa: F401,F403
from axle._src.lax.fft import *  # noqa: F401,F403
from axle._src.lax.custom_solvers import custom_linear_solve as custom_linear_solve, custom_root as custom_root  # noqa: F401,E501
from axle.lax import linalg as linalg  # noqa: F401,E402
