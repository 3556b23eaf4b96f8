"""Array references (``jax.new_ref``, ``jax.Ref``): mutable boxes holding an array."""
