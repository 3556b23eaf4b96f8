"""The heart of the trace machinery: abstract values, primitives, traces and tracers.

axle interprets Python functions "context-sensitively": there is one *current
trace* (thread-local). ``Primitive.bind`` hands its operands to the current
trace's ``process_primitive``. A transformation installs a new trace whose
``parent`` is the previous one, runs the user's function, then restores the
previous trace (``set_current_trace``). A tracer belongs to exactly one trace;
a value from any other trace is treated as a constant by ``process_primitive``.
There are no levels and no trace stack to walk.
"""
from __future__ import annotations

import sys

import threading
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import dtypes
from axle._src import errors

# ---------------------------------------------------------------------------
# Abstract values


def trivial_sharding(ndim: int):
  """Filled in by ``sharding`` (a layer above): the trivial NamedSharding of rank ``ndim``."""
  raise NotImplementedError("axle._src.sharding is not loaded")


def sharded_aval(aval, sharding, vma):
  """Filled in by ``sharding``: ``aval`` with a mesh sharding and/or varying manual axes."""
  raise NotImplementedError("axle._src.sharding is not loaded")


class MemorySpace:
  """Where an array lives (JAX's ``core.MemorySpace``): ``Device``, ``Host`` or ``Any``."""
  __slots__ = ("name",)

  def __init__(self, name: str):
    self.name = name

  def __repr__(self):
    return f"MemorySpace.{self.name}"

  def __reduce__(self):
    return (getattr, (MemorySpace, self.name))


MemorySpace.Device = MemorySpace("Device")
MemorySpace.Host = MemorySpace("Host")
MemorySpace.Any = MemorySpace("Any")


def _is_trivial_sharding(sharding) -> bool:
  mesh = getattr(sharding, "mesh", None)
  return mesh is None or not tuple(getattr(mesh, "axis_names", ()))


class ShapedArray:
  """The abstract value of an array: shape, dtype and weak type, no data.

  Constructed as JAX's ``ShapedArray(shape, dtype, weak_type=False, *, sharding=None,
  manual_axis_type=..., memory_space=MemorySpace.Device)``: a sharding over a mesh with axes,
  or varying manual axes (``vma=`` or ``manual_axis_type=``), makes the type a sharded aval
  (what ``jax.typeof`` shows); the trivial sharding (no mesh axes) is the default."""
  __slots__ = ("shape", "dtype", "weak_type", "_hash")

  def __new__(cls, shape=(), dtype=None, weak_type: bool = False, *, sharding=None,
              manual_axis_type=None, vma=None, memory_space=None):
    if sharding is None and vma is None and manual_axis_type is None and memory_space is None:
      return object.__new__(cls)
    if cls is ShapedArray:
      if manual_axis_type is not None and vma is None:
        vma = getattr(manual_axis_type, "varying", None)
      if (sharding is not None and not _is_trivial_sharding(sharding)) or vma:
        aval = object.__new__(ShapedArray)
        aval.__init__(shape, dtype, weak_type)
        return sharded_aval(aval, None if sharding is None or _is_trivial_sharding(sharding)
                            else sharding, frozenset(vma or ()))
      if memory_space is not None and memory_space is not MemorySpace.Device:
        raise NotImplementedError(f"ShapedArray: memory_space={memory_space!r}: axle keeps "
                                  "every array in device memory (MemorySpace.Device)")
    return object.__new__(cls)

  def __init__(self, shape, dtype=None, weak_type: bool = False, *, sharding=None,
               manual_axis_type=None, vma=None, memory_space=None):
    if dtype is None:
      raise TypeError("ShapedArray: missing the dtype argument (ShapedArray(shape, dtype))")
    self.shape = shape = tuple(shape)
    # Extended dtypes (PRNG key dtypes) are not NumPy dtypes and are kept as they are.
    self.dtype = dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
    self.weak_type = weak_type = bool(weak_type)
    # Avals key the eager shape-rule cache, so hashing must be cheap.
    self._hash = hash((shape, dtype, weak_type))

  ndim = property(lambda self: len(self.shape))

  @property
  def sharding(self):
    """How the type lays the array out over a mesh: for an aval with no mesh axes, the trivial
    sharding (an empty abstract mesh, every dimension unsplit)."""
    return trivial_sharding(len(self.shape))

  @property
  def size(self) -> int:
    size = 1
    for d in self.shape:
      size *= d
    return size

  def __eq__(self, other):
    # A subclass that adds a sharding to the type (sharding in types) compares by shape,
    # dtype and weak type too: the layout is not part of what must match.
    return self is other or (isinstance(other, ShapedArray) and self._hash == other._hash
                             and self.shape == other.shape and self.dtype == other.dtype
                             and self.weak_type == other.weak_type)

  def __hash__(self):
    return self._hash

  @property
  def vma(self) -> frozenset:
    """The manual mesh axes a value inside shard_map varies over (empty outside shard_map)."""
    return frozenset()

  @property
  def manual_axis_type(self):
    return _ManualAxisType(self.vma)

  mat = manual_axis_type

  @property
  def memory_space(self) -> MemorySpace:
    return MemorySpace.Device

  def __getnewargs__(self):
    return (self.shape, self.dtype, self.weak_type)

  def __getstate__(self):
    return (self.shape, self.dtype, self.weak_type)

  def __setstate__(self, state):
    self.__init__(*state)

  def update(self, shape=None, dtype=None, weak_type=None, **kwargs) -> "ShapedArray":
    """A copy with some fields replaced (``sharding=``, ``vma=``, ``memory_space=`` too)."""
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type, **kwargs)

  def to_tangent_aval(self) -> "ShapedArray":
    """The abstract value of this value's tangents: itself if inexact, else float0."""
    if dtypes.issubdtype(self.dtype, np.inexact):
      return self
    return ShapedArray(self.shape, dtypes.float0, False)

  def strip_weak_type(self) -> "ShapedArray":
    return ShapedArray(self.shape, self.dtype, False) if self.weak_type else self

  def str_short(self, short_dtypes: bool = True) -> str:
    """``f32[2,3]`` as jaxprs print it (``float32[2,3]`` with short_dtypes=False)."""
    name = dtypes.short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
    return f"{name}[{','.join(str(d) for d in self.shape)}]"

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"

  def __str__(self):
    # JAX: ``~float32[]`` for a weakly typed scalar (the ``~`` marks the weak type).
    return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)


