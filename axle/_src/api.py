"""User-facing transformations: jit, make_jaxpr, eval_shape (more arrive with later issues).

``jit`` is itself a primitive, ``jit_p``, carrying the traced ClosedJaxpr; it
prints as ``jit[name=f jaxpr={...}]`` inside another jaxpr and lowers to a
``func.call`` of a private function. A jitted function called outside any trace
looks up its compiled program (``axle._src.xla.execution.CompiledCall``) by the
call's signature and runs it; a miss traces, lowers and compiles first.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import time
import weakref
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import ref_frames
from axle._src import dtypes
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src import source_info as source_info_util
from axle._src import tree_util
from axle._src import traceback_util
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import ShapedArray, Tracer
from axle._src import cache_misses
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering
from axle._src.interpreters import staging
from axle._src.xla import client
from axle._src.xla import deferred
from axle._src.xla import execution
from axle._src.xla import spmd_jit
from axle._src.ir import ClosedJaxpr
# JAX defines its transformations in jax._src.api, where code that extends JAX imports them from
# (``from jax._src import api; api.grad(...)``); axle's live in their own L4 modules.
from axle._src.differentiation import (  # noqa: F401
    grad, hessian, jacfwd, jacobian, jacrev, jvp, linear_transpose, linearize, value_and_grad, vjp)
from axle._src.vmap import vmap  # noqa: F401


# ---------------------------------------------------------------------------
# jit_p: a call to a staged function

jit_p = core.Primitive("jit")
jit_p.multiple_results = True


def _jit_abstract_eval(*in_avals, jaxpr: ClosedJaxpr, name: str, **_):
  expected = jaxpr.in_avals
  if len(in_avals) != len(expected) or any(
      a.shape != b.shape or a.dtype != b.dtype for a, b in zip(in_avals, expected)):
    raise TypeError(f"jit-compiled function {name} expects arguments "
                    f"{[a.str_short() for a in expected]}, got {[a.str_short() for a in in_avals]}")
  return jaxpr.out_avals


def _jit_impl(*values, jaxpr: ClosedJaxpr, name: str, **_):
  """A jit equation evaluated eagerly (e.g. by eval_jaxpr) runs its compiled program."""
  outs = execution.call_for(jaxpr, name).run(list(values))
  if eval_interpreter.special_checks.enabled and eval_interpreter.special_value_kind(outs):
    # De-optimized: the equations one by one, each checked (the first bad one raises).
    print(eval_interpreter.DEOPTIMIZED_MESSAGE)
    with core.set_current_trace(core.eval_trace):
      ir.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *[Array(v) for v in values])
    raise FloatingPointError(_deoptimized_clean_message(f"jit({name})",
                                                        eval_interpreter.special_value_kind(outs)))
  return [o._host_value() for o in outs]


def _deoptimized_clean_message(name: str, kind: str) -> str:
  return (f"invalid value ({kind}) encountered in {name}. jax_debug_nans/jax_debug_infs is set, "
          "so the function was run again op by op without jit to find the operation that "
          "produced it, but no operation did: the value may come from an input or a constant "
          "(e.g. `jit(lambda x: x * jnp.inf)`), or from XLA's optimizations of the compiled "
          "program, which removing `jit` avoids.")


jit_p.def_abstract_eval(_jit_abstract_eval)
jit_p.def_impl(_jit_impl)


def _jit_lowering(ctx, *args, jaxpr: ClosedJaxpr, name: str, **_):
  return lowering.call_jaxpr(ctx, jaxpr, args, name)


lowering.register(jit_p, _jit_lowering)
lowering.prunable_calls.add(jit_p)


def _pp_jit_eqn(eqn: ir.Eqn, names) -> pp.Doc:
  """Prints ``outs = jit[name=f jaxpr={...}] args``; the inner jaxpr's binders reuse the names
  of the caller's operands and results they stand for (unless the jaxpr is printed shared)."""
  closed = eqn.params["jaxpr"]
  inner = closed.jaxpr
  if inner not in names.shared:
    names.suggest_same_names(inner.invars, eqn.invars)
    names.suggest_same_names(inner.outvars, eqn.outvars)
  shown = {"name": eqn.params["name"], "jaxpr": closed}
  lhs = [ir._pp_binders(eqn.outvars, names), pp.text(" = ")] if eqn.outvars else []
  return pp.concat(lhs + [pp.text("jit"), ir.pp_params(shown, names, sort=False),
                          ir.pp_operands(eqn.invars, names)])


ir.pp_eqn_rules[jit_p] = _pp_jit_eqn


def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  if isinstance(core.current_trace(), ad.LinearizeTrace):
    jvp_closed, out_nonzeros = ad.memoized(
        "jit_linear_tangents", jvp_closed, (len(primals), tuple(out_nonzeros)),
        lambda: _without_known_tangents(jvp_closed, len(primals), out_nonzeros))
  outs = jit_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                    jaxpr=jvp_closed, name=name)
  n = len(jaxpr.out_avals)
  tangent_outs = iter(outs[n:])
  return outs[:n], [next(tangent_outs) if nz else ad.Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _without_known_tangents(jvp_closed: ClosedJaxpr, num_primals: int, out_nonzeros):
  """Under linearize, the JVP jaxpr without the tangent outputs that do not depend on the input
  tangents (zeros a rule built): as in JAX they are symbolic zeros, not outputs of the known
  call."""
  n_out = len(out_nonzeros)
  num_tangents = len(jvp_closed.in_avals) - num_primals
  _, _, out_unknowns, _ = ad.partial_eval_jaxpr(jvp_closed, [False] * num_primals + [True] * num_tangents)
  linear = iter(out_unknowns[n_out:])
  new_nonzeros = [nz and next(linear) for nz in out_nonzeros]
  if new_nonzeros == list(out_nonzeros):
    return jvp_closed, out_nonzeros
  keep = [True] * n_out + [u for u in out_unknowns[n_out:]]
  pruned = ClosedJaxpr(staging.dce_jaxpr(jvp_closed.jaxpr.replace(
      outvars=[v for v, k in zip(jvp_closed.jaxpr.outvars, keep) if k])), jvp_closed.consts)
  return pruned, new_nonzeros


def _jit_partial_eval(trace, args, params):
  """Splits a jit call with known and unknown operands into a known jit (run now) and an
  unknown jit (staged into the linear jaxpr), so reverse mode transposes it as one call.
  As JAX: residuals that are known inputs or the known jaxpr's constants are passed as those,
  and outputs that merely forward an input or repeat another output are not outputs."""
  jaxpr, name = params["jaxpr"], params["name"]
  unknowns = [trace.is_unknown(x) for x in args]
  residuals_last = trace.jit_residuals_last
  known_closed, unknown_closed, out_unknowns, num_res = ad.partial_eval_jaxpr(
      jaxpr, unknowns, jit_residuals_last=residuals_last)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  known_jit, sources = ad.memoized("jit_forwarding", known_closed, num_res,
                                   lambda: _forward_known_outputs(known_closed, num_res))
  with core.set_current_trace(trace.parent):
    outs = jit_p.bind(*known_args, jaxpr=known_jit, name=name)
  values = []
  for kind, i in sources:
    values.append(outs[i] if kind == "out" else known_args[i] if kind == "in"
                  else known_closed.consts[i] if kind == "const" else values[i])
  residuals = values[len(values) - num_res:]
  known_outs = iter(values[:len(values) - num_res])
  unknown_args = [x for x, u in zip(args, unknowns) if u]
  if residuals_last:  # inside a control-flow body, as JAX's JaxprTrace splits a jit
    unknown_jaxpr = unknown_closed.jaxpr
    invars = list(unknown_jaxpr.invars)
    unknown_closed = ClosedJaxpr(unknown_jaxpr.replace(
        invars=invars[num_res:] + invars[:num_res]), unknown_closed.consts)
    operands = [*unknown_args, *residuals]
  else:
    operands = [*residuals, *unknown_args]
  unknown_outs = iter(trace.stage(jit_p, operands, dict(jaxpr=unknown_closed, name=name)))
  return [next(unknown_outs) if u else next(known_outs) for u in out_unknowns]


def _forward_known_outputs(known: ClosedJaxpr, num_res: int):
  """``known`` without the outputs that are an input, a constant or (for a residual) a primal
  output, and where each original output comes from: ("out", position in the pruned outputs),
  ("in", input position), ("const", constant position) or ("same", earlier output)."""
  jaxpr = known.jaxpr
  n_primal = len(jaxpr.outvars) - num_res
  inputs = {v: i for i, v in enumerate(jaxpr.invars)}
  consts = {v: i for i, v in enumerate(jaxpr.constvars)}
  sources, kept, primal_pos = [], [], {}
  for position, v in enumerate(jaxpr.outvars):
    residual = position >= n_primal
    if type(v) is not ir.Literal and v in inputs:
      sources.append(("in", inputs[v]))
    elif residual and type(v) is not ir.Literal and v in consts:
      sources.append(("const", consts[v]))
    elif residual and type(v) is not ir.Literal and v in primal_pos:
      sources.append(("same", primal_pos[v]))
    else:
      if not residual and type(v) is not ir.Literal:
        primal_pos.setdefault(v, position)
      sources.append(("out", len(kept)))
      kept.append(v)
  if len(kept) == len(jaxpr.outvars):
    return known, sources
  return ClosedJaxpr(jaxpr.replace(outvars=kept), known.consts), sources


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str):
  # As JAX: symbolic zero cotangents are neither operands nor results of the transposed jit.
  linear = [ad.is_undefined_primal(a) for a in args]
  ct_avals = [ad.tangent_aval(a) for a in jaxpr.out_avals]
  zero_cts = [type(ct) is ad.Zero or a.dtype == ad.float0 for ct, a in zip(cts, ct_avals)]
  linear_avals = [a.aval for a in args if ad.is_undefined_primal(a)]
  given = [ct for ct, z in zip(cts, zero_cts) if not z]
  given_avals = [None if z else core.get_aval(ct) for ct, z in zip(cts, zero_cts)]
  given_avals = [a if g is None else g for a, g in zip(ct_avals, given_avals)]
  transposed, nonzero = ad.transpose_jaxpr_symbolic(jaxpr, linear, zero_cts, linear_avals,
                                                    given_avals)
  nonlinear = [a for a in args if not ad.is_undefined_primal(a)]
  outs = iter(jit_p.bind(*nonlinear, *given, jaxpr=transposed, name=name))
  nonzero = iter(nonzero)
  return [(next(outs) if next(nonzero) else None) if lin else None for lin in linear]


