"""The tracers of partial evaluation (JAX's ``partial_eval.JaxprTracer``): the unknown values
that ``linearize``/``vjp``/``grad`` stage into the linear jaxpr (``ad.LinearizeTrace``)."""
from __future__ import annotations

from axle._src.interpreters import staging


class JaxprTracer(staging.StagingTracer):
  """An unknown (staged) value of a partial evaluation; prints as ``Traced<~float32[]:JaxprTrace>``
  as in JAX."""
  __slots__ = ()
  _public_type_name = "JaxprTracer"

  def __repr__(self):
    weak = "~" if self.aval.weak_type else ""
    return f"Traced<{weak}{self.aval.str_short(short_dtypes=False)}:JaxprTrace>"

  __str__ = __repr__