class _ManualAxisType:
  """JAX's ``ManualAxisType``: the manual axes a value varies over (and is unreduced/reduced on)."""
  __slots__ = ("varying", "unreduced", "reduced")

  def __init__(self, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
    self.varying, self.unreduced, self.reduced = (frozenset(varying), frozenset(unreduced),
                                                  frozenset(reduced))

  @property
  def empty(self) -> bool:
    return not (self.varying or self.unreduced or self.reduced)

  def __eq__(self, other):
    return isinstance(other, _ManualAxisType) and (self.varying, self.unreduced, self.reduced) == (
        other.varying, other.unreduced, other.reduced)

  def __hash__(self):
    return hash((self.varying, self.unreduced, self.reduced))

  def __repr__(self):
    return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
            f"reduced={self.reduced})")


def physical_aval(aval: ShapedArray) -> ShapedArray:
  """The aval of the data an array of ``aval`` is stored as: itself for NumPy dtypes; for an
  extended dtype (PRNG keys) its ``physical_dtype`` with ``physical_shape`` appended
  (``key<fry>[3]`` is stored as ``uint32[3,2]``)."""
  dtype = aval.dtype
  if not isinstance(dtype, dtypes.ExtendedDType):
    return aval
  return ShapedArray((*aval.shape, *dtype.physical_shape), dtype.physical_dtype)


def is_extended(aval) -> bool:
  """Whether ``aval`` has an extended dtype (a PRNG key array)."""
  return isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType)


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
  """``aval`` without its mapped axis ``axis`` (of length ``size``); unchanged for None."""
  if axis is None:
    return aval
  if aval.shape[axis] != size:
    raise ValueError(f"mapped_aval: axis {axis} of {aval.str_short()} has size "
                     f"{aval.shape[axis]}, expected {size}")
  return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray, *_args, **_kwargs) -> ShapedArray:
  """``aval`` with a new axis of length ``size`` inserted at ``axis``; unchanged for None."""
  if axis is None:
    return aval
  return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


# The Python types that are array operands (weakly typed, except bool).
python_scalar_types = frozenset({bool, int, float, complex})