def _jit_batch(args, dims, *, jaxpr: ClosedJaxpr, name: str):
  # As JAX: the operands keep their batch axes and the outputs' are wherever the body puts them.
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  batched, out_dims = batching.batch_jaxpr(jaxpr, size, dims, False)
  return jit_p.bind(*args, jaxpr=batched, name=name), out_dims


def _jit_dce(used_outputs, eqn: ir.Eqn):
  """A jit equation without its unused outputs and the inputs its jaxpr then does not read;
  dropped when nothing is used (JAX's ``dce_jaxpr_pjit_rule``)."""
  closed = eqn.params["jaxpr"]
  if not any(used_outputs) and not closed.effects:
    return [False] * len(eqn.invars), None
  used_outputs = tuple(used_outputs)

  def build():
    jaxpr, used_inputs = staging.dce_jaxpr_with_inputs(closed.jaxpr, used_outputs)
    return ClosedJaxpr(jaxpr, closed.consts), used_inputs

  dced, used_inputs = ad.memoized("dce", closed, used_outputs, build)
  return used_inputs, eqn.replace(
      invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
      params={**eqn.params, "jaxpr": dced})


ad.primitive_jvps[jit_p] = _jit_jvp
staging.dce_rules[jit_p] = _jit_dce
ad.partial_eval_rules[jit_p] = _jit_partial_eval
ad.primitive_transposes[jit_p] = _jit_transpose
batching.primitive_batchers[jit_p] = _jit_batch


# ---------------------------------------------------------------------------
# Argument handling shared by jit and make_jaxpr


def _normalize_argnums(argnums, fun, name="static_argnums") -> tuple[int, ...]:
  if argnums is None:
    return ()
  if isinstance(argnums, int):
    argnums = (argnums,)
  argnums = tuple(argnums)
  for a in argnums:
    if not isinstance(a, int):
      raise TypeError(f"{name} must be an int or a sequence of ints, got {argnums!r}")
  return argnums


def _argnames_to_argnums(fun, static_argnames) -> tuple[int, ...]:
  if not static_argnames:
    return ()
  try:
    params = list(inspect.signature(fun).parameters)
  except (TypeError, ValueError):
    return ()
  return tuple(params.index(n) for n in static_argnames if n in params)


def _argnums_to_argnames(fun, argnums) -> tuple[str, ...]:
  """The names of the parameters at ``argnums`` that may also be passed by keyword (JAX infers
  static_argnames/donate_argnames from the argnums this way)."""
  if not argnums:
    return ()
  try:
    params = list(inspect.signature(fun).parameters.values())
  except (TypeError, ValueError):
    return ()
  nparams = len(params)
  names = []
  for i in argnums:
    if -nparams <= i < nparams and params[i].kind == inspect.Parameter.POSITIONAL_OR_KEYWORD:
      names.append(params[i].name)
  return tuple(names)


class _HashableStatic:
  __slots__ = ("value", "_hash")

  def __init__(self, value, position):
    try:
      self._hash = hash(value)
    except TypeError:
      raise ValueError(
          f"Non-hashable static arguments are not supported. An error occurred while trying to "
          f"hash an object of type {type(value)}, {value}. The error was:\nTypeError: unhashable "
          f"type: '{type(value).__name__}'\n") from None
    self.value = value

  def __hash__(self):
    return self._hash

  def __eq__(self, other):
    return type(other) is _HashableStatic and type(self.value) is type(other.value) and \
        self.value == other.value


def _leaf_aval(x) -> ShapedArray:
  if type(x) in ref_frames.ref_types:
    return x._typeof()  # Ref{...}: jit reads and writes the ref (see _trace_with_refs)
  aval = getattr(x, "aval", None)
  if aval is not None and isinstance(aval, ShapedArray):
    return aval
  if isinstance(x, ShapeDtypeStruct):
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype, allow_extended_dtype=True),
                       x.weak_type)
  try:
    return core.get_aval(x)
  except TypeError:
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _is_valid_argument(x) -> bool:
  try:
    _leaf_aval(x)
    return True
  except TypeError:
    return False


class _Split:
  """The dynamic leaves, their tree, and the static arguments of one call."""
  __slots__ = ("leaves", "in_tree", "statics", "dynamic_positions")


def _split_args(args, kwargs, static_argnums, static_argnames):
  nargs = len(args)
  static_positions = {i % nargs if i < 0 else i for i in static_argnums if -nargs <= i < nargs}
  statics = []
  dynamic_args = []
  dynamic_positions = []
  for i, a in enumerate(args):
    if i in static_positions:
      statics.append((i, _HashableStatic(a, i)))
    else:
      dynamic_args.append(a)
      dynamic_positions.append(i)
  dynamic_kwargs = {}
  for k, v in kwargs.items():
    if k in static_argnames:
      statics.append((k, _HashableStatic(v, k)))
    else:
      dynamic_kwargs[k] = v
  leaves, in_tree = tree_util.tree_flatten((tuple(dynamic_args), dynamic_kwargs))
  split = _Split()
  split.leaves = leaves
  split.in_tree = in_tree
  split.statics = tuple(statics)
  split.dynamic_positions = dynamic_positions
  return split


