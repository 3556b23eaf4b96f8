"""Alias of the lax operations under the name JAX code imports them by (``jax._src.lax.lax``);
listed in ``axle._src.jax_names``."""
from axle._src.lax.elementwise import *  # noqa: F401,F403
from axle._src.lax.special import *  # noqa: F401,F403
from axle._src.lax.structural import *  # noqa: F401,F403
from axle._src.lax.slicing import *  # noqa: F401,F403
from axle._src.lax.reductions import *  # noqa: F401,F403
from axle._src.lax.contractions import *  # noqa: F401,F403
from axle._src.lax.structural import full_like as full_like  # noqa: F401
