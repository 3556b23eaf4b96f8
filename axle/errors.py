"""JAX's documented error classes (``jax.errors``)."""
from axle._src.errors import (
    ConcretizationTypeError as ConcretizationTypeError,
    JaxRuntimeError as JaxRuntimeError,
    KeyReuseError as KeyReuseError,
    NonConcreteBooleanIndexError as NonConcreteBooleanIndexError,
    TracerArrayConversionError as TracerArrayConversionError,
    TracerBoolConversionError as TracerBoolConversionError,
    TracerIntegerConversionError as TracerIntegerConversionError,
    UnexpectedTracerError as UnexpectedTracerError,
    JAXTypeError as JAXTypeError,
    JAXIndexError as JAXIndexError,
)