def _flat_fun(fun, split: _Split, nargs: int):
  """A function of the flat dynamic leaves that calls ``fun`` with the static args put back."""
  static_pos = {k: s.value for k, s in split.statics if isinstance(k, int)}
  static_kw = {k: s.value for k, s in split.statics if isinstance(k, str)}

  def flat(*leaves):
    dynamic_args, dynamic_kwargs = tree_util.tree_unflatten(split.in_tree, leaves)
    it = iter(dynamic_args)
    args = [static_pos[i] if i in static_pos else next(it) for i in range(nargs)]
    return fun(*args, **dynamic_kwargs, **static_kw)

  return flat


def _trace_split(fun, split: "_Split", in_avals, args, kwargs, static_argnums, traced_for):
  """Traces ``fun`` on the dynamic leaves of one call; returns (ClosedJaxpr, out tree)."""
  debug = staging.DebugInfo(traced_for, fun)
  debug.arg_names_fn = lambda: staging.flat_arg_names(fun, args, kwargs, static_argnums)
  if not config.jax_log_compiles:
    return staging.trace_to_jaxpr(_flat_fun(fun, split, len(args)), in_avals, debug)
  start = time.perf_counter()
  result = staging.trace_to_jaxpr(_flat_fun(fun, split, len(args)), in_avals, debug)
  execution.logger.warning("Finished tracing %s for %s in %.9f sec", debug.func_name, traced_for,
                           time.perf_counter() - start)
  return result


def _trace(fun, args, kwargs, static_argnums, static_argnames, traced_for):
  split = _split_args(args, kwargs, static_argnums, static_argnames)
  if ref_frames.refs_made[0]:
    return (split, *_trace_passing_refs(fun, split, args, kwargs, static_argnums, traced_for))
  # arguments laid out over a mesh are traced with their sharded types, as jit traces them
  in_avals = [x._typeof() if type(x) is not Array and hasattr(x, "_typeof") else _leaf_aval(x)
              for x in split.leaves]
  closed, out_tree = _trace_split(fun, split, in_avals, args, kwargs, static_argnums, traced_for)
  return split, closed, out_tree


def _trace_passing_refs(fun, split, args, kwargs, static_argnums, traced_for):
  """Traces ``fun`` (for make_jaxpr, eval_shape, ...) with the array refs among its leaves passed
  as they are; refs made outside are read as constants and their writes kept in the trace."""
  positions = [i for i, x in enumerate(split.leaves) if type(x) in ref_frames.ref_types]
  flat = _flat_fun(fun, split, len(args))

  def with_refs(*tracers):
    leaves = list(tracers)
    for position in positions:
      leaves.insert(position, split.leaves[position])
    frame = ref_frames.Frame(core.current_trace(), {})
    ref_frames.push(frame)
    try:
      return flat(*leaves)
    finally:
      ref_frames.pop(frame)

  avals = [_leaf_aval(x) for i, x in enumerate(split.leaves) if i not in positions]
  debug = staging.DebugInfo(traced_for, fun)
  debug.arg_names_fn = functools.partial(_names_with_refs, fun, args, kwargs, static_argnums,
                                         split, positions, ())
  return staging.trace_to_jaxpr(with_refs, avals, debug)


class _RefUse:
  """How one traced signature uses array refs made outside the function: where each ref comes
  from (``("arg", leaf position)`` or ``("closure", ref)``), which of them it writes (indices
  into ``sources``, in the order of the extra outputs), and the leaf positions holding refs."""
  __slots__ = ("sources", "written", "ref_leaves")

  def __init__(self, sources, written, ref_leaves):
    self.sources = sources
    self.written = written
    self.ref_leaves = ref_leaves


def _names_with_refs(fun, args, kwargs, static_argnums, split, ref_positions, found):
  """The argument names of a trace whose leading inputs are refs' values: a ref passed as an
  argument keeps its name, a closed-over one has none (as a constant)."""
  names = staging.flat_arg_names(fun, args, kwargs, static_argnums)
  by_ref = {id(split.leaves[p]): names[p] for p in ref_positions if p < len(names)}
  return ([by_ref.get(id(ref), "") for ref in found]
          + [name for i, name in enumerate(names) if i not in ref_positions])


def _trace_with_refs(fun, split, typed, args, kwargs, static_argnums):
  """``_trace_split`` for a program in which array refs exist: the refs the function uses become
  leading inputs (their values at call time) and, when written, trailing outputs. The first
  trace finds them; the function is traced again when it used any (``ref_frames``)."""
  start = time.perf_counter()
  ref_positions = [i for i, x in enumerate(split.leaves) if type(x) in ref_frames.ref_types]
  leaf_avals = [aval for i, aval in enumerate(typed) if i not in ref_positions]
  flat = _flat_fun(fun, split, len(args))
  found, found_avals = [], []
  for _ in range(8):
    frames, trees = [], []

    def run(*tracers):
      count = len(found)
      frame = ref_frames.Frame(core.current_trace(), dict(zip(found, tracers[:count])))
      frames.append(frame)
      leaves = list(tracers[count:])
      for position in ref_positions:
        leaves.insert(position, split.leaves[position])
      ref_frames.push(frame)
      try:
        out = flat(*leaves)
      finally:
        ref_frames.pop(frame)
      out_leaves, out_tree = tree_util.tree_flatten(out)
      trees.append(out_tree)
      return out_leaves + [frame.values[ref] for ref in frame.written]

    debug = staging.DebugInfo("jit", fun)
    debug.arg_names_fn = functools.partial(_names_with_refs, fun, args, kwargs, static_argnums,
                                           split, ref_positions, tuple(found))
    closed, _ = staging.trace_to_jaxpr(run, found_avals + leaf_avals, debug)
    frame = frames[-1]
    if not frame.new:
      break
    for ref in frame.new:  # seen for the first time: trace again with its value as an input
      found.append(ref)
      found_avals.append(core.get_aval(ref_frames.read(ref)))
  else:
    raise RuntimeError(f"jit of {getattr(fun, '__name__', fun)}: the array refs it uses kept "
                       "changing between traces")
  if config.jax_log_compiles:
    execution.logger.warning("Finished tracing %s for jit in %.9f sec", debug.func_name,
                             time.perf_counter() - start)
  if not found:
    return closed, trees[-1], None
  sources = []
  for ref in found:
    position = next((p for p in ref_positions if split.leaves[p] is ref), None)
    sources.append(("closure", ref) if position is None else ("arg", position))
  written = [found.index(ref) for ref in frame.written]
  return closed, trees[-1], _RefUse(sources, written, frozenset(ref_positions))


# ---------------------------------------------------------------------------
# jit


def _hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """Turns constvars bound to tracers (closed-over values of an outer trace) into leading invars."""
  jaxpr = closed.jaxpr
  keep_vars, keep_vals, hoisted_vars, hoisted_vals = [], [], [], []
  for var, val in zip(jaxpr.constvars, closed.consts):
    if isinstance(val, Tracer):
      hoisted_vars.append(var)
      hoisted_vals.append(val)
    else:
      keep_vars.append(var)
      keep_vals.append(val)
  if not hoisted_vars:
    return closed, []
  new = jaxpr.replace(constvars=keep_vars, invars=hoisted_vars + jaxpr.invars)
  return ClosedJaxpr(new, keep_vals), hoisted_vals


class _CacheEntry:
  """One traced signature: the jaxpr, the output tree, hoisted outer tracers, and (once called
  at top level) the compiled executable."""
  __slots__ = ("closed", "out_tree", "hoisted", "compiled", "builder", "plans", "refs")

  def __init__(self, closed, out_tree, hoisted, refs=None):
    self.refs = refs  # a _RefUse when the function reads or writes array refs made outside it
    self.closed = closed
    self.out_tree = out_tree
    self.hoisted = hoisted
    self.compiled = None
    self.builder = None
    self.plans = None  # call form -> plan (see JitFunction._add_plan)


