"""Windowed reductions: reduce_window_sum/_max/_min and the generic reduce_window.

``reduce_window`` (XLA's ReduceWindow) reduces every window of the operand after it has been
dilated by ``base_dilation`` (holes filled with the init value) and padded by ``padding`` (also with
the init value; negative padding crops). Windows are ``window_dimensions`` taps spaced by
``window_dilation`` and placed every ``window_strides`` elements. Taps that land on padding or holes
are skipped (the same as combining with the init value when it is the identity). ``lax.reduce_window`` binds
reduce_window_sum / _max / _min when the computation is ``lax.add`` / ``lax.max`` / ``lax.min``
with the identity as init value, and the generic ``reduce_window`` primitive otherwise.
"""
from __future__ import annotations

import itertools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import differentiation
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src import vmap
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import reductions
from axle._src.lax import structural
from axle._src.lax import utils
from axle._src.lax.convolution import _lhs_transpose_padding, padtype_to_pads

__all__ = ["reduce_window"]

_narrow_floats = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


# ---------------------------------------------------------------------------
# reduce_window: shapes


def _dilated(size: int, dilation: int) -> int:
  return 0 if size == 0 else (size - 1) * dilation + 1


def window_output_shape(shape, window_dimensions, window_strides, padding, base_dilation,
                        window_dilation) -> tuple[int, ...]:
  """The shape a windowed reduction produces (after dilation and padding)."""
  out = []
  for n, w, s, (lo, hi), b, wd in zip(shape, window_dimensions, window_strides, padding,
                                      base_dilation, window_dilation):
    padded = _dilated(n, b) + lo + hi
    span = _dilated(w, wd)
    out.append(0 if padded < span else (padded - span) // s + 1)
  return tuple(out)


def _check_window_params(operand: ShapedArray, window_dimensions, window_strides, padding,
                         base_dilation, window_dilation) -> None:
  ndim = operand.ndim
  if len(window_dimensions) != ndim:
    raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: got "
                    f"operand shape {operand.shape} with window_dimensions {window_dimensions}.")
  if len(window_strides) != len(window_dimensions):
    raise TypeError(f"reduce_window got inconsistent window_strides and window_dimensions: got "
                    f"window_strides {window_strides} and window_dimensions {window_dimensions}.")
  if len(padding) != ndim:
    raise ValueError(f"reduce_window got {len(padding)} padding pairs for an operand of rank "
                     f"{ndim}: padding {padding}")
  if len(base_dilation) != ndim or len(window_dilation) != ndim:
    raise ValueError(f"reduce_window got base_dilation {base_dilation} and window_dilation "
                     f"{window_dilation} for an operand of rank {ndim}")
  if any(w <= 0 for w in window_dimensions):
    raise TypeError(f"reduce_window window_dimensions must have every element be strictly "
                    f"positive, got {window_dimensions}.")
  if any(s <= 0 for s in window_strides):
    raise TypeError(f"reduce_window window_strides must have every element be strictly "
                    f"positive, got {window_strides}.")
  for dilation in (base_dilation, window_dilation):
    if any(d <= 0 for d in dilation):
      raise TypeError(f"All dilations must be positive, got {dilation}.")


def _specific_window_rule(name: str, number_only: bool):
  def rule(operand: ShapedArray, *, window_dimensions, window_strides, padding, base_dilation,
           window_dilation) -> ShapedArray:
    if number_only and not utils.dtype_in(operand.dtype, utils._num):
      raise TypeError(f"operand to {name} must have a number dtype, got {operand.dtype.name}")
    _check_window_params(operand, window_dimensions, window_strides, padding, base_dilation,
                         window_dilation)
    shape = window_output_shape(operand.shape, window_dimensions, window_strides, padding,
                                base_dilation, window_dilation)
    return ShapedArray(shape, operand.dtype, operand.weak_type)
  return rule


# ---------------------------------------------------------------------------
# reduce_window: kernels


