"""Shared shape/dtype rules and constructors for lax primitives.

``naryop_abstract_eval`` is the rule of every elementwise primitive: operands
must have equal dtypes (lax never promotes) from an accepted set, and shapes of
equal rank that broadcast where a dimension is 1 (or a rank-0 operand, which
broadcasts against anything). The result is weakly typed only when every
operand is.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.core import ShapedArray

# Dtype classes accepted by elementwise primitives (JAX's names for them in error messages).
_bool = (np.bool_,)
_int = (np.signedinteger, np.unsignedinteger)
_signedint = (np.signedinteger,)
_float = (np.floating,)
_complex = (np.complexfloating,)
_num = (np.signedinteger, np.unsignedinteger, np.floating, np.complexfloating)
_any = (np.bool_, np.signedinteger, np.unsignedinteger, np.floating, np.complexfloating)
_float_or_complex = (np.floating, np.complexfloating)
_bool_or_int = (np.bool_, np.signedinteger, np.unsignedinteger)
_signed_num = (np.signedinteger, np.floating, np.complexfloating)
_ordered = (np.bool_, np.signedinteger, np.unsignedinteger, np.floating)

_class_names = {np.bool_: "bool", np.signedinteger: "signedinteger",
                np.unsignedinteger: "unsignedinteger", np.floating: "floating",
                np.complexfloating: "complexfloating", np.integer: "integer",
                np.inexact: "inexact", np.number: "number"}


def dtype_in(dtype: np.dtype, accepted: Sequence[type]) -> bool:
  """Whether ``dtype`` is a subtype of one of the ``accepted`` dtype classes."""
  return any(dtypes.issubdtype(dtype, t) for t in accepted)


# lax name -> the jnp function that promotes (named in the "same dtypes" error's tip).
JNP_EQUIVALENTS = {
    "abs": "fabs", "add": "add", "bitwise_and": "bitwise_and", "bitwise_not": "bitwise_not",
    "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "ceil": "ceil", "div": "divide",
    "eq": "equal", "floor": "floor", "max": "maximum", "min": "minimum", "mul": "multiply",
    "ne": "not_equal", "neg": "negative", "nextafter": "nextafter", "pow": "float_power",
    "round": "round", "select": "where", "shift_left": "left_shift",
    "shift_right_logical": "right_shift", "shift_right_arithmetic": "right_shift",
    "sign": "sign", "sub": "subtract", "greater": "greater", "greater_equal": "greater_equal",
    "less": "less", "less_equal": "less_equal", "concatenate": "concatenate", "acos": "arccos",
    "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2",
    "atanh": "arctanh", "cbrt": "cbrt", "cos": "cos", "cosh": "cosh", "exp": "exp", "expm1": "expm1",
    "log": "log", "log1p": "log1p", "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "tan": "tan",
    "tanh": "tanh", "logical_and": "logical_and", "logical_not": "logical_not",
    "logical_or": "logical_or", "logical_xor": "logical_xor",
}


def check_accepted_dtype(name: str, aval: ShapedArray, accepted: Sequence[type], position=None) -> None:
  """JAX's message: "add does not accept dtype bool at position 0. Accepted dtypes at position 0
  are subtypes of integer, floating, complexfloating." (no position for one-operand ops)."""
  if not dtype_in(aval.dtype, accepted):
    names = ", ".join(_class_names.get(t, getattr(t, "__name__", str(t))) for t in accepted)
    where = "" if position is None else f" at position {position}"
    raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{where}. "
                    f"Accepted dtypes{where} are subtypes of {names}.")


def check_same_dtypes(name: str, *avals: ShapedArray) -> None:
  """lax never promotes: operands of a binary op must share a dtype (weak types aside)."""
  if len(avals) < 2:
    return
  first = avals[0].dtype
  if any(a.dtype != first for a in avals[1:]):
    got = ", ".join(a.dtype.name for a in avals)
    message = f"lax.{name} requires arguments to have the same dtypes, got {got}."
    if name in JNP_EQUIVALENTS:
      message += (f" (Tip: jnp.{JNP_EQUIVALENTS[name]} is a similar function that does automatic "
                  "type promotion on inputs).")
    raise TypeError(message)