_caches_by_function: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _shared_caches(fun, options) -> tuple:
  """The (trace cache, call plans, trace counter) of ``fun`` jitted with ``options``."""
  try:
    per_function = _caches_by_function.setdefault(fun, {})
  except TypeError:  # not weakly referenceable: a cache of its own
    return {}, [], cache_misses.TraceCounter()
  try:
    shared = per_function.get(options)
  except TypeError:  # unhashable options
    return {}, [], cache_misses.TraceCounter()
  if shared is None:
    shared = per_function[options] = ({}, [], cache_misses.TraceCounter())
  return shared


class JitFunction:
  """A function compiled with ``jit``: traced once per input signature, then compiled by XLA
  and cached; calls with a known signature go straight to the executable."""

  def __init__(self, fun, static_argnums=None, static_argnames=None, donate_argnums=None,
               donate_argnames=None, keep_unused=False, device=None, backend=None, inline=False,
               abstracted_axes=None, in_shardings=None, out_shardings=None, compiler_options=None):
    if not callable(fun):
      raise TypeError(f"Expected a callable value, got {fun!r}")
    if in_shardings is not None or out_shardings is not None:
      fun = spmd_jit.constrain_function(fun, in_shardings, out_shardings)
    self.fun = fun
    self.static_argnums = _normalize_argnums(static_argnums, fun)
    if isinstance(static_argnames, str):
      static_argnames = (static_argnames,)
    self.static_argnames = tuple(static_argnames or ())
    self.static_argnums = self.static_argnums + tuple(
        i for i in _argnames_to_argnums(fun, self.static_argnames) if i not in self.static_argnums)
    # Keyword arguments stay keywords (they are traced after the positional ones, by name, as
    # JAX traces them), so an argument named by position is also recognised by its name.
    self.static_argnames = self.static_argnames + tuple(
        n for n in _argnums_to_argnames(fun, self.static_argnums) if n not in self.static_argnames)
    self.donate_argnums = _normalize_argnums(donate_argnums, fun, "donate_argnums")
    if isinstance(donate_argnames, str):
      donate_argnames = (donate_argnames,)
    self.donate_argnames = tuple(donate_argnames or ())
    self.donate_argnums = self.donate_argnums + tuple(
        i for i in _argnames_to_argnums(fun, self.donate_argnames) if i not in self.donate_argnums)
    self.donate_argnames = self.donate_argnames + tuple(
        n for n in _argnums_to_argnames(fun, self.donate_argnums) if n not in self.donate_argnames)
    overlap = set(self.donate_argnums) & set(self.static_argnums)
    if overlap:
      raise ValueError(f"jit: static arguments cannot be donated (argument {sorted(overlap)[0]} is "
                       "in both static_argnums and donate_argnums)")
    self.keep_unused = keep_unused
    self.inline = inline
    if backend is not None and backend != "cpu":
      raise RuntimeError(f"Unknown backend {backend}. Available backends: ['cpu']")
    self.name = staging._function_name(fun)
    # jit(f) twice shares one cache, as in JAX: the traces are keyed by the function and the
    # jit options, not by the wrapper object.
    # _cache: signature -> entry; _plans: the call plans of recent signatures (calls at top
    # level, see _add_plan). Retraces are reported for functions the user jitted, when called
    # outside any trace (a function jitted inside library code, or called inside an outer
    # trace, is traced again whenever its caller is: the caller's report says why).
    self._cache, self._plans, self._traces = _shared_caches(
        fun, (self.static_argnums, self.static_argnames, self.donate_argnums,
              self.donate_argnames, keep_unused, inline))
    self._report_retraces = True
    functools.update_wrapper(self, fun, updated=())

  # -- tracing -------------------------------------------------------------------
  def _entry(self, args, kwargs):
    """(split arguments, cache entry) for a call, tracing on a miss."""
    split = _split_args(args, kwargs, self.static_argnums, self.static_argnames)
    in_avals = []
    try:
      for x in split.leaves:
        in_avals.append(x._aval if type(x) is Array else _leaf_aval(x))
    except TypeError:
      raise self._bad_argument_error(split, args, kwargs) from None
    in_avals = tuple(in_avals)
    trace_state = config.trace_state
    # Arguments laid out over a mesh are traced with their sharded types (jax.typeof), and
    # values inside shard_map bodies carry the axes they vary over: both key the trace
    # (avals compare equal without them).
    typed = tuple(x._typeof() if type(x) is not Array and hasattr(x, "_typeof") else aval
                  for x, aval in zip(split.leaves, in_avals))
    layouts = tuple((getattr(t, "sharding", None), getattr(t, "vma", None)) for t in typed
                    if type(t) is not ShapedArray)
    key = (split.in_tree, in_avals, split.statics, len(args), trace_state, layouts)
    entry = self._cache.get(key)
    if entry is None:
      refs = None
      if ref_frames.refs_made[0]:
        closed, out_tree, refs = _trace_with_refs(self.fun, split, typed, args, kwargs,
                                                  self.static_argnums)
      else:
        closed, out_tree = _trace_split(self.fun, split, typed, args, kwargs,
                                        self.static_argnums, "jit")
      closed, hoisted = _hoist_tracer_consts(closed)
      entry = _CacheEntry(closed, out_tree, hoisted, refs)
      if not hoisted:
        self._cache[key] = entry
      if self._report_retraces and core._context.trace is core.eval_trace:
        self._traces.record(self.name, lambda: cache_misses.Signature(
            staging.flat_arg_names(self.fun, args, kwargs, self.static_argnums), in_avals,
            split.in_tree, split.statics, trace_state))
    return args, kwargs, split, entry

  def _donated_leaves(self, args, kwargs, split) -> tuple[int, ...]:
    if not self.donate_argnums and not self.donate_argnames:
      return ()
    nargs = len(args)
    donated = {i % nargs if i < 0 else i for i in self.donate_argnums if -nargs <= i < nargs}
    positions, start = [], 0
    for position in split.dynamic_positions:
      count = len(tree_util.tree_leaves(args[position]))
      if position in donated:
        positions.extend(range(start, start + count))
      start += count
    # then the dynamic keyword arguments, in the order their dict flattens (sorted names)
    for name in sorted(k for k in kwargs if k not in self.static_argnames):
      count = len(tree_util.tree_leaves(kwargs[name]))
      if name in self.donate_argnames:
        positions.extend(range(start, start + count))
      start += count
    return tuple(positions)


  def _bad_argument_error(self, split, args, kwargs) -> TypeError:
    position = next(i for i, x in enumerate(split.leaves) if not _is_valid_argument(x))
    bad = split.leaves[position]
    names = staging.flat_arg_names(self.fun, args, kwargs, self.static_argnums)
    path = names[position] if position < len(names) else f"args[{position}]"
    return TypeError(
        f"Error interpreting argument to {self.fun!r} as an abstract array. The problematic "
        f"value is of type {type(bad)} and was passed to the function at path {path}.\n"
        "This typically means that a jit-wrapped function was called with a non-array argument, "
        "and this argument was not marked as static using the static_argnums or static_argnames "
        "parameters of jax.jit.")

  # -- calling ----------------------------------------------------------------------
  def __call__(self, *args, **kwargs):
    try:
      if core._context.trace is not core.eval_trace:
        return self._call_traced(args, kwargs)
      # The call plans of the signatures seen last: each checks its signature and runs, or
      # answers MISMATCH having done nothing.
      plans = self._plans
      if plans:
        for plan in plans:
          out = plan(args, kwargs)
          if out is not _MISMATCH:
            if plan is not plans[0]:
              try:
                plans.remove(plan)
                plans.insert(0, plan)
              except ValueError:  # another thread moved it
                pass
            return out
      if config.jax_disable_jit:
        return self.fun(*args, **kwargs)
      call_args, call_kwargs = args, kwargs
      args, kwargs, split, entry = self._entry(args, kwargs)
      if entry.refs is not None:
        return self._call_with_refs(split, entry, traced=False)
      if entry.hoisted or (eval_interpreter.compile_time_eval_depth[0]
                           and any(isinstance(x, Tracer) for x in split.leaves)):
        # Inside ensure_compile_time_eval, a call on traced values is staged by their trace
        # (the eval trace hands an equation with a tracer operand to that tracer's trace).
        outs = jit_p.bind(*entry.hoisted, *split.leaves, jaxpr=entry.closed, name=self.name)
        return tree_util.tree_unflatten(entry.out_tree, outs)
      compiled = entry.compiled
      if compiled is None:  # the first call of this signature at top level
        compiled = entry.compiled = execution.CompiledCall(
            entry.closed, self.name, self._donated_leaves(args, kwargs, split), self.keep_unused)
      checks = eval_interpreter.special_checks
      outs = compiled.run(split.leaves)
      if checks.enabled:
        self._check_special_outputs(outs, args, kwargs)
      else:
        self._add_plan(call_args, call_kwargs, split, entry)
      return tree_util.tree_unflatten(entry.out_tree, outs)
    except Exception as exc:  # the traceback the user reads: their frames, not axle's
      if traceback_util.filtering_enabled():
        traceback_util.filter_exception(exc)
      raise

  def _add_plan(self, args, kwargs, split, entry) -> None:
    """Remembers a call plan for the signature of a call just made (``args``, ``kwargs`` as
    the caller passed them): later calls with the same tree structure, leaf types and avals,
    static values, keyword names and trace flags run through it without flattening or
    tracing machinery."""
    # A signature's plans are kept with it: one that drops out of the recent few and comes
    # back is not generated again.
    form = (len(args), tuple(sorted(kwargs)),
            tuple([(type(x), x.dtype) if type(x) is np.ndarray else type(x) for x in split.leaves]))
    if entry.plans is None:
      entry.plans = {}
    plan = entry.plans.get(form, _MISMATCH)
    if plan is _MISMATCH:
      plan = entry.plans[form] = self._new_plan(args, kwargs, split, entry)
    if plan is None:
      return
    plans = self._plans
    plans.insert(0, plan)
    del plans[_MAX_PLANS:]

  def _new_plan(self, args, kwargs, split, entry):
    builder = entry.builder
    if builder is None:
      builder = entry.builder = tree_util.treedef_builder(entry.out_tree)
    runner = execution.signature_runner(entry.compiled, split.leaves, builder)
    if runner is None:
      return None
    if kwargs:
      return self._keyword_plan(args, kwargs, split, runner)
    return _make_plan(len(args), split, runner, config.trace_state)

  def _keyword_plan(self, args, kwargs, split, runner):
    """The plan of a call with keyword arguments: where each argument of the call comes
    from (keywords stay keywords, traced after the positional arguments by name)."""
    resolved_args = tuple(_Source(("args", i)) for i in range(len(args)))
    resolved_kwargs = {name: _Source(("kwargs", name)) for name in kwargs}
    tagged = _split_args(resolved_args, resolved_kwargs, self.static_argnums,
                         self.static_argnames)
    if len(tagged.statics) != len(split.statics) or any(
        type(s.value) is not _Source for _, s in tagged.statics):
      return None
    # what the plan reads: each dynamic positional argument, then each dynamic keyword
    positional = tuple(resolved_args[i].origin for i in tagged.dynamic_positions)
    keywords = tuple(name for name in resolved_kwargs if name not in self.static_argnames)
    statics = tuple((s.value.origin, type(value.value), value.value)
                    for (_, s), (_, value) in zip(tagged.statics, split.statics))
    return _make_keyword_plan(len(args), tuple(kwargs), positional, keywords, statics, split,
                              runner, config.trace_state)

  def _check_special_outputs(self, outs, args, kwargs):
    """With jax_debug_nans/infs: when an output is NaN/inf, runs the function again op by op
    (its Python, eagerly) so the operation that produced it raises FloatingPointError at the
    user's line; raises here if the op-by-op run produces none."""
    kind = eval_interpreter.special_value_kind(outs)
    if kind is None:
      return
    print(eval_interpreter.DEOPTIMIZED_MESSAGE)
    self.fun(*args, **kwargs)
    raise FloatingPointError(_deoptimized_clean_message(f"jit({self.name})", kind))

  def _call_traced(self, args, kwargs):
    if config.jax_disable_jit or self.inline:
      return self.fun(*args, **kwargs)
    args, kwargs, split, entry = self._entry(args, kwargs)
    if entry.refs is not None:
      return self._call_with_refs(split, entry, traced=True)
    outs = jit_p.bind(*entry.hoisted, *split.leaves, jaxpr=entry.closed, name=self.name)
    return tree_util.tree_unflatten(entry.out_tree, outs)

  def _call_with_refs(self, split, entry, traced: bool):
    """A call of a signature that uses array refs: their values go in before the arguments,
    and the values it wrote come out after the results and are written back."""
    use = entry.refs
    refs = [split.leaves[where] if kind == "arg" else where for kind, where in use.sources]
    values = [ref_frames.read(ref) for ref in refs]
    leaves = [leaf for i, leaf in enumerate(split.leaves) if i not in use.ref_leaves]
    if traced or entry.hoisted:
      outs = jit_p.bind(*entry.hoisted, *values, *leaves, jaxpr=entry.closed, name=self.name)
    else:
      if entry.compiled is None:
        entry.compiled = execution.CompiledCall(entry.closed, self.name, (), self.keep_unused)
      outs = entry.compiled.run(values + leaves)
    count = len(outs) - len(use.written)
    for position, value in zip(use.written, outs[count:]):
      ref_frames.write(refs[position], value)
    return tree_util.tree_unflatten(entry.out_tree, list(outs[:count]))

  # -- ahead of time ------------------------------------------------------------------
  def trace(self, *args, **kwargs) -> "Traced":
    """Traces the function for these arguments without running it (``jit(f).trace(x)``)."""
    args, kwargs, split, entry = self._entry(args, kwargs)
    return Traced(entry.closed, entry.out_tree, self, split, self._donated_leaves(args, kwargs, split),
                  spmd_jit.arguments_layout(entry.closed, split.leaves))

  def lower(self, *args, **kwargs) -> "Lowered":
    """Traces and lowers the function for these arguments (arrays or ShapeDtypeStructs);
    ``.as_text()`` shows the StableHLO, ``.compile()`` compiles it."""
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    """The output shapes and dtypes for these arguments, as ShapeDtypeStructs."""
    args, kwargs, split, entry = self._entry(args, kwargs)
    return tree_util.tree_unflatten(entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                                     for a in entry.closed.out_avals])

  def clear_cache(self):
    """Forgets every traced and compiled signature of this function (and of every ``jit`` of
    the same function with the same options, which share one cache)."""
    self._cache.clear()
    self._plans.clear()

  def _cache_size(self) -> int:
    return len(self._cache)

  def __get__(self, instance, owner=None):
    if instance is None:
      return self
    return functools.partial(self, instance)

  def __repr__(self):
    return f"<PjitFunction of {self.fun!r}>"