def _dilate_and_pad(x: np.ndarray, init, base_dilation, padding) -> np.ndarray:
  """The operand with base-dilation holes and padding filled with ``init`` (negative pads crop)."""
  full_shape, placement, crop = [], [], []
  for n, b, (lo, hi) in zip(x.shape, base_dilation, padding):
    dilated = _dilated(n, b)
    front, back = max(lo, 0), max(hi, 0)
    size = front + dilated + back
    full_shape.append(size)
    placement.append(slice(front, front + dilated, b))
    crop.append(slice(max(-lo, 0), size - max(-hi, 0)))
  out = np.full(full_shape, init, dtype=x.dtype)
  out[tuple(placement)] = x
  return out[tuple(crop)]


def _window_taps(padded: np.ndarray, out_shape, window_dimensions, window_strides,
                 window_dilation):
  """Yields, for every window offset, the strided view of the elements at that tap."""
  for tap in itertools.product(*[range(w) for w in window_dimensions]):
    index = tuple(slice(t * wd, t * wd + (o - 1) * s + 1 if o else t * wd, s)
                  for t, wd, o, s in zip(tap, window_dilation, out_shape, window_strides))
    yield padded[index]


def _make_window_impl(primitive: core.Primitive, kind: str):
  def impl(operand, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    x = np.asarray(operand)
    dtype = x.dtype
    if kind != "sum" and dtype.kind == "c" and np.isnan(x).any():
      return eval_interpreter.run_on_xla(primitive, [x], dict(
          window_dimensions=window_dimensions, window_strides=window_strides, padding=padding,
          base_dilation=base_dilation, window_dilation=window_dilation))
    out_shape = window_output_shape(x.shape, window_dimensions, window_strides, padding,
                                    base_dilation, window_dilation)
    work = x.astype(np.float32) if dtype in _narrow_floats else x
    if kind == "sum":
      init, combine = np.zeros((), work.dtype), np.add
    elif kind == "max":
      init = reductions._lowest(work.dtype) if work.dtype.kind != "c" else complex(-np.inf, 0)
      combine = np.maximum
    else:
      init = reductions._highest(work.dtype) if work.dtype.kind != "c" else complex(np.inf, 0)
      combine = np.minimum
    acc = np.full(out_shape, init, dtype=work.dtype)
    if acc.size == 0:
      return acc.astype(dtype)
    padded = _dilate_and_pad(work, init, base_dilation, padding)
    with np.errstate(all="ignore"):
      for view in _window_taps(padded, out_shape, window_dimensions, window_strides,
                               window_dilation):
        combine(acc, view, out=acc)
    return acc.astype(dtype, copy=False)
  return impl


def _window_attributes(window_dimensions, window_strides, padding, base_dilation,
                       window_dilation) -> dict:
  return {"window_dimensions": mlir.dense_array(window_dimensions),
          "window_strides": mlir.dense_array(window_strides),
          "base_dilations": mlir.dense_array(base_dilation),
          "window_dilations": mlir.dense_array(window_dilation),
          "padding": reductions.padding_attribute(padding)}


def _make_window_lowering(kind: str):
  def rule(ctx, operand, **params):
    dtype = operand.aval.dtype
    init = reductions.identity_constant(ctx, kind, dtype)
    init = mlir.broadcast_in_dim(ctx, init, init.aval, ())  # JAX's full_like_aval: a rank-0 broadcast
    region = mlir.region(ctx, [mlir.scalar_aval(dtype)] * 2,
                         reductions.monoid_body(kind, dtype))
    out, = mlir.op(ctx, "stablehlo.reduce_window", [operand, init], [ctx.avals_out[0]],
                   _window_attributes(**params), regions=[region])
    return out
  rule.__name__ = f"_reduce_window_{kind}_lowering"
  return rule


def _window_primitive(name: str, kind: str, number_only: bool) -> core.Primitive:
  primitive = core.Primitive(name)
  primitive.def_abstract_eval(_specific_window_rule(name, number_only))
  primitive.def_impl(_make_window_impl(primitive, kind))
  mlir.register(primitive, _make_window_lowering(kind))
  return primitive


reduce_window_sum_p = _window_primitive("reduce_window_sum", "sum", True)
reduce_window_max_p = _window_primitive("reduce_window_max", "max", False)
reduce_window_min_p = _window_primitive("reduce_window_min", "min", False)

_WINDOW_PRIMITIVES = {"sum": reduce_window_sum_p, "max": reduce_window_max_p,
                      "min": reduce_window_min_p}


# ---------------------------------------------------------------------------
# reduce_window_sum/_max/_min: differentiation and batching


def window_taps(x, fill, *, window_dimensions, window_strides, padding, base_dilation,
                window_dilation) -> list:
  """For every window offset, the (strided) slice of ``x`` holding the element at that offset
  of every window, as lax operations: ``x`` is dilated and padded with ``fill`` first."""
  shape = core.get_aval(x).shape
  out_shape = window_output_shape(shape, window_dimensions, window_strides, padding,
                                  base_dilation, window_dilation)
  config = [(int(lo), int(hi), int(b) - 1) for (lo, hi), b in zip(padding, base_dilation)]
  if any(c != (0, 0, 0) for c in config):
    x = structural.pad(x, fill, config)
  taps = []
  for tap in itertools.product(*[range(w) for w in window_dimensions]):
    start = [t * wd for t, wd in zip(tap, window_dilation)]
    limit = [st + (o - 1) * s + 1 if o else st
             for st, o, s in zip(start, out_shape, window_strides)]
    taps.append(structural.slice(x, start, limit, window_strides))
  return taps


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
  """Every input element receives the sum of the cotangents of the windows holding it: the
  cotangent, dilated by the strides and padded, summed over windows placed every
  ``base_dilation`` elements."""
  in_shape = operand.aval.shape
  ct_shape = core.get_aval(ct).shape
  pads = _lhs_transpose_padding(in_shape, window_dimensions, window_strides, ct_shape,
                                padding, base_dilation, window_dilation)
  # (NumPy integers for the edges, as JAX computes them and prints them.)
  config = [(np.int64(lo), np.int64(hi), int(s) - 1) for (lo, hi), s in zip(pads, window_strides)]
  padded = structural.pad_p.bind(ct, np.zeros((), core.get_aval(ct).dtype),
                                 padding_config=tuple(config))
  ones = (1,) * len(in_shape)
  result = reduce_window_sum_p.bind(padded, window_dimensions=tuple(window_dimensions),
                                    window_strides=tuple(base_dilation),
                                    padding=((0, 0),) * len(in_shape), base_dilation=ones,
                                    window_dilation=tuple(window_dilation))
  assert core.get_aval(result).shape == in_shape, (core.get_aval(result).shape, in_shape)
  return [result]


ad.deflinear2(reduce_window_sum_p, _reduce_window_sum_transpose)


# select_and_gather_add / select_and_scatter_add: the derivatives of reduce_window_max/min.
# select_and_gather_add(tangents, operand) gives, for every window, the tangent at the element
# the window selects (compared with ``select_prim``: ge for max, le for min; the first one wins
# on ties); select_and_scatter_add(source, operand), its transpose, adds each window's source
# value to the operand position that window selects.


def _select_direction(select_prim) -> str:
  if select_prim is elementwise.ge_p:
    return "GE"
  if select_prim is elementwise.le_p:
    return "LE"
  raise ValueError(f"select_prim must be lax.ge_p or lax.le_p, got {select_prim}")


def _select_and_gather_add_rule(tangents: ShapedArray, operand: ShapedArray, *, select_prim,
                                window_dimensions, window_strides, padding, base_dilation,
                                window_dilation) -> ShapedArray:
  if tangents.shape != operand.shape:
    raise TypeError(f"select_and_gather_add tangents and operand shapes must match, got "
                    f"{tangents.shape} and {operand.shape}.")
  _check_window_params(operand, window_dimensions, window_strides, padding, base_dilation,
                       window_dilation)
  shape = window_output_shape(operand.shape, window_dimensions, window_strides, padding,
                              base_dilation, window_dilation)
  return ShapedArray(shape, tangents.dtype)


def _select_and_gather_add_lowering(ctx, tangents, operand, *, select_prim, window_dimensions,
                                    window_strides, padding, base_dilation, window_dilation):
  """A reduce_window over (operand, tangents) pairs keeping the selected pair."""
  direction = _select_direction(select_prim)
  op_dtype, t_dtype = operand.aval.dtype, tangents.aval.dtype
  inits = [reductions.identity_constant(ctx, "max" if direction == "GE" else "min", op_dtype),
           mlir.constant(ctx, np.zeros((), t_dtype))]

  def body(ctx, acc_op, acc_t, x_op, x_t):
    keep = mlir.compare(ctx, acc_op, x_op, direction)
    return [mlir.op(ctx, "stablehlo.select", [keep, acc_op, x_op], acc_op.aval),
            mlir.op(ctx, "stablehlo.select", [keep, acc_t, x_t], acc_t.aval)]

  scalars = [mlir.scalar_aval(op_dtype), mlir.scalar_aval(t_dtype)]
  region = mlir.region(ctx, scalars * 2, body)
  out_shape = ctx.avals_out[0].shape
  _, gathered = mlir.op(
      ctx, "stablehlo.reduce_window", [operand, tangents] + inits,
      [ShapedArray(out_shape, op_dtype), ctx.avals_out[0]],
      _window_attributes(window_dimensions, window_strides, padding, base_dilation,
                         window_dilation), regions=[region])
  return gathered


select_and_gather_add_p = core.Primitive("select_and_gather_add")
select_and_gather_add_p.def_abstract_eval(_select_and_gather_add_rule)
mlir.register(select_and_gather_add_p, _select_and_gather_add_lowering)


def _linear_in_source_jvp(primitive):
  """The JVP of select_and_gather_add / select_and_scatter_add: linear in their first operand
  (the values moved), constant in the second (the operand whose windows choose)."""
  def rule(primals, tangents, **params):
    source, operand = primals
    out = primitive.bind(source, operand, **params)
    return out, primitive.bind(ad.instantiate_zeros(tangents[0]), operand, **params)
  return rule


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim, window_dimensions,
                                     window_strides, padding, base_dilation, window_dilation):
  if ad.is_undefined_primal(operand):
    raise RuntimeError("select_and_gather_add is not linear in its operand")
  if any(d != 1 for d in window_dilation):
    raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with window "
                              f"dilation, got window_dilation={window_dilation}.")
  if any(d != 1 for d in base_dilation):
    raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with base "
                              f"dilation, got base_dilation={base_dilation}.")
  ct = ad.instantiate_zeros(ct)
  result = select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                         window_dimensions=window_dimensions,
                                         window_strides=window_strides, padding=padding)
  return [result, None]


