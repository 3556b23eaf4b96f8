"""``axle.interpreters.partial_eval`` (JAX's ``jax.interpreters.partial_eval``): tracing
functions to jaxprs. Re-exports only."""
from axle._src.interpreters.staging import (  # noqa: F401
    StagingTrace as DynamicJaxprTrace,
    StagingTracer as DynamicJaxprTracer,
    dce_jaxpr as dce_jaxpr,
    trace_to_jaxpr_dynamic as trace_to_jaxpr_dynamic,
)
from axle._src.interpreters.ad import (  # noqa: F401,E402
    PartialVal as PartialVal,
    trace_to_jaxpr_nounits as trace_to_jaxpr_nounits,
)
