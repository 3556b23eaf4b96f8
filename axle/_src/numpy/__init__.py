"""The ``jax.numpy`` namespace, for code inside axle (``from axle._src import numpy as jnp``).

``__all__`` lists the public names; ``axle.numpy`` re-exports them. ``jnp.linalg`` and ``jnp.fft``
here are the ``axle._src.numpy`` submodules."""
import types as _types

import numpy as _np

from axle._src.basearray import Array as ndarray
from axle._src.dtypes import (
    can_cast as can_cast,
    finfo as finfo,
    iinfo as iinfo,
    issubdtype as issubdtype,
    promote_types as promote_types,
    result_type as result_type,
)
from axle._src.numpy.scalar_types import *  # noqa: F401,F403  (float32, int32, bool_, ...)
from axle._src.numpy.creation import (
    arange as arange,
    array as array,
    asarray as asarray,
    empty as empty,
    empty_like as empty_like,
    eye as eye,
    from_dlpack as from_dlpack,
    frombuffer as frombuffer,
    fromfile as fromfile,
    fromiter as fromiter,
    fromstring as fromstring,
    full as full,
    full_like as full_like,
    identity as identity,
    ones as ones,
    ones_like as ones_like,
    zeros as zeros,
    zeros_like as zeros_like,
)
from axle._src.numpy.lax_numpy import (
    around as around,
    astype as astype,
    atleast_1d as atleast_1d,
    atleast_2d as atleast_2d,
    atleast_3d as atleast_3d,
    bincount as bincount,
    broadcast_arrays as broadcast_arrays,
    broadcast_to as broadcast_to,
    clip as clip,
    concatenate as concatenate,
    convolve as convolve,
    copy as copy,
    correlate as correlate,
    dot as dot,
    expand_dims as expand_dims,
    fromfunction as fromfunction,
    geomspace as geomspace,
    indices as indices,
    inner as inner,
    linspace as linspace,
    logspace as logspace,
    matmul as matmul,
    matrix_transpose as matrix_transpose,
    meshgrid as meshgrid,
    mgrid as mgrid,
    moveaxis as moveaxis,
    nonzero as nonzero,
    ogrid as ogrid,
    outer as outer,
    ravel as ravel,
    reshape as reshape,
    round as round,
    squeeze as squeeze,
    stack as stack,
    swapaxes as swapaxes,
    transpose as transpose,
    vdot as vdot,
    where as where,
)
from axle._src.numpy.reductions import (
    all as all,
    amax as amax,
    amin as amin,
    any as any,
    argmax as argmax,
    argmin as argmin,
    cumprod as cumprod,
    cumsum as cumsum,
    cumulative_prod as cumulative_prod,
    cumulative_sum as cumulative_sum,
    max as max,
    mean as mean,
    min as min,
    prod as prod,
    sum as sum,
)
from axle._src.numpy.ufuncs import *  # noqa: F401,F403
from axle._src.numpy.util import broadcast_shapes as broadcast_shapes
from axle._src.numpy.statistics import *  # noqa: F401,F403  (var, std, nan*, quantile, ...)
from axle._src.numpy.selection import *  # noqa: F401,F403  (take, sort, unique, ...)
from axle._src.numpy.shape_ops import *  # noqa: F401,F403  (split, pad, tril, ...)
from axle._src.numpy.products import *  # noqa: F401,F403  (einsum, tensordot, ...)
from axle._src.numpy.polynomial import *  # noqa: F401,F403  (poly*, windows, histogram, ...)
from axle._src.numpy.misc import *  # noqa: F401,F403  (predicates, ufunc, vectorize, ...)

from numpy import (  # the abstract scalar type hierarchy, shared with NumPy as in JAX
    character as character,
    complexfloating as complexfloating,
    dtype as dtype,
    flexible as flexible,
    floating as floating,
    generic as generic,
    inexact as inexact,
    integer as integer,
    number as number,
    signedinteger as signedinteger,
    unsignedinteger as unsignedinteger,
)

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None

from axle._src.numpy import fft as fft, linalg as linalg  # noqa: E402  (submodules, not in __all__)

__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_") and not isinstance(value, _types.ModuleType))
