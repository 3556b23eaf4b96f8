"""Traceback filtering: errors raised through axle's API show the user's frames, not axle's.

``api_boundary`` wraps the entry points (``jit``-compiled functions, ``grad``, ``vmap``, ...).
When an exception leaves the outermost boundary, the frames of axle's own source files are
removed from its traceback, except the axle function the user's code called last (it names
what failed), and a note says how to see everything. ``jax_traceback_filtering`` (environment
variable ``JAX_TRACEBACK_FILTERING``) chooses: ``"off"`` keeps the full traceback; ``"auto"``
(the default), ``"remove_frames"``, ``"quiet_remove_frames"`` and ``"tracebackhide"`` filter.
"""
from __future__ import annotations

import functools
import os
import types

from axle._src.config import config

_AXLE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

FILTERING_NOTE = ("--------------------\n"
                  "For simplicity, JAX has removed its internal frames from the traceback of the "
                  "following exception. Set JAX_TRACEBACK_FILTERING=off to include these.")

_MODES = ("off", "auto", "tracebackhide", "remove_frames", "quiet_remove_frames")


def filtering_enabled() -> bool:
  mode = config.jax_traceback_filtering
  if mode not in _MODES:
    raise ValueError(f"jax_traceback_filtering must be one of {_MODES}, got {mode!r}")
  return mode != "off"


# Source directories whose frames are hidden: axle's own, and those libraries register (as
# flax and equinox do with JAX's ``register_exclusion``).
_excluded_paths: list[str] = [_AXLE_DIR]


def register_exclusion(path: str) -> None:
  """Hides the frames of source files under ``path`` from filtered tracebacks."""
  _excluded_paths.append(path)


def is_axle_frame(frame: types.FrameType) -> bool:
  return frame.f_code.co_filename.startswith(tuple(_excluded_paths))


def include_frame(frame: types.FrameType) -> bool:
  """Whether a filtered traceback keeps ``frame`` (it is not in axle's or an excluded file)."""
  return not is_axle_frame(frame)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
  """``tb`` without axle's frames, except the axle frame called by the last user frame."""
  entries = []
  while tb is not None:
    entries.append(tb)
    tb = tb.tb_next
  last_user = max((i for i, e in enumerate(entries) if not is_axle_frame(e.tb_frame)), default=None)
  keep = []
  for i, entry in enumerate(entries):
    if not is_axle_frame(entry.tb_frame):
      keep.append(entry)
    elif last_user is not None and i == last_user + 1:
      keep.append(entry)
  if not keep:
    return entries[-1] if entries else None
  new = None
  for entry in reversed(keep):
    new = types.TracebackType(new, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
  return new


def filter_exception(exc: BaseException) -> None:
  if getattr(exc, "_axle_traceback_filtered", False):
    exc.with_traceback(filter_traceback(exc.__traceback__))
    return
  exc.with_traceback(filter_traceback(exc.__traceback__))
  try:
    exc._axle_traceback_filtered = True
    exc.add_note(FILTERING_NOTE)
  except (AttributeError, TypeError):  # exceptions with __slots__ or read-only attributes
    pass


def api_boundary(fun=None, **_options):
  """Wraps an API entry point so that exceptions leaving it have axle's frames filtered (also
  usable as ``@api_boundary(...)``; JAX's keyword options are accepted)."""
  if fun is None:
    return api_boundary

  @functools.wraps(fun)
  def reraise_with_filtered_traceback(*args, **kwargs):
    try:
      return fun(*args, **kwargs)
    except Exception as exc:
      if filtering_enabled():
        filter_exception(exc)
      raise

  return reraise_with_filtered_traceback
