"""Loops: the ``while`` and ``scan`` primitives and ``while_loop``, ``fori_loop``, ``scan``,
``map``, ``associative_scan``.

``while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts] *cond_consts *body_consts *carry``
repeats ``carry = body(*body_consts, *carry)`` while ``cond(*cond_consts, *carry)``.

``scan[jaxpr length reverse linear unroll num_consts num_carry _split_transpose]
*consts *init *xs`` runs ``carry, y = jaxpr(*consts, *carry, *x)`` for each of the ``length``
leading slices ``x`` of ``xs`` (last to first with ``reverse``) and returns the final carry
and the stacked ``y``s.

Both lower to ``stablehlo.while``. Eagerly they run as Python loops over the body's jaxpr
(NumPy kernels, no compilation); a loop still running after ``EAGER_PYTHON_STEPS``
iterations hands its state to a compiled XLA loop, so long loops cost one compilation
instead of many Python-level steps.
"""
from __future__ import annotations

import builtins
import operator
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import tree_util
from axle._src import vmap
from axle._src.config import config
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.ir import ClosedJaxpr
from axle._src.lax import control_flow_common
from axle._src.lax import elementwise
from axle._src.lax import elementwise_convert
from axle._src.lax import reductions
from axle._src.lax import structural

__all__ = ["while_loop", "fori_loop", "scan", "map", "associative_scan", "while_p", "scan_p"]

_map = builtins.map

# Iterations an eagerly evaluated loop runs in Python before finishing on a compiled loop.
EAGER_PYTHON_STEPS = 200


# ---------------------------------------------------------------------------
# Helpers shared by the rules of while and scan


def _run_compiled(primitive, values, avals, params) -> list:
  """Runs one equation of ``primitive`` as a cached XLA executable on NumPy values."""
  return list(eval_interpreter.fallback_impl(primitive, values, avals, params))


def _pp_loop_eqn(name: str, hidden: tuple = ()):
  """Prints ``outs = name[params] operands`` (no ``outs =`` when there are no outputs)."""
  def rule(eqn: ir.Eqn, names):
    shown = {k: v for k, v in eqn.params.items() if k not in hidden}
    lhs = [ir._pp_binders(eqn.outvars, names), ir.pp.text(" = ")] if eqn.outvars else []
    return ir.pp.concat(lhs + [ir.pp.text(name), ir.pp_params(shown, names),
                               ir.pp_operands(eqn.invars, names)])
  return rule


def _trace_closed(fun: Callable, in_avals) -> ClosedJaxpr:
  """``fun`` (flat values in, list out) traced to a jaxpr with no constants (hoisted
  constants are returned as ``(closed, consts)``)."""
  closed, _ = staging.trace_to_jaxpr(lambda *xs: list(fun(*xs)), list(in_avals))
  return control_flow_common.hoist_consts(closed)


def _permute_invars(closed: ClosedJaxpr, order) -> ClosedJaxpr:
  jaxpr = closed.jaxpr
  return ClosedJaxpr(jaxpr.replace(invars=[jaxpr.invars[i] for i in order]), closed.consts)


def _permute_outvars(closed: ClosedJaxpr, order) -> ClosedJaxpr:
  jaxpr = closed.jaxpr
  return ClosedJaxpr(jaxpr.replace(outvars=[jaxpr.outvars[i] for i in order]), closed.consts)


def _nonzero(t) -> bool:
  return type(t) is not ad.Zero


def _differentiable(aval) -> bool:
  return ad.tangent_aval(aval).dtype != ad.float0


def _tangent_or_zeros(t, aval):
  return ad.instantiate_zeros(ad.Zero(ad.tangent_aval(aval)) if t is None else t)


def _dims(batched):
  return [0 if b else None for b in batched]


def _batched_outputs(closed: ClosedJaxpr, size: int, batched) -> list[bool]:
  """Which outputs of ``closed`` are batched when the inputs flagged in ``batched`` are."""
  _, out_dims = batching.batch_jaxpr(closed, size, _dims(batched), False)
  return [d is not None for d in out_dims]


def _carry_fixed_point(flags, step):
  """The carry flags (nonzero tangent, unknown, batched) that a loop body maps to themselves:
  ``flags`` or-ed with ``step(flags)`` (the body's flags for its outputs, carries first) until
  nothing changes. Returns them with the last ``step`` result."""
  while True:
    out = step(flags)
    new = [a or b for a, b in zip(flags, out)]
    if new == flags:
      return flags, out
    flags = new


# ---------------------------------------------------------------------------
# The while primitive


while_p = core.Primitive("while")


while_p.multiple_results = True


def _while_abstract_eval(*avals, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                         cond_nconsts: int, body_nconsts: int):
  cond_consts, body_consts, carry = control_flow_common.split(avals, [cond_nconsts, body_nconsts])
  if not all(_map(control_flow_common.typematch, cond_jaxpr.in_avals, cond_consts + carry)):
    raise TypeError("while: cond_jaxpr takes "
                    f"{[a.str_short() for a in cond_jaxpr.in_avals]}, got "
                    f"{[a.str_short() for a in cond_consts + carry]}")
  if not all(_map(control_flow_common.typematch, body_jaxpr.in_avals, body_consts + carry)):
    raise TypeError("while: body_jaxpr takes "
                    f"{[a.str_short() for a in body_jaxpr.in_avals]}, got "
                    f"{[a.str_short() for a in body_consts + carry]}")
  return list(body_jaxpr.out_avals)


