"""Wrapped functions (JAX's ``jax.extend.linear_util``): a Python callable with the
parameters it is called with, as ``partial_eval.trace_to_jaxpr_dynamic`` takes it."""
from __future__ import annotations

from typing import Any, Callable

from axle._src import tree_util


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


class _Store:
  """A value set once while a wrapped function runs; calling it returns the value."""
  __slots__ = ("value",)

  def __init__(self):
    self.value = None

  def __call__(self):
    if self.value is None:
      raise ValueError("the output tree is only known after the function has been called")
    return self.value


def flatten_fun(f: WrappedFun, in_tree):
  """``f`` (taking ``(args, kwargs)`` as a pytree) as a function of the flat leaves of
  ``in_tree`` returning flat leaves; also returns a thunk giving the output treedef after a
  call (JAX's ``api_util.flatten_fun``)."""
  from_tree = tree_util.tree_unflatten
  store = _Store()

  def flat(*leaves):
    args, kwargs = from_tree(in_tree, leaves)
    out = f.call_wrapped(*args, **kwargs)
    out_leaves, store.value = tree_util.tree_flatten(out)
    return out_leaves

  return WrappedFun(flat, {}, f.debug_info), store


def flatten_fun_nokwargs(f: WrappedFun, in_tree):
  """Like ``flatten_fun`` for ``in_tree`` describing the positional arguments only."""
  store = _Store()

  def flat(*leaves):
    args = tree_util.tree_unflatten(in_tree, leaves)
    out = f.call_wrapped(*args)
    out_leaves, store.value = tree_util.tree_flatten(out)
    return out_leaves

  return WrappedFun(flat, {}, f.debug_info), store


def debug_info(traced_for: str, fun: Callable, args, kwargs, **_options):
  """A description of ``fun`` for error messages (JAX's ``api_util.debug_info``)."""
  return {"traced_for": traced_for, "func_name": getattr(fun, "__name__", repr(fun))}