def broadcasting_shape(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
  """Result shape of an elementwise op: equal ranks (rank-0 operands excepted) and sizes that
  are equal or 1."""
  shapes = [s for s in shapes if len(s)]
  if not shapes:
    return ()
  if len({len(s) for s in shapes}) != 1:
    ranks = "{" + ", ".join(str(r) for r in sorted({len(s) for s in shapes})) + "}"
    raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
  result = []
  for sizes in zip(*shapes):
    non_one = {d for d in sizes if d != 1}
    if len(non_one) > 1:
      listed = ", ".join(str(s) for s in shapes)
      raise TypeError(f"{name} got incompatible shapes for broadcasting: {listed}.")
    result.append(non_one.pop() if non_one else 1)
  return tuple(result)


def check_operand_dtypes(name: str, avals: Sequence[ShapedArray], accepted_per_operand) -> None:
  """``check_accepted_dtype`` for each operand, naming its position."""
  for i, (aval, accepted) in enumerate(zip(avals, accepted_per_operand)):
    check_accepted_dtype(name, aval, accepted, position=i)


def unop_abstract_eval(name: str, accepted: Sequence[type],
                       result_dtype: Callable[[np.dtype], np.dtype] | None = None) -> Callable:
  """The shape rule of a one-operand elementwise primitive: the operand's shape and weak type,
  its dtype (or ``result_dtype(dtype)``); the dtype must be one of ``accepted``."""
  def rule(x: ShapedArray, **params) -> ShapedArray:
    check_accepted_dtype(name, x, accepted)
    dtype = x.dtype if result_dtype is None else result_dtype(x.dtype)
    return ShapedArray(x.shape, dtype, x.weak_type)
  return rule


def naryop_abstract_eval(name: str, accepted: Sequence[Sequence[type]] | Sequence[type],
                         result_dtype: Callable[..., np.dtype] | None = None,
                         require_same_dtypes: bool = True,
                         same_dtypes_name: str | None = None) -> Callable:
  """The shape rule of an elementwise primitive of several operands.

  ``accepted`` is either one tuple of dtype classes for every operand or a list of tuples, one
  per operand. ``result_dtype(*operand_dtypes)`` gives the output dtype (default: the first
  operand's). ``same_dtypes_name`` is the name the "same dtypes" error uses (default ``name``).
  """
  per_operand = accepted and isinstance(accepted[0], (tuple, list))

  def rule(*avals: ShapedArray, **params) -> ShapedArray:
    check_operand_dtypes(name, avals, accepted if per_operand else [accepted] * len(avals))
    if require_same_dtypes:
      check_same_dtypes(same_dtypes_name or name, *avals)
    shape = broadcasting_shape(name, *(a.shape for a in avals))
    dtype = result_dtype(*(a.dtype for a in avals)) if result_dtype else avals[0].dtype
    weak = all(a.weak_type for a in avals)
    return ShapedArray(shape, dtype, weak)

  return rule


def primitive(name: str, abstract_eval: Callable, impl: Callable | None = None) -> core.Primitive:
  """A primitive with its shape rule and (unless None) its eager kernel."""
  result = core.Primitive(name)
  result.def_abstract_eval(abstract_eval)
  if impl is not None:
    result.def_impl(impl)
  return result


def unop(name: str, accepted: Sequence[type], impl: Callable | None,
         result_dtype: Callable | None = None) -> core.Primitive:
  """A one-operand elementwise primitive with the standard shape rule and ``impl`` as kernel."""
  return primitive(name, unop_abstract_eval(name, accepted, result_dtype), impl)


def binop(name: str, accepted: Sequence[type], impl: Callable | None,
          result_dtype: Callable | None = None, same_dtypes_name: str | None = None
          ) -> core.Primitive:
  """A two-operand elementwise primitive (both operands of one dtype from ``accepted``)."""
  return primitive(name, naryop_abstract_eval(name, [accepted, accepted], result_dtype,
                                              same_dtypes_name=same_dtypes_name), impl)


def canonicalize_axis(axis: int, ndim: int, name: str = "axis") -> int:
  """``axis`` in [0, ndim) from a possibly negative axis; raises ValueError when out of range."""
  axis = int(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"{name} {axis} is out of bounds for array of dimension {ndim}")
  return axis + ndim if axis < 0 else axis


def bool_result(*_dtypes) -> np.dtype:
  """The result dtype of comparisons: bool."""
  return np.dtype(np.bool_)


def real_dtype_of(dtype) -> np.dtype:
  """The real counterpart of a complex dtype (complex64 -> float32)."""
  dtype = np.dtype(dtype)
  if dtype == np.complex64:
    return np.dtype(np.float32)
  if dtype == np.complex128:
    return np.dtype(np.float64)
  return dtype


def broadcast_shapes(*shapes) -> tuple[int, ...]:
  """NumPy's broadcasting of shapes; ValueError when they are incompatible."""
  shapes = [tuple(s) for s in shapes]
  if not shapes:
    return ()
  if all(s == shapes[0] for s in shapes[1:]):
    return shapes[0]
  rank = max(len(s) for s in shapes)
  result = []
  for dims in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
    non_one = {d for d in dims if d != 1}
    if len(non_one) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={[s for s in shapes]}")
    result.append(non_one.pop() if non_one else (0 if 0 in dims else 1))
  return tuple(result)
