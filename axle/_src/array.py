"""The Array type: an immutable n-dimensional array (``axle.Array``).

An Array is backed by a host NumPy value (``_value``) and, once it has been to
XLA, by a device buffer; each is made from the other lazily, at most once.
Operators and methods (``+``, ``.sum()``, ``.at``, indexing, ...) are attached
by ``axle._src.numpy.array_methods`` so that Arrays and tracers share them.
"""
from __future__ import annotations

import numpy as np

from axle._src import dtypes
from axle._src import errors
from axle._src import ir
from axle._src.core import ShapedArray
from axle._src.xla import client


class Array:
  """An immutable array produced by axle (JAX's ``jax.Array``)."""
  # An Array holds a host value, a device buffer, or both. With neither it is pending (``_node``:
  # an eager op deferred by ``xla.deferred``, computed when the value or buffer is first
  # needed) or deleted. ``_readers``: the pending ops reading it. Both are set only when used.
  __slots__ = ("_value", "_aval", "_buffer", "_node", "_readers", "__weakref__")
  __array_priority__ = 100

  def __init__(self, value, weak_type: bool = False, aval: ShapedArray | None = None):
    """Wraps a NumPy value whose dtype is already canonical. Use ``jnp.asarray`` in user code."""
    self._value = value
    self._aval = aval if aval is not None else ShapedArray(value.shape, value.dtype, weak_type)
    self._buffer = None

  # -- abstract properties --------------------------------------------------
  @property
  def aval(self) -> ShapedArray:
    return self._aval

  @property
  def shape(self) -> tuple[int, ...]:
    return self.aval.shape

  @property
  def dtype(self) -> np.dtype:
    return self.aval.dtype

  @property
  def ndim(self) -> int:
    return len(self.aval.shape)

  @property
  def size(self) -> int:
    return self.aval.size

  @property
  def itemsize(self) -> int:
    return self.aval.dtype.itemsize

  @property
  def nbytes(self) -> int:
    return self.aval.size * self.aval.dtype.itemsize

  @property
  def weak_type(self) -> bool:
    return self.aval.weak_type

  # -- host value and device buffer ---------------------------------------------
  def _host_value(self):
    value = self._value
    if value is None:
      if self._buffer is None:
        self._compute_pending()
        if self._buffer is None:
          return self._value
      value = self._value = client.to_host(self._buffer, self._aval)
    return value

  def _device_buffer(self, device=None):
    """The device buffer holding this array's value, transferred (once) if needed."""
    buffer = self._buffer
    if buffer is None:
      if self._value is None:
        self._compute_pending()
        if self._buffer is not None:
          return self._buffer
      value = self._value
      if type(value) is not np.ndarray:
        value = np.asarray(value)
      buffer = self._buffer = client.put(value, self._aval, device)
    return buffer

  def _compute_pending(self) -> None:
    """Computes a pending array (see ``xla.deferred``); raises for a deleted one."""
    if getattr(self, "_node", None) is None:
      raise client.deleted_error(self._aval)
    force_pending(self)

  def __array__(self, dtype=None, copy=None):
    value = np.asarray(self._host_value())
    if dtype is not None and value.dtype != dtype:
      return value.astype(dtype)
    if copy:
      return value.copy()
    return read_only(value)

  # -- Python protocol -------------------------------------------------------
  def __repr__(self):
    return _array_repr(self)

  def __str__(self):
    return str(np.asarray(self._host_value()))

  def __format__(self, spec):
    if self.ndim == 0:
      return format(self._host_value()[()] if isinstance(self._host_value(), np.ndarray)
                    else self._host_value(), spec)
    return format(np.asarray(self._host_value()), spec)

  def _repr_pretty_(self, p, cycle):
    p.text(repr(self))

  def __len__(self):
    if not self.aval.shape:
      raise TypeError("len() of unsized object")
    return self.aval.shape[0]

  def __iter__(self):
    if not self.aval.shape:
      raise TypeError("iteration over a 0-d array")
    value = np.asarray(self._host_value())
    weak = self.aval.weak_type
    return (Array(row, weak) for row in value)

  def __bool__(self):
    return bool(self._scalar_value("bool"))

  def __int__(self):
    return int(self._scalar_value("int"))

  def __float__(self):
    return float(self._scalar_value("float"))

  def __complex__(self):
    return complex(self._scalar_value("complex"))

  def __index__(self):
    if not np.issubdtype(self.dtype, np.integer) or self.ndim != 0:
      raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
    return int(self._scalar_value("index"))

  def _scalar_value(self, what: str):
    value = np.asarray(self._host_value())
    if what == "bool":
      if value.size != 1:  # NumPy's rule: any single-element array has a truth value
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")
    elif value.ndim != 0:
      raise TypeError(f"Only scalar arrays can be converted to Python scalars; got "
                      f"arr.ndim={value.ndim}")
    return value.reshape(())[()]

  def __hash__(self):
    raise TypeError(f"unhashable type: '{type(self).__module__}.{type(self).__name__}'")

  def __setitem__(self, index, value):
    raise TypeError(errors.IMMUTABLE_SETITEM_MESSAGE)

  def __reduce__(self):
    return (_reconstruct_array, (np.asarray(self._host_value()), self.aval.weak_type))

  def __copy__(self):
    return self

  def __deepcopy__(self, memo):
    return Array(np.array(self._host_value(), copy=True), self.aval.weak_type)

  def __dlpack__(self, *args, **kwargs):
    return np.asarray(self._host_value()).__dlpack__(*args, **kwargs)

  # -- methods that need the value ----------------------------------------------
  def item(self, *args):
    """The element as a Python scalar (``x.item()``, or ``x.item(i)``)."""
    return np.asarray(self._host_value()).item(*args)

  def tolist(self):
    """The array as nested Python lists of Python scalars."""
    return np.asarray(self._host_value()).tolist()

  def block_until_ready(self):
    """Waits until the array's value has been computed; returns the array. An error raised
    while computing it surfaces here."""
    buffer = self._buffer
    if buffer is None:
      if self._value is not None:
        return self
      self._compute_pending()
      buffer = self._buffer
      if buffer is None:
        return self
    client.wait_for(buffer)
    return self

  def copy_to_host_async(self):
    """Starts copying the value to the host (on the CPU the host value is a view: a no-op)."""

  @property
  def committed(self) -> bool:
    return True

  def is_fully_addressable(self) -> bool:
    return True

  @property
  def is_fully_replicated(self) -> bool:
    return True

  def is_deleted(self) -> bool:
    """Whether the array's storage has been freed (``delete()``, or donated to a computation)."""
    return (self._value is None and self._buffer is None
            and getattr(self, "_node", None) is None)

  def delete(self) -> None:
    """Frees the array's storage; using the array afterwards raises RuntimeError."""
    before_donation(self)  # (pending ops that read it run first)
    if self._buffer is not None:
      self._buffer.delete()
    self._value = None
    self._buffer = None
    self._node = None


