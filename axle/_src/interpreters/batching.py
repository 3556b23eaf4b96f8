"""vmap's interpreter: the batch trace and the batching-rule helpers.

A ``BatchTracer`` holds a value with one extra axis, ``batch_dim``, that the function being
vmapped does not see. Binding a primitive on batch tracers runs its batching rule
(``primitive_batchers[p]``) on the underlying values, with the parent trace current; the
rule returns the result and where its batch axis is. Axes move only when a rule needs it.
Collectives (psum, all_gather, ...) over the trace's named axis use
``collective_batchers[p]``, which also receive the axis' name and size.
"""
from __future__ import annotations

import weakref
from typing import Sequence

import numpy as np

from axle._src import core
from axle._src import ir
from axle._src.config import config
from axle._src.core import ShapedArray, Tracer
from axle._src.interpreters import staging

primitive_batchers: dict = {}
collective_batchers: dict = {}
# Rules that also need the mapped axis: ``rule(axis_data, values, dims, **params)`` (JAX's
# ``axis_primitive_batchers``); used only when an operand is batched.
axis_primitive_batchers: dict = {}

not_mapped = None


class AxisData:
  """The mapped axis of a vmap: its name (or None) and size."""
  __slots__ = ("name", "size")

  def __init__(self, name, size: int):
    self.name = name
    self.size = size

  def __repr__(self):
    return f"AxisData(name={self.name!r}, size={self.size})"


class BatchTracer(Tracer):
  """A value under vmap: ``val`` carries the batch along axis ``batch_dim``."""
  __slots__ = ("val", "batch_dim")
  _public_type_name = "BatchTracer"

  def __init__(self, trace: "BatchTrace", val, batch_dim: int):
    self._trace = trace
    self.val = val
    self.batch_dim = batch_dim

  @property
  def aval(self) -> ShapedArray:
    aval = core.get_aval(self.val)
    shape = aval.shape[:self.batch_dim] + aval.shape[self.batch_dim + 1:]
    return ShapedArray(shape, aval.dtype, aval.weak_type)

  def __repr__(self):
    batched = core.get_aval(self.val)
    return (f"VmapTracer(aval={self.aval.str_short(short_dtypes=False)}, "
            f"batched={batched.str_short(short_dtypes=False)})")

  __str__ = __repr__

  def _origin_message(self) -> str:
    inner = getattr(self.val, "_origin_message", None)
    return inner() if inner is not None else ""


class BatchTrace(core.Trace):
  """Batches every primitive bound on its tracers over one mapped axis."""

  def __init__(self, parent: core.Trace, axis_data: AxisData):
    self.parent = parent
    self.axis_data = axis_data

  def to_batched(self, x):
    """``(value, batch_dim)`` of an operand (batch_dim None for values of other traces)."""
    if isinstance(x, BatchTracer) and x._trace is self:
      return x.val, x.batch_dim
    return x, None

  def pack(self, value, batch_dim):
    return value if batch_dim is None else BatchTracer(self, value, batch_dim)

  def process_primitive(self, primitive, args, params):
    values = []
    dims = []
    batched = False
    for x in args:
      if isinstance(x, BatchTracer) and x._trace is self:
        values.append(x.val)
        dims.append(x.batch_dim)
        batched = True
      else:
        values.append(x)
        dims.append(None)
    collective = collective_batchers.get(primitive)
    if not batched and collective is None:
      with core.set_current_trace(self.parent):
        return primitive.bind(*values, **params)
    with core.set_current_trace(self.parent):
      if collective is not None:
        out, out_dim = collective(self.axis_data, values, dims, **params)
      else:
        rule = primitive_batchers.get(primitive)
        if rule is not None:
          out, out_dim = rule(tuple(values), tuple(dims), **params)
        elif primitive in axis_primitive_batchers:
          out, out_dim = axis_primitive_batchers[primitive](self.axis_data, tuple(values),
                                                            tuple(dims), **params)
        else:
          raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
    if primitive.multiple_results:
      if not isinstance(out_dim, (list, tuple)):
        out_dim = [out_dim] * len(out)
      return [self.pack(o, d) for o, d in zip(out, out_dim)]
    return self.pack(out, out_dim)

  def __repr__(self):
    return f"BatchTrace({self.axis_data})"


# ---------------------------------------------------------------------------
# Moving and broadcasting batch axes


# lax's transpose, broadcast_in_dim and reshape, registered by lax.structural when it is
# imported: lax sits above batching (JAX's batching likewise reaches lax late, for make_iota).
lax_transpose = lax_broadcast_in_dim = lax_reshape = None


def moveaxis(x, src: int, dst: int):
  """``x`` with axis ``src`` moved to position ``dst`` (no-op when equal)."""
  ndim = core.get_aval(x).ndim
  src, dst = src % ndim, dst % ndim
  if src == dst:
    return x
  perm = [i for i in range(ndim) if i != src]
  perm.insert(dst, src)
  return lax_transpose(x, tuple(perm))


def broadcast(x, size: int, axis: int):
  """``x`` with a new axis of ``size`` inserted at ``axis`` (the value repeated)."""
  aval = core.get_aval(x)
  shape = list(aval.shape)
  shape.insert(axis, size)
  dims = tuple(np.delete(np.arange(len(shape)), axis))  # NumPy ints, as JAX's jaxprs print
  return lax_broadcast_in_dim(x, tuple(shape), dims)


def bdim_at_front(x, bdim, size: int):
  """``x`` with its batch axis first; an unbatched ``x`` (bdim None) is broadcast."""
  if bdim is None:
    return broadcast(x, size, 0)
  return moveaxis(x, bdim, 0)


