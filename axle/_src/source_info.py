"""Where in the user's code an equation was staged: file, line, column, function, name scope.

Staging a primitive records a ``SourceInfo`` holding the user's innermost frame's code object
and instruction offset (cheap to take: no string is built while tracing). The file, line,
column and function are worked out only when someone prints them (``str(info)`` gives
``file:line:col (function)`` as JAX's ``source_info_util.summarize``).

Re-evaluating a jaxpr (``ir.eval_jaxpr``) re-stages each equation under ``user_context`` so
the new equations keep the original user location, and ``named_scope`` pushes names that
every equation staged inside it records (its ``name_stack``).
"""
from __future__ import annotations

import os
import sys
import threading
import types

# Frames in files under this directory are axle's own; the user's frame is the first other one.
_AXLE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class SourceInfo(tuple):
  """A user code location (code object + instruction offset) and the name scope it ran in.

  A tuple subclass so that taking one while tracing is a single C-level construction."""
  __slots__ = ()

  def __new__(cls, code, lasti: int, name_stack: tuple = ()):
    return _new_tuple(cls, (code, lasti, name_stack))

  code = property(lambda self: self[0])
  lasti = property(lambda self: self[1])
  name_stack = property(lambda self: self[2])

  def replace_name_stack(self, name_stack: tuple) -> "SourceInfo":
    return SourceInfo(self.code, self.lasti, name_stack)

  @property
  def file_name(self) -> str:
    return self.code.co_filename

  @property
  def function_name(self) -> str:
    return getattr(self.code, "co_qualname", self.code.co_name)

  def _positions(self):
    """(line, end_line, column, end_column) of the instruction, columns 0-based."""
    if self.lasti < 0:
      return self.code.co_firstlineno, self.code.co_firstlineno, 0, 0
    for i, position in enumerate(self.code.co_positions()):
      if i == self.lasti // 2:
        line, end_line, column, end_column = position
        return (line if line is not None else self.code.co_firstlineno,
                end_line, column or 0, end_column or 0)
    return self.code.co_firstlineno, None, 0, 0

  @property
  def line(self) -> int:
    return self._positions()[0]

  @property
  def column(self) -> int:
    return self._positions()[2]

  def summarize(self) -> str:
    line, _, column, _ = self._positions()
    return f"{self.file_name}:{line}:{column} ({self.function_name})"

  def mlir_location(self) -> str:
    """``"file":line:col to :end_col`` (MLIR's file-line-column range)."""
    line, end_line, column, end_column = self._positions()
    if end_line is None or end_line == line:
      end = f" to :{end_column}" if end_column else ""
    else:
      end = f" to {end_line}:{end_column}"
    file_name = self.file_name.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{file_name}":{line}:{column}{end}'

  def name_stack_text(self) -> str:
    return "/".join(self.name_stack)

  __str__ = summarize

  def __repr__(self):
    return f"SourceInfo({self.summarize()!r}, name_stack={self.name_stack!r})"


_new_tuple = tuple.__new__


class _Context(threading.local):
  def __init__(self):
    self.override: SourceInfo | None = None  # set while a jaxpr is re-evaluated
    self.name_stack: tuple = ()


_context = _Context()


def current(depth: int = 2) -> SourceInfo | None:
  """The source info for an equation staged now: the re-evaluated equation's, or the innermost
  frame outside axle (starting ``depth`` frames above the caller)."""
  context = _context
  override = context.override
  if override is not None:
    if context.name_stack and not override[2]:
      return override.replace_name_stack(context.name_stack)
    return override
  frame = sys._getframe(depth)
  internal = _AXLE_DIR
  while frame is not None and frame.f_code.co_filename.startswith(internal):
    frame = frame.f_back
  if frame is None:
    return None
  return _new_tuple(SourceInfo, (frame.f_code, frame.f_lasti, context.name_stack))