# Installed by ``xla.deferred`` (which sits above this module): ``force_pending(array)``
# computes a pending array; ``settle_readers(array)`` computes the pending ops reading an array
# whose buffer is about to be donated or deleted.
force_pending = None
settle_readers = None


def before_donation(array) -> None:
  """Computes the pending ops that read ``array`` before its buffer is donated or deleted."""
  if getattr(array, "_readers", None):
    settle_readers(array)


def read_only(value: np.ndarray) -> np.ndarray:
  """``value``, or a read-only view of it: an Array's value is shared with the Array (and with
  eager kernels that remember facts about it), so NumPy views handed out must not be written,
  as JAX's ``np.asarray(x)`` of a CPU array cannot be."""
  if value.flags.writeable:
    value = value.view()
    value.flags.writeable = False
  return value


def _reconstruct_array(value, weak_type):
  return Array(value, weak_type)


def _array_repr(x: Array) -> str:
  prefix = "Array("
  dtype_text = f"dtype={x.dtype.name}"
  if x.aval.weak_type:
    dtype_text += ", weak_type=True"
  dtype_text += ")"
  value = np.asarray(x._host_value())
  line_width = np.get_printoptions()["linewidth"]
  if value.size == 0:
    return f"{prefix}[], shape={value.shape}, {dtype_text}"
  body = np.array2string(value, prefix=prefix, suffix=",", separator=", ", max_line_width=line_width)
  last_line_len = len(body) - body.rfind("\n") + 1
  separator = " "
  if last_line_len + len(dtype_text) + 1 > line_width:
    separator = " " * len(prefix)
  return f"{prefix}{body},{separator}{dtype_text}"


def is_array(x) -> bool:
  """Whether ``x`` is an axle Array."""
  return isinstance(x, Array)


def from_numpy(value, weak_type: bool = False) -> Array:
  """An Array from a NumPy value, canonicalising its dtype (64-bit -> 32-bit with x64 off)."""
  value = np.asarray(value)
  target = dtypes.canonicalize_dtype(value.dtype)
  if value.dtype != target:
    value = value.astype(target)
  return Array(value, weak_type)


ir.array_from_literal = lambda value, aval: Array(value, aval=aval)

# The concrete array type prints as JAX's (``type(x)`` is ``<class 'jaxlib._jax.ArrayImpl'>``,
# and messages such as "unhashable type: 'jaxlib._jax.ArrayImpl'" name it), as programs and
# doctests written for JAX show it.
# Pickling goes through ``__reduce__``, never through this name.
Array.__module__ = "jaxlib._jax"
Array.__name__ = Array.__qualname__ = "ArrayImpl"