ad.primitive_jvps[select_and_gather_add_p] = _linear_in_source_jvp(select_and_gather_add_p)
ad.primitive_transposes[select_and_gather_add_p] = _select_and_gather_add_transpose


def _select_and_scatter_add_rule(source: ShapedArray, operand: ShapedArray, *, select_prim,
                                 window_dimensions, window_strides, padding) -> ShapedArray:
  ones = (1,) * operand.ndim
  expected = window_output_shape(operand.shape, window_dimensions, window_strides, padding,
                                 ones, ones)
  if source.shape != expected:
    raise TypeError(f"select_and_scatter_add source shape {source.shape} does not match the "
                    f"windows of the operand {expected}.")
  return ShapedArray(operand.shape, source.dtype)


def _select_and_scatter_add_lowering(ctx, source, operand, *, select_prim, window_dimensions,
                                     window_strides, padding):
  direction = _select_direction(select_prim)
  op_dtype, s_dtype = operand.aval.dtype, source.aval.dtype
  select = mlir.region(ctx, [mlir.scalar_aval(op_dtype)] * 2,
                       lambda ctx, a, b: mlir.compare(ctx, a, b, direction))
  scatter = mlir.region(ctx, [mlir.scalar_aval(s_dtype)] * 2,
                        lambda ctx, a, b: mlir.op(ctx, "stablehlo.add", [a, b], a.aval))
  init = mlir.constant(ctx, np.zeros((), s_dtype))
  return mlir.op(ctx, "stablehlo.select_and_scatter", [operand, source, init], ctx.avals_out[0],
                 {"window_dimensions": mlir.dense_array(window_dimensions),
                  "window_strides": mlir.dense_array(window_strides),
                  "padding": reductions.padding_attribute(padding)},
                 regions=[select, scatter])