def _while_impl(*values, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cond_consts, body_consts, carry = control_flow_common.split(values, [cond_nconsts, body_nconsts])
  cond_avals = cond_jaxpr.in_avals
  body_avals = body_jaxpr.in_avals
  cond_consts = [control_flow_common.as_array(v, a) for v, a in zip(cond_consts, cond_avals)]
  body_consts = [control_flow_common.as_array(v, a) for v, a in zip(body_consts, body_avals)]
  carry_avals = body_avals[body_nconsts:]
  carry = [control_flow_common.as_array(v, a) for v, a in zip(carry, carry_avals)]
  for _ in range(EAGER_PYTHON_STEPS):
    pred, = control_flow_common.eval_closed_eager(cond_jaxpr, [*cond_consts, *carry])
    pred = control_flow_common.host(pred)
    if not pred.any():
      return [control_flow_common.host(c) for c in carry]
    new = control_flow_common.eval_closed_eager(body_jaxpr, [*body_consts, *carry])
    if pred.ndim:  # a batched predicate (vmap): only the elements whose predicate holds advance
      new = [control_flow_common.as_array(np.where(
          pred.reshape(pred.shape + (1,) * (np.ndim(n) - pred.ndim)),
          control_flow_common.host(n), control_flow_common.host(c)), a)
             for n, c, a in zip(new, carry, carry_avals)]
    carry = new
  # Still looping: finish on a compiled while loop that starts from the current carry.
  params = dict(cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts,
                body_nconsts=body_nconsts)
  state = [*cond_consts, *body_consts, *carry]
  return _run_compiled(while_p, [control_flow_common.host(v) for v in state],
                       [*cond_avals[:cond_nconsts], *body_avals], params)


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  args = [mlir.materialize(ctx, a) for a in args]
  avals = [a.aval for a in args]

  pred_aval = cond_jaxpr.out_avals[0]

  def cond_region(region_ctx, *state):
    cond_consts, _, carry = control_flow_common.split(state, [cond_nconsts, body_nconsts])
    pred, = mlir.jaxpr_subcomp(region_ctx, cond_jaxpr.jaxpr, cond_jaxpr.consts,
                               cond_consts + carry)
    if pred_aval.shape:  # a batched predicate (vmap): loop while any element's holds
      any_pred = _reduce_or_all_jaxpr(pred_aval)
      pred, = mlir.jaxpr_subcomp(region_ctx, any_pred.jaxpr, any_pred.consts, [pred])
    return [mlir.materialize(region_ctx, pred)]

  def body_region(region_ctx, *state):
    cond_consts, body_consts, carry = control_flow_common.split(state, [cond_nconsts, body_nconsts])
    new_carry = mlir.jaxpr_subcomp(region_ctx, body_jaxpr.jaxpr, body_jaxpr.consts,
                                   body_consts + carry)
    if pred_aval.shape:  # only the elements whose predicate holds advance
      pred, = mlir.jaxpr_subcomp(region_ctx, cond_jaxpr.jaxpr, cond_jaxpr.consts,
                                 cond_consts + carry)
      new_carry = [_select_carry(region_ctx, pred, len(pred_aval.shape), n, c)
                   for n, c in zip(new_carry, carry)]
    return [*cond_consts, *body_consts, *new_carry]

  regions = [mlir.region(ctx, avals, cond_region), mlir.region(ctx, avals, body_region)]
  outs = mlir.op(ctx, "stablehlo.while", args, avals, regions=regions)
  return outs[cond_nconsts + body_nconsts:]


def _select_carry(ctx, pred, pred_rank: int, new, old):
  """``new`` where the batched predicate holds, else ``old`` (key arrays: their data)."""
  new, old = mlir.materialize(ctx, new), mlir.materialize(ctx, old)
  aval = new.aval
  new_data, old_data = mlir.physical_values([new, old])
  mask = mlir.broadcast_in_dim(ctx, pred, ShapedArray(new_data.aval.shape, np.bool_),
                               range(pred_rank))
  out = mlir.select(ctx, mask, new_data, old_data)
  return mlir.Value(out.name, aval, out.splat) if core.is_extended(aval) else out


_reduce_or_all_jaxprs: dict = {}


def _reduce_or_all_jaxpr(aval: ShapedArray) -> ClosedJaxpr:
  """``reduce_or`` over every axis of a value of ``aval``, as a jaxpr (for lowering)."""
  closed = _reduce_or_all_jaxprs.get(aval)
  if closed is None:
    with core.set_current_trace(core.eval_trace):
      closed, _ = staging.trace_to_jaxpr(
          lambda p: reductions.reduce_or(p, tuple(range(aval.ndim))), [aval])
    _reduce_or_all_jaxprs[aval] = closed
  return closed


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cond_consts, body_consts, carry = control_flow_common.split(primals, [cond_nconsts, body_nconsts])
  _, bconst_t, carry_t = control_flow_common.split(tangents, [cond_nconsts, body_nconsts])
  bconst_nz = [_nonzero(t) and _differentiable(core.get_aval(p)) for t, p in zip(bconst_t, body_consts)]
  carry_nz = [_nonzero(t) and _differentiable(core.get_aval(p)) for t, p in zip(carry_t, carry)]
  carry_nz, _ = _carry_fixed_point(
      carry_nz, lambda nz: ad.jvp_jaxpr(body_jaxpr, bconst_nz + nz, nz)[1])
  body_jvp, _ = ad.jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
  nb, nc = len(body_consts), len(carry)
  nbt, nct = sum(bconst_nz), sum(carry_nz)
  # jvp order (bconsts, carry, bconst_t, carry_t) -> while order (bconsts, bconst_t, carry, carry_t)
  order = [*range(nb), *range(nb + nc, nb + nc + nbt), *range(nb, nb + nc),
           *range(nb + nc + nbt, nb + nc + nbt + nct)]
  body_jvp = _permute_invars(body_jvp, order)
  cjaxpr = cond_jaxpr.jaxpr
  tangent_vars = [ir.Var(ad.tangent_aval(a)) for a, nz in zip(cond_jaxpr.in_avals[cond_nconsts:], carry_nz) if nz]
  cond_jvp = ClosedJaxpr(cjaxpr.replace(invars=cjaxpr.invars + tangent_vars), cond_jaxpr.consts)
  bconst_tangents = [t for t, nz in zip(bconst_t, bconst_nz) if nz]
  carry_tangents = [_tangent_or_zeros(None if type(t) is ad.Zero else t, core.get_aval(p))
                    for t, p, nz in zip(carry_t, carry, carry_nz) if nz]
  outs = while_p.bind(*cond_consts, *body_consts, *bconst_tangents, *carry, *carry_tangents,
                      cond_jaxpr=cond_jvp, body_jaxpr=body_jvp, cond_nconsts=cond_nconsts,
                      body_nconsts=nb + nbt)
  primal_out, tangent_out = outs[:nc], iter(outs[nc:])
  return primal_out, [next(tangent_out) if nz else ad.Zero(ad.tangent_aval(core.get_aval(p)))
                      for p, nz in zip(primal_out, carry_nz)]


def _while_partial_eval(trace, args, params):
  """Known carries (those the unknown ones never flow into) are computed by a while loop on
  the known values now; the unknown outputs come from the whole loop, staged."""
  cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
  cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
  unknowns = [trace.is_unknown(x) for x in args]
  cond_uk, body_uk, carry_uk = control_flow_common.split(unknowns, [cond_nconsts, body_nconsts])
  carry_uk, _ = _carry_fixed_point(
      carry_uk, lambda uk: ad.partial_eval_jaxpr(body_jaxpr, body_uk + uk, False)[2])
  _, _, pred_uk, _ = ad.partial_eval_jaxpr(cond_jaxpr, cond_uk + carry_uk, False)
  if pred_uk[0] or all(carry_uk):
    return trace.stage(while_p, args, params)
  cond_consts, body_consts, carry = control_flow_common.split(args, [cond_nconsts, body_nconsts])
  known = [not u for u in carry_uk]
  known_cond, kept_c = control_flow_common.dce_with_inputs(cond_jaxpr, [False] * cond_nconsts + known)
  known_body = control_flow_common.prune_outputs(body_jaxpr, known)
  known_body, kept_b = control_flow_common.dce_with_inputs(known_body, [False] * body_nconsts + known)
  kc = [x for x, k in zip(cond_consts, kept_c) if k]
  kb = [x for x, k in zip(body_consts, kept_b) if k]
  known_carry = [x for x, k in zip(carry, known) if k]
  with core.set_current_trace(trace.parent):
    known_outs = while_p.bind(*kc, *kb, *known_carry, cond_jaxpr=known_cond, body_jaxpr=known_body,
                              cond_nconsts=len(kc), body_nconsts=len(kb))
  staged = trace.stage(while_p, args, params)
  known_iter = iter(known_outs)
  return [s if u else next(known_iter) for s, u in zip(staged, carry_uk)]


def _while_transpose(cts, *args, **params):
  raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                   "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                   "fori_loop with static start/stop.")


def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  """As JAX's: constants keep their batch axes, batched carries are batched along axis 0. A
  batched predicate makes every carry batched and stays batched in the cond jaxpr (the loop
  runs while any element's holds and only those elements advance: see the lowering)."""
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  batched = [d is not None for d in dims]
  cond_b, body_b, init_b = control_flow_common.split(batched, [cond_nconsts, body_nconsts])
  cond_d, body_d, init_d = control_flow_common.split(list(dims), [cond_nconsts, body_nconsts])
  carry_b, _ = _carry_fixed_point(
      init_b, lambda b: [d is not None for d in batching.batch_jaxpr(
          body_jaxpr, size, body_d + _dims(b), b)[1]])
  _, (pred_dim,) = batching.batch_jaxpr(cond_jaxpr, size, cond_d + _dims(carry_b), False)
  if pred_dim is not None:
    carry_b = [True] * len(carry_b)
  carry_d = _dims(carry_b)
  body_batched, _ = batching.batch_jaxpr(body_jaxpr, size, body_d + carry_d, carry_b)
  cond_batched, _ = batching.batch_jaxpr(cond_jaxpr, size, cond_d + carry_d, pred_dim is not None)
  cond_consts, body_consts, init = control_flow_common.split(args, [cond_nconsts, body_nconsts])
  init = [batching.broadcast(x, size, 0) if b and d is None else
          batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(init, init_d, carry_b)]
  outs = while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr=cond_batched,
                      body_jaxpr=body_batched, cond_nconsts=cond_nconsts,
                      body_nconsts=body_nconsts)
  return outs, carry_d


while_p.def_abstract_eval(_while_abstract_eval)
while_p.def_impl(_while_impl)
mlir.register(while_p, _while_lowering)
ir.pp_eqn_rules[while_p] = _pp_loop_eqn("while")
ad.primitive_jvps[while_p] = _while_jvp
ad.partial_eval_rules[while_p] = _while_partial_eval
ad.primitive_transposes[while_p] = _while_transpose
batching.primitive_batchers[while_p] = _while_batch


# ---------------------------------------------------------------------------
# The scan primitive


scan_p = core.Primitive("scan")


scan_p.multiple_results = True


