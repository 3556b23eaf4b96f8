"""Traceback filtering hooks that JAX libraries call at import time (``jax._src.traceback_util``).

axle does not filter tracebacks, so these only record what they are given: ``api_boundary``
returns the function unchanged and ``register_exclusion`` remembers the path."""
from __future__ import annotations

from typing import Callable

_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
  """Records ``path`` as library code (JAX hides such frames from user tracebacks)."""
  _exclude_paths.append(path)


def api_boundary(fun: Callable | None = None, **_options) -> Callable:
  """Marks ``fun`` as an API entry point; returns it unchanged."""
  if fun is None:
    return lambda f: f
  return fun


def current():
  """The source information of the operation being traced (JAX's ``source_info_util.current``);
  axle records the user's source line on equations itself, so this is None."""
  return None