select_and_scatter_add_p = core.Primitive("select_and_scatter_add")
select_and_scatter_add_p.def_abstract_eval(_select_and_scatter_add_rule)
mlir.register(select_and_scatter_add_p, _select_and_scatter_add_lowering)


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim, window_dimensions,
                                      window_strides, padding):
  if ad.is_undefined_primal(operand):
    raise RuntimeError("select_and_scatter_add is not linear in its operand")
  ones = (1,) * len(window_dimensions)
  result = select_and_gather_add_p.bind(
      ad.instantiate_zeros(ct), operand, select_prim=select_prim,
      window_dimensions=window_dimensions, window_strides=window_strides, padding=padding,
      base_dilation=ones, window_dilation=ones)
  return [result, None]


ad.primitive_jvps[select_and_scatter_add_p] = _linear_in_source_jvp(select_and_scatter_add_p)
ad.primitive_transposes[select_and_scatter_add_p] = _select_and_scatter_add_transpose


def _reduce_window_chooser_jvp(is_max: bool):
  """The tangent of the element each window selects, gathered by select_and_gather_add (whose
  transpose, select_and_scatter_add, is the VJP), as in JAX."""
  primitive = reduce_window_max_p if is_max else reduce_window_min_p
  select_prim = elementwise.ge_p if is_max else elementwise.le_p

  def rule(primals, tangents, **params):
    (operand,), (tangent,) = primals, tangents
    out = primitive.bind(operand, **params)
    return out, select_and_gather_add_p.bind(ad.instantiate_zeros(tangent), operand,
                                             select_prim=select_prim, **params)
  return rule