def _scan_abstract_eval(*avals, jaxpr: ClosedJaxpr, length: int, reverse: bool, linear,
                        unroll: int, num_consts: int, num_carry: int, _split_transpose: bool):
  consts, carry, xs = control_flow_common.split(avals, [num_consts, num_carry])
  x_avals = []
  for x in xs:
    if not x.shape or x.shape[0] != length:
      raise TypeError(f"scan: every scanned operand needs a leading axis of size {length}, got "
                      f"{x.str_short()}")
    x_avals.append(ShapedArray(x.shape[1:], x.dtype, x.weak_type))
  expected = jaxpr.in_avals
  if not all(_map(control_flow_common.typematch, expected, consts + carry + x_avals)):
    raise TypeError(f"scan: the body takes {[a.str_short() for a in expected]}, got "
                    f"{[a.str_short() for a in consts + carry + x_avals]}")
  out = jaxpr.out_avals
  ys = [ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in out[num_carry:]]
  return [*out[:num_carry], *ys]


def _scan_impl(*values, jaxpr, length, reverse, linear, unroll, num_consts, num_carry,
               _split_transpose):
  params = dict(jaxpr=jaxpr, length=length, reverse=reverse, linear=linear, unroll=unroll,
                num_consts=num_consts, num_carry=num_carry, _split_transpose=_split_transpose)
  in_avals = jaxpr.in_avals
  if length > EAGER_PYTHON_STEPS:
    values = [np.asarray(v) for v in values]
    return _run_compiled(scan_p, values, [ShapedArray(v.shape, v.dtype) for v in values], params)
  consts, carry, xs = control_flow_common.split(values, [num_consts, num_carry])
  consts = [control_flow_common.as_array(v, a) for v, a in zip(consts, in_avals)]
  carry = [control_flow_common.as_array(v, a) for v, a in zip(carry, in_avals[num_consts:])]
  x_avals = in_avals[num_consts + num_carry:]
  y_avals = jaxpr.out_avals[num_carry:]
  ys = [np.empty((length, *a.shape), a.dtype) for a in y_avals]
  for step in range(length):
    i = length - 1 - step if reverse else step
    x = [control_flow_common.as_array(np.asarray(v)[i], a) for v, a in zip(xs, x_avals)]
    outs = control_flow_common.eval_closed_eager(jaxpr, [*consts, *carry, *x])
    carry = outs[:num_carry]
    for buffer, y in zip(ys, outs[num_carry:]):
      buffer[i] = control_flow_common.host(y)
  return [*(control_flow_common.host(c) for c in carry), *ys]


def _dynamic_index_in_dim(ctx, xs, index, out_aval):
  """``xs[index]`` as JAX's scan takes it: a call of the private ``@dynamic_index_in_dim``."""
  shape = core.physical_aval(xs.aval).shape  # key arrays: sliced as their data

  def body(fctx, x, i):
    x, = mlir.physical_values([x])
    zeros = [mlir.constant(fctx, np.array(0, np.int32)) for _ in shape[1:]]
    sliced = mlir.op(fctx, "stablehlo.dynamic_slice", [x, i, *zeros],
                     ShapedArray((1, *shape[1:]), x.aval.dtype),
                     {"slice_sizes": mlir.dense_array((1, *shape[1:]))})
    return [mlir.op(fctx, "stablehlo.reshape", [sliced], out_aval)]

  key = (xs.aval.shape, xs.aval.dtype)
  return mlir.call_private(ctx, "dynamic_index_in_dim", key, [xs, index], [out_aval], body)[0]


def _dynamic_update_index_in_dim(ctx, ys, y, index):
  """``ys`` with ``ys[index] = y``: a call of the private ``@dynamic_update_index_in_dim``."""
  shape = core.physical_aval(ys.aval).shape  # key arrays: updated as their data

  def body(fctx, buffer, update, i):
    buffer, update = mlir.physical_values([buffer, update])
    update = mlir.broadcast_in_dim(fctx, update, ShapedArray((1, *shape[1:]), update.aval.dtype),
                                   list(range(1, len(shape))))
    zeros = [mlir.constant(fctx, np.array(0, np.int32)) for _ in shape[1:]]
    return [mlir.op(fctx, "stablehlo.dynamic_update_slice", [buffer, update, i, *zeros],
                    buffer.aval)]

  key = (ys.aval.shape, ys.aval.dtype)
  return mlir.call_private(ctx, "dynamic_update_index_in_dim", key, [ys, y, index], [ys.aval],
                           body)[0]


def _scan_lowering(ctx, *args, jaxpr, length, reverse, linear, unroll, num_consts, num_carry,
                   _split_transpose):
  block = length if unroll is True else max(int(unroll), 1)
  if length > 0 and length // block > 0 and (block == 1 or not reverse):
    return _scan_lowering_as_jax(ctx, *args, jaxpr=jaxpr, length=length, reverse=reverse,
                                 block=block, num_consts=num_consts, num_carry=num_carry)
  return _scan_lowering_inline(ctx, *args, jaxpr=jaxpr, length=length, reverse=reverse,
                               num_consts=num_consts, num_carry=num_carry)


def _slice_rows(ctx, x, start: int, stop: int):
  shape = x.aval.shape
  return mlir.op(ctx, "stablehlo.slice", [x], ShapedArray((stop - start, *shape[1:]), x.aval.dtype),
                 {"start_indices": mlir.dense_array([start] + [0] * (len(shape) - 1)),
                  "limit_indices": mlir.dense_array([stop, *shape[1:]]),
                  "strides": mlir.dense_array([1] * len(shape))})


def _reshape(ctx, x, shape):
  return mlir.op(ctx, "stablehlo.reshape", [x], ShapedArray(tuple(shape), x.aval.dtype))


def _unrolled_steps(ctx, jaxpr, consts, carry, rows, count: int, num_carry: int):
  """``count`` calls of the body (``@closed_call``) on rows 0, 1, ... of ``rows`` (each a
  slice and a reshape); returns the carry and each y stacked along a new leading axis."""
  ys_per_step = []
  for j in range(count):
    xs_j = [_reshape(ctx, _slice_rows(ctx, r, j, j + 1), r.aval.shape[1:]) for r in rows]
    outs = mlir.call_jaxpr(ctx, jaxpr, [*consts, *carry, *xs_j], "closed_call")
    carry, ys_j = outs[:num_carry], outs[num_carry:]
    ys_per_step.append(ys_j)
  stacked = []
  for k in range(len(jaxpr.out_avals) - num_carry):
    pieces = []
    for ys_j in ys_per_step:
      y = mlir.materialize(ctx, ys_j[k])
      pieces.append(mlir.broadcast_in_dim(ctx, y, ShapedArray((1, *y.aval.shape), y.aval.dtype),
                                          list(range(1, y.aval.ndim + 1))))
    stacked.append(_concatenate(ctx, pieces))
  return carry, stacked


def _concatenate(ctx, pieces):
  if len(pieces) == 1:
    return pieces[0]
  first = pieces[0].aval
  aval = ShapedArray((sum(p.aval.shape[0] for p in pieces), *first.shape[1:]), first.dtype)
  return mlir.op(ctx, "stablehlo.concatenate", list(pieces), aval, {"dimension": "0 : i64"})


