"""axle's documented error classes (``axle.errors``), named and worded as JAX's.

Messages about tracers say which function was being traced, for which
transformation, and which of its arguments the offending value came from
(``tracer._origin_message()``, provided by the tracer's trace).
"""
from __future__ import annotations

from axle._src import dtypes

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."

IMMUTABLE_SETITEM_MESSAGE = (
    "JAX arrays are immutable and do not support in-place item assignment. Instead of "
    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


class _JAXErrorMixin:
  """Mixin for JAX-defined errors: adds the documentation link."""
  _error_page = _DOCS

  def __init__(self, message: str):
    error_page = f"{self._error_page}{type(self).__name__}"
    super().__init__(f"{message}\nSee {error_page}")


class JAXTypeError(_JAXErrorMixin, TypeError):
  """Base of JAX's TypeErrors that link to the errors documentation."""
  pass


class JAXIndexError(_JAXErrorMixin, IndexError):
  """Base of JAX's IndexErrors that link to the errors documentation."""
  pass


def _aval_description(tracer) -> str:
  aval = tracer.aval
  return f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"


def _origin(tracer) -> str:
  origin = getattr(tracer, "_origin_message", None)
  return origin() if origin is not None else ""


class ConcretizationTypeError(JAXTypeError):
  """A traced value was used where Python needs a concrete one (e.g. a shape, ``float(x)``)."""

  def __init__(self, tracer, context: str = ""):
    self.tracer = tracer
    if isinstance(tracer, str):  # an already formed message
      super().__init__(tracer)
      return
    message = ("Abstract tracer value encountered where concrete value is expected: traced array "
               f"with shape {_aval_description(tracer)}\n")
    if context:
      message += context.rstrip() + "\n"
    message += _origin(tracer) + "\n"
    super().__init__(message)


class TracerBoolConversionError(ConcretizationTypeError):
  """``bool()`` of a traced value, usually from Python control flow on a traced value."""

  def __init__(self, tracer):
    self.tracer = tracer
    JAXTypeError.__init__(
        self, f"Attempted boolean conversion of traced array with shape "
        f"{_aval_description(tracer)}.\n"
        f"{_origin(tracer)}")


def _short(tracer) -> str:
  aval = tracer.aval
  return f"{dtypes.short_dtype_name(aval.dtype)}[{','.join(str(d) for d in aval.shape)}]"


class TracerIntegerConversionError(JAXTypeError):
  """``__index__``/``int`` of a traced value, e.g. using it as a list index or a range bound."""

  def __init__(self, tracer):
    self.tracer = tracer
    super().__init__(f"The __index__() method was called on traced array with shape "
                     f"{_aval_description(tracer)}\n{_origin(tracer)}")


class TracerArrayConversionError(JAXTypeError):
  """``np.asarray`` (``__array__``) of a traced value."""

  def __init__(self, tracer):
    self.tracer = tracer
    super().__init__("The numpy.ndarray conversion method __array__() was called on traced array "
                     f"with shape {_aval_description(tracer)}\n{_origin(tracer)}")


class NonConcreteBooleanIndexError(JAXIndexError):
  """Boolean-mask indexing with a traced mask: the result shape would depend on its values."""

  def __init__(self, tracer):
    self.tracer = tracer
    super().__init__(f"Array boolean indices must be concrete; got {_short(tracer)}\n")


class UnexpectedTracerError(JAXTypeError):
  """A tracer escaped the transformation that created it (a side effect leaked it)."""

  def __init__(self, message: str):
    super().__init__(message)


class KeyReuseError(JAXTypeError):
  """A PRNG key was used twice (only when key-reuse checking is enabled)."""

  def __init__(self, message: str):
    super().__init__(message)


class JaxRuntimeError(RuntimeError):
  """An error raised by the XLA runtime while executing a computation."""


def concretization_context(function_name: str) -> str:
  """The hint JAX adds when ``int``/``float``/``complex``/``bool`` is applied to a tracer."""
  return (f"The problem arose with the `{function_name}` function. If trying to convert the data "
          f"type of a value, try using `x.astype({function_name})` or "
          f"`jnp.array(x, {function_name})` instead.")