ad.primitive_jvps[reduce_window_max_p] = _reduce_window_chooser_jvp(True)
ad.primitive_jvps[reduce_window_min_p] = _reduce_window_chooser_jvp(False)


def _unit_window_at(params: dict, bdim: int) -> dict:
  """Window params with a size-1, unpadded, undilated window dimension inserted at ``bdim``."""
  ins = lambda seq, v: tuple(seq[:bdim]) + (v,) + tuple(seq[bdim:])
  return dict(params, window_dimensions=ins(params["window_dimensions"], 1),
              window_strides=ins(params["window_strides"], 1),
              padding=ins(params["padding"], (0, 0)),
              base_dilation=ins(params["base_dilation"], 1),
              window_dilation=ins(params["window_dilation"], 1))


def _window_batcher(primitive: core.Primitive):
  def rule(values, dims, **params):
    (x,), (bdim,) = values, dims
    return primitive.bind(x, **_unit_window_at(params, bdim)), bdim
  return rule


for _p in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
  batching.primitive_batchers[_p] = _window_batcher(_p)


def _select_window_batcher(primitive: core.Primitive):
  """Both operands batched along one axis, which becomes a size-1 window dimension."""
  def rule(values, dims, **params):
    size = next(core.get_aval(v).shape[d] for v, d in zip(values, dims) if d is not None)
    first, second = (batching.bdim_at_front(v, d, size) for v, d in zip(values, dims))
    if "base_dilation" in params:
      params = _unit_window_at(params, 0)
    else:
      ins = lambda seq, v: (v,) + tuple(seq)
      params = dict(params, window_dimensions=ins(params["window_dimensions"], 1),
                    window_strides=ins(params["window_strides"], 1),
                    padding=ins(params["padding"], (0, 0)))
    return primitive.bind(first, second, **params), 0
  return rule


for _p in (select_and_gather_add_p, select_and_scatter_add_p):
  batching.primitive_batchers[_p] = _select_window_batcher(_p)


# The generic reduce_window: operands then init values; the computation as a jaxpr.


def _generic_window_rule(*avals: ShapedArray, jaxpr, consts, window_dimensions, window_strides,
                         padding, base_dilation, window_dilation) -> list[ShapedArray]:
  operands, _ = reductions.split_operands_and_inits("reduce_window", avals)
  _check_window_params(operands[0], window_dimensions, window_strides, padding, base_dilation,
                       window_dilation)
  shape = window_output_shape(operands[0].shape, window_dimensions, window_strides, padding,
                              base_dilation, window_dilation)
  return [ShapedArray(shape, a.dtype) for a in operands]


