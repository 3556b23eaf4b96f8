"""``jax.debug.print`` and ``jax.debug.breakpoint``: seeing values inside traced code.

Both are debug callbacks (``callback.register_debug_primitive``): they print eagerly, from
the compiled program under ``jit``, once per batch element under ``vmap``, once per iteration
in ``scan``/``while_loop``, and in the forward pass only under ``grad``.
"""
from __future__ import annotations

import cmd
import inspect
import linecache
import os
import string
import sys
from typing import Any

import numpy as np

from axle._src import core
from axle._src.lax import callback as callback_module

# ---------------------------------------------------------------------------
# jax.debug.print

debug_print_p = core.Primitive("debug_print")


class _FormatChecker(string.Formatter):
  """Checks a format string against the arguments without formatting any value."""

  def format_field(self, value, format_spec):
    return ""

  def check_unused_args(self, used_args, args, kwargs):
    unused = [a for i, a in enumerate(args) if i not in used_args]
    if unused:
      raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
    unused_keys = [k for k in kwargs if k not in used_args]
    if unused_keys:
      raise ValueError(
          f"Unused keyword arguments to `jax.debug.print`: {unused_keys}. You may be passing an "
          "f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and instead should pass in a "
          "regular string.")


_format_checker = _FormatChecker()


def _print_message(params: dict, args, kwargs) -> str:
  fmt = params["fmt"]
  if params["has_placeholders"]:
    options = params["np_printoptions"]
    if tuple(np.get_printoptions().items()) == options:  # the common case: no switch needed
      return fmt.format(*args, **kwargs)
    with np.printoptions(**dict(options)):
      return fmt.format(*args, **kwargs)
  return " ".join((fmt, *(str(a) for a in args)))


def _print_host(params: dict):
  in_tree, static = params["in_tree"], params["static_args"]

  def run(*arrays):
    args, kwargs = callback_module.merge_callback_args(in_tree, arrays, static)
    sys.stdout.write(_print_message(params, args, kwargs) + "\n")

  return callback_module._debug_host(run)


callback_module.register_debug_primitive(
    debug_print_p, _print_host,
    lambda params: (callback_module.ordered_debug_effect if params["ordered"]
                    else callback_module.debug_effect))


def debug_print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
                skip_format_check: bool = False, _use_logging: bool = False, **kwargs):
  """Prints ``fmt.format(*args, **kwargs)`` with the arguments' runtime values, from traced code.

  Works eagerly, under ``jit`` (the compiled program calls back into Python), inside
  ``scan``/``while_loop``/``cond`` (once per executed iteration or branch), under ``vmap`` (one
  line per batch element) and under ``grad`` (in the forward pass only). Arrays print as
  ``str`` of the array under the NumPy print options in effect when ``print`` was traced.
  ``ordered=True`` keeps ordered prints in program order, also across separate ``jit`` calls.
  The format string is checked when traced: a missing or unused argument raises.
  """
  if fmt is None:
    if args or kwargs:
      raise TypeError("jax.debug.print: the format string must be the first argument.")
    return lambda f, *a, **k: debug_print(f, *a, ordered=ordered, partitioned=partitioned, **k)
  if not isinstance(fmt, str):
    raise TypeError(f"jax.debug.print: fmt must be a str, got {type(fmt).__name__}")
  if not skip_format_check:
    _format_checker.format(fmt, *args, **kwargs)
  has_placeholders = False
  if fmt:
    _, field_name, _, _ = next(iter(string.Formatter().parse(fmt)))
    has_placeholders = field_name is not None
  in_tree, dynamic, static = callback_module.split_callback_args(args, kwargs)
  params = dict(fmt=fmt, has_placeholders=has_placeholders, in_tree=in_tree,
                logging_record=None, np_printoptions=tuple(np.get_printoptions().items()),
                ordered=bool(ordered), partitioned=bool(partitioned), static_args=static)
  arrays = callback_module.eager_arrays(dynamic)
  if arrays is not None:
    args, kwargs = callback_module.merge_callback_args(in_tree, arrays, static)
    sys.stdout.write(_print_message(params, args, kwargs) + "\n")
    return None
  debug_print_p.bind(*dynamic, **params)
  return None


# ---------------------------------------------------------------------------
# jax.debug.breakpoint

_AXLE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Frame:
  """One user stack frame captured when ``breakpoint`` was traced; locals filled at run time."""

  def __init__(self, filename, lineno, function, source_start, source, globals_, locals_):
    self.filename = filename
    self.lineno = lineno
    self.function = function
    self.source_start = source_start
    self.source = source
    self.globals = globals_
    self.locals = locals_


def _user_frames(num_frames: int | None):
  frames = []
  frame = sys._getframe(1)
  while frame is not None:
    filename = frame.f_code.co_filename
    if not os.path.abspath(filename).startswith(_AXLE_DIR + os.sep):
      try:
        source, start = inspect.getsourcelines(frame.f_code)
      except (OSError, TypeError):
        source, start = [linecache.getline(filename, frame.f_lineno)], frame.f_lineno
      frames.append((frame, filename, frame.f_lineno, frame.f_code.co_name, start, source))
    frame = frame.f_back
  return frames if num_frames is None else frames[:num_frames]