def _scan_lowering_as_jax(ctx, *args, jaxpr, length, reverse, block, num_consts, num_carry):
  """JAX's form: a ``stablehlo.while`` over (xs, consts, i, carry, ys) whose body takes
  ``xs[i]`` (``@dynamic_index_in_dim``), calls the body jaxpr (``@closed_call``) and writes
  ``ys[i]`` (``@dynamic_update_index_in_dim``). With ``unroll=block`` the loop runs over blocks
  of ``block`` rows, calling the body once per row, and the rows left over are done after it."""
  args = [mlir.materialize(ctx, a) for a in args]
  consts, carry, xs = control_flow_common.split(args, [num_consts, num_carry])
  i32 = ShapedArray((), np.dtype(np.int32))
  blocks, rest = divmod(length, block)
  if block > 1:
    if rest:
      xs_main = [_slice_rows(ctx, x, 0, blocks * block) for x in xs]
      xs_rest = [_slice_rows(ctx, x, blocks * block, length) for x in xs]
    else:
      xs_main, xs_rest = xs, []
    xs = [_reshape(ctx, x, (blocks, block, *x.aval.shape[1:])) for x in xs_main]
  y_avals = ctx.avals_out[num_carry:]
  lead = (length,) if block == 1 else (blocks, block)
  ys = [mlir.full_like_aval(ctx, 0, ShapedArray(lead + a.shape[1:], a.dtype)) for a in y_avals]
  zero = mlir.constant(ctx, np.array(0, np.int32))
  state = [*xs, *consts, zero, *carry, *ys]
  avals = [v.aval for v in state]
  nc, nx, ncarry = len(consts), len(xs), len(carry)

  def cond_region(region_ctx, *state_args):
    limit = mlir.constant(region_ctx, np.array(blocks, np.int32))
    return [mlir.compare(region_ctx, state_args[nx + nc], limit, "LT", "SIGNED")]

  def body_region(region_ctx, *state_args):
    c_xs, c_consts, (i,), c_carry, c_ys = control_flow_common.split(
        state_args, [nx, nc, 1, ncarry])
    if reverse:
      last = mlir.constant(region_ctx, np.array(length, np.int32))
      index = mlir.op(region_ctx, "stablehlo.subtract", [last, i], i32)
      one = mlir.constant(region_ctx, np.array(1, np.int32))
      index = mlir.op(region_ctx, "stablehlo.subtract", [index, one], i32)
    else:
      index = i
    rows = [_dynamic_index_in_dim(region_ctx, x, index,
                                  ShapedArray(x.aval.shape[1:], x.aval.dtype)) for x in c_xs]
    if block == 1:
      outs = mlir.call_jaxpr(region_ctx, jaxpr, [*c_consts, *c_carry, *rows], "closed_call")
      new_carry, new_ys_vals = outs[:num_carry], outs[num_carry:]
    else:
      new_carry, new_ys_vals = _unrolled_steps(region_ctx, jaxpr, c_consts, c_carry, rows, block,
                                               num_carry)
    new_ys = [_dynamic_update_index_in_dim(region_ctx, buffer, mlir.materialize(region_ctx, y), index)
              for buffer, y in zip(c_ys, new_ys_vals)]
    one = mlir.constant(region_ctx, np.array(1, np.int32))
    next_i = mlir.op(region_ctx, "stablehlo.add", [i, one], i32)
    return [*c_xs, *c_consts, next_i, *new_carry, *new_ys]

  regions = [mlir.region(ctx, avals, cond_region), mlir.region(ctx, avals, body_region)]
  outs = mlir.op(ctx, "stablehlo.while", state, avals, regions=regions)
  carry, ys = outs[nx + nc + 1:nx + nc + 1 + ncarry], outs[nx + nc + 1 + ncarry:]
  if block > 1:
    ys = [_reshape(ctx, y, (blocks * block, *y.aval.shape[2:])) for y in ys]
    if rest:
      carry, ys_rest = _unrolled_steps(ctx, jaxpr, consts, carry, xs_rest, rest, num_carry)
      ys = [_concatenate(ctx, [y, r]) for y, r in zip(ys, ys_rest)]
  return [*carry, *ys]


def _scan_lowering_inline(ctx, *args, jaxpr, length, reverse, num_consts, num_carry):
  args = [mlir.materialize(ctx, a) for a in args]
  consts, carry, xs = control_flow_common.split(args, [num_consts, num_carry])
  i32 = ShapedArray((), np.dtype(np.int32))
  y_avals = ctx.avals_out[num_carry:]
  ys = [mlir.full_like_aval(ctx, 0, ShapedArray(a.shape, a.dtype)) for a in y_avals]
  if length == 0:  # no iterations (and no slice of the empty xs may be taken)
    return [*carry, *ys]
  zero = mlir.constant(ctx, np.array(0, np.int32))
  state = [zero, *consts, *xs, *carry, *ys]
  avals = [v.aval for v in state]
  nc, nx, ncarry = len(consts), len(xs), len(carry)

  def cond_region(region_ctx, i, *_):
    limit = mlir.constant(region_ctx, np.array(length, np.int32))
    return [mlir.compare(region_ctx, i, limit, "LT", "SIGNED")]

  def body_region(region_ctx, i, *rest):
    c_consts, c_xs, c_carry, c_ys = control_flow_common.split(rest, [nc, nx, ncarry])
    if reverse:
      last = mlir.constant(region_ctx, np.array(length - 1, np.int32))
      index = mlir.op(region_ctx, "stablehlo.subtract", [last, i], i32)
    else:
      index = i
    # the zero start index of the trailing dimensions (only where something is sliced)
    zero_ = mlir.constant(region_ctx, np.array(0, np.int32)) if c_xs or c_ys else None
    x_vals = []
    for x in c_xs:
      x_aval = x.aval
      x, = mlir.physical_values([x])  # key arrays: sliced as their data
      shape = x.aval.shape
      sliced = mlir.op(region_ctx, "stablehlo.dynamic_slice", [x, index] + [zero_] * (len(shape) - 1),
                       ShapedArray((1, *shape[1:]), x.aval.dtype),
                       {"slice_sizes": mlir.dense_array((1, *shape[1:]))})
      x_vals.append(mlir.op(region_ctx, "stablehlo.reshape", [sliced],
                            x_aval.update(shape=x_aval.shape[1:])))
    outs = mlir.jaxpr_subcomp(region_ctx, jaxpr.jaxpr, jaxpr.consts, [*c_consts, *c_carry, *x_vals])
    outs = [mlir.materialize(region_ctx, o) for o in outs]
    new_carry, new_ys_vals = outs[:num_carry], outs[num_carry:]
    new_ys = []
    for buffer, y in zip(c_ys, new_ys_vals):
      buffer, y = mlir.physical_values([buffer, y])  # key arrays: updated as their data
      shape = buffer.aval.shape
      update = mlir.op(region_ctx, "stablehlo.reshape", [y], ShapedArray((1, *shape[1:]), y.aval.dtype))
      new_ys.append(mlir.op(region_ctx, "stablehlo.dynamic_update_slice",
                            [buffer, update, index] + [zero_] * (len(shape) - 1), buffer.aval))
    one = mlir.constant(region_ctx, np.array(1, np.int32))
    next_i = mlir.op(region_ctx, "stablehlo.add", [i, one], i32)
    return [next_i, *c_consts, *c_xs, *new_carry, *new_ys]

  regions = [mlir.region(ctx, avals, cond_region), mlir.region(ctx, avals, body_region)]
  outs = mlir.op(ctx, "stablehlo.while", state, avals, regions=regions)
  return outs[1 + nc + nx:]


def _scan_params(jaxpr, length, reverse, unroll, num_consts, num_carry, n_args, split_transpose):
  return dict(jaxpr=jaxpr, length=length, reverse=reverse, linear=(False,) * n_args,
              unroll=unroll, num_consts=num_consts, num_carry=num_carry,
              _split_transpose=split_transpose)


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, linear, unroll, num_consts,
              num_carry, _split_transpose):
  nc, ncarry = num_consts, num_carry
  nx = len(primals) - nc - ncarry
  nz = [_nonzero(t) and _differentiable(core.get_aval(p)) for t, p in zip(tangents, primals)]
  const_nz, carry_nz, xs_nz = control_flow_common.split(nz, [nc, ncarry])
  n_out = len(jaxpr.out_avals)
  carry_nz, _ = _carry_fixed_point(carry_nz, lambda nz: ad.jvp_jaxpr(
      jaxpr, const_nz + nz + xs_nz, nz + [False] * (n_out - ncarry))[1])
  jvp, out_nz = ad.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * (n_out - ncarry))
  ys_nz = out_nz[ncarry:]
  nct, ncart, nxt = sum(const_nz), sum(carry_nz), sum(xs_nz)
  p = nc + ncarry + nx
  # inputs (consts, carry, xs, consts_t, carry_t, xs_t) -> (consts, consts_t, carry, carry_t, xs, xs_t)
  order = [*range(nc), *range(p, p + nct), *range(nc, nc + ncarry), *range(p + nct, p + nct + ncart),
           *range(nc + ncarry, p), *range(p + nct + ncart, p + nct + ncart + nxt)]
  jvp = _permute_invars(jvp, order)
  nyt = sum(ys_nz)
  ny = n_out - ncarry
  # outputs (carry, ys, carry_t, ys_t) -> (carry, carry_t, ys, ys_t)
  out_order = [*range(ncarry), *range(n_out, n_out + ncart), *range(ncarry, n_out),
               *range(n_out + ncart, n_out + ncart + nyt)]
  jvp = _permute_outvars(jvp, out_order)
  consts, carry, xs = control_flow_common.split(primals, [nc, ncarry])
  consts_t, carry_t, xs_t = control_flow_common.split(tangents, [nc, ncarry])
  const_tangents = [t for t, n in zip(consts_t, const_nz) if n]
  carry_tangents = [ad.instantiate_zeros_tangent(ad.Zero(ad.tangent_aval(core.get_aval(x)))
                                                 if type(t) is ad.Zero else t)
                    for t, x, n in zip(carry_t, carry, carry_nz) if n]
  xs_tangents = [t for t, n in zip(xs_t, xs_nz) if n]
  args = [*consts, *const_tangents, *carry, *carry_tangents, *xs, *xs_tangents]
  outs = scan_p.bind(*args, **_scan_params(jvp, length, reverse, unroll, nc + nct, ncarry + ncart,
                                           len(args), _split_transpose))
  carry_out, carry_t_out, ys, ys_t = control_flow_common.split(outs, [ncarry, ncart, ny])
  carry_t_iter, ys_t_iter = iter(carry_t_out), iter(ys_t)
  out_avals = _scan_abstract_eval(*[core.get_aval(x) for x in primals], jaxpr=jaxpr, length=length,
                                  reverse=reverse, linear=linear, unroll=unroll, num_consts=nc,
                                  num_carry=ncarry, _split_transpose=_split_transpose)
  tangents_out = [next(carry_t_iter) if n else ad.Zero(ad.tangent_aval(a))
                  for n, a in zip(carry_nz, out_avals[:ncarry])]
  tangents_out += [next(ys_t_iter) if n else ad.Zero(ad.tangent_aval(a))
                   for n, a in zip(ys_nz, out_avals[ncarry:])]
  return [*carry_out, *ys], tangents_out


