"""``axle.interpreters.mlir`` (JAX's ``jax.interpreters.mlir``): registering lowering rules.
Re-exports only."""
from axle._src.interpreters.lowering import lowering_rules as _lowerings  # noqa: F401
from axle._src.interpreters.mlir import (  # noqa: F401
    LoweringParameters as LoweringParameters,
    LoweringRuleContext as LoweringRuleContext,
    ModuleContext as ModuleContext,
    Value as Value,
    aval_to_ir_type as aval_to_ir_type,
    aval_to_ir_types as aval_to_ir_types,
    dtype_to_ir_type as dtype_to_ir_type,
    ir_constant as ir_constant,
    lower_fun as lower_fun,
    register_lowering as register_lowering,
)