# Call plans kept per jitted function (most recently used first).
_MAX_PLANS = 8
_MISMATCH = execution.MISMATCH


class _Source:
  """Stands for an argument while working out where a keyword call's arguments go."""
  __slots__ = ("origin",)

  def __init__(self, origin):
    self.origin = origin


def _static_matches(arg, kind, value) -> bool:
  try:
    return type(arg) is kind and (arg is value or bool(arg == value))
  except Exception:
    return False


def _make_plan(nargs: int, split: _Split, runner, trace_state):
  """``(args, kwargs) -> outputs or _MISMATCH`` for calls with ``nargs`` positional arguments
  and no keywords whose static ones equal this call's, whose dynamic ones have this call's
  tree structure (checked by generated code, see ``tree_util.treedef_leaf_getter``) and whose
  leaves match ``runner``'s signature, under the same trace flags."""
  dynamic_tree = tree_util.treedef_children(split.in_tree)[0]
  getter = tree_util.treedef_leaf_getter(dynamic_tree, check_leaves=False)
  statics = tuple((i, type(s.value), s.value) for i, s in split.statics)
  positions = tuple(split.dynamic_positions)
  the_config = config

  if not statics:
    def plan(args, kwargs):
      if len(args) != nargs or kwargs or (the_config.trace_state is not trace_state
                                          and the_config.trace_state != trace_state):
        return _MISMATCH
      leaves = getter(args)
      if leaves is None:
        return _MISMATCH
      return runner(leaves)
    return plan

  if len(statics) == 1 and len(positions) == 1:
    # f(x, n) with n static, the commonest form: no loops (n is usually the very same object)
    ((static_position, static_kind, static_value),) = statics
    (dynamic_position,) = positions

    def plan_with_one_static(args, kwargs):
      if len(args) != nargs or kwargs or (the_config.trace_state is not trace_state
                                          and the_config.trace_state != trace_state):
        return _MISMATCH
      arg = args[static_position]
      if arg is not static_value and not _static_matches(arg, static_kind, static_value):
        return _MISMATCH
      leaves = getter((args[dynamic_position],))
      if leaves is None:
        return _MISMATCH
      return runner(leaves)
    return plan_with_one_static

  def plan_with_statics(args, kwargs):
    if len(args) != nargs or kwargs or (the_config.trace_state is not trace_state
                                        and the_config.trace_state != trace_state):
      return _MISMATCH
    for i, kind, value in statics:
      arg = args[i]
      if arg is not value and not _static_matches(arg, kind, value):
        return _MISMATCH
    leaves = getter(tuple([args[i] for i in positions]))
    if leaves is None:
      return _MISMATCH
    return runner(leaves)
  return plan_with_statics


