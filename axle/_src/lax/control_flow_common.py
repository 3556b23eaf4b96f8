"""Shared machinery of the control-flow primitives (cond, while, scan).

The user's functions are traced to jaxprs whose closed-over values (concrete
arrays or tracers of an enclosing trace) are *hoisted*: they become leading
inputs of the jaxpr and operands of the primitive, so the jaxprs a control-flow
equation carries are closed with no constants, as JAX prints them. Helpers here
also explain carry/branch type mismatches in JAX's words, find outputs that
merely forward an input, and evaluate a jaxpr eagerly.
"""
from __future__ import annotations

import enum
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.lax import elementwise_convert
from axle._src.lax import structural
from axle._src.ir import ClosedJaxpr, Jaxpr, Literal


# ---------------------------------------------------------------------------
# Tracing


def abstractify(x) -> ShapedArray:
  """The abstract value a traced function sees for operand ``x`` (weak type kept)."""
  try:
    return core.get_aval(x)
  except TypeError:
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type") from None


def trace_hoisted(fun: Callable, args_tree, in_avals: Sequence[ShapedArray], traced_for: str,
                  debug_fun: Callable | None = None, example_args=None):
  """Traces ``fun`` on arguments of structure ``args_tree`` (a PyTreeDef of the tuple of
  positional arguments) with leaves of ``in_avals``.

  Returns ``(closed, consts, out_tree)``: ``closed`` takes ``(*consts, *flat args)`` and has no
  constants of its own; ``consts`` are the hoisted closed-over values (arrays or outer tracers).
  ``debug_fun`` is the user function named in error messages (defaults to ``fun``).
  """
  debug_fun = fun if debug_fun is None else debug_fun
  debug = staging.DebugInfo(traced_for, debug_fun)
  if example_args is not None:
    debug.arg_names_fn = lambda: staging.flat_arg_names(debug_fun, example_args, {})

  def flat_fun(*leaves):
    args = tree_util.tree_unflatten(args_tree, leaves)
    return fun(*args)

  closed, out_tree = staging.trace_to_jaxpr(flat_fun, list(in_avals), debug)
  jaxpr = closed.jaxpr
  hoisted = jaxpr.replace(constvars=[], invars=list(jaxpr.constvars) + list(jaxpr.invars))
  return ClosedJaxpr(hoisted, []), list(closed.consts), out_tree


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
  """Equal shapes and dtypes (weak types may differ)."""
  return a.shape == b.shape and a.dtype == b.dtype


# ---------------------------------------------------------------------------
# Jaxpr surgery


