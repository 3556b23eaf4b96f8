"""``axle.experimental.hijax`` (JAX's ``jax.experimental.hijax``): the names for defining
high-level types; axle provides them so that libraries import, not the types themselves.
Re-exports only."""
from axle._src.hijax import (  # noqa: F401
    AbstractValue as AbstractValue,
    AvalMutableQDD as AvalMutableQDD,
    AvalQDD as AvalQDD,
    HiPrimitive as HiPrimitive,
    HiType as HiType,
    MutableHiType as MutableHiType,
    Zero as Zero,
    aval_method as aval_method,
    aval_property as aval_property,
    control_flow_allowed_effects as control_flow_allowed_effects,
    instantiate_zeros as instantiate_zeros,
    is_undefined_primal as is_undefined_primal,
    register_hitype as register_hitype,
)