def get_aval(x) -> ShapedArray:
  """The abstract value of any array-like: an Array, tracer, NumPy value or Python scalar."""
  aval = getattr(x, "aval", None)
  if aval is not None:
    return aval
  if type(x) in python_scalar_types:
    return ShapedArray((), dtypes.python_scalar_dtype(x), weak_type=type(x) is not bool)
  if isinstance(x, (np.ndarray, np.generic)):
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), False)
  if hasattr(x, "__jax_array__"):
    return get_aval(x.__jax_array__())
  raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid JAX type; "
                  "expected an Array, a NumPy array or a Python scalar.")


def valid_jaxtype(x) -> bool:
  """Whether ``x`` can be an operand: an array, tracer, NumPy value or Python scalar."""
  try:
    get_aval(x)
    return True
  except TypeError:
    return False


class Effect:
  """Base class of side effects a primitive may declare (JAX's ``Effect``). axle's own
  primitives declare none; libraries subclass it to tag theirs."""


Effects = set
no_effects: frozenset = frozenset()


# ---------------------------------------------------------------------------
# Primitives


# Every primitive axle's own modules create, in creation order (the rule-coverage test walks
# it); primitives that users define (``jax.extend.core.Primitive``) are not listed.
all_primitives: list = []


class Primitive:
  """A named operation, interpreted differently by each trace.

  Its rules live in the interpreters' tables; ``def_impl`` and
  ``def_abstract_eval`` fill the two that every primitive must have.
  """
  multiple_results = False
  has_effects = False  # True: its equations are never removed as dead code

  def __init__(self, name: str):
    self.name = name
    self.impl: Callable | None = None
    self.abstract_eval: Callable | None = None
    self.memoise_abstract_eval = True
    self.impl_takes_arrays = False
    if sys._getframe(1).f_globals.get("__name__", "").startswith("axle."):
      all_primitives.append(self)

  def __repr__(self):
    return self.name

  def bind(self, *args, **params):
    """Applies the primitive under the current trace."""
    return _context.trace.process_primitive(self, args, params)

  def def_impl(self, impl: Callable) -> Callable:
    """Sets the eager kernel: NumPy values in, NumPy value(s) out (same dtypes as the abstract eval)."""
    self.impl = impl
    # axle's kernels take and return NumPy values; an impl defined outside axle is called with
    # Arrays and may use jnp/lax (as in JAX).
    module = getattr(impl, "__module__", None) or ""
    self.impl_takes_arrays = not module.startswith(("axle.", "numpy", "scipy"))
    return impl

  def def_abstract_eval(self, rule: Callable) -> Callable:
    """Sets the shape rule: ShapedArrays (+ params) in, ShapedArray(s) out; raises on bad input."""
    self.abstract_eval = rule
    # axle's own shape rules are pure and memoised per signature; a rule defined outside axle
    # runs at every trace, as in JAX (it may print or count calls).
    self.memoise_abstract_eval = getattr(rule, "__module__", "").startswith("axle.")
    return rule


# ---------------------------------------------------------------------------
# Traces and tracers


class Trace:
  """Interprets primitives. Subclasses: EvalTrace (eager), StagingTrace (builds a jaxpr), ..."""
  parent: "Trace | None" = None

  def process_primitive(self, primitive: Primitive, args: Sequence[Any], params: dict):
    raise NotImplementedError