def _scan_partial_eval(trace, args, params):
  jaxpr = params["jaxpr"]
  nc, ncarry, length = params["num_consts"], params["num_carry"], params["length"]
  reverse, unroll = params["reverse"], params["unroll"]
  unknowns = [trace.is_unknown(x) for x in args]
  const_uk, carry_uk, xs_uk = control_flow_common.split(unknowns, [nc, ncarry])
  n_out = len(jaxpr.out_avals)
  carry_uk, _ = _carry_fixed_point(carry_uk, lambda uk: ad.partial_eval_jaxpr(
      jaxpr, const_uk + uk + xs_uk, uk + [False] * (n_out - ncarry),
      jit_residuals_last=True)[2])
  known, unknown, out_uk, num_res = ad.partial_eval_jaxpr(
      jaxpr, const_uk + carry_uk + xs_uk, carry_uk + [False] * (n_out - ncarry),
      jit_residuals_last=True)
  consts, carry, xs = control_flow_common.split(args, [nc, ncarry])
  k_consts = [x for x, u in zip(consts, const_uk) if not u]
  k_carry = [x for x, u in zip(carry, carry_uk) if not u]
  k_xs = [x for x, u in zip(xs, xs_uk) if not u]
  n_known_out = len(known.out_avals) - num_res
  n_known_carry = len(k_carry)
  # As JAX: a residual that is a known constant of the body stays a constant, one that is a
  # known scanned-over input is that input (neither is an output of the known scan); the others
  # are stacked outputs. NumPy constants are not forwarded.
  fwd = control_flow_common.forwarding(known.jaxpr)[n_known_out:]
  n_kc, n_kcarry = len(k_consts), len(k_carry)

  def forwarded_value(f):
    if f is None or n_kc <= f < n_kc + n_kcarry:
      return None
    value = k_consts[f] if f < n_kc else k_xs[f - n_kc - n_kcarry]
    return None if isinstance(value, np.ndarray) else value

  res_fwd = [forwarded_value(f) for f in fwd]
  known = control_flow_common.prune_outputs(
      known, [True] * n_known_out + [v is None for v in res_fwd])
  n_kept = sum(v is None for v in res_fwd)
  # As JAX: the known work that depends only on the known constants is hoisted out of the
  # loop (run once, before it; every equation kept), and the residuals it makes
  # ("intensive") are constants of the staged scan instead of stacked outputs.
  hoist, loop, loop_dep, _ = ad.partial_eval_jaxpr(
      known, [False] * n_kc + [True] * (n_kcarry + len(k_xs)),
      [True] * n_known_out + [False] * n_kept, dce_known=False, jit_residuals_last=True)
  res_loop_dep = loop_dep[n_known_out:]
  n_intensive = sum(not d for d in res_loop_dep)
  with core.set_current_trace(trace.parent):
    hoisted = ir.eval_jaxpr(hoist.jaxpr, hoist.consts, *k_consts)
    intensive, loop_consts = hoisted[:n_intensive], hoisted[n_intensive:]
    known_args = [*loop_consts, *k_carry, *k_xs]
    known_outs = scan_p.bind(*known_args, **_scan_params(
        loop, length, reverse, unroll, len(loop_consts), n_known_carry, len(known_args),
        params["_split_transpose"]))
  stacked, intensive_iter, dep_iter = (iter(known_outs[n_known_out:]), iter(intensive),
                                       iter(res_loop_dep))
  res_values, res_const = [], []
  for v, f in zip(res_fwd, fwd):
    if v is not None:
      res_values.append(v)
      res_const.append(f < n_kc)
    elif next(dep_iter):
      res_values.append(next(stacked))
      res_const.append(False)
    else:
      res_values.append(next(intensive_iter))
      res_const.append(True)
  # unknown takes (residuals, unknown consts, carry, xs): reorder to
  # (const residuals, unknown consts, unknown carry, unknown xs, scanned residuals)
  u_consts = [x for x, u in zip(consts, const_uk) if u]
  u_carry = [x for x, u in zip(carry, carry_uk) if u]
  u_xs = [x for x, u in zip(xs, xs_uk) if u]
  const_res = [i for i, c in enumerate(res_const) if c]
  scanned_res = [i for i, c in enumerate(res_const) if not c]
  n_u = len(u_consts) + len(u_carry) + len(u_xs)
  unknown = _permute_invars(unknown, [*const_res, *range(num_res, num_res + n_u), *scanned_res])
  staged_args = [*[res_values[i] for i in const_res], *u_consts, *u_carry, *u_xs,
                 *[res_values[i] for i in scanned_res]]
  unknown_outs = trace.stage(scan_p, staged_args, _scan_params(
      unknown, length, reverse, unroll, len(const_res) + len(u_consts), len(u_carry),
      len(staged_args), params["_split_transpose"]))
  known_iter, unknown_iter = iter(known_outs[:n_known_out]), iter(unknown_outs)
  return [next(unknown_iter) if u else next(known_iter) for u in out_uk]