def _generic_window_impl(*values, jaxpr, consts, window_dimensions, window_strides, padding,
                         base_dilation, window_dilation):
  n = len(values) // 2
  operands = [np.asarray(v) for v in values[:n]]
  inits = [np.asarray(v) for v in values[n:]]
  out_shape = window_output_shape(operands[0].shape, window_dimensions, window_strides, padding,
                                  base_dilation, window_dilation)
  accs = [np.full(out_shape, init, dtype=op.dtype) for op, init in zip(operands, inits)]
  if not accs[0].size:
    return accs
  # XLA skips window taps that land on padding or base-dilation holes (they do not enter the
  # computation at all), which only matters when the init value is not the identity.
  padded = [_dilate_and_pad(op, init, base_dilation, padding) for op, init in zip(operands, inits)]
  valid = _dilate_and_pad(np.ones(operands[0].shape, bool), False, base_dilation, padding)
  taps = [list(_window_taps(p, out_shape, window_dimensions, window_strides, window_dilation))
          for p in [valid] + padded]
  for mask, *views in zip(*taps):
    if not mask.any():
      continue
    new = reductions.run_scalar_jaxpr(jaxpr, consts, accs + list(views))
    accs = [np.where(mask, n, a) for n, a in zip(new, accs)]
  return [np.asarray(a, dtype=op.dtype).reshape(out_shape) for a, op in zip(accs, operands)]


def _generic_window_lowering(ctx, *values, jaxpr, consts, **params):
  n = len(values) // 2
  region = reductions.computation_region(ctx, jaxpr, consts, [v.aval.dtype for v in values[:n]])
  return mlir.op(ctx, "stablehlo.reduce_window", list(values), list(ctx.avals_out),
                 _window_attributes(**params), regions=[region])


reduce_window_p = core.Primitive("reduce_window")
reduce_window_p.multiple_results = True
reduce_window_p.def_abstract_eval(_generic_window_rule)
reduce_window_p.def_impl(_generic_window_impl)
mlir.register(reduce_window_p, _generic_window_lowering)


def elementwise_computation(jaxpr, consts) -> Callable:
  """A scalar computation's jaxpr applied elementwise to equally shaped arrays (by vmap over the
  flattened elements), so it can be traced and differentiated."""

  def apply(*arrays):
    shape = core.get_aval(arrays[0]).shape
    size = int(np.prod(shape, dtype=np.int64))
    flat = [structural.reshape(a, (size,)) for a in arrays]
    outs = vmap.vmap(lambda *xs: ir.eval_jaxpr(jaxpr, consts, *xs))(*flat)
    return [structural.reshape(o, shape) for o in outs]
  return apply


def _generic_window_jvp(primals, tangents, *, jaxpr, consts, **params):
  """JAX's JVP: one reduce_window over (primal, tangent) pairs whose computation is the JVP of
  the original one (so the primal results come out of the same op as the tangents, and
  reverse mode cannot separate them, as in JAX)."""
  n = len(primals) // 2
  # only inexact operands have tangents (an integer operand of a multi-operand window
  # reduction is carried along as a primal)
  inexact = [dtypes.issubdtype(core.get_aval(p).dtype, np.inexact) for p in primals[:n]]
  m = sum(inexact)
  closed = ir.ClosedJaxpr(jaxpr, list(consts))
  jvp_closed, _ = ad.jvp_jaxpr(closed, inexact * 2, instantiate=inexact)
  # (acc, x, acc_t, x_t) -> (acc, acc_t, x, x_t): the operands are the primals then tangents
  order = [*range(n), *range(2 * n, 2 * n + m), *range(n, 2 * n),
           *range(2 * n + m, 2 * n + 2 * m)]
  pair_jaxpr = jvp_closed.jaxpr.replace(invars=[jvp_closed.jaxpr.invars[i] for i in order])
  tangents = [ad.instantiate_zeros(t) for t, f in zip(tangents, inexact * 2) if f]
  outs = reduce_window_p.bind(*primals[:n], *tangents[:m], *primals[n:], *tangents[m:],
                              jaxpr=pair_jaxpr, consts=tuple(jvp_closed.consts), **params)
  out_tangents = iter(outs[n:])
  return outs[:n], [next(out_tangents) if f else ad.Zero(ad.tangent_aval(core.get_aval(o)))
                    for f, o in zip(inexact, outs[:n])]


ad.primitive_jvps[reduce_window_p] = _generic_window_jvp


def _generic_window_batcher(values, dims, **params):
  n = len(values) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("vmap of lax.reduce_window over batched init values is not "
                              "implemented; the init values must be the same for every example.")
  size = next(core.get_aval(v).shape[d] for v, d in zip(values, dims) if d is not None)
  operands = [batching.bdim_at_front(v, d, size) for v, d in zip(values[:n], dims[:n])]
  outs = reduce_window_p.bind(*operands, *values[n:], **_unit_window_at(params, 0))
  return outs, [0] * n


