"""Implementation of axle.scipy (JAX's jax.scipy)."""
