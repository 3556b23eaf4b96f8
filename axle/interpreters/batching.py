"""``axle.interpreters.batching`` (JAX's ``jax.interpreters.batching``): the batching rule
table, ``rule(batched_args, batch_dims, **params) -> (out, out_dim)``, and its helpers.
Re-exports only."""
from axle._src.interpreters.batching import (  # noqa: F401
    AxisData as AxisData,
    BatchTrace as BatchTrace,
    axis_primitive_batchers as axis_primitive_batchers,
    BatchTracer as BatchTracer,
    batch_jaxpr as batch_jaxpr,
    bdim_at_front as bdim_at_front,
    broadcast as broadcast,
    broadcast_batcher as broadcast_batcher,
    defbroadcasting as defbroadcasting,
    defreducer as defreducer,
    defvectorized as defvectorized,
    matchaxis as matchaxis,
    moveaxis as moveaxis,
    not_mapped as not_mapped,
    primitive_batchers as primitive_batchers,
)
