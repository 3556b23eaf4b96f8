"""``axle.stages`` (JAX's ``jax.stages``): the stages of ahead-of-time compilation,
``jit(f).trace(...)`` -> ``Traced``, ``.lower()`` -> ``Lowered``, ``.compile()`` -> ``Compiled``.
Re-exports only."""
from axle._src.api import (  # noqa: F401
    Compiled as Compiled,
    JitFunction as Wrapped,
    Lowered as Lowered,
    Traced as Traced,
)
