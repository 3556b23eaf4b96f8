"""The rest of axle.numpy: array comparisons and predicates, printing options, ``ufunc`` and
``frompyfunc``, ``vectorize`` and ``apply_along_axis`` (on top of ``vmap``), and the NumPy file
helpers JAX re-exports."""
from __future__ import annotations

import functools
import re
from typing import Any, Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import conditionals as lax_conditionals
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import scalar_types
from axle._src.numpy import selection
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.vmap import vmap

__all__ = ["array_equal", "array_equiv", "allclose", "iscomplexobj", "isrealobj", "isscalar",
           "iterable", "ndim", "shape", "size", "isdtype", "array_repr", "array_str",
           "get_printoptions", "printoptions", "set_printoptions", "ufunc", "frompyfunc",
           "vectorize", "piecewise", "apply_along_axis", "load", "save", "savez", "ComplexWarning", "object_"]

ComplexWarning = np.exceptions.ComplexWarning
object_ = np.object_
get_printoptions = np.get_printoptions
printoptions = np.printoptions
set_printoptions = np.set_printoptions
save = np.save
savez = np.savez
array_repr = np.array_repr
array_str = np.array_str
isdtype = dtypes.isdtype



def array_equal(a1, a2, equal_nan: bool = False):
  """Whether ``a1`` and ``a2`` have the same shape and elements (``jnp.array_equal``)."""
  try:
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
  except Exception:
    return scalar_types.bool_(False)
  if np.shape(a1) != np.shape(a2):
    return scalar_types.bool_(False)
  eq = creation.asarray(ufuncs.equal(a1, a2))
  if equal_nan:
    eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs.isnan(a1), ufuncs.isnan(a2)))
  return reductions.all(eq)


def array_equiv(a1, a2):
  """Whether ``a1`` and ``a2`` are equal after broadcasting (``jnp.array_equiv``)."""
  try:
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
  except Exception:
    return scalar_types.bool_(False)
  try:
    eq = ufuncs.equal(a1, a2)
  except ValueError:
    return scalar_types.bool_(False)
  return reductions.all(eq)