def _make_static_keyword_plan(nargs: int, names: tuple, positional: tuple, statics: tuple,
                              split: _Split, runner, trace_state):
  """``_make_keyword_plan`` where every keyword argument is static: the keywords are only
  compared, and the dynamic arguments are positional ones, read by the positional getter."""
  getter = tree_util.treedef_leaf_getter(tree_util.treedef_children(split.in_tree)[0],
                                         check_leaves=False)
  indices = tuple(key for _, key in positional)
  keyword_statics = tuple((key, kind, value) for (where, key), kind, value in statics
                          if where == "kwargs")
  positional_statics = tuple((key, kind, value) for (where, key), kind, value in statics
                             if where == "args")
  count = len(names)
  the_config = config

  def static_keyword_plan(args, kwargs):
    if len(args) != nargs or len(kwargs) != count or (
        the_config.trace_state is not trace_state and the_config.trace_state != trace_state):
      return _MISMATCH
    # (as many keywords as static names, each present: the same names)
    for name, kind, value in keyword_statics:
      arg = kwargs.get(name, _MISMATCH)
      if arg is not value and not _static_matches(arg, kind, value):
        return _MISMATCH
    for i, kind, value in positional_statics:
      arg = args[i]
      if arg is not value and not _static_matches(arg, kind, value):
        return _MISMATCH
    leaves = getter(tuple([args[i] for i in indices]))
    if leaves is None:
      return _MISMATCH
    return runner(leaves)
  return static_keyword_plan


def _make_keyword_plan(nargs: int, names: tuple, positional: tuple, keywords: tuple,
                       statics: tuple, split: _Split, runner, trace_state):
  """``_make_plan`` for calls with keyword arguments ``names`` (in any order): the dynamic
  arguments are gathered from where ``positional``/``keywords`` say, the static ones checked
  where ``statics`` say, then the whole dynamic tree goes through one generated getter."""
  the_config = config
  if not keywords and sum(where == "kwargs" for (where, _), _, _ in statics) == len(names):
    # every keyword argument is static (axis=, dtype=, keepdims=, ...)
    return _make_static_keyword_plan(nargs, names, positional, statics, split, runner,
                                     trace_state)
  getter = tree_util.treedef_leaf_getter(split.in_tree, check_leaves=False)
  name_set = frozenset(names)

  def keyword_plan(args, kwargs):
    if len(args) != nargs or len(kwargs) != len(names) or (
        the_config.trace_state is not trace_state and the_config.trace_state != trace_state):
      return _MISMATCH
    if kwargs.keys() != name_set:
      return _MISMATCH
    for (where, key), kind, value in statics:
      if not _static_matches(args[key] if where == "args" else kwargs[key], kind, value):
        return _MISMATCH
    dynamic_args = tuple([args[key] if where == "args" else kwargs[key]
                          for where, key in positional])
    leaves = getter((dynamic_args, {name: kwargs[name] for name in keywords}))
    if leaves is None:
      return _MISMATCH
    return runner(leaves)
  return keyword_plan


def _out_structs(avals, out_tree):
  return tree_util.tree_unflatten(
      out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals])


class Traced:
  """The result of ``jit(f).trace(...)``: the jaxpr and output structure; ``.lower()``."""

  def __init__(self, jaxpr: ClosedJaxpr, out_tree, jitted=None, split=None, donated=(),
               layout=None):
    self._layout = layout  # (mesh, input specs) of arguments laid out over a mesh
    self.jaxpr = jaxpr
    self.out_tree = out_tree
    self.out_info = _out_structs(jaxpr.out_avals, out_tree)
    self._jitted = jitted
    self._split = split
    self._donated = donated

  def lower(self) -> "Lowered":
    return Lowered(self.jaxpr, self.out_tree, self._jitted, self._split, self._donated,
                   self._layout)


class Lowered:
  """A traced function lowered to StableHLO (``jit(f).lower(*args)``)."""

  def __init__(self, jaxpr: ClosedJaxpr, out_tree, jitted, split, donated, layout=None):
    self._layout = layout
    self._spmd = None
    self._jaxpr = jaxpr
    self._jitted = jitted
    self._split = split
    self._donated = donated
    self.out_tree = out_tree
    self.in_tree = split.in_tree
    self.out_info = _out_structs(jaxpr.out_avals, out_tree)
    self.args_info = tree_util.tree_unflatten(split.in_tree, [
        ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in jaxpr.in_avals])
    self._text = None

  def _program(self):
    """The jaxpr XLA is given and its donated leaves (unused arguments pruned unless the
    function was jitted with ``keep_unused=True``)."""
    keep_unused = getattr(self._jitted, "keep_unused", False)
    program, _, donated = execution.prune_unused(self._jaxpr, self._donated, keep_unused)
    return program, donated

  def _spmd_call(self):
    if self._spmd is None:
      self._spmd = spmd_jit.compiled_for_layout(self._jaxpr, self._jitted.name, self._layout,
                                                self._donated)
    return self._spmd

  def _module_text(self) -> str:
    if self._text is None:
      if self._layout is not None:  # arguments over a mesh: the SPMD module, annotated
        self._text = self._spmd_call().text
      else:
        program, donated = self._program()
        self._text, _, _ = execution.lower_call(program, self._jitted.name, donated)
    return self._text

  def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
    """The StableHLO module as MLIR text; ``debug_info=True`` adds each operation's location:
    its ``jit(f)/named_scope/primitive`` name and the user's file:line:column."""
    if debug_info:
      program, donated = self._program()
      text, _, _ = execution.lower_call(program, self._jitted.name, donated, debug_info=True)
      return client.pretty_mlir(text, debug_info=True)
    return client.pretty_mlir(self._module_text())

  def compiler_ir(self, dialect: str | None = None) -> str:
    """The StableHLO module (as text: axle keeps no MLIR objects)."""
    return self.as_text()

  def compile(self, compiler_options=None) -> "Compiled":
    """Compiles the module with XLA."""
    if self._layout is not None:
      return Compiled(self._spmd_call(), self.in_tree, self.out_tree, self._split)
    compiled = execution.CompiledCall(self._jaxpr, self._jitted.name, self._donated,
                                      getattr(self._jitted, "keep_unused", False))
    return Compiled(compiled, self.in_tree, self.out_tree, self._split)

  def cost_analysis(self):
    return self.compile().cost_analysis()


