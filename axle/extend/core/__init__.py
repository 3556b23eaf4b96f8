"""``axle.extend.core`` (JAX's ``jax.extend.core``): primitives and jaxprs. Re-exports only."""
from axle._src.core import Primitive as Primitive, get_aval as get_aval  # noqa: F401
from axle._src.ir import (  # noqa: F401
    ClosedJaxpr as ClosedJaxpr,
    DropVar as DropVar,
    Eqn as JaxprEqn,
    Jaxpr as Jaxpr,
    Literal as Literal,
    Var as Var,
    jaxpr_as_fun as jaxpr_as_fun,
)
from axle.extend.core import primitives as primitives  # noqa: F401,E402