class user_context:
  """Stages the equations bound inside it with ``info`` as their source info (``None``:
  leaves the current behaviour)."""
  __slots__ = ("info", "previous")

  def __init__(self, info: SourceInfo | None):
    self.info = info

  def __enter__(self):
    self.previous = _context.override
    if self.info is not None:
      _context.override = self.info
    return self

  def __exit__(self, *exc):
    _context.override = self.previous
    return False


def summarize(info) -> str:
  """``file:line:col (function)``, or ``unknown`` when there is no source info."""
  return "unknown" if info is None else str(info)


class extend_name_stack:
  """Pushes ``name`` onto the name stack recorded by equations staged inside it."""
  __slots__ = ("name", "previous")

  def __init__(self, name: str):
    self.name = name

  def __enter__(self):
    self.previous = _context.name_stack
    _context.name_stack = self.previous + (self.name,)
    return self

  def __exit__(self, *exc):
    _context.name_stack = self.previous
    return False


def current_name_stack() -> tuple:
  return _context.name_stack


def note_origin(exc: BaseException, info, primitive_name: str) -> None:
  """Adds to ``exc`` (once, innermost first) a note naming the user code that staged the
  equation whose evaluation, transformation or lowering raised it."""
  if info is None or getattr(exc, "_axle_origin_noted", False):
    return
  note = f"The failing operation, {primitive_name}, was staged at {info.summarize()}."
  try:
    notes = getattr(exc, "__notes__", None)
    if notes and getattr(exc, "_axle_traceback_filtered", False):
      notes.insert(len(notes) - 1, note)  # before the traceback-filtering note, which ends them
    else:
      exc.add_note(note)
    exc._axle_origin_noted = True
  except (AttributeError, TypeError):
    pass


class JaxStackTraceBeforeTransformation(Exception):
  """The cause attached to an exception raised while transforming or lowering an equation: its
  traceback is the user code that staged the equation (JAX's exception of the same name)."""


_SOURCE_MESSAGE = ("The preceding stack trace is the source of the JAX operation that, once "
                   "transformed by JAX, triggered the following exception.\n\n"
                   "--------------------")


class _Marker(Exception):
  pass


def source_traceback(info: SourceInfo):
  """A one-entry traceback at ``info``'s file, line and function (for printing only: its frame
  runs no user code, and it has no instruction, so no column markers are printed)."""
  line = info.line
  if not line or line < 1:
    return None
  code = compile("\n" * (line - 1) + "raise _marker", info.file_name, "exec")
  code = code.replace(co_name=info.code.co_name)
  try:
    exec(code, {"__name__": "__axle_source__", "_marker": _Marker()})
  except _Marker as marker:
    tb = marker.__traceback__
    while tb.tb_next is not None:
      tb = tb.tb_next
    return types.TracebackType(None, tb.tb_frame, -1, line)
  return None


def _exception_text(exc: BaseException) -> str:
  kind = type(exc)
  name = kind.__qualname__
  if kind.__module__ not in ("builtins", "__main__"):
    name = f"{kind.__module__}.{name}"
  message = str(exc)
  return f"{name}: {message}" if message else name


def attach_source_traceback(exc: BaseException, info) -> None:
  """Makes ``exc`` (raised while transforming or lowering an equation staged at ``info``) the
  effect of a ``JaxStackTraceBeforeTransformation`` whose traceback is the user's code there,
  as JAX does; ``exc``'s own cause and context move to it. Once per exception."""
  if info is None or isinstance(exc, JaxStackTraceBeforeTransformation):
    return
  if isinstance(exc.__cause__, JaxStackTraceBeforeTransformation):
    return
  try:
    tb = source_traceback(info)
  except Exception:  # an unreadable location: the exception stays as it is
    return
  if tb is None:
    return
  source = JaxStackTraceBeforeTransformation(f"{_exception_text(exc)}\n\n{_SOURCE_MESSAGE}")
  source = source.with_traceback(tb)
  source.__cause__ = exc.__cause__
  source.__context__ = exc.__context__
  source.__suppress_context__ = exc.__suppress_context__
  exc.__context__ = None
  exc.__cause__ = source