def _no_runner(leaves):
  return _MISMATCH


def _no_leaves(args):
  return None


class Compiled:
  """An XLA executable for one signature (``jit(f).lower(*args).compile()``); callable."""

  def __init__(self, compiled, in_tree, out_tree, split):
    self._compiled = compiled
    self.in_tree = in_tree
    self.out_tree = out_tree
    self._statics = split.statics
    self._runner = None  # the generated call, made on the first call (see ``_add_runner``)
    self._leaf_getter = None
    self._runner_trace_state = None
    self.out_info = _out_structs(compiled.out_avals, out_tree)
    self.args_info = tree_util.tree_unflatten(in_tree, [
        ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in compiled.in_avals])

  def as_text(self) -> str:
    """XLA's optimised HLO for the program."""
    return self._compiled.executable.hlo_text()

  def cost_analysis(self) -> dict:
    """XLA's cost estimate: flops, transcendentals, bytes accessed."""
    return self._compiled.executable.cost_analysis()

  def memory_analysis(self):
    """XLA's memory statistics: argument, output, temporary and code sizes in bytes."""
    return self._compiled.executable.memory_analysis()

  def __call__(self, *args, **kwargs):
    runner = self._runner
    if runner is not None and not kwargs and core._context.trace is core.eval_trace \
        and not eval_interpreter.special_checks.enabled \
        and (config.trace_state is self._runner_trace_state
             or config.trace_state == self._runner_trace_state):
      # a call like the last one: the generated call of the jit path (``_add_plan``)
      leaves = self._leaf_getter(args)
      if leaves is not None:
        out = runner(leaves)
        if out is not _MISMATCH:
          return out
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    expected = self._compiled.in_avals
    if in_tree != self.in_tree:
      raise TypeError(f"Function compiled with input pytree does not match the input pytree it "
                      f"was called with: expected {self.in_tree}, got {in_tree}")
    for i, (leaf, aval) in enumerate(zip(leaves, expected)):
      got = _leaf_aval(leaf)
      if got.shape != aval.shape or got.dtype != aval.dtype:
        if type(leaf) is not Array and hasattr(leaf, "_typeof"):
          got = leaf._typeof()  # with its sharding, as the compiled side shows it
        raise TypeError(
            "Argument types differ from the types for which this computation was compiled. "
            f"The mismatches are:\nArgument {i} compiled with {aval.str_short()} and called "
            f"with {got.str_short()}")
    outs = self._compiled.run(leaves)
    if runner is None and not kwargs and core._context.trace is core.eval_trace:
      self._add_runner(leaves)
    return tree_util.tree_unflatten(self.out_tree, outs)

  def _add_runner(self, leaves) -> None:
    """Generates the call for arguments of the types of ``leaves`` (a call just made), as jit
    does for a signature seen before (none for keyword arguments or unusual leaves)."""
    args_tree, kwargs_tree = tree_util.treedef_children(self.in_tree)
    runner = None
    if not tree_util.treedef_children(kwargs_tree):
      runner = execution.signature_runner(self._compiled, leaves,
                                          tree_util.treedef_builder(self.out_tree))
    if runner is None:
      self._runner = _no_runner
      self._leaf_getter = _no_leaves
    else:
      self._leaf_getter = tree_util.treedef_leaf_getter(args_tree, check_leaves=False)
      self._runner = runner
    # (made under these flags: x64 changes how Python scalars read, so others check fully)
    self._runner_trace_state = config.trace_state


def jit(fun: Callable | None = None, *, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, keep_unused=False, device=None, backend=None,
        inline=False, abstracted_axes=None, in_shardings=None, out_shardings=None,
        compiler_options=None):
  """Sets up ``fun`` for just-in-time compilation: traced once per input signature
  (tree structure, shapes, dtypes, weak types and static argument values), then cached.

  ``static_argnums``/``static_argnames`` name arguments passed as Python values that the
  trace may depend on (they must be hashable); a new value triggers a new trace.
  Usable as a decorator, with or without arguments.
  """
  kwargs = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                abstracted_axes=abstracted_axes, in_shardings=in_shardings,
                out_shardings=out_shardings, compiler_options=compiler_options)
  if fun is None:
    return lambda f: JitFunction(f, **kwargs)
  return JitFunction(fun, **kwargs)


def clear_caches() -> None:
  """Clears every in-memory compilation and staging cache: the traces and executables of all
  jitted functions and the executables used for eager operations. The persistent (on-disk)
  compilation cache is left alone."""
  for per_function in list(_caches_by_function.values()):
    for cache, plans, _ in list(per_function.values()):
      cache.clear()
      plans.clear()
  execution.clear_caches()
  deferred.clear_caches()


@contextlib.contextmanager
def disable_jit(disable: bool = True):
  """Context manager under which jitted functions run their Python op by op (eagerly), so
  values can be printed and inspected; for debugging."""
  previous = config.jax_disable_jit
  config.update("jax_disable_jit", disable)
  try:
    yield
  finally:
    config.update("jax_disable_jit", previous)


def jit_when_tracing(fun: Callable | None = None, **jit_kwargs):
  """``fun`` as JAX's library functions wrapped in ``jit``: eagerly it runs as one compiled
  program (so its numbers are XLA's, as JAX's are); traced, it is staged as its own ``jit``
  equation (``jit[name=...]`` in jaxprs, as ``jnp.where`` or ``lax.dynamic_index_in_dim``), or,
  with ``inline=True``, traced in place (as JAX's ``jnp.mean`` or ``jnp.matmul``: inlined in
  jaxprs, one compiled program eagerly). ``axle_fast_eager`` and ``disable_jit`` run it op by
  op. An inline function called eagerly with arguments ``jit`` would read differently (lists,
  other Python containers, unhashable static values) also runs op by op.
  ``eager_shortcut``: called first with the same arguments when nothing is traced; a result
  other than None is returned as it is (a host kernel known to give the compiled program's
  bits)."""
  inline = jit_kwargs.get("inline", False)
  eager_shortcut = jit_kwargs.pop("eager_shortcut", None)

  def wrap(fun):
    jitted = jit(fun, **jit_kwargs)
    jitted._report_retraces = False  # library code: its retraces follow its callers'
    plans = jitted._plans  # (the call plans of ``jitted.__call__``, the latest first)
    mismatch = _MISMATCH
    context = core._context
    eval_trace = core.eval_trace

    def latest_plan(args, kwargs):
      """The latest call plan of ``jitted`` on this call, without jit's own call layer (MISMATCH
      where it does not apply); errors are filtered as jit filters them."""
      try:
        return plans[0](args, kwargs)
      except Exception as exc:
        if traceback_util.filtering_enabled():
          traceback_util.filter_exception(exc)
        raise
    if not inline:
      @functools.wraps(fun)
      def wrapper(*args, **kwargs):
        if context.trace is eval_trace:
          if config.eager_op_by_op:
            return fun(*args, **kwargs)
          if eager_shortcut is not None:
            out = eager_shortcut(*args, **kwargs)
            if out is not None:
              return out
          if plans:  # (a call like the last one)
            out = latest_plan(args, kwargs)
            if out is not mismatch:
              return out
        return jitted(*args, **kwargs)
      return wrapper

    static_names = frozenset(jit_kwargs.get("static_argnames", ()))
    parameters = list(inspect.signature(fun).parameters)
    static_positions = frozenset(i for i, name in enumerate(parameters) if name in static_names)

    @functools.wraps(fun)
    def inline_wrapper(*args, **kwargs):
      if core._context.trace is not core.eval_trace or config.eager_op_by_op:
        return fun(*args, **kwargs)
      if eager_shortcut is not None:
        out = eager_shortcut(*args, **kwargs)
        if out is not None:
          return out
      for position, value in enumerate(args):
        if not (type(value) is Array or (_compiles_as_static(value) if position in static_positions
                                         else _compiles_as_operand(value))):
          return fun(*args, **kwargs)
      for name, value in kwargs.items():
        if not (type(value) in _PLAIN_OPERAND_OR_STATIC
                or (_compiles_as_static(value) if name in static_names
                    else _compiles_as_operand(value))):
          return fun(*args, **kwargs)
      if plans:
        out = latest_plan(args, kwargs)
        if out is not mismatch:
          return out
      return jitted(*args, **kwargs)
    return inline_wrapper

  return wrap if fun is None else wrap(fun)


