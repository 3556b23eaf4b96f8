"""``axle.extend.core`` (JAX's ``jax.extend.core``): primitives and jaxprs. Re-exports only."""
from axle._src.core import (  # noqa: F401
    Primitive as Primitive, get_aval as get_aval, mapped_aval as mapped_aval,
    unmapped_aval as unmapped_aval)
from axle._src.core import (  # noqa: F401
    Effect as Effect,
    Effects as Effects,
    concrete_or_error as concrete_or_error,
    get_opaque_trace_state as get_opaque_trace_state,
    no_effects as no_effects,
    current_trace as find_top_trace,
    set_current_trace as set_current_trace,
    valid_jaxtype as valid_jaxtype,
)
from axle._src.interpreters.ad import tangent_dtype as primal_dtype_to_tangent_dtype  # noqa: F401
from axle._src.ir import (  # noqa: F401
    JaxprTypeError as JaxprTypeError,
    check_jaxpr as check_jaxpr,
    jaxprs_in_params as jaxprs_in_params,
    new_jaxpr_eqn as new_jaxpr_eqn,
    subjaxprs as subjaxprs,
    ClosedJaxpr as ClosedJaxpr,
    DropVar as DropVar,
    Eqn as JaxprEqn,
    Jaxpr as Jaxpr,
    Literal as Literal,
    Var as Var,
    jaxpr_as_fun as jaxpr_as_fun,
)
from axle.extend.core import primitives as primitives  # noqa: F401,E402
