"""Implementation of axle.nn (JAX's jax.nn)."""