@util.jit_when_tracing(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  """Whether every element of ``a`` is close to ``b`` (``jnp.allclose``)."""
  util.check_arraylike("allclose", a, b)
  return reductions.all(ufuncs.isclose(a, b, rtol, atol, equal_nan))


def iscomplexobj(x):
  """Whether ``x`` has a complex dtype (``jnp.iscomplexobj``)."""
  if x is None:
    return False
  try:
    typ = x.dtype.type
  except AttributeError:
    typ = dtypes.dtype(x).type
  return issubclass(typ, np.complexfloating)


def isrealobj(x):
  """Whether ``x`` does not have a complex dtype (``jnp.isrealobj``)."""
  return not iscomplexobj(x)


def isscalar(element):
  """Whether ``element`` is a scalar: a Python/NumPy scalar or a 0-d array (``jnp.isscalar``)."""
  if hasattr(element, "__jax_array__"):
    element = element.__jax_array__()
  if isinstance(element, (Array, Tracer, np.ndarray)):
    return np.ndim(element) == 0
  return dtypes.is_python_scalar(element) or np.isscalar(element)


def iterable(y):
  """Whether ``iter(y)`` works (``jnp.iterable``)."""
  try:
    iter(y)
  except TypeError:
    return False
  return True


def ndim(a):
  """The number of dimensions of ``a`` (``jnp.ndim``)."""
  return np.ndim(a)


def shape(a):
  """The shape of ``a`` (``jnp.shape``)."""
  return np.shape(a)


def size(a, axis: int | None = None):
  """The number of elements of ``a``, or along ``axis`` (``jnp.size``)."""
  return np.size(a, axis)


def load(file, *args, **kwargs):
  """``np.load`` returning Arrays for array data (``jnp.load``)."""
  out = np.load(file, *args, **kwargs)
  if isinstance(out, np.ndarray):
    if out.dtype == np.dtype("V2"):  # bfloat16 saved by NumPy as raw 2-byte values
      out = out.view(dtypes.bfloat16)
    try:
      return creation.asarray(out)
    except (TypeError, AssertionError):
      return out
  return out


# ---------------------------------------------------------------------------
# ufunc


class ufunc:
  """A NumPy-style universal function built from an elementwise ``func`` of ``nin`` arguments
  (``jnp.ufunc``): call it, or use ``outer``, ``reduce``, ``accumulate``, ``at`` and
  ``reduceat``."""

  def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *, name: str | None = None,
               nargs: int | None = None, identity: Any = None, call=None, reduce=None,
               accumulate=None, at=None, reduceat=None):
    self.__wrapped__ = func
    self._func = func
    self._name = name or getattr(func, "__name__", "<unnamed>")
    self.nin = int(nin)
    self.nout = int(nout)
    self.nargs = nargs or self.nin
    self.identity = identity
    self._call, self._reduce, self._accumulate = call, reduce, accumulate
    self._at, self._reduceat = at, reduceat

  def __repr__(self):
    return f"<jnp.ufunc '{self._name}'>"

  @property
  def __name__(self):
    return self._name

  def __call__(self, *args, out=None, where=None):
    if out is not None:
      raise NotImplementedError(f"out argument of {self}")
    if where is not None:
      raise NotImplementedError(f"where argument of {self}")
    if len(args) != self.nin:
      raise TypeError(f"{self._name}() takes {self.nin} positional argument(s) but {len(args)} "
                      "were given")
    call = self._call or self._call_vectorized
    return call(*args)

  @functools.cached_property
  def _call_vectorized(self):
    # JAX stages a ufunc without a ``call`` as a jit equation named _call_vectorized
    def _call_vectorized(*args):
      return vectorize(self._func)(*args)
    return util.jit_when_tracing(_call_vectorized)

  def outer(self, A, B, /):
    """``self(a, b)`` for every pair of elements of ``A`` and ``B``."""
    if self.nin != 2:
      raise ValueError("outer only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError("outer only supported for functions returning a single value")
    util.check_arraylike(f"{self._name}.outer", A, B)
    A, B = creation.asarray(A), creation.asarray(B)
    return self(lax_numpy.reshape(A, np.shape(A) + (1,) * np.ndim(B)), B)

  def reduce(self, a, axis=0, dtype=None, out=None, keepdims: bool = False, initial=None,
             where=None):
    """Reduces ``a`` along ``axis`` by repeated application of this binary function."""
    if self.nin != 2:
      raise ValueError("reduce only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError("reduce only supported for functions returning a single value")
    if out is not None:
      raise NotImplementedError(f"out argument of {self}.reduce()")
    if self._reduce is not None:
      return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                          where=where)
    util.check_arraylike(f"{self._name}.reduce", a)
    a = creation.asarray(a)
    if dtype is not None:
      a = a.astype(dtype)
    axes = util.canonicalize_axes(axis, a.ndim)
    if where is not None:
      if initial is None and self.identity is None:
        raise ValueError(f"reduction operation {self._name!r} does not have an identity, so to "
                         "use a where mask one has to specify 'initial'.")
      fill = self.identity if initial is None else initial
      a = lax_numpy.where(creation.broadcast_to(where, a.shape), a, creation.asarray(fill, a.dtype))
    moved = lax_numpy.moveaxis(a, axes, tuple(range(len(axes))))
    flat = lax_numpy.reshape(moved, (-1,) + moved.shape[len(axes):])
    if flat.shape[0] == 0 and initial is None and self.identity is None:
      raise ValueError(f"zero-size array to reduction operation {self._name} which has no "
                       "identity")
    if initial is not None:
      result = creation.broadcast_to(creation.asarray(initial, a.dtype), flat.shape[1:])
      start = 0
    elif flat.shape[0] == 0:
      result = creation.broadcast_to(creation.asarray(self.identity, a.dtype), flat.shape[1:])
      start = 0
    else:
      result = flat[0]
      start = 1
    for i in range(start, flat.shape[0]):
      result = self(result, flat[i])
    if keepdims:
      result = lax_numpy.expand_dims(result, axes)
    return result

  def accumulate(self, a, axis: int = 0, dtype=None, out=None):
    """The running reduction of ``a`` along ``axis``."""
    if self.nin != 2:
      raise ValueError("accumulate only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError("accumulate only supported for functions returning a single value")
    if out is not None:
      raise NotImplementedError(f"out argument of {self}.accumulate()")
    if self._accumulate is not None:
      return self._accumulate(a, axis=axis, dtype=dtype)
    util.check_arraylike(f"{self._name}.accumulate", a)
    a = creation.asarray(a)
    if dtype is not None:
      a = a.astype(dtype)
    axis = util.canonicalize_axis(axis, a.ndim)
    moved = lax_numpy.moveaxis(a, axis, 0)
    if moved.shape[0] == 0:
      return a
    results = [moved[0]]
    for i in range(1, moved.shape[0]):
      results.append(self(results[-1], moved[i]).astype(a.dtype))
    return lax_numpy.moveaxis(lax_numpy.stack(results), 0, axis)

  def at(self, a, indices, b=None, /, *, inplace: bool = True):
    """A copy of ``a`` with this function applied at ``indices`` (``inplace=False`` needed)."""
    if inplace:
      raise NotImplementedError("jax.numpy.ufunc.at: in-place updates are not supported; "
                                "pass inplace=False to return an updated copy.")
    if self._at is not None:
      return self._at(a, indices, b)
    a = creation.asarray(a)
    if b is None:
      return a.at[indices].set(self(a[indices]))
    return a.at[indices].set(self(a[indices], b))

  def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
    """Reductions over the slices ``indices[i]:indices[i+1]`` along ``axis``."""
    if self.nin != 2:
      raise ValueError("reduceat only supported for binary ufuncs")
    if out is not None:
      raise NotImplementedError(f"out argument of {self}.reduceat()")
    a = creation.asarray(a)
    idx = core.concrete_or_error(np.asarray, indices, "indices of ufunc.reduceat must be static")
    axis = util.canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    pieces = []
    for i, start in enumerate(idx):
      stop = idx[i + 1] if i + 1 < len(idx) else n
      if stop <= start:
        pieces.append(selection.take(a, creation.asarray([start]), axis=axis))
      else:
        segment = selection.take(a, creation.arange(start, stop), axis=axis)
        pieces.append(self.reduce(segment, axis=axis, dtype=dtype, keepdims=True))
    return lax_numpy.concatenate(pieces, axis=axis)


def frompyfunc(func, /, nin: int, nout: int, *, identity=None):
  """A ``jnp.ufunc`` from an elementwise Python function of arrays (``jnp.frompyfunc``)."""
  return ufunc(func, nin, nout, identity=identity)


# ---------------------------------------------------------------------------
# vectorize and apply_along_axis (need vmap)


_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = f"(?:{_DIMENSION_NAME}(?:,{_DIMENSION_NAME})*)?"
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENT_LIST}->{_ARGUMENT_LIST}$"


def _parse_gufunc_signature(signature: str):
  if not re.match(_SIGNATURE, signature):
    raise ValueError(f"not a valid gufunc signature: {signature}")
  args, retvals = ([tuple(re.findall(_DIMENSION_NAME, arg)) for arg in
                    re.findall(_ARGUMENT, arg_list)] for arg_list in signature.split("->"))
  return args, retvals


def _checked_output_dims(func, dim_sizes, output_core_dims, context):
  """``func`` with its results checked against the signature's output core dimensions."""
  if output_core_dims is None:
    return func

  def checked(*args):
    out = func(*args)
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(output_core_dims):
      raise TypeError(f"wrong number of output arguments: expected {len(output_core_dims)}, "
                      f"got {len(outs)} {context}")
    sizes = dict(dim_sizes)
    for o, core_dims in zip(outs, output_core_dims):
      shape = np.shape(o)
      if len(shape) != len(core_dims):
        raise ValueError(f"output shape {shape} does not match core dimensions {core_dims} "
                         f"{context}")
      for dim, size_ in zip(core_dims, shape):
        if sizes.setdefault(dim, size_) != size_:
          raise ValueError(f"inconsistent size for core dimension {dim!r}: {size_} vs "
                           f"{sizes[dim]} {context}")
    return out
  return checked


def vectorize(pyfunc, *, excluded=frozenset(), signature: str | None = None):
  """A function that maps ``pyfunc`` over the leading (broadcast) dimensions of its array
  arguments, with ``signature`` naming core dimensions (``jnp.vectorize``)."""
  if any(not isinstance(e, (int, str)) for e in excluded):
    raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, but "
                    f"excluded={excluded!r}")
  if any(isinstance(e, int) and e < 0 for e in excluded):
    raise ValueError(f"excluded={excluded!r} contains negative numbers")

  @functools.wraps(pyfunc)
  def wrapped(*args, **kwargs):
    excluded_func = pyfunc
    if excluded:
      static_args = {i: args[i] for i in excluded if isinstance(i, int) and i < len(args)}
      static_kwargs = {k: kwargs[k] for k in excluded if isinstance(k, str) and k in kwargs}
      dyn_args = [a for i, a in enumerate(args) if i not in static_args]
      dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_kwargs}
      n_total = len(args)

      def excluded_func(*d_args, **d_kwargs):
        it = iter(d_args)
        full = [static_args[i] if i in static_args else next(it) for i in range(n_total)]
        return pyfunc(*full, **static_kwargs, **d_kwargs)
      args, kwargs = dyn_args, dyn_kwargs
    if kwargs:
      names = list(kwargs)
      n_pos = len(args)
      base = excluded_func

      def excluded_func(*all_args):
        return base(*all_args[:n_pos], **dict(zip(names, all_args[n_pos:])))
      args = list(args) + [kwargs[k] for k in names]
    args = [creation.asarray(a) for a in args]
    if signature is not None:
      input_core_dims, output_core_dims = _parse_gufunc_signature(signature)
    else:
      input_core_dims = [()] * len(args)
      output_core_dims = None
    if len(input_core_dims) != len(args):
      raise TypeError(f"wrong number of positional arguments: expected {len(input_core_dims)}, "
                      f"got {len(args)}")
    dim_sizes: dict[str, int] = {}
    broadcast_shapes = []
    for arg, core_dims in zip(args, input_core_dims):
      n = len(core_dims)
      if arg.ndim < n:
        raise ValueError(f"input with shape {arg.shape} does not have enough dimensions for all "
                         f"core dimensions {core_dims} of signature {signature}")
      for dim, size_ in zip(core_dims, arg.shape[arg.ndim - n:]):
        if dim in dim_sizes and dim_sizes[dim] != size_:
          raise ValueError(f"inconsistent size for core dimension {dim!r}: {size_} vs "
                           f"{dim_sizes[dim]}")
        dim_sizes[dim] = size_
      broadcast_shapes.append(arg.shape[:arg.ndim - n])
    loop_shape = util.broadcast_shapes(*broadcast_shapes)
    # As JAX does: no argument is broadcast up front. Size-1 loop dimensions are squeezed away
    # and each loop axis (innermost first) gets one vmap, mapping only the arguments that have
    # that axis (in_axes None for the others); an axis no argument has comes back as a unit
    # dimension of the result.
    squeezed, padded_shapes = [], []
    for arg, loop_dims in zip(args, broadcast_shapes):
      unit_axes = tuple(i for i, d in enumerate(loop_dims) if d == 1)
      squeezed.append(lax_numpy.squeeze(arg, unit_axes) if unit_axes else arg)
      padded_shapes.append((1,) * (len(loop_shape) - len(loop_dims)) + tuple(loop_dims))
    f = _checked_output_dims(excluded_func, dim_sizes, output_core_dims,
                             f"on vectorized function with excluded={frozenset(excluded)!r} and "
                             f"signature={signature!r}")
    unit_loop_axes = []
    for axis in reversed(range(len(loop_shape))):
      in_axes = tuple(None if shape[axis] == 1 else 0 for shape in padded_shapes)
      if all(a is None for a in in_axes):
        unit_loop_axes.append(axis)
      else:
        f = vmap(f, in_axes=in_axes)
    out = f(*squeezed)
    if not unit_loop_axes:
      return out
    if isinstance(out, tuple):
      return tuple(lax_numpy.expand_dims(o, tuple(unit_loop_axes)) for o in out)
    return lax_numpy.expand_dims(out, tuple(unit_loop_axes))

  return wrapped


