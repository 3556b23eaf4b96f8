"""Array references: ``jax.new_ref(x)`` makes a mutable box holding an array; ``ref[...]`` reads
it, ``ref[idx] = v`` writes it (``ref[...] += 1`` too), ``jax.freeze(ref)`` reads it for the last
time. ``jax.typeof(ref)`` is an ``AbstractRef`` (printed ``Ref{float32[3]}``).

axle keeps a ref's value in Python: a ref made and used inside one traced function (under jit,
grad, vmap) holds that trace's values. A ref passed to or closed over by a jitted function is
read and written by the compiled program, as in JAX: its value at each call is an input and,
when written, the new value is written back after the call (``ref_frames``). What axle does not
do is thread a ref through ``grad``/``vmap`` or a control-flow body: writing a value traced there
into a ref made outside raises (an error says so, never a silently stale value). Writes check
the value's shape and dtype as JAX does.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import numpy as jnp
from axle._src import ref_frames


class AbstractRef:
  """The type of an array reference: the type of the array it holds (``inner_aval``)."""
  __slots__ = ("inner_aval",)

  def __init__(self, inner_aval):
    self.inner_aval = inner_aval

  shape = property(lambda self: self.inner_aval.shape)
  dtype = property(lambda self: self.inner_aval.dtype)
  ndim = property(lambda self: len(self.inner_aval.shape))
  weak_type = property(lambda self: self.inner_aval.weak_type)

  @property
  def size(self) -> int:
    return self.inner_aval.size

  def str_short(self, short_dtypes: bool = True) -> str:
    return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

  def __repr__(self):
    return f"Ref{{{self.inner_aval.str_short(short_dtypes=False)}}}"

  __str__ = __repr__

  def __eq__(self, other):
    return isinstance(other, AbstractRef) and self.inner_aval == other.inner_aval

  def __hash__(self):
    return hash(("Ref", self.inner_aval))


class Ref:
  """A mutable reference to an array (``jax.new_ref(x)``): ``ref[...]`` reads the whole array,
  ``ref[idx]`` a part; ``ref[idx] = value`` writes."""
  __slots__ = ("_value", "_trace", "_frozen", "_frame", "__weakref__")

  def __init__(self, value):
    self._value = value
    self._trace = core.current_trace()
    self._frozen = False
    self._frame = ref_frames.innermost()  # the jit trace it was made in (None: top level)
    ref_frames.refs_made[0] += 1

  def _threaded(self) -> bool:
    """Whether a jit trace that did not make this ref is using it now."""
    frame = ref_frames.innermost()
    return frame is not None and self._frame is not frame

  def _check_live(self):
    if self._frozen:
      raise ValueError("this Ref was frozen by jax.freeze(ref) and can no longer be read or "
                       "written; keep the value freeze returned")

  # No ``aval`` attribute: a ref is not an array operand (jit and the primitives refuse it).
  def _typeof(self) -> AbstractRef:
    return AbstractRef(core.get_aval(self._value))

  shape = property(lambda self: np.shape(self._value))
  dtype = property(lambda self: core.get_aval(self._value).dtype)
  ndim = property(lambda self: len(np.shape(self._value)))
  size = property(lambda self: int(np.prod(np.shape(self._value), dtype=np.int64)))

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object (a Ref of a scalar)")
    return self.shape[0]

  def __getitem__(self, index):
    self._check_live()
    if self._threaded():
      value = ref_frames.read(self)
    else:
      self._check_trace("read")
      value = self._value
    if index is Ellipsis or index == ():
      return value
    return jnp.asarray(value)[index]

  def __setitem__(self, index, value):
    self._check_live()
    value = jnp.asarray(value)
    threaded = self._threaded()
    if not threaded:
      self._check_trace("written", value)
    current = jnp.asarray(ref_frames.read(self) if threaded else self._value)
    target = current if index is Ellipsis or index == () else current[index]
    if value.dtype != current.dtype:
      raise ValueError(f"Invalid dtype for `swap`. Ref dtype: {current.dtype}. Value dtype: "
                       f"{value.dtype}. (Convert the value with .astype({current.dtype}).)")
    if tuple(value.shape) != tuple(np.shape(target)):
      raise ValueError(f"Invalid shape for `swap`. Ref shape: {tuple(current.shape)}. Expected "
                       f"shape: {tuple(np.shape(target))}. Value shape: {tuple(value.shape)}. "
                       "Transforms: ().")
    new = value if index is Ellipsis or index == () else current.at[index].set(value)
    if threaded:
      ref_frames.write(self, new)
    else:
      self._value = new

  def _check_trace(self, action: str, value=None):
    """A ref made outside the current transformation cannot take or give its traced values."""
    here = core.current_trace()
    if here is self._trace:
      return
    traced = isinstance(value, core.Tracer) or isinstance(self._value, core.Tracer)
    if traced:
      raise NotImplementedError(
          f"this Ref was made outside the function being transformed (jit, grad, vmap, ...) and "
          f"is {action} there with a traced value; axle does not thread refs through "
          "transformations. Pass the value in and return the new value instead, or make the "
          "ref inside the transformed function.")

  def __repr__(self):
    text = repr(self._value)
    return "Ref(" + text[text.index("(") + 1:] if text.startswith("Array(") else f"Ref({text})"

  def __array__(self, dtype=None, copy=None):
    return np.asarray(self[...], dtype=dtype)

  # ref[...] op= value reads, combines and writes back through __getitem__/__setitem__.


ref_frames.ref_types.add(Ref)


def new_ref(init_val, *, memory_space=None) -> Ref:
  """A new mutable reference holding ``init_val`` (``jax.new_ref``)."""
  if memory_space is not None:
    raise NotImplementedError("new_ref: memory_space= is not supported by axle")
  return Ref(jnp.asarray(init_val))


def freeze(ref: Ref):
  """The value of ``ref``, which can no longer be used afterwards (``jax.freeze``)."""
  if not isinstance(ref, Ref):
    raise TypeError(f"freeze: expected a Ref (from jax.new_ref), got {type(ref).__name__}")
  value = ref[...]
  ref._frozen = True
  return value


