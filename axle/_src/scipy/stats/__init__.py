"""Implementation of ``axle.scipy.stats`` (JAX's ``jax.scipy.stats``): one module per
distribution, each a set of NumPy-style functions written in axle.numpy / axle.lax /
axle.scipy.special operations (no primitives of their own)."""
