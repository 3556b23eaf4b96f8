"""``axle.interpreters.ad`` (JAX's ``jax.interpreters.ad``): JVP and transpose rule tables and
constructors. A JVP rule is ``rule(primals, tangents, **params) -> (primal_out, tangent_out)``;
a transpose rule ``rule(ct, *args, **params)`` gets ``UndefinedPrimal`` for linear inputs and
returns one cotangent (or None) per input. Re-exports only."""
from axle._src.interpreters.ad import (  # noqa: F401
    JVPTrace as JVPTrace,
    JVPTracer as JVPTracer,
    UndefinedPrimal as UndefinedPrimal,
    Zero as Zero,
    add_jaxvals_p as add_jaxvals_p,
    add_tangents as add_jaxvals,
    add_tangents as add_tangents,
    backward_pass as backward_pass,
    defbilinear as defbilinear,
    defjvp as defjvp,
    defjvp2 as defjvp2,
    defjvp_zero as defjvp_zero,
    deflinear as deflinear,
    deflinear2 as deflinear2,
    instantiate_zeros as instantiate_zeros,
    is_undefined_primal as is_undefined_primal,
    jvp_jaxpr as jvp_jaxpr,
    linear_jvp as linear_jvp,
    primitive_jvps as primitive_jvps,
    primitive_transposes as primitive_transposes,
    zeros_like_aval as zeros_like_aval,
)
