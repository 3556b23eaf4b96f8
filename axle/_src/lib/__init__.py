"""Stand-ins for the parts of JAX's ``jax._src.lib`` that extension code imports (see
``axle._src.jax_names``)."""
