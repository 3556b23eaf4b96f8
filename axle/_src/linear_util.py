"""Wrapped functions (JAX's ``jax.extend.linear_util``): a Python callable with the
parameters it is called with, as ``partial_eval.trace_to_jaxpr_dynamic`` takes it."""
from __future__ import annotations

from typing import Any, Callable


class WrappedFun:
  """``f`` together with keyword ``params``; ``call_wrapped(*args)`` calls ``f(*args, **params)``."""
  __slots__ = ("f", "params", "debug_info")

  def __init__(self, f: Callable, params: dict | None = None, debug_info: Any = None):
    self.f = f
    self.params = dict(params or {})
    self.debug_info = debug_info

  @property
  def __name__(self):
    return getattr(self.f, "__name__", "<unnamed wrapped function>")

  def call_wrapped(self, *args):
    return self.f(*args, **self.params)

  __call__ = call_wrapped

  def __repr__(self):
    return f"Wrapped function: {self.__name__}"


def wrap_init(f: Callable, params: dict | None = None, *, debug_info: Any = None) -> WrappedFun:
  """Wraps ``f`` (called with ``params`` as keyword arguments) as a WrappedFun."""
  return WrappedFun(f, params, debug_info)


def as_callable(f) -> Callable:
  """A plain callable for a WrappedFun or a callable."""
  return f.call_wrapped if isinstance(f, WrappedFun) else f
