"""A small Wadler/Lindig-style pretty printer ("Strictly Pretty", C. Lindig 2000).

Documents are built from ``text``, ``concat``, ``nest``, ``brk`` and ``group``.
A group is laid out flat (its breaks become their separator text) when it fits
in the remaining width, otherwise its breaks become newlines at the current
indentation. Jaxprs are printed with it at width 80, which reproduces where
JAX breaks long equations and nested jaxprs.
"""
from __future__ import annotations


class Doc:
  """A document to lay out; ``format(width)`` renders it."""
  __slots__ = ()

  def __add__(self, other: "Doc") -> "Doc":
    return Concat([self, other])

  def format(self, width: int = 80) -> str:
    return _format(self, width)

  def __str__(self):
    return self.format()


class Text(Doc):
  """Literal text."""
  __slots__ = ("text",)

  def __init__(self, text: str):
    self.text = text


class Concat(Doc):
  """Documents one after another."""
  __slots__ = ("children",)

  def __init__(self, children):
    flat = []
    for child in children:
      if isinstance(child, Concat):
        flat.extend(child.children)
      else:
        flat.append(child)
    self.children = flat


class Nest(Doc):
  """A document whose line breaks indent ``indent`` more columns."""
  __slots__ = ("indent", "child")

  def __init__(self, indent: int, child: Doc):
    self.indent = indent
    self.child = child


class Break(Doc):
  """A space (or ``separator``) when flat, a newline when its group breaks."""
  __slots__ = ("separator",)

  def __init__(self, separator: str = " "):
    self.separator = separator


class Group(Doc):
  """A unit laid out flat if it fits in the remaining width, else broken."""
  __slots__ = ("child",)

  def __init__(self, child: Doc):
    self.child = child


class Annotation(Doc):
  """A zero-width note (e.g. a source location) shown as a ``# comment`` at the end of the line
  it falls on, aligned with the other notes; a group holding one never lays out flat."""
  __slots__ = ("lines",)

  def __init__(self, lines):
    self.lines = list(lines)


def annotation(*lines: str) -> Doc:
  """An Annotation of ``lines`` (each extra line is printed below, aligned)."""
  return Annotation(lines)


def text(s: str) -> Doc:
  """A Text document."""
  return Text(s)


def concat(docs) -> Doc:
  """A Concat of ``docs``."""
  return Concat(list(docs))


def nest(indent: int, doc: Doc) -> Doc:
  """``doc`` with breaks indented ``indent`` more."""
  return Nest(indent, doc)


def brk(separator: str = " ") -> Doc:
  """A Break rendering as ``separator`` when flat."""
  return Break(separator)


def group(doc: Doc) -> Doc:
  """A Group of ``doc``."""
  return Group(doc)


def join(separator: Doc, docs) -> Doc:
  """``docs`` with ``separator`` between each pair."""
  out = []
  for i, doc in enumerate(docs):
    if i:
      out.append(separator)
    out.append(doc)
  return Concat(out)


_FLAT, _BREAK = 0, 1


def _fits(doc: Doc, width: int) -> bool:
  """Whether ``doc`` laid out flat takes at most ``width`` columns (stopping early)."""
  stack = [doc]
  while stack:
    if width < 0:
      return False
    d = stack.pop()
    if isinstance(d, Text):
      width -= len(d.text)
    elif isinstance(d, Concat):
      stack.extend(reversed(d.children))
    elif isinstance(d, Break):
      width -= len(d.separator)
    elif isinstance(d, Annotation):
      return False
    else:  # Nest or Group
      stack.append(d.child)
  return width >= 0


def _format(doc: Doc, width: int) -> str:
  out: list[str] = []
  column = 0
  line = 0
  notes: dict[int, list[str]] = {}
  stack = [(0, _BREAK, doc)]
  while stack:
    indent, mode, d = stack.pop()
    if isinstance(d, Text):
      out.append(d.text)
      column += len(d.text)
    elif isinstance(d, Concat):
      for child in reversed(d.children):
        stack.append((indent, mode, child))
    elif isinstance(d, Nest):
      stack.append((indent + d.indent, mode, d.child))
    elif isinstance(d, Break):
      if mode == _FLAT:
        out.append(d.separator)
        column += len(d.separator)
      else:
        out.append("\n" + " " * indent)
        column = indent
        line += 1
    elif isinstance(d, Group):
      flat = mode == _FLAT or _fits(d.child, width - column)
      stack.append((indent, _FLAT if flat else _BREAK, d.child))
    elif isinstance(d, Annotation):
      notes.setdefault(line, []).extend(d.lines)
  text_out = "".join(out)
  return _place_annotations(text_out, notes) if notes else text_out


def _place_annotations(text_out: str, notes: dict) -> str:
  lines = text_out.split("\n")
  column = max(len(lines[i]) for i in notes) + 1
  result = []
  for i, line_text in enumerate(lines):
    note_lines = notes.get(i)
    if not note_lines:
      result.append(line_text)
      continue
    result.append(line_text.ljust(column) + "# " + note_lines[0])
    result.extend(" " * column + "# " + extra for extra in note_lines[1:])
  return "\n".join(result)