def piecewise(x, condlist, funclist, *args, **kw):
  """``funclist[i](x, *args, **kw)`` where ``condlist[i]`` is true, a later true condition
  winning (a constant entry gives that value; one extra function is the default where none is
  true) (``jnp.piecewise``); the result has ``x``'s dtype. As JAX's, every function is evaluated
  on all of ``x`` (a ``jit`` that vectorizes ``lax.switch``), so its program is JAX's."""
  util.check_arraylike("piecewise", x)
  if not isinstance(condlist, (list, tuple)) and np.ndim(condlist) == np.ndim(x):
    condlist = [condlist]  # a single condition array
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    funclist = list(funclist[-1:]) + list(funclist[:-1])
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                     f"got {nf}")
  consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
  funcs = {i: f for i, f in enumerate(funclist) if callable(f)}
  return _piecewise(x, creation.asarray(condlist, dtype=bool), consts, frozenset(funcs.items()),
                    args, kw)


def _piecewise_index(condlist):
  """Per element, 1 + the position of the last true condition, 0 (the default) when none is
  (``lax.switch`` clamps it)."""
  padded = lax_numpy.concatenate([creation.zeros_like(condlist[:1]), condlist], axis=0)
  return reductions.argmax(reductions.cumsum(padded, axis=0), axis=0)


