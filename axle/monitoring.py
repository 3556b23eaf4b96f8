"""``axle.monitoring`` (JAX's ``jax.monitoring``). Re-exports only."""
from axle._src.monitoring import (  # noqa: F401
    clear_event_listeners as clear_event_listeners,
    record_event as record_event,
    record_event_duration_secs as record_event_duration_secs,
    record_scalar as record_scalar,
    register_event_duration_secs_listener as register_event_duration_secs_listener,
    register_event_listener as register_event_listener,
    register_scalar_listener as register_scalar_listener,
)