class _Debugger(cmd.Cmd):
  """A small pdb-like prompt over captured frames: ``p``/``pp`` expressions, ``u``/``d`` to move
  between frames, ``l`` to list the source, ``w`` for the stack, ``c`` to continue."""
  prompt = "(jdb) "

  def __init__(self, frames, stdin=None, stdout=None):
    super().__init__(stdin=stdin or sys.stdin, stdout=stdout or sys.stdout)
    self.use_rawinput = False
    self.frames = frames
    self.index = 0

  @property
  def frame(self) -> _Frame:
    return self.frames[self.index]

  def _eval(self, expression: str):
    return eval(expression, self.frame.globals, dict(self.frame.locals))  # noqa: S307

  def _print_error(self):
    exc_type, exc, _ = sys.exc_info()
    self.stdout.write(f"*** {exc_type.__name__}: {exc}\n")

  def default(self, line):
    try:
      self.stdout.write(repr(self._eval(line)) + "\n")
    except Exception:
      self._print_error()

  def emptyline(self):
    return False

  def do_p(self, arg):
    """p expression: print the value of the expression."""
    self.default(arg)

  def do_pp(self, arg):
    """pp expression: pretty-print the value of the expression."""
    import pprint
    try:
      self.stdout.write(pprint.pformat(self._eval(arg)) + "\n")
    except Exception:
      self._print_error()

  def do_up(self, _):
    """u(p): move to the caller's frame."""
    if self.index + 1 >= len(self.frames):
      self.stdout.write("At topmost frame.\n")
    else:
      self.index += 1
    return False

  do_u = do_up

  def do_down(self, _):
    """d(own): move to the callee's frame."""
    if self.index == 0:
      self.stdout.write("At bottommost frame.\n")
    else:
      self.index -= 1
    return False

  do_d = do_down

  def do_list(self, _):
    """l(ist): show the source of the current frame."""
    frame = self.frame
    self.stdout.write(f"> {frame.filename}({frame.lineno})\n")
    for offset, line in enumerate(frame.source):
      marker = "->  " if frame.source_start + offset == frame.lineno else "    "
      self.stdout.write(marker + line.rstrip("\n") + "\n")
    self.stdout.write("    \n")
    return False

  do_l = do_list

  def do_where(self, _):
    """w(here): print the stack."""
    self.stdout.write("Traceback:\n")
    for frame in reversed(self.frames):
      self.stdout.write(f'  File "{frame.filename}", line {frame.lineno}\n')
      self.stdout.write("    " + linecache.getline(frame.filename, frame.lineno).strip() + "\n")
    return False

  do_w = do_bt = do_where

  def do_continue(self, _):
    """c(ont(inue)): leave the debugger and continue running."""
    return True

  do_c = do_cont = do_continue

  def do_quit(self, _):
    """q(uit): leave the debugger and continue running."""
    return True

  do_q = do_exit = do_EOF = do_quit


def run_debugger(frames, stdin=None, stdout=None) -> None:
  """Opens the ``(jdb)`` prompt over ``frames`` (innermost first), reading commands from
  ``stdin`` until ``c``, ``q`` or the end of input."""
  out = stdout or sys.stdout
  out.write("Entering jdb:\n")
  _Debugger(frames, stdin=stdin, stdout=out).cmdloop()


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None, **kwargs):
  """Stops at this point of the (possibly traced and compiled) program and opens a ``(jdb)``
  prompt over the values of the enclosing Python frames' variables: ``p expr``, ``pp``,
  ``u``/``d``, ``l``, ``w``, ``c``. Reads commands from ``sys.stdin``. Under ``vmap`` the
  prompt opens once per batch element."""
  captured = _user_frames(num_frames)
  layout = []  # per frame: (names of dynamic locals, static locals)
  dynamic: list = []
  for frame, *_ in captured:
    names, static = [], {}
    for name, value in frame.f_locals.items():
      if isinstance(value, core.Tracer) or core.valid_jaxtype(value):
        names.append(name)
        dynamic.append(value)
      else:
        static[name] = value
    layout.append((names, static))
  descriptions = [(filename, lineno, function, start, source, frame.f_globals)
                  for frame, filename, lineno, function, start, source in captured]

  def open_prompt(*values):
    values = iter(values)
    frames = []
    for (names, static), (filename, lineno, function, start, source, globals_) in zip(
        layout, descriptions):
      locals_ = dict(static)
      for name in names:
        locals_[name] = next(values)
      frames.append(_Frame(filename, lineno, function, start, source, globals_, locals_))
    run_debugger(frames)

  callback_module.debug_callback(open_prompt, *dynamic, ordered=ordered)
  return token