def _scan_transpose(cts, *args, jaxpr, length, reverse, linear, unroll, num_consts, num_carry,
                    _split_transpose):
  nc, ncarry = num_consts, num_carry
  consts, carry, xs = control_flow_common.split(args, [nc, ncarry])
  const_lin = [ad.is_undefined_primal(x) for x in consts]
  xs_lin = [ad.is_undefined_primal(x) for x in xs]
  # Carries are linear in a linear scan (a known carry is an instantiated zero tangent).
  lin = const_lin + [True] * ncarry + xs_lin
  # The carry is transposed at its cotangent's type (JAX's accumulators): a weak-typed carry
  # whose body makes it strong transposes without a convert back.
  linear_avals = ([x.aval for x in consts if ad.is_undefined_primal(x)]
                  + [ad.tangent_aval(a) for a in jaxpr.out_avals[:ncarry]]
                  + [ShapedArray(x.aval.shape[1:], x.aval.dtype, x.aval.weak_type)
                     for x in xs if ad.is_undefined_primal(x)])
  res_consts = [x for x, l in zip(consts, const_lin) if not l]
  res_xs = [x for x, l in zip(xs, xs_lin) if not l]
  in_avals = jaxpr.in_avals
  lin_const_avals = [ad.tangent_aval(a) for a, l in zip(in_avals[:nc], const_lin) if l]
  carry_avals = [ad.tangent_aval(a) for a in in_avals[nc:nc + ncarry]]
  x_avals = in_avals[nc + ncarry:]
  out_avals = jaxpr.out_avals
  ct_carry_avals = [ad.tangent_aval(a) for a in out_avals[:ncarry]]
  ct_y_avals = [ad.tangent_aval(a) for a in out_avals[ncarry:]]
  res_x_avals = [a for a, l in zip(x_avals, xs_lin) if not l]
  n_lc = len(lin_const_avals)

  def body(*vals):
    rc, acc, ct_c, ct_y, rx = control_flow_common.split(vals, [len(res_consts), n_lc, ncarry, len(ct_y_avals)])[:5]
    nonlinear, undefined, acc_iter = iter(rc + rx), iter(linear_avals), iter(acc)
    full_args = [ad.UndefinedPrimal(next(undefined)) if l else next(nonlinear) for l in lin]
    # The constants' cotangents are added to the running sums as they arrive (JAX's order).
    seeds = [next(acc_iter) if l else None for l in const_lin] + [None] * (len(lin) - nc)
    ct_out = [ad.Zero(a) if a.dtype == ad.float0 else c
              for c, a in zip([*ct_c, *ct_y], ct_carry_avals + ct_y_avals)]
    cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, full_args, ct_out, seeds)
    return [ad.instantiate_zeros(c) for c in cts_in]

  ct_carry, ct_ys = cts[:ncarry], cts[ncarry:]
  ct_carry = [np.zeros(a.shape, ad.float0) if a.dtype == ad.float0 else ad.instantiate_zeros(c)
              for c, a in zip(ct_carry, ct_carry_avals)]
  ys_avals = [ShapedArray((length, *a.shape), a.dtype) for a in ct_y_avals]
  ct_ys = [np.zeros(a.shape, ad.float0) if a.dtype == ad.float0 else ad.instantiate_zeros(
      ad.Zero(a) if type(c) is ad.Zero else c) for c, a in zip(ct_ys, ys_avals)]
  # The body is traced at the types of the cotangents given (as JAX's).
  ct_carry_avals = [core.get_aval(c) for c in ct_carry]
  ct_y_avals = [ShapedArray(core.get_aval(c).shape[1:], core.get_aval(c).dtype,
                            core.get_aval(c).weak_type) for c in ct_ys]
  body_avals = ([core.get_aval(x) if not isinstance(x, ad.UndefinedPrimal) else x.aval
                 for x in res_consts] + lin_const_avals + ct_carry_avals + ct_y_avals + res_x_avals)
  body_closed, body_consts = _trace_closed(body, body_avals)
  acc0 = [ad.zeros_like_aval(a) for a in lin_const_avals]
  t_args = [*body_consts, *res_consts, *acc0, *ct_carry, *ct_ys, *res_xs]
  outs = scan_p.bind(*t_args, **_scan_params(body_closed, length, not reverse, unroll,
                                              len(body_consts) + len(res_consts),
                                              n_lc + ncarry, len(t_args), _split_transpose))
  ct_consts, ct_init, ct_xs = control_flow_common.split(outs, [n_lc, ncarry])
  ct_consts_iter, ct_xs_iter = iter(ct_consts), iter(ct_xs)
  result = [next(ct_consts_iter) if l else None for l in const_lin]
  result += [c if ad.is_undefined_primal(x) else None for c, x in zip(ct_init, carry)]
  result += [next(ct_xs_iter) if l else None for l in xs_lin]
  return result


def _scan_batch(args, dims, *, jaxpr, length, reverse, linear, unroll, num_consts, num_carry,
                _split_transpose):
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  nc, ncarry = num_consts, num_carry
  consts, carry, xs = control_flow_common.split(args, [nc, ncarry])
  cd, card, xd = control_flow_common.split(dims, [nc, ncarry])
  const_b = [d is not None for d in cd]
  carry_b = [d is not None for d in card]
  xs_b = [d is not None for d in xd]
  carry_b, out_b = _carry_fixed_point(
      carry_b, lambda b: _batched_outputs(jaxpr, size, const_b + b + xs_b))
  ys_b = out_b[ncarry:]
  batched, _ = batching.batch_jaxpr(jaxpr, size, _dims(const_b + carry_b + xs_b), carry_b + ys_b)
  consts = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(consts, cd)]
  carry = [batching.bdim_at_front(x, d, size) if b else x for x, d, b in zip(carry, card, carry_b)]
  xs = [batching.moveaxis(x, d, 1) if d is not None else x for x, d in zip(xs, xd)]
  new_args = [*consts, *carry, *xs]
  outs = scan_p.bind(*new_args, **_scan_params(batched, length, reverse, unroll, nc, ncarry,
                                               len(new_args), _split_transpose))
  return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]


scan_p.def_abstract_eval(_scan_abstract_eval)
scan_p.def_impl(_scan_impl)
mlir.register(scan_p, _scan_lowering)


def _scan_dce_rule(used_outputs, eqn, cache):
  """Dead-code elimination of a scan (as JAX's before lowering): unused ys go, and so do the
  carries that no used output depends on (found by iterating to a fixed point), with the
  consts and xs that only they needed."""
  params = eqn.params
  if not any(used_outputs) and not (eqn.primitive.has_effects
                                    or ir.eqn_effects(eqn.primitive, params)):
    return [False] * len(eqn.invars), None
  closed = params["jaxpr"]
  nc, ncarry = params["num_consts"], params["num_carry"]
  nx = len(closed.in_avals) - nc - ncarry
  used_carry_out, used_ys = list(used_outputs[:ncarry]), list(used_outputs[ncarry:])
  for _ in range(1 + ncarry):
    body, used_inputs = mlir.dce_jaxpr(closed.jaxpr, used_carry_out + used_ys,
                                       [False] * nc + used_carry_out + [False] * nx, cache)
    used_carry_in = used_inputs[nc:nc + ncarry]
    if used_carry_in == used_carry_out:
      break
    used_carry_out = [a or b for a, b in zip(used_carry_out, used_carry_in)]
  used_outputs = used_carry_out + used_ys
  if all(used_inputs) and all(used_outputs):
    return used_inputs, eqn
  used_consts = used_inputs[:nc]
  new_params = dict(params, jaxpr=ClosedJaxpr(body, closed.consts), num_consts=sum(used_consts),
                    num_carry=sum(used_carry_in),
                    linear=tuple(l for l, u in zip(params["linear"], used_inputs) if u))
  new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                        params=new_params)
  return used_inputs, new_eqn


mlir.dce_rules[scan_p] = _scan_dce_rule
ir.pp_eqn_rules[scan_p] = _pp_loop_eqn("scan", hidden=("linear", "_split_transpose"))
ad.primitive_jvps[scan_p] = _scan_jvp
ad.partial_eval_rules[scan_p] = _scan_partial_eval
ad.primitive_transposes[scan_p] = _scan_transpose
batching.primitive_batchers[scan_p] = _scan_batch


# ---------------------------------------------------------------------------
# while_loop


def _check_cond_output(cond_tree, cond_jaxpr: ClosedJaxpr) -> None:
  if not tree_util.treedef_is_leaf(cond_tree) or len(cond_jaxpr.out_avals) != 1:
    raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
  aval, = cond_jaxpr.out_avals
  if aval.shape != () or aval.dtype != np.bool_:
    raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                    f"{list(cond_jaxpr.out_avals)}.")


