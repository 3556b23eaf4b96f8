"""``axle.experimental`` (JAX's ``jax.experimental``): import its submodules, e.g.
``from axle.experimental import checkify``."""