@util.jit_when_tracing(static_argnames=("funcs",))
def _piecewise(x, condlist, consts, funcs, args, kw):
  dtype = x.dtype
  by_position = dict(funcs)
  funclist = [consts[i] if i in consts else by_position[i] for i in range(len(condlist) + 1)]

  def _call(f):
    return lambda x: lax_convert._convert_element_type(f(x, *args, **kw), dtype, False)

  def _const(value):
    return lambda x: lax_convert._convert_element_type(lax_numpy.copy(value), dtype, False)

  branches = [_call(f) if callable(f) else _const(f) for f in funclist]
  return vectorize(lax_conditionals.switch, excluded=(1,))(_piecewise_index(condlist), branches, x)


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
  """``func1d`` applied to the 1-D slices of ``arr`` along ``axis`` (``jnp.apply_along_axis``)."""
  util.check_arraylike("apply_along_axis", arr)
  arr = creation.asarray(arr)
  num_dims = arr.ndim
  axis = util.canonicalize_axis(axis, num_dims)
  func = lambda arr: func1d(arr, *args, **kwargs)  # noqa: E731
  for i in range(1, num_dims - axis):
    func = vmap(func, in_axes=i, out_axes=-1)
  for i in range(axis):
    func = vmap(func, in_axes=0, out_axes=0)
  return func(arr)
