"""``axle.interpreters`` (JAX's ``jax.interpreters``): the rule tables and helpers that
libraries defining their own primitives register into. Re-exports only."""
from axle.interpreters import ad as ad  # noqa: F401
from axle.interpreters import batching as batching  # noqa: F401
from axle.interpreters import mlir as mlir  # noqa: F401
from axle.interpreters import partial_eval as partial_eval  # noqa: F401