# Values jit reads as the eager function would, whether static or not: Arrays, Python scalars
# (hashable statics; weakly typed operands) and None.
_PLAIN_OPERAND_OR_STATIC = frozenset({Array, int, float, bool, type(None)})


def _compiles_as_operand(value) -> bool:
  """Whether ``jit`` reads ``value`` as the eager function would: an array, a NumPy value, a
  Python scalar, None, or a list/tuple of arrays (``jnp.stack([x, y])``)."""
  if value is None or type(value) in (bool, int, float, complex, np.ndarray):
    return True
  if type(value) in (list, tuple):
    return bool(value) and all(type(v) is Array for v in value)
  return isinstance(value, np.generic)  # (arrays laid out over a mesh run op by op)


def _compiles_as_static(value) -> bool:
  try:
    hash(value)
  except TypeError:
    return False
  return not isinstance(value, (Array, Tracer, np.ndarray))


# ---------------------------------------------------------------------------
# make_jaxpr, eval_shape


class ShapeDtypeStruct:
  """A shape, dtype (and weak type) standing in for an array: ``eval_shape``'s result type
  and an argument type accepted by ``eval_shape``, ``make_jaxpr`` and ``jit(...).trace``."""
  __slots__ = ("shape", "dtype", "sharding", "weak_type")

  def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
    self.shape = tuple(shape)
    if dtype is None:
      raise ValueError("ShapeDtypeStruct: dtype must be specified.")
    self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
    self.sharding = sharding
    self.weak_type = weak_type

  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

  @staticmethod
  def like(x) -> "ShapeDtypeStruct":
    """The ShapeDtypeStruct of ``x`` (an array, a tracer or another ShapeDtypeStruct): its
    shape, dtype and weak type, and its sharding when ``x`` is a ShapeDtypeStruct."""
    aval = x.aval if isinstance(x, ShapeDtypeStruct) else core.get_aval(x)
    sharding = x.sharding if isinstance(x, ShapeDtypeStruct) else None
    return ShapeDtypeStruct(aval.shape, aval.dtype, sharding=sharding, weak_type=aval.weak_type)

  def update(self, **changes) -> "ShapeDtypeStruct":
    """A copy with ``shape``, ``dtype``, ``sharding`` or ``weak_type`` replaced."""
    fields = dict(shape=self.shape, dtype=self.dtype, sharding=self.sharding,
                  weak_type=self.weak_type)
    unknown = set(changes) - set(fields)
    if unknown:
      raise TypeError(f"ShapeDtypeStruct.update got unexpected fields {sorted(unknown)}; it "
                      f"accepts {sorted(fields)}.")
    fields.update(changes)
    shape, dtype = fields.pop("shape"), fields.pop("dtype")
    return ShapeDtypeStruct(shape, dtype, **fields)

  @property
  def aval(self):
    return ShapedArray(self.shape, dtypes.canonicalize_dtype(self.dtype), self.weak_type)

  def __len__(self):
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]

  def __repr__(self):
    weak = ", weak_type=True" if self.weak_type else ""
    sharding = f", sharding={self.sharding}" if self.sharding is not None else ""
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"

  def __eq__(self, other):
    return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
            and self.dtype == other.dtype and self.weak_type == other.weak_type)

  def __hash__(self):
    return hash((self.shape, self.dtype, self.weak_type))


def make_jaxpr(fun: Callable, static_argnums=(), axis_env=None, return_shape: bool = False,
               abstracted_axes=None) -> Callable[..., ClosedJaxpr]:
  """Returns a function that, given example arguments, traces ``fun`` and returns its
  ClosedJaxpr (closed-over arrays become constvars, Python scalars become literals).

  With ``return_shape=True`` it returns ``(jaxpr, out_shape)`` where ``out_shape`` is a pytree of
  ShapeDtypeStructs.
  """
  static_argnums = _normalize_argnums(static_argnums, fun)

  @traceback_util.api_boundary
  @functools.wraps(fun)
  def make_jaxpr_f(*args, **kwargs):
    _, closed, out_tree = _trace(fun, args, kwargs, static_argnums, (), "jit")
    if return_shape:
      shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
      return closed, tree_util.tree_unflatten(out_tree, shapes)
    return closed

  make_jaxpr_f.__name__ = f"make_jaxpr({getattr(fun, '__name__', 'fun')})"
  return make_jaxpr_f


@traceback_util.api_boundary
def eval_shape(fun: Callable, *args, **kwargs):
  """The output shapes and dtypes of ``fun(*args, **kwargs)`` without computing anything.

  Arguments may be arrays or anything with ``.shape`` and ``.dtype`` (e.g. ShapeDtypeStruct);
  returns a pytree of ShapeDtypeStructs.
  """
  def to_struct_leaf(x):
    if isinstance(x, (ShapeDtypeStruct, Array, Tracer, np.ndarray)) or core.valid_jaxtype(x):
      return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
      return ShapeDtypeStruct(x.shape, x.dtype)
    return x

  args = tree_util.tree_map(to_struct_leaf, args)
  kwargs = tree_util.tree_map(to_struct_leaf, kwargs)
  _, closed, out_tree = _trace(fun, args, kwargs, (), (), "eval_shape")
  shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals]
  return tree_util.tree_unflatten(out_tree, shapes)


# ---------------------------------------------------------------------------
# Names and types


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
  """``fun`` with its operations staged under the name ``name`` (default: the function's name):
  the name prefixes their location in the lowered program, as ``named_scope`` does."""
  if name is None:
    name = staging._function_name(fun)

  @functools.wraps(fun)
  def named(*args, **kwargs):
    with source_info_util.extend_name_stack(name):
      return fun(*args, **kwargs)

  return named


@contextlib.contextmanager
def named_scope(name: str):
  """A context that names the operations staged inside it: their location in the lowered
  program (``Lowered.as_text(debug_info=True)``) reads ``jit(f)/name/op``, and
  ``pretty_print(name_stack=True)`` shows it. Scopes nest."""
  if not isinstance(name, str):
    raise TypeError("named_scope name argument must be a string.")
  with source_info_util.extend_name_stack(name):
    yield


@contextlib.contextmanager
def ensure_compile_time_eval():
  """Within the block, operations on concrete values run right away (eagerly) even while a
  function is being traced by ``jit``, so their results are concrete constants."""
  eval_interpreter.compile_time_eval_depth[0] += 1
  try:
    with core.set_current_trace(core.eval_trace):
      yield
  finally:
    eval_interpreter.compile_time_eval_depth[0] -= 1


def typeof(x) -> ShapedArray:
  """The abstract value (shape, dtype, weak type) of an array, tracer or scalar; for an array
  laid out over a mesh, with its sharding."""
  typed = getattr(x, "_typeof", None)
  return typed() if typed is not None else core.get_aval(x)
