"""Telling the user why a jitted function was traced and compiled again.

Every jitted function remembers the signature of its last trace (argument names, abstract
values, static values, tracing flags). On a new trace it can say, in plain words, what changed:
"argument 'x' changed shape from f32[7] to f32[9]". When one function has been traced more than
``axle_retrace_warning_threshold`` times, a RetraceWarning says so once; with
``jax_explain_cache_misses`` every trace is explained (logged on the ``axle`` logger).
"""
from __future__ import annotations

import logging
import warnings

from axle._src import config as config_module
from axle._src.config import config

logger = logging.getLogger("axle")


class RetraceWarning(UserWarning):
  """A jitted function keeps being traced and compiled again for new argument types."""


class Signature:
  """What a trace was specialised on, with names a user recognises."""
  __slots__ = ("names", "avals", "in_tree", "statics", "trace_state")

  def __init__(self, names, avals, in_tree, statics, trace_state):
    self.names = list(names)
    self.avals = list(avals)
    self.in_tree = in_tree
    self.statics = statics
    self.trace_state = trace_state


def _short(aval) -> str:
  return aval.str_short(short_dtypes=True)


def describe_changes(old: Signature, new: Signature) -> list[str]:
  """Plain-words differences between two signatures of the same function."""
  changes = []
  for flag, before, after in zip(config_module.TRACE_FLAGS, old.trace_state, new.trace_state):
    if before != after:
      changes.append(f"the flag {flag} changed from {before!r} to {after!r}")
  old_statics, new_statics = dict(old.statics), dict(new.statics)
  for key in sorted(set(old_statics) | set(new_statics), key=str):
    before = old_statics.get(key)
    after = new_statics.get(key)
    if before != after:
      label = f"static argument {key!r}" if isinstance(key, str) else f"static argument {key}"
      before_text = repr(before.value) if before is not None else "(not given)"
      after_text = repr(after.value) if after is not None else "(not given)"
      changes.append(f"{label} changed value from {before_text} to {after_text}")
  if old.in_tree != new.in_tree:
    old_names, new_names = set(old.names), set(new.names)
    added = [n for n in new.names if n not in old_names]
    removed = [n for n in old.names if n not in new_names]
    detail = []
    if added:
      detail.append("new: " + ", ".join(f"'{n}'" for n in added[:5]))
    if removed:
      detail.append("gone: " + ", ".join(f"'{n}'" for n in removed[:5]))
    changes.append("the structure of the arguments changed" +
                   (f" ({'; '.join(detail)})" if detail else f" from {old.in_tree} to {new.in_tree}"))
    old_by_name = dict(zip(old.names, old.avals))
    pairs = [(n, old_by_name[n], a) for n, a in zip(new.names, new.avals) if n in old_by_name]
  else:
    pairs = list(zip(new.names, old.avals, new.avals))
  for name, before, after in pairs:
    if before == after:
      continue
    if before.shape != after.shape and before.dtype == after.dtype:
      changes.append(f"argument '{name}' changed shape from {_short(before)} to {_short(after)}")
    elif before.dtype != after.dtype and before.shape == after.shape:
      changes.append(f"argument '{name}' changed dtype from {before.dtype.name} to "
                     f"{after.dtype.name}")
    elif before.shape != after.shape:
      changes.append(f"argument '{name}' changed from {_short(before)} to {_short(after)}")
    else:
      kinds = {True: "weakly typed (a Python scalar)", False: "strongly typed"}
      changes.append(f"argument '{name}' changed from {kinds[before.weak_type]} "
                     f"{_short(before)} to {kinds[after.weak_type]} {_short(after)}")
  return changes


class TraceCounter:
  """Per-function trace count and last signature; explains and warns."""
  __slots__ = ("count", "last", "warned")

  def __init__(self):
    self.count = 0
    self.last: Signature | None = None
    self.warned = False

  def record(self, function_name: str, make_signature) -> None:
    """Counts one new trace; ``make_signature()`` builds its Signature (only when needed)."""
    self.count += 1
    threshold = config.axle_retrace_warning_threshold
    explain = config.jax_explain_cache_misses
    warn = not self.warned and threshold > 0 and self.count > threshold
    signature = make_signature()
    previous, self.last = self.last, signature
    if not (explain or warn):
      return
    if previous is None:
      reason = "it had never been traced before" if self.count == 1 else "of a new signature"
      text = f"jit({function_name}) traced because {reason}"
    else:
      changes = describe_changes(previous, signature) or ["an argument signature seen before was "
                                                           "evicted from the cache"]
      text = f"jit({function_name}) traced again because " + "; ".join(changes)
    text += f"; {self.count} compilation{'s' if self.count != 1 else ''} so far"
    if explain:
      logger.warning("TRACING CACHE MISS: %s", text)
    if warn:
      self.warned = True
      warnings.warn(
          f"{text}. A jitted function that is compiled again and again is slow: pass values "
          "that change as arguments with stable shapes and dtypes, mark true constants with "
          "static_argnums, or pad inputs to a few fixed shapes (this warning is shown once per "
          "function; set axle.config.update('axle_retrace_warning_threshold', 0) to silence it).",
          RetraceWarning, stacklevel=4)