def _while_loop(cond_fun, body_fun, init_val, *, name="while_loop", debug_body=None,
                debug_cond=None, traced_for=None):
  init_vals, in_tree = tree_util.tree_flatten(init_val)

  def trace(init_vals):
    init_avals = [control_flow_common.abstractify(x) for x in init_vals]
    example = (tree_util.tree_unflatten(in_tree, init_vals),)
    args_tree = tree_util.tree_structure(example)
    cond_jaxpr, cond_consts, cond_tree = control_flow_common.trace_hoisted(
        cond_fun, args_tree, init_avals, traced_for or "while_cond", debug_cond, example)
    body_jaxpr, body_consts, body_tree = control_flow_common.trace_hoisted(
        body_fun, args_tree, init_avals, traced_for or "while_body", debug_body, example)
    _check_cond_output(cond_tree, cond_jaxpr)
    return init_avals, cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree

  init_avals, cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = trace(init_vals)
  if body_tree == in_tree:
    init_vals, changed = control_flow_common.promote_weak_inputs(init_vals, init_avals, body_jaxpr.out_avals)
    if changed:
      init_avals, cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = trace(init_vals)
  control_flow_common.check_carry(f"{name} body", debug_body or body_fun, in_tree, init_avals, body_tree,
                     body_jaxpr.out_avals)

  # A carry the body returns unchanged and the condition does not read is a body constant.
  nb = len(body_consts)
  body_fwd = control_flow_common.forwarding(body_jaxpr.jaxpr)
  not_forwarded = [body_fwd[i] != nb + i for i in range(len(init_vals))]
  dced_cond, kept = control_flow_common.dce_with_inputs(cond_jaxpr, [True] * len(cond_consts) + not_forwarded)
  move = [not k for k in kept[len(cond_consts):]]
  if any(move):
    cond_jaxpr = dced_cond
    body_jaxpr = control_flow_common.prune_outputs(body_jaxpr, [not m for m in move])
    body_jaxpr = control_flow_common.move_inputs_to_front(body_jaxpr, [False] * nb + move)
    moved = [v for v, m in zip(init_vals, move) if m]
    body_consts = moved + body_consts
  loop_vals = [v for v, m in zip(init_vals, move) if not m]
  outs = iter(while_p.bind(*cond_consts, *body_consts, *loop_vals, cond_jaxpr=cond_jaxpr,
                           body_jaxpr=body_jaxpr, cond_nconsts=len(cond_consts),
                           body_nconsts=len(body_consts)))
  results = [control_flow_common.as_output(v) if m else next(outs) for v, m in zip(init_vals, move)]
  return tree_util.tree_unflatten(in_tree, results)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
  """Repeats ``val = body_fun(val)`` while ``cond_fun(val)`` is true (``lax.while_loop``).

  ``init_val`` is any pytree; ``body_fun`` must return a value of the same structure, shapes
  and dtypes, and ``cond_fun`` a boolean scalar. The loop stays a loop in compiled programs
  (a ``while`` equation). It is forward-mode differentiable; reverse mode needs a trip count
  known in advance (use ``lax.scan`` or ``lax.fori_loop`` with static bounds).
  """
  if config.jax_disable_jit:
    val = init_val
    while cond_fun(val):
      val = body_fun(val)
    return val
  return _while_loop(cond_fun, body_fun, init_val)


# ---------------------------------------------------------------------------
# scan


def _leading_length(xs_flat, length):
  for x in xs_flat:
    if np.ndim(x) == 0 if not isinstance(x, core.Tracer) else x.ndim == 0:
      raise ValueError(f"scan got value with no leading axis to scan over: "
                       f"{', '.join(str(x) for x in xs_flat if np.ndim(x) == 0)}.")
  sizes = [x.shape[0] for x in xs_flat]
  if length is not None:
    length = core.concrete_or_error(operator.index, length,
                                    "The `length` argument to `scan` expects a concrete `int` value.")
    if any(s != length for s in sizes):
      raise ValueError(f"scan got `length` argument of {length} which disagrees with leading axis "
                       f"sizes {sizes}.")
    return length
  if not sizes:
    raise ValueError("scan got no values to scan over and `length` not provided.")
  if len(set(sizes)) > 1:
    raise ValueError(f"scan got values with different leading axis sizes: "
                     f"{', '.join(str(s) for s in sizes)}.")
  return sizes[0]


def _scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False, *,
          debug_fun=None, debug_args=None, traced_for="scan"):
  xs_flat, xs_tree = tree_util.tree_flatten(xs)
  length = _leading_length(xs_flat, length)
  if isinstance(unroll, bool):
    unroll = max(length, 1) if unroll else 1
  if not isinstance(unroll, (int, np.integer)) or unroll < 1:
    raise ValueError("`unroll` must be a `bool` or a positive `int`.")
  unroll = int(unroll)
  if config.jax_disable_jit:
    return _scan_in_python(f, init, xs, xs_flat, xs_tree, length, reverse)

  x_avals = []
  for x in xs_flat:
    aval = control_flow_common.abstractify(x)
    x_avals.append(ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type))
  init_flat, init_tree = tree_util.tree_flatten(init)

  def trace(init_flat):
    carry_avals = [control_flow_common.abstractify(x) for x in init_flat]
    example = (tree_util.tree_unflatten(init_tree, init_flat),
               tree_util.tree_unflatten(xs_tree, [_ExampleSlice(a) for a in x_avals]))
    args_tree = tree_util.tree_structure((tree_util.tree_unflatten(init_tree, init_flat),
                                          tree_util.tree_unflatten(xs_tree, x_avals)))
    jaxpr, consts, out_tree = control_flow_common.trace_hoisted(
        f, args_tree, carry_avals + x_avals, traced_for, debug_fun,
        example if debug_fun is None else debug_args)
    if not _is_pair(out_tree):
      out = tree_util.tree_unflatten(out_tree, [_WeakStr(a) for a in jaxpr.out_avals])
      raise TypeError(f"scan body output must be a pair, got {out}.")
    return carry_avals, jaxpr, consts, out_tree, tree_util.treedef_children(out_tree)[0]

  carry_avals, jaxpr, consts, out_tree, carry_tree = trace(init_flat)
  num_carry = len(init_flat)
  if carry_tree == init_tree:
    init_flat, changed = control_flow_common.promote_weak_inputs(init_flat, carry_avals,
                                                                 jaxpr.out_avals[:num_carry])
    if changed:
      carry_avals, jaxpr, consts, out_tree, carry_tree = trace(init_flat)
  control_flow_common.check_carry("scan body", f, init_tree, carry_avals, carry_tree,
                                  jaxpr.out_avals[:carry_tree.num_leaves])
  y_tree = tree_util.treedef_children(out_tree)[1]

  # Carries the body returns unchanged become constants; ys that are slices of xs are xs.
  nconsts = len(consts)
  fwd = control_flow_common.forwarding(jaxpr.jaxpr)
  move = [fwd[i] == nconsts + i for i in range(num_carry)]
  x_start = nconsts + num_carry
  y_from_x = [f - x_start if f is not None and f >= x_start else None for f in fwd[num_carry:]]
  keep = [not m for m in move] + [f is None for f in y_from_x]
  jaxpr = control_flow_common.prune_outputs(jaxpr, keep)
  if any(move):
    jaxpr = control_flow_common.move_inputs_to_front(jaxpr, [False] * nconsts + move + [False] * len(xs_flat))
  moved = [v for v, m in zip(init_flat, move) if m]
  loop_init = [v for v, m in zip(init_flat, move) if not m]
  all_consts = moved + consts
  outs = scan_p.bind(*all_consts, *loop_init, *xs_flat, jaxpr=jaxpr, length=length,
                     reverse=bool(reverse), linear=(False,) * (len(all_consts) + len(loop_init) + len(xs_flat)),
                     unroll=unroll, num_consts=len(all_consts), num_carry=len(loop_init),
                     _split_transpose=bool(_split_transpose))
  outs = iter(outs)
  carry_out = [control_flow_common.as_output(v) if m else next(outs) for v, m in zip(init_flat, move)]
  ys = [control_flow_common.as_output(xs_flat[f]) if f is not None else next(outs) for f in y_from_x]
  return (tree_util.tree_unflatten(init_tree, carry_out), tree_util.tree_unflatten(y_tree, ys))


class _ExampleSlice:
  """Stands for one slice of a scanned operand (for argument names in error messages)."""
  __slots__ = ("aval",)

  def __init__(self, aval):
    self.aval = aval


class _WeakStr:
  """Formats an aval as JAX does in "scan body output must be a pair" (``~float32[]``)."""
  __slots__ = ("aval",)

  def __init__(self, aval):
    self.aval = aval

  def __repr__(self):
    return control_flow_common.weak_str(self.aval)

  __str__ = __repr__


def _is_pair(treedef) -> bool:
  skeleton = tree_util.tree_unflatten(treedef, [0] * treedef.num_leaves)
  return type(skeleton) is tuple and len(skeleton) == 2