def matchaxis(x, src, dst, size: int):
  """``x`` with its batch axis (``src``, possibly None) at ``dst`` (None: must be unbatched)."""
  if src == dst:
    return x
  if dst is None:
    raise ValueError("vmap has mapped output but out_axes is None")
  if src is None:
    return broadcast(x, size, dst)
  return moveaxis(x, src, dst)


def broadcast_batcher(primitive, values, dims, **params):
  """Batching of an n-ary elementwise primitive whose operands have equal ranks (rank-0
  operands broadcast), as JAX's: when every operand of nonzero rank has the same shape and batch
  axis, the primitive applies as is; otherwise batch axes move to the front, unbatched operands
  get a size-1 leading axis and batched lower-rank operands trailing size-1 axes (each with
  ``broadcast_in_dim``)."""
  shape, dim = next((core.get_aval(v).shape, d) for v, d in zip(values, dims) if d is not None)
  avals = [core.get_aval(v) for v in values]
  if all(a.shape == shape and d == dim for a, d in zip(avals, dims) if a.ndim):
    out = primitive.bind(*values, **params)
    return out, ([dim] * len(out) if primitive.multiple_results else dim)
  new_values = [bdim_at_front(v, d, 1) if a.ndim else v for v, a, d in zip(values, avals, dims)]
  rank = max(core.get_aval(v).ndim for v in new_values)
  for i, (v, d) in enumerate(zip(new_values, dims)):
    aval = core.get_aval(v)
    if d is not None and aval.ndim != rank:
      new_values[i] = lax_broadcast_in_dim(v, aval.shape + (1,) * (rank - aval.ndim),
                                           tuple(range(aval.ndim)))
  out = primitive.bind(*new_values, **params)
  return out, ([0] * len(out) if primitive.multiple_results else 0)


def defvectorized(primitive) -> None:
  """Unary elementwise primitive: applies to the batched value as is."""
  def rule(values, dims, **params):
    out = primitive.bind(*values, **params)
    return out, ([dims[0]] * len(out) if primitive.multiple_results else dims[0])
  primitive_batchers[primitive] = rule


def defbroadcasting(primitive) -> None:
  """N-ary elementwise primitive (equal ranks, rank-0 operands broadcast)."""
  primitive_batchers[primitive] = lambda values, dims, **params: broadcast_batcher(
      primitive, values, dims, **params)


def defreducer(primitive, axes_param: str = "axes") -> None:
  """A one-operand reduction over ``params[axes_param]`` that removes the reduced axes."""
  def rule(values, dims, **params):
    (x,), (d,) = values, dims
    axes = tuple(a if a < d else a + 1 for a in params[axes_param])
    out = primitive.bind(x, **{**params, axes_param: axes})
    return out, d - sum(1 for a in axes if a < d)
  primitive_batchers[primitive] = rule


# ---------------------------------------------------------------------------
# Batching a jaxpr (for primitives that carry jaxprs)


def _batched_aval(aval: ShapedArray, dim, size: int) -> ShapedArray:
  if dim is None:
    return aval
  shape = list(aval.shape)
  shape.insert(dim, size)
  return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


_batched_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def batch_jaxpr(closed: ir.ClosedJaxpr, axis_size: int, in_dims: Sequence, out_dims_instantiate,
                axis_name=None, same_level: bool = False):
  """``closed`` batched over inputs mapped along ``in_dims`` (None: unmapped).

  Returns ``(batched_closed, out_dims)``. Outputs with ``out_dims_instantiate`` true (a bool or
  one per output) are returned batched along axis 0; the others wherever the rules put them
  (None when unbatched). Memoised per jaxpr, as JAX's: the same call batched twice is one
  jaxpr (printed once, under ``let``). ``same_level``: the jaxpr's equations are batched as the
  caller's own (JAX batches a custom_jvp/custom_vjp function by re-running it), not as the
  body of a batched call."""
  n_out = len(closed.out_avals)
  instantiate = ((out_dims_instantiate,) * n_out if isinstance(out_dims_instantiate, bool)
                 else tuple(bool(b) for b in out_dims_instantiate))
  in_dims = tuple(in_dims)
  # As JAX, a jaxpr batched inside the batching of another and one batched at the top of a
  # vmap are batched (and printed) separately.
  key = (axis_size, in_dims, instantiate, axis_name, config.trace_state, _nesting[0] > 0,
         same_level)
  try:
    per_jaxpr = _batched_jaxprs.setdefault(closed, {})
  except TypeError:
    return _batch_jaxpr(closed, axis_size, in_dims, instantiate, axis_name, same_level)
  if key not in per_jaxpr:
    per_jaxpr[key] = _batch_jaxpr(closed, axis_size, in_dims, instantiate, axis_name, same_level)
  batched, out_dims = per_jaxpr[key]
  return batched, list(out_dims)


def _batch_jaxpr(closed, axis_size, in_dims, instantiate, axis_name, same_level=False):
  avals = [_batched_aval(a, d, axis_size) for a, d in zip(closed.in_avals, in_dims)]
  out_dims: list = []

  def batched_fun(*args):
    trace = BatchTrace(core.current_trace(), AxisData(axis_name, axis_size))
    tracers = [trace.pack(a, d) for a, d in zip(args, in_dims)]
    with core.set_current_trace(trace):
      outs = ir.eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
    results = []
    for out, inst in zip(outs, instantiate):
      value, dim = trace.to_batched(out)
      if inst:
        value, dim = bdim_at_front(value, dim, axis_size), 0
      results.append(value)
      out_dims.append(dim)
    return results

  step = 0 if same_level else 1
  _nesting[0] += step
  try:
    batched, _ = staging.trace_to_jaxpr(batched_fun, avals)
  finally:
    _nesting[0] -= step
  return batched, out_dims


_nesting = [0]  # how many batch_jaxpr traces are running
