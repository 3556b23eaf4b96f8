"""``axle.core`` (JAX's ``jax.core``): abstract values, primitives, traces and jaxprs, for
libraries that inspect or extend tracing. Re-exports only."""
from axle._src.api import typeof as typeof  # noqa: F401
from axle._src.core import (  # noqa: F401
    Primitive as Primitive,
    ShapedArray as AbstractValue,
    ShapedArray as ShapedArray,
    ShapedArray as UnshapedArray,
    Trace as Trace,
    Tracer as Tracer,
    canonicalize_shape as canonicalize_shape,
    concrete_or_error as concrete_or_error,
    get_opaque_trace_state as get_opaque_trace_state,
    current_trace as find_cur_trace,
    get_aval as get_aval,
    is_concrete as is_concrete,
    mapped_aval as mapped_aval,
    unmapped_aval as unmapped_aval,
    trace_state_clean as trace_state_clean,
    valid_jaxtype as valid_jaxtype,
)
from axle._src.errors import ConcretizationTypeError as ConcretizationTypeError  # noqa: F401
from axle._src.ir import (  # noqa: F401
    ClosedJaxpr as ClosedJaxpr,
    DropVar as DropVar,
    Eqn as JaxprEqn,
    Jaxpr as Jaxpr,
    JaxprTypeError as JaxprTypeError,
    Literal as Literal,
    Var as Var,
    check_jaxpr as check_jaxpr,
    eval_jaxpr as eval_jaxpr,
    jaxpr_as_fun as jaxpr_as_fun,
)
