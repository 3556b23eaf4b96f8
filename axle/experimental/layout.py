"""``axle.experimental.layout`` (JAX's ``jax.experimental.layout``). Re-exports only."""
from axle._src.layout import DeviceLocalLayout as DeviceLocalLayout, Format as Format, Layout as Layout  # noqa: F401