class Tracer:
  """A stand-in for an array while a function is being transformed.

  Array methods and operators are attached to this class by ``axle._src.numpy``
  so traced code reads like eager code.
  """
  __array_priority__ = 1000
  __slots__ = ("_trace", "__weakref__")

  aval: ShapedArray

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: len(self.aval.shape))
  size = property(lambda self: self.aval.size)
  weak_type = property(lambda self: self.aval.weak_type)

  def __len__(self):
    if not self.aval.shape:
      raise TypeError("len() of unsized object")
    return self.aval.shape[0]

  def __repr__(self):
    weak = "~" if self.aval.weak_type else ""
    return f"{self._tracer_type_name()}({weak}{self.aval.str_short(short_dtypes=False)})"

  def _tracer_type_name(self) -> str:
    return type(self).__name__

  # Conversions that need a concrete value fail with JAX's errors.
  def __bool__(self):
    raise errors.TracerBoolConversionError(self)

  def __int__(self):
    raise errors.ConcretizationTypeError(self, errors.concretization_context("int"))

  def __index__(self):
    raise errors.TracerIntegerConversionError(self)

  def __float__(self):
    raise errors.ConcretizationTypeError(self, errors.concretization_context("float"))

  def __complex__(self):
    raise errors.ConcretizationTypeError(self, errors.concretization_context("complex"))

  def __array__(self, dtype=None, copy=None):
    raise errors.TracerArrayConversionError(self)

  # The class name JAX's messages use for a tracer of this kind (e.g. "unhashable type").
  _public_type_name = "Tracer"

  def __hash__(self):
    raise TypeError(f"unhashable type: '{self._public_type_name}'")

  def __iter__(self):
    if not self.aval.shape:
      raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.aval.shape[0]))

  def __setitem__(self, index, value):
    raise TypeError(errors.IMMUTABLE_SETITEM_MESSAGE)

  def __reduce__(self):
    raise errors.ConcretizationTypeError(self, "The problem arose with pickling. ")

  def item(self, *args):
    raise errors.ConcretizationTypeError(self, "This occurred in the item() method of jax.Array")

  def tolist(self):
    raise errors.ConcretizationTypeError(
        self, f"The tolist() method was called on traced array with shape "
        f"{self.aval.str_short(short_dtypes=False)}.")


class _TraceContext(threading.local):
  trace: Trace

  def __init__(self):
    self.trace = eval_trace


def current_trace() -> Trace:
  """The trace that ``bind`` currently dispatches to."""
  return _context.trace


def trace_state_clean() -> bool:
  """True when no transformation is tracing: operations run eagerly (JAX's ``jax.core.trace_state_clean``)."""
  return _context.trace is eval_trace


class set_current_trace:
  """Context manager that installs ``trace`` as the current trace (its parent is the old one)."""
  __slots__ = ("trace", "previous")

  def __init__(self, trace: Trace):
    self.trace = trace

  def __enter__(self):
    self.previous = _context.trace
    _context.trace = self.trace
    return self.trace

  def __exit__(self, *exc):
    _context.trace = self.previous
    return False


# EvalTrace lives in interpreters/eval.py; it installs itself here on import.
eval_trace: Trace = None  # type: ignore
_context: _TraceContext = None  # type: ignore


def _install_eval_trace(trace: Trace) -> None:
  global eval_trace, _context
  eval_trace = trace
  _context = _TraceContext()


def get_opaque_trace_state(convention=None):
  """An object identifying the current trace, compared with ``==`` by libraries that check
  they are still under the trace they started in (JAX's ``get_opaque_trace_state``)."""
  return _context.trace


def is_concrete(x) -> bool:
  """True when ``x`` carries a value Python can read (not a tracer)."""
  return not isinstance(x, Tracer)


def concrete_or_error(force: Callable | None, value, context: str = ""):
  """Returns ``force(value)`` for a concrete value; raises ConcretizationTypeError for a tracer."""
  if isinstance(value, Tracer):
    raise errors.ConcretizationTypeError(value, context)
  return value if force is None else force(value)


def canonicalize_shape(shape, context: str = "") -> tuple[int, ...]:
  """Turns a shape argument into a tuple of Python ints; a traced size raises JAX's TypeError."""
  if isinstance(shape, (int, np.integer, Tracer)) or (hasattr(shape, "dtype") and np.ndim(shape) == 0):
    shape = (shape,)
  try:
    items = tuple(shape)
  except TypeError:
    raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape!r}.") from None
  tracers = [d for d in items if isinstance(d, Tracer)]
  if tracers:
    origin = getattr(tracers[0], "_origin_message", lambda: "")()
    raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {items}.\n"
                    "If using `jit`, try using `static_argnums` or applying `jit` to smaller "
                    f"subfunctions.\n{origin}")
  out = []
  for d in items:
    if isinstance(d, (bool, np.bool_)) or not (
        isinstance(d, (int, np.integer)) or (hasattr(d, "dtype") and np.ndim(d) == 0
                                             and np.issubdtype(d.dtype, np.integer))):
      raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {items}.")
    out.append(int(d))
  return tuple(out)
