"""Where an array ref's value lives while ``jit`` traces a function that uses it.

A ref (``jax.new_ref``) made outside a jitted function, whether passed in or closed over, is
read and written by the compiled program: ``jit`` turns it into an extra input (its value when
the function is called) and, when written, an extra output (written back into the ref after the
call). While ``jit`` traces, a *frame* holds each such ref's traced value: reads see it, writes
replace it. The first trace of a function discovers the refs it uses; when it used any, it is
traced again with their values as inputs.

Frames nest as jit traces do: a ref first seen by an inner jit is read from the enclosing frame
(or from the ref itself at top level), and recorded there as well.
"""
from __future__ import annotations

from axle._src import core


class Frame:
  """The refs one ``jit`` trace uses: their traced values, which were written, and which were
  first seen during this trace (``new``: the trace must be repeated with them as inputs)."""
  __slots__ = ("trace", "values", "written", "new")

  def __init__(self, trace, inputs: dict):
    self.trace = trace
    self.values = dict(inputs)  # ref -> its value in this trace (first the input tracers)
    self.written: dict = {}  # ref -> None, in the order of first write
    self.new: list = []


_frames: list[Frame] = []
refs_made = [0]  # how many refs were ever made: jit looks for refs only once one exists
ref_types: set = set()  # the Ref class (state/types.py registers it)


def push(frame: Frame) -> None:
  _frames.append(frame)


def pop(frame: Frame) -> None:
  assert _frames and _frames[-1] is frame
  _frames.pop()


def innermost() -> Frame | None:
  return _frames[-1] if _frames else None


def is_ref(x) -> bool:
  return type(x) in ref_types


def read(ref, level: int | None = None):
  """The value of ``ref`` in the innermost frame (or at ``level``), recording it in every frame
  between the ref's home and that frame."""
  if level is None:
    level = len(_frames) - 1
  if level < 0:
    return ref._value
  frame = _frames[level]
  if ref._frame is frame:  # made inside this trace: an ordinary traced value
    return ref._value
  if ref in frame.values:
    return frame.values[ref]
  value = read(ref, level - 1)
  frame.values[ref] = value
  frame.new.append(ref)
  return value


def write(ref, value) -> None:
  """Sets the value of ``ref`` in the innermost frame (or in the ref, at top level)."""
  frame = innermost()
  if frame is None or ref._frame is frame:
    if isinstance(value, core.Tracer) and value._trace is not ref._trace:
      raise _traced_write_error(ref)
    ref._value = value
    return
  if isinstance(value, core.Tracer) and core.current_trace() is not frame.trace:
    raise _traced_write_error(ref)
  if ref not in frame.values:
    read(ref)  # known to the enclosing frames, and an input of this trace
  frame.values[ref] = value
  frame.written[ref] = None


def _traced_write_error(ref) -> NotImplementedError:
  return NotImplementedError(
      f"a Ref of type {ref._typeof()} made outside a transformation (grad, vmap, scan, "
      "while_loop, cond, ...) is written there with a value traced by it; axle threads refs "
      "through jit only. Return the value from the transformed function and write it to the "
      "ref outside, or make the ref inside.")
