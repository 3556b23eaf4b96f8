"""Small list and function helpers that JAX code imports from ``jax._src.util``
(``safe_map``, ``safe_zip``, ``unzip2``, ``split_list``, ...). Behaviour as JAX documents it."""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Iterable, Sequence


def safe_zip(*args):
  """``zip`` that raises ValueError when the sequences differ in length."""
  if not args:
    return []
  n = len(args[0])
  for arg in args[1:]:
    if len(arg) != n:
      raise ValueError(f"length mismatch: {list(map(len, args))}")
  return list(zip(*args))


def safe_map(f: Callable, *args) -> list:
  """``map`` to a list that raises ValueError when the sequences differ in length."""
  args = list(map(list, args))
  n = len(args[0])
  for arg in args[1:]:
    if len(arg) != n:
      raise ValueError(f"length mismatch: {list(map(len, args))}")
  return list(map(f, *args))


def unzip2(pairs: Iterable) -> tuple[tuple, tuple]:
  """Two tuples from a sequence of pairs."""
  xs, ys = [], []
  for x, y in pairs:
    xs.append(x)
    ys.append(y)
  return tuple(xs), tuple(ys)


def unzip3(triples: Iterable) -> tuple[tuple, tuple, tuple]:
  """Three tuples from a sequence of triples."""
  xs, ys, zs = [], [], []
  for x, y, z in triples:
    xs.append(x)
    ys.append(y)
    zs.append(z)
  return tuple(xs), tuple(ys), tuple(zs)


def split_list(args: Sequence, ns: Sequence[int]) -> list[list]:
  """``args`` cut into consecutive pieces of lengths ``ns`` and the rest."""
  args = list(args)
  pieces = []
  for n in ns:
    pieces.append(args[:n])
    args = args[n:]
  pieces.append(args)
  return pieces


def partition_list(bs: Sequence[bool], xs: Sequence) -> tuple[list, list]:
  """``(items where bs is False, items where bs is True)``."""
  if len(bs) != len(xs):
    raise ValueError(f"length mismatch: {len(bs)} flags for {len(xs)} items")
  falses, trues = [], []
  for b, x in zip(bs, xs):
    (trues if b else falses).append(x)
  return falses, trues


def merge_lists(bs: Sequence[bool], l0: Sequence, l1: Sequence) -> list:
  """The inverse of ``partition_list``."""
  i0, i1 = iter(l0), iter(l1)
  return [next(i1) if b else next(i0) for b in bs]


def subvals(lst: Sequence, replace: Iterable[tuple[int, Any]]) -> tuple:
  """``lst`` as a tuple with the ``(index, value)`` pairs substituted."""
  out = list(lst)
  for i, v in replace:
    out[i] = v
  return tuple(out)


def prod(xs: Iterable[int]) -> int:
  return math.prod(xs)


def canonicalize_axis(axis: int, num_dims: int) -> int:
  """``axis`` as a non-negative index into ``num_dims`` dimensions; ValueError when out of range."""
  axis = int(axis)
  if not -num_dims <= axis < num_dims:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
  return axis + num_dims if axis < 0 else axis


wraps = functools.wraps
