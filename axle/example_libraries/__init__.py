"""``axle.example_libraries``: small neural-network and optimizer libraries (JAX's
``jax.example_libraries``)."""