def forwarding(jaxpr: Jaxpr) -> list:
  """For each output of ``jaxpr``: the position of the input it returns unchanged, or None."""
  positions = {v: i for i, v in enumerate(jaxpr.invars)}
  return [None if type(v) is Literal else positions.get(v) for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
  """``closed`` returning only the outputs marked in ``keep``."""
  if all(keep):
    return closed
  jaxpr = closed.jaxpr
  return ClosedJaxpr(jaxpr.replace(outvars=[v for v, k in zip(jaxpr.outvars, keep) if k]),
                     closed.consts)


def move_inputs_to_front(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
  """``closed`` with the inputs marked in ``to_move`` first (in order), the others after."""
  jaxpr = closed.jaxpr
  moved = [v for v, m in zip(jaxpr.invars, to_move) if m]
  rest = [v for v, m in zip(jaxpr.invars, to_move) if not m]
  return ClosedJaxpr(jaxpr.replace(invars=moved + rest), closed.consts)


dce_with_inputs = staging.dce_with_inputs


# ---------------------------------------------------------------------------
# empty2: an uninitialised scalar, broadcast to fill slots whose value is never read (the
# residual outputs of a cond branch that does not produce them), as JAX's ``empty2``.


class MemorySpace(enum.Enum):
  """Where a value lives (only ``Device`` here); prints as JAX's ``MemorySpace.Device``."""
  Device = enum.auto()

  def __repr__(self):
    return f"MemorySpace.{self.name}"


empty2_p = core.Primitive("empty2")
empty2_p.def_abstract_eval(lambda *, dtype, memory_space: ShapedArray((), dtype, False))
empty2_p.def_impl(lambda *, dtype, memory_space: np.zeros((), dtype))
mlir.register(empty2_p, lambda ctx, *, dtype, memory_space: mlir.constant(ctx, np.zeros((), dtype)))
ad.defjvp_zero(empty2_p)
batching.primitive_batchers[empty2_p] = lambda values, dims, **params: (
    empty2_p.bind(**params), None)


def empty_like_aval(aval: ShapedArray):
  """A value of ``aval`` whose contents do not matter (JAX's ``ad_util.empty_like_aval``):
  ``empty2`` broadcast to the shape."""
  value = empty2_p.bind(dtype=np.dtype(aval.dtype), memory_space=MemorySpace.Device)
  return structural.broadcast_in_dim(value, aval.shape, ()) if aval.shape else value


def split(values: Sequence, sizes: Sequence[int]) -> list[list]:
  """``values`` cut into consecutive pieces of ``sizes`` (plus the rest)."""
  out, start = [], 0
  for n in sizes:
    out.append(list(values[start:start + n]))
    start += n
  out.append(list(values[start:]))
  return out


# ---------------------------------------------------------------------------
# Messages about mismatched trees and types


def _long_aval(aval: ShapedArray) -> str:
  return aval.str_short(short_dtypes=False)


def weak_str(aval: ShapedArray) -> str:
  """``~float32[]`` for a weakly typed aval (as JAX prints avals in some messages)."""
  return ("~" if aval.weak_type else "") + _long_aval(aval)


def _mismatch_explanation(a: ShapedArray, b: ShapedArray) -> str:
  reasons = []
  if a.dtype != b.dtype:
    reasons.append("the dtypes do not match")
  if a.shape != b.shape:
    reasons.append("the shapes do not match")
  return ", and ".join(reasons)


def tree_differences(t1, t2, describe_leaves: bool):
  """Yields ``(key path, what t1 is, what t2 is, why they differ)`` for the places where the
  pytrees ``t1`` and ``t2`` differ in structure. With ``describe_leaves`` false, a leaf is
  described as "pytree leaf" rather than by its type."""
  def what(x):
    if not describe_leaves and tree_util.treedef_is_leaf(tree_util.tree_structure(x)):
      return "pytree leaf"
    return str(type(x))

  def walk(path, a, b):
    a_leaf = tree_util.treedef_is_leaf(tree_util.tree_structure(a))
    b_leaf = tree_util.treedef_is_leaf(tree_util.tree_structure(b))
    if a_leaf and b_leaf:
      return
    if type(a) is not type(b):
      yield path, what(a), what(b), "their Python types differ"
      return
    a_children, a_meta = tree_util.flatten_one_level(a)
    b_children, b_meta = tree_util.flatten_one_level(b)
    a_children, b_children = list(a_children), list(b_children)
    keys = [k for k, _ in tree_util.flatten_one_level_with_keys(a)[0]]
    if len(a_children) != len(b_children):
      yield path, len(a_children), len(b_children), "their numbers of children differ"
      return
    if a_meta != b_meta:
      yield path, a_meta, b_meta, "their pytree metadata differ"
      return
    for k, c1, c2 in zip(keys, a_children, b_children):
      yield from walk((*path, k), c1, c2)

  yield from walk((), t1, t2)


def _bullets(diffs: list[str], capitalize: bool = True) -> str:
  if len(diffs) == 1:
    return (diffs[0][0].upper() if capitalize else diffs[0][0]) + diffs[0][1:] + ".\n"
  return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"


def _carry_name(body_fun) -> str | None:
  try:
    parameters = list(inspect.signature(body_fun).parameters)
  except (TypeError, ValueError):
    return None
  return parameters[0] if parameters else None


def check_carry(name: str, body_fun, init_tree, init_avals, out_tree, out_avals) -> None:
  """Raises JAX's TypeError when a loop body's carry output differs from its carry input in
  pytree structure, or (ignoring weak types) in shape or dtype."""
  carry_name = _carry_name(body_fun)

  def component(path):
    if carry_name:
      return (f"the input carry component {carry_name}{tree_util.keystr(path)}" if path
              else f"the input carry {carry_name}")
    return f"the input carry at path {tree_util.keystr(path)}" if path else "the input carry"

  in_carry = tree_util.tree_unflatten(init_tree, init_avals)
  if init_tree != out_tree:
    try:
      out_carry = tree_util.tree_unflatten(out_tree, out_avals)
    except Exception:
      out_carry = None
    if out_carry is None:
      differences = (f"the input tree structure is:\n{init_tree}\n"
                     f"the output tree structure is:\n{out_tree}\n")
    else:
      diffs = [f"{component(path)} is a {a} but the corresponding component of the carry output "
               f"is a {b}, so {why}" for path, a, b, why in tree_differences(in_carry, out_carry, True)]
      if not diffs:
        return
      differences = _bullets(diffs)
    raise TypeError(f"{name} function carry input and carry output must have the same pytree "
                    f"structure, but they differ:\n\n{differences}\nRevise the function so that "
                    "the carry output has the same pytree structure as the carry input.")
  paths = [p for p, _ in tree_util.tree_flatten_with_path(in_carry)[0]]
  diffs = [f"{component(path)} has type {_long_aval(a)} but the corresponding output carry "
           f"component has type {_long_aval(b)}, so {_mismatch_explanation(a, b)}"
           for path, a, b in zip(paths, init_avals, out_avals) if not typematch(a, b)]
  if diffs:
    raise TypeError(f"{name} function carry input and carry output must have equal types, but "
                    f"they differ:\n\n{_bullets(diffs)}\nRevise the function so that all output "
                    "types match the corresponding input types.")


class _WithAval:
  """Stands for a value of ``aval`` in ``dtypes.result_type``."""
  __slots__ = ("aval",)

  def __init__(self, aval):
    self.aval = aval


def promote_weak_inputs(values: list, in_avals, out_avals) -> tuple[list, bool]:
  """Converts weakly typed carry inputs whose dtype differs from the body's output to the
  promoted dtype (strongly typed). Returns the values and whether any changed."""
  changed = False
  values = list(values)
  for i, (a, b) in enumerate(zip(in_avals, out_avals)):
    if a.weak_type and not typematch(a, b):
      new_dtype = dtypes.result_type(values[i], _WithAval(b))
      values[i] = elementwise_convert.convert_element_type(values[i], new_dtype)
      changed = True
  return values, changed


# ---------------------------------------------------------------------------
# Eager evaluation


def as_array(value, aval: ShapedArray) -> Array:
  """A NumPy value as an Array of exactly ``aval`` (no copy)."""
  if type(value) is Array:
    return value
  if type(value) is not np.ndarray and not isinstance(value, np.generic):
    value = np.asarray(value, aval.dtype)
  return Array(value, aval=aval)


def as_output(x):
  """An input returned unchanged as an output: an Array or tracer as is, a Python or NumPy
  value as an Array (weakly typed for Python scalars)."""
  if isinstance(x, (Array, core.Tracer)):
    return x
  aval = core.get_aval(x)
  return Array(np.asarray(x, aval.dtype), aval=aval)


def host(x):
  """The NumPy value of an eager result (an Array or a literal's value)."""
  if type(x) is Array:
    return x._value if x._value is not None else x._host_value()
  return np.asarray(x)


def eval_closed_eager(closed: ClosedJaxpr, args: Sequence[Any]) -> list:
  """Evaluates ``closed`` eagerly on Arrays; returns Arrays."""
  with core.set_current_trace(core.eval_trace):
    return ir.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def eval_closed_eager_here(closed: ClosedJaxpr, args: Sequence[Any]) -> list:
  """Evaluates ``closed`` under the current trace (inlining it into a jaxpr being traced)."""
  return ir.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """``closed`` with its constants turned into leading inputs, and those constants."""
  jaxpr = closed.jaxpr
  return (ClosedJaxpr(jaxpr.replace(constvars=[], invars=list(jaxpr.constvars) + list(jaxpr.invars)), []),
          list(closed.consts))