def _scan_in_python(f, init, xs, xs_flat, xs_tree, length, reverse):
  """``scan`` under ``disable_jit``: a Python loop calling ``f``."""
  carry = init
  ys = []
  steps = range(length - 1, -1, -1) if reverse else range(length)
  for i in steps:
    x = tree_util.tree_unflatten(xs_tree, [v[i] for v in xs_flat])
    carry, y = f(carry, x)
    ys.append(y)
  if reverse:
    ys.reverse()
  if not ys:
    return carry, None
  y_leaves = [tree_util.tree_leaves(y) for y in ys]
  stacked = [structural.concatenate([structural.expand_dims(l, (0,)) for l in leaves], 0)
             for leaves in zip(*y_leaves)]
  return carry, tree_util.tree_unflatten(tree_util.tree_structure(ys[0]), stacked)


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
  """Scans ``f`` over the leading axis of ``xs`` while carrying state (``lax.scan``).

  Semantically::

    def scan(f, init, xs, length=None):
      carry = init
      ys = []
      for x in xs:
        carry, y = f(carry, x)
        ys.append(y)
      return carry, np.stack(ys)

  ``init`` and ``xs`` are pytrees; ``xs=None`` needs ``length``. ``f`` must return a pair
  ``(carry, y)`` whose carry has the structure, shapes and dtypes of ``init``. ``reverse``
  scans from the end; ``unroll`` (an int, or True for full unrolling) only affects how the
  compiled loop is laid out. The loop stays one ``scan`` equation, differentiable in both
  modes.
  """
  return _scan(f, init, xs, length, reverse, unroll, _split_transpose)


# ---------------------------------------------------------------------------
# fori_loop


def _bound_dtype(x):
  return core.get_aval(x).dtype if (isinstance(x, core.Tracer) or core.valid_jaxtype(x)) \
      else np.dtype(type(x))


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll: int | bool | None = None):
  """Loops ``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)`` (``lax.fori_loop``).

  With concrete bounds (Python or concrete integers) the loop is a ``scan`` of
  ``upper - lower`` steps, differentiable in both modes; with traced bounds it is a
  ``while`` loop (forward mode only). ``unroll`` needs concrete bounds.
  """
  lower_dtype = dtypes.canonicalize_dtype(_bound_dtype(lower))
  upper_dtype = dtypes.canonicalize_dtype(_bound_dtype(upper))
  if lower_dtype != upper_dtype:
    lower_weak = dtypes.is_weakly_typed(lower) and lower_dtype.kind in "iu"
    upper_weak = dtypes.is_weakly_typed(upper) and upper_dtype.kind in "iu"
    if lower_weak and upper_dtype.kind in "iu":
      lower_dtype = upper_dtype
    elif upper_weak and lower_dtype.kind in "iu":
      upper_dtype = lower_dtype
    else:
      raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                      f"{lower_dtype.name} and {upper_dtype.name}")
  if not dtypes.issubdtype(lower_dtype, np.integer):
    raise TypeError("lower and upper arguments to fori_loop must be integers, got "
                    f"{lower_dtype.name} and {upper_dtype.name}")
  static = core.is_concrete(lower) and core.is_concrete(upper)
  if static:
    lower_, upper_ = int(lower), int(upper)

    def scanned(loop_carry, _):
      i, x = loop_carry
      return (i + 1, body_fun(i, x)), None

    if config.jax_disable_jit:
      val = init_val
      for i in range(lower_, upper_):
        val = body_fun(i, val)
      return val
    (_, result), _ = _scan(scanned, (lower_, init_val), None, length=max(upper_ - lower_, 0),
                           unroll=1 if unroll is None else unroll, debug_fun=body_fun,
                           debug_args=(lower_, init_val), traced_for="fori_loop")
    return result
  if unroll is not None and unroll is not False and unroll != 1:
    raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
  # Bounds are converted only when their dtypes differ (a Python int bound stays weakly typed).
  if dtypes.canonicalize_dtype(_bound_dtype(lower)) != lower_dtype:
    lower = elementwise_convert.convert_element_type(lower, lower_dtype)
  if dtypes.canonicalize_dtype(_bound_dtype(upper)) != lower_dtype:
    upper = elementwise_convert.convert_element_type(upper, lower_dtype)

  def loop_cond(loop_carry):
    i, upper, _ = loop_carry
    return elementwise.lt(i, upper)

  def loop_body(loop_carry):
    i, upper, x = loop_carry
    return elementwise.add(i, np.array(1, lower_dtype)), upper, body_fun(i, x)

  _, _, result = _while_loop(loop_cond, loop_body, (lower, upper, init_val), debug_body=None,
                             traced_for="fori_loop")
  return result


# ---------------------------------------------------------------------------
# map


def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001  (lax's name)
  """Maps ``f`` over the leading axis of ``xs`` with a ``scan`` (``lax.map``): one
  application at a time, so memory stays that of one slice. With ``batch_size``, ``f`` is
  vmapped over batches of that many slices (the remainder handled by one more vmap)."""
  if batch_size is not None:
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
      raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    leaves, tree = tree_util.tree_flatten(xs)
    lengths = {leaf.shape[0] for leaf in leaves}
    if len(lengths) != 1:
      raise ValueError(f"lax.map got values with different leading axis sizes: "
                       f"{', '.join(str(leaf.shape[0]) for leaf in leaves)}.")
    n, = lengths
    num_batches, remainder = divmod(n, batch_size)
    total = num_batches * batch_size
    scan_leaves = [structural.reshape(leaf[:total], (num_batches, batch_size, *leaf.shape[1:]))
                   for leaf in leaves]
    batched_f = vmap.vmap(f)
    _, scan_ys = scan(lambda _, x: ((), batched_f(x)), (), tree_util.tree_unflatten(tree, scan_leaves))
    ys = tree_util.tree_map(
        lambda y: structural.reshape(y, (y.shape[0] * y.shape[1], *y.shape[2:])), scan_ys)
    if remainder:
      rest = batched_f(tree_util.tree_unflatten(tree, [leaf[total:] for leaf in leaves]))
      ys = tree_util.tree_map(lambda a, b: structural.concatenate([a, b], 0), ys, rest)
    return ys
  _, ys = scan(lambda _, x: ((), f(x)), (), xs)
  return ys


# ---------------------------------------------------------------------------
# associative_scan


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
  """Inclusive scan of ``elems`` along ``axis`` with the associative binary ``fn``
  (``lax.associative_scan``), in O(log n) parallel steps (the odd/even recursive scheme).

  ``elems`` is a pytree of arrays with equal sizes along ``axis``; ``fn(a, b)`` combines two
  pytrees of that structure elementwise (it must work on batches of elements).
  """
  leaves, tree = tree_util.tree_flatten(elems)
  if not leaves:
    raise ValueError("associative_scan: elems must contain at least one array")
  ndim = leaves[0].ndim if hasattr(leaves[0], "ndim") else np.ndim(leaves[0])
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"associative_scan: axis {axis} is out of bounds for arrays of rank {ndim}")
  axis = axis % ndim
  if reverse:
    leaves = [structural.rev(x, (axis,)) for x in leaves]
  sizes = {x.shape[axis] for x in leaves}
  if len(sizes) != 1:
    raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                     f"(saw: {[x.shape for x in leaves]})")
  n, = sizes

  def combine(a, b):
    out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    if out_tree != tree:
      raise ValueError(f"associative_scan: fn must return the structure of its inputs ({tree}), "
                       f"got {out_tree}")
    return out_leaves

  def slice_(x, start, limit, stride=1):
    return structural.slice_in_dim(x, start, limit, stride, axis)

  def interleave(a, b):
    # a's elements at even positions, b's at odd ones (a has as many or one more).
    n_a, n_b = a.shape[axis], b.shape[axis]
    zero = np.zeros((), a.dtype)
    pad_a = [(0, 0, 0)] * a.ndim
    pad_b = [(0, 0, 0)] * b.ndim
    pad_a[axis] = (0, 1 if n_a == n_b else 0, 1)
    pad_b[axis] = (1, 0 if n_a == n_b else 1, 1)
    left = structural.pad(a, zero, pad_a)
    right = structural.pad(b, zero, pad_b)
    if a.dtype == np.bool_:
      return elementwise.bitwise_or(left, right)
    return elementwise.add(left, right)

  def scan_(elems):
    size = elems[0].shape[axis]
    if size < 2:
      return elems
    reduced = combine([slice_(x, 0, size - 1, 2) for x in elems],
                      [slice_(x, 1, size, 2) for x in elems])
    odd = scan_(reduced)
    if size % 2 == 0:
      even = combine([slice_(x, 0, x.shape[axis] - 1) for x in odd],
                     [slice_(x, 2, size, 2) for x in elems])
    else:
      even = combine(odd, [slice_(x, 2, size, 2) for x in elems])
    even = [structural.concatenate([slice_(x, 0, 1), e], axis) for x, e in zip(elems, even)]
    return [interleave(e, o) for e, o in zip(even, odd)]

  out = scan_(leaves)
  if reverse:
    out = [structural.rev(x, (axis,)) for x in out]
  return tree_util.tree_unflatten(tree, out)
