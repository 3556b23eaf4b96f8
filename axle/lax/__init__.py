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
from axle._src.numpy.util import broadcast_shapes as broadcast_shapes  # noqa: F401,E402
from axle._src.primitive_table import (  # noqa: F401,E402
    all_gather_p, all_to_all_p, argmax_p, argmin_p, axis_index_p, cond_p, cumlogsumexp_p,
    cummax_p, cummin_p, cumprod_p, cumsum_p, pmax_p, pmin_p, ppermute_p, psum_p, reduce_and_p,
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_p, reduce_prod_p, reduce_sum_p,
    reduce_window_max_p, reduce_window_min_p, reduce_window_p, reduce_window_sum_p,
    reduce_xor_p, scan_p, sort_p, top_k_p, while_p)