batching.primitive_batchers[reduce_window_p] = _generic_window_batcher


def _int_tuple(values, what: str) -> tuple[int, ...]:
  try:
    return tuple(operator.index(v) for v in values)
  except TypeError:
    raise TypeError(f"reduce_window {what} must be a sequence of integers, got {values!r}") from None


def _padding_pairs(padding, shape, window_dimensions, window_strides, base_dilation):
  if isinstance(padding, str):
    dilated_shape = tuple(_dilated(n, b) for n, b in zip(shape, base_dilation))
    return tuple((int(lo), int(hi)) for lo, hi in padtype_to_pads(
        dilated_shape, window_dimensions, window_strides, padding))
  pairs = tuple(tuple(p) for p in padding)
  if len(pairs) != len(shape) or any(len(p) != 2 for p in pairs):
    raise ValueError(f"reduce_window padding must be a string or a sequence of (low, high) pairs, "
                     f"one per operand dimension ({len(shape)}); got {padding!r}")
  return tuple((operator.index(lo), operator.index(hi)) for lo, hi in pairs)


def reduce_window(operand, init_value, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding: Any = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None):
  """Reduces every window of ``operand`` with ``computation`` (``lax.reduce_window``).

  ``padding`` is ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or a sequence of (low, high) pairs; padded
  elements and base-dilation holes take ``init_value``. ``operand``/``init_value`` may be matching
  pytrees. ``lax.add``/``lax.max``/``lax.min`` with their identity as init value bind
  reduce_window_sum/_max/_min; other computations bind the generic ``reduce_window``.
  """
  flat_operands, operand_tree = tree_util.tree_flatten(operand)
  flat_inits, init_tree = tree_util.tree_flatten(init_value)
  if operand_tree != init_tree:
    raise ValueError(f"Operands must have the same tree structure as init_values: "
                     f"{operand_tree} vs. {init_tree}")
  if not flat_operands:
    raise ValueError("reduce_window requires at least one operand")
  shape = core.get_aval(flat_operands[0]).shape
  window_dimensions = _int_tuple(window_dimensions, "window_dimensions")
  rank = len(window_dimensions)
  window_strides = (1,) * rank if window_strides is None else _int_tuple(window_strides,
                                                                          "window_strides")
  base_dilation = (1,) * rank if base_dilation is None else _int_tuple(base_dilation,
                                                                       "base_dilation")
  window_dilation = (1,) * rank if window_dilation is None else _int_tuple(window_dilation,
                                                                           "window_dilation")
  if len(window_dimensions) != len(shape):
    raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: got "
                    f"operand shape {shape} with window_dimensions {window_dimensions}.")
  if len(window_strides) != rank:
    raise TypeError(f"reduce_window got inconsistent window_strides and window_dimensions: got "
                    f"window_strides {window_strides} and window_dimensions {window_dimensions}.")
  padding = _padding_pairs(padding, shape, window_dimensions, window_strides, base_dilation)
  params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)
  if len(flat_operands) == 1:
    name = reductions.monoid_reducer(computation, flat_inits[0], core.get_aval(flat_operands[0]),
                                     window=True)
    if name is not None:
      return _WINDOW_PRIMITIVES[name].bind(flat_operands[0], **params)
  operand_dtypes = [core.get_aval(x).dtype for x in flat_operands]
  flat_inits = [reductions._convert_init(i, d) for i, d in zip(flat_inits, operand_dtypes)]
  closed, _ = reductions.trace_scalar_computation(computation, operand_tree, operand_dtypes)
  outs = reduce_window_p.bind(*flat_operands, *flat_inits, jaxpr=closed.jaxpr,
                              consts=tuple(closed.consts), **params)
  return tree_util.tree_unflatten(operand_tree, outs)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

eval_interpreter.exact_kernels(reduce_window_max_p, reduce_window_min_p,
                               when=eval_interpreter.no_complex, subnormals=True)
eval_interpreter.exact_kernels(reduce_window_sum_p, when=eval_interpreter.integral)
