"""``axle.extend`` (JAX's ``jax.extend``): the API for libraries that build on JAX's internals
(new primitives, jaxpr interpreters, backends). Re-exports only."""
from axle.extend import backend as backend  # noqa: F401
from axle.extend import core as core  # noqa: F401
from axle.extend import linear_util as linear_util  # noqa: F401
from axle.extend import source_info_util as source_info_util  # noqa: F401
