"""``axle.lax``: the primitive operations (JAX's ``jax.lax``). Re-exports only."""
from axle._src.lax import *  # noqa: F401,F403
from axle._src.differentiation import stop_gradient_p as stop_gradient_p  # noqa: F401
from axle._src.numpy.util import broadcast_shapes as broadcast_shapes  # noqa: F401
from axle._src.primitive_table import (  # noqa: F401
    all_gather_p, all_to_all_p, argmax_p, argmin_p, axis_index_p, cond_p, cumlogsumexp_p,
    cummax_p, cummin_p, cumprod_p, cumsum_p, pmax_p, pmin_p, ppermute_p, psum_p, reduce_and_p,
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_p, reduce_prod_p, reduce_sum_p,
    reduce_window_max_p, reduce_window_min_p, reduce_window_p, reduce_window_sum_p,
    reduce_xor_p, scan_p, sort_p, top_k_p, while_p)
from axle.lax import linalg as linalg  # noqa: F401
