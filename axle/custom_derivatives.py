"""``axle.custom_derivatives`` (JAX's ``jax.custom_derivatives``). Re-exports only."""
from axle._src.custom_derivatives import (  # noqa: F401
    CustomVJPPrimal as CustomVJPPrimal,
    SymbolicZero as SymbolicZero,
    closure_convert as closure_convert,
    custom_gradient as custom_gradient,
    custom_jvp as custom_jvp,
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values,
    custom_jvp_call_p as custom_jvp_call_p,
    custom_vjp as custom_vjp,
    custom_vjp_call_p as custom_vjp_call_p,
    zero_from_primal as zero_from_primal,
)
