"""``checkpoint`` / ``remat``: trading computation for memory in reverse mode.

``checkpoint(f)`` binds ``remat2``, a primitive carrying ``f``'s jaxpr. Its partial-evaluation
rule (used by linearize) saves no intermediate values by default: the known part computes only
the primal outputs, and the staged part recomputes what the tangents need from the inputs when
the linear jaxpr is transposed. A ``policy`` (``checkpoint_policies.dots_saveable``, ...) names
the equations whose outputs may be saved instead of recomputed.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import weakref
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src.config import config
from axle._src import source_info as source_info_util
from axle._src import tree_util
from axle._src import differentiation
from axle._src.array import Array
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import staging

remat_p = core.Primitive("remat2")
remat_p.multiple_results = True


def _remat_abstract_eval(*avals, jaxpr, **_):
  return list(jaxpr.out_avals)


def _remat_impl(*args, jaxpr, **_):
  with core.set_current_trace(core.eval_trace):
    outs = ir.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *[Array(a) for a in args])
  import numpy as np
  return [np.asarray(o) for o in outs]


def _remat_lowering(ctx, *args, jaxpr, **_):
  return lowering.jaxpr_subcomp(ctx, jaxpr.jaxpr, jaxpr.consts, args)


remat_p.def_abstract_eval(_remat_abstract_eval)
remat_p.def_impl(_remat_impl)
lowering.register(remat_p, _remat_lowering)


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
  nonzeros = [type(t) is not ad.Zero for t in tangents]
  jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
  outs = remat_p.bind(*primals, *[t for t in tangents if type(t) is not ad.Zero],
                      jaxpr=jvp_closed, prevent_cse=prevent_cse, differentiated=differentiated,
                      policy=policy)
  n = len(jaxpr.out_avals)
  tangent_outs = iter(outs[n:])
  return outs[:n], [next(tangent_outs) if nz else ad.Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _saveable(policy, eqn) -> bool:
  if policy is None:
    return False
  return bool(policy(eqn.primitive, *[a.aval for a in eqn.invars], **eqn.params))


# reduce_precision, registered by lax.elementwise_convert (a higher layer) where it is defined.
reduce_precision_primitive: list = [None]


def _round_shared_saved_values(known: ir.Jaxpr, num_known_outs: int, saved: list):
  """JAX's rounding of saved values: a saved floating-point value that the known computation
  also uses goes through ``reduce_precision`` to its own dtype's bits right where it is
  made, and both the later known equations and the saved residual read the rounded value
  (so the primal pass and the backward pass see the same bits). Returns the new jaxpr."""
  rounding = reduce_precision_primitive[0]
  uses: dict = {}
  for eqn in known.eqns:
    for a in eqn.invars:
      if type(a) is not ir.Literal:
        uses[a] = uses.get(a, 0) + 1
  for a in known.outvars[:num_known_outs]:
    if type(a) is not ir.Literal:
      uses[a] = uses.get(a, 0) + 1
  rounded = {}
  for var in saved:
    if var in rounded or not uses.get(var):
      continue
    dtype = var.aval.dtype
    if rounding is None or not dtypes.issubdtype(dtype, np.floating):
      continue
    rounded[var] = ir.Var(var.aval)
  if not rounded:
    return known
  eqns = []
  for eqn in known.eqns:
    eqns.append(eqn.replace(invars=[rounded.get(a, a) if type(a) is not ir.Literal else a
                                    for a in eqn.invars]))
    for v in eqn.outvars:
      if v in rounded:
        info = dtypes.finfo(v.aval.dtype)
        eqns.append(ir.Eqn([v], [rounded[v]], rounding,
                           dict(exponent_bits=info.nexp, mantissa_bits=info.nmant),
                           eqn.source_info))
  outvars = [rounded.get(a, a) if type(a) is not ir.Literal else a for a in known.outvars]
  return known.replace(outvars=outvars, eqns=eqns)


def _split_for_remat(closed: ir.ClosedJaxpr, unknowns, policy):
  """(known jaxpr: known inputs -> known outputs + saved values; unknown jaxpr: saved values +
  all inputs -> unknown outputs; which outputs are unknown; number of saved values).

  The jaxpr is partially evaluated as usual (nested checkpoints and jits split by their own
  rules); then of the residuals that split needs, only the outputs of equations ``policy``
  calls saveable are saved. The rest are recomputed in the unknown jaxpr from the saved values
  and the inputs."""
  known_closed, unknown_closed, out_unknowns, num_res = ad.partial_eval_jaxpr(closed, unknowns)
  kj = known_closed.jaxpr
  num_known_outs = len(kj.outvars) - num_res
  residual_atoms = kj.outvars[num_known_outs:]
  producers = {}
  for eqn in kj.eqns:
    for v in eqn.outvars:
      producers[v] = eqn
  saved, visited = [], set()
  stack = [a for a in reversed(residual_atoms) if type(a) is not ir.Literal]
  while stack:
    var = stack.pop()
    if var in visited:
      continue
    visited.add(var)
    producer = producers.get(var)
    if producer is None:  # an input or a constant: available to the unknown side
      continue
    if _saveable(policy, producer):
      saved.append(var)
    else:
      stack.extend(a for a in reversed(producer.invars) if type(a) is not ir.Literal)
  saved_set = set(saved)
  known = staging.dce_jaxpr(kj.replace(outvars=kj.outvars[:num_known_outs] + saved))
  known = _round_shared_saved_values(known, num_known_outs, saved)
  recompute = staging.dce_jaxpr(ir.Jaxpr(
      kj.constvars, saved + list(kj.invars), residual_atoms,
      [e for e in kj.eqns if not any(v in saved_set for v in e.outvars)]))
  num_saved = len(saved)

  def unknown_fun(*args):
    saved_values, all_args = args[:num_saved], args[num_saved:]
    known_args = [a for a, u in zip(all_args, unknowns) if not u]
    unknown_args = [a for a, u in zip(all_args, unknowns) if u]
    residuals = ir.eval_jaxpr(recompute, known_closed.consts, *saved_values, *known_args)
    return ir.eval_jaxpr(unknown_closed.jaxpr, unknown_closed.consts, *residuals, *unknown_args)

  unknown, _ = staging.trace_to_jaxpr(unknown_fun, [v.aval for v in saved] + list(closed.in_avals))
  return (ir.ClosedJaxpr(known, known_closed.consts), unknown, out_unknowns, num_saved)


def _remat_partial_eval(trace, args, params):
  jaxpr, policy = params["jaxpr"], params["policy"]
  unknowns = [trace.is_unknown(x) for x in args]
  known_closed, unknown_closed, out_unknowns, num_saved = _split_for_remat(jaxpr, unknowns, policy)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  with core.set_current_trace(trace.parent):
    known_outs = ir.eval_jaxpr(known_closed.jaxpr, known_closed.consts, *known_args)
  saved = known_outs[len(known_outs) - num_saved:]
  known_outs = iter(known_outs[:len(known_outs) - num_saved])
  # As in JAX, the staged remat takes only the values it reads.
  unknown_closed, kept = staging.dce_with_inputs(unknown_closed, [False] * (num_saved + len(args)))
  operands = [x for x, k in zip([*saved, *args], kept) if k]
  unknown_outs = iter(trace.stage(remat_p, operands,
                                  dict(params, jaxpr=unknown_closed, differentiated=True)))
  return [next(unknown_outs) if u else next(known_outs) for u in out_unknowns]


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
  linear = [ad.is_undefined_primal(a) for a in args]
  transposed = ad.transpose_jaxpr(jaxpr, linear)
  nonlinear = [a for a in args if not ad.is_undefined_primal(a)]
  cts = [ad.instantiate_zeros(ct) for ct in cts]
  outs = iter(remat_p.bind(*nonlinear, *cts, jaxpr=transposed, prevent_cse=prevent_cse,
                           differentiated=True, policy=policy))
  return [next(outs) if lin else None for lin in linear]


def _remat_batch(args, dims, *, jaxpr, prevent_cse, differentiated, policy):
  size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
  args = [batching.moveaxis(a, d, 0) if d is not None else a for a, d in zip(args, dims)]
  batched, out_dims = batching.batch_jaxpr(jaxpr, size, [0 if d is not None else None
                                                         for d in dims], False)
  return remat_p.bind(*args, jaxpr=batched, prevent_cse=prevent_cse,
                      differentiated=differentiated, policy=policy), out_dims


ad.primitive_jvps[remat_p] = _remat_jvp
ad.partial_eval_rules[remat_p] = _remat_partial_eval
ad.primitive_transposes[remat_p] = _remat_transpose
batching.primitive_batchers[remat_p] = _remat_batch


def _policy_text(policy) -> str:
  # A function prints as JAX's jaxpr printer shows it (address masked); a policy object
  # (DotsSaveable(...)) as its repr.
  if isinstance(policy, types.FunctionType):
    return f"<function {policy.__qualname__} at 0xXXXXXXXXXXXX>"
  return repr(policy)


def _pp_remat(params: dict) -> dict:
  return {"differentiated": params["differentiated"], "jaxpr": params["jaxpr"],
          "policy": pp.text(_policy_text(params["policy"])), "prevent_cse": params["prevent_cse"]}


ir.pp_param_rules[remat_p] = _pp_remat


# ---------------------------------------------------------------------------
# checkpoint_name and policies

name_p = core.Primitive("name")
name_p.def_abstract_eval(lambda x, *, name: x)
name_p.def_impl(lambda x, *, name: x)
lowering.register(name_p, lambda ctx, x, *, name: x)
ad.deflinear(name_p, lambda ct, *, name: [ct])
batching.defvectorized(name_p)


def checkpoint_name(x, name: str):
  """Tags ``x`` with ``name`` so checkpoint policies can save or recompute it by name."""
  return tree_util.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


# Policies, as JAX defines them: plain functions, or frozen dataclasses (DotsSaveable, ...)
# whose repr is what a printed remat2 equation shows as its ``policy``.


def everything_saveable(*_, **__) -> bool:
  """Save every intermediate (no recomputation)."""
  return True


def nothing_saveable(*_, **__) -> bool:
  """Save nothing: recompute everything (the default)."""
  return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
  """Save the results of matrix multiplications (dot_general); with
  ``only_if_no_batch_dims``, only those without batch dimensions."""
  only_if_no_batch_dims: bool = False

  def __call__(self, prim, *_, **params) -> bool:
    if prim.name != "dot_general":
      return False
    if not self.only_if_no_batch_dims:
      return True
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
  """Save only values tagged with ``checkpoint_name`` by one of ``saveable_names``."""
  saveable_names: frozenset

  def __call__(self, prim, *_, **params) -> bool:
    return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
  """Save every named value except those tagged with one of ``names``."""
  names: frozenset

  def __call__(self, prim, *_, **params) -> bool:
    return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names):
  """Save only values tagged with ``checkpoint_name`` by one of ``names``."""
  return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names):
  """Save every named value except those tagged with one of ``names``."""
  return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names):
  """Save everything except values tagged with one of ``names``."""
  excluded = set(names)
  return lambda prim, *_, **params: not (prim is name_p and params["name"] in excluded)


def save_from_both_policies(policy_1, policy_2):
  """Save what either policy saves."""
  def policy(*args, **params):
    return bool(policy_1(*args, **params)) or bool(policy_2(*args, **params))
  return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
  """Offload (from memory ``offload_src`` to ``offload_dst``) the results of dot_generals
  without batch dimensions. axle's devices have one memory space: offloaded values are
  simply saved."""
  dots = DotsSaveable(only_if_no_batch_dims=True)

  def policy(prim, *avals, **params):
    return Offloadable(offload_src, offload_dst) if dots(prim, *avals, **params) else Recompute
  return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
  """Save the values named in ``names_which_can_be_saved``, offload those named in
  ``names_which_can_be_offloaded`` (saved, on a one-memory device), recompute the rest."""
  saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
  overlap = saved & offloaded
  if overlap:
    raise ValueError("The names should be exclusive and should not intersect in "
                     "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                     f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} "
                     f"and the intersection={overlap}")

  def policy(prim, *_, **params):
    if prim is name_p and params["name"] in saved:
      return Saveable
    if prim is name_p and params["name"] in offloaded:
      return Offloadable(offload_src, offload_dst)
    return Recompute
  return policy


class checkpoint_policies:
  """Policies saying which intermediate values ``checkpoint`` may save (the rest are
  recomputed in the backward pass)."""
  everything_saveable = staticmethod(everything_saveable)
  nothing_saveable = staticmethod(nothing_saveable)
  dots_saveable = checkpoint_dots = DotsSaveable(only_if_no_batch_dims=False)
  dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(
      only_if_no_batch_dims=True)
  save_only_these_names = staticmethod(save_only_these_names)
  save_any_names_but_these = staticmethod(save_any_names_but_these)
  save_anything_except_these_names = staticmethod(save_anything_except_these_names)
  save_from_both_policies = staticmethod(save_from_both_policies)
  offload_dot_with_no_batch_dims = staticmethod(offload_dot_with_no_batch_dims)
  save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)


class _PolicyAnswer:
  __slots__ = ("name", "save")

  def __init__(self, name: str, save: bool):
    self.name = name
    self.save = save

  def __bool__(self):
    return self.save

  def __repr__(self):
    return self.name


Saveable = _PolicyAnswer("Saveable", True)
Recompute = _PolicyAnswer("Recompute", False)


class Offloadable:
  """A policy's answer: move the value from memory ``src`` to ``dst`` for the backward pass
  (axle's devices have one memory, so the value is saved)."""
  __slots__ = ("src", "dst")

  def __init__(self, src, dst):
    self.src = src
    self.dst = dst

  def __bool__(self):
    return True

  def __repr__(self):
    return f"Offloadable(src={self.src!r}, dst={self.dst!r})"


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums=(), static_argnames=()) -> Callable:
  """Makes reverse-mode differentiation of ``fun`` recompute its intermediate values in the
  backward pass instead of storing them (``jax.checkpoint`` / ``jax.remat``). ``policy``
  chooses values that may be saved (see ``checkpoint_policies``); ``static_argnums`` /
  ``static_argnames`` name arguments passed as Python values."""
  if isinstance(static_argnums, int):
    static_argnums = (static_argnums,)
  static_argnums = tuple(static_argnums)
  if isinstance(static_argnames, str):
    static_argnames = (static_argnames,)
  if static_argnames:
    try:
      parameters = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
      parameters = []
    static_argnums += tuple(parameters.index(n) for n in static_argnames
                            if n in parameters and parameters.index(n) not in static_argnums)

  @functools.wraps(fun)
  def remat_fun(*args, **kwargs):
    static = {i: args[i] for i in static_argnums if -len(args) <= i < len(args)}
    static_kwargs = {k: v for k, v in kwargs.items() if k in static_argnames}
    kwargs = {k: v for k, v in kwargs.items() if k not in static_kwargs}
    dyn = [a for i, a in enumerate(args) if i not in static]
    leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
    store = {}

    def flat_fun(*flat):
      dyn_args, kw = tree_util.tree_unflatten(in_tree, flat)
      dyn_iter = iter(dyn_args)
      full = [static[i] if i in static else next(dyn_iter) for i in range(len(args))]
      out = fun(*full, **kw, **static_kwargs)
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    avals = [core.get_aval(x) for x in leaves]
    try:
      key = (in_tree, tuple(avals), tuple(sorted(static.items())),
             tuple(sorted(static_kwargs.items())), config.trace_state)
      hash(key)
      per_function = _remat_traces.setdefault(fun, {})
    except TypeError:  # unhashable static arguments, or a function without weak references
      key = per_function = None
    cached = per_function.get(key) if per_function is not None else None
    if cached is None:
      closed, _ = staging.trace_to_jaxpr(flat_fun, avals)
      cached = (closed, store["tree"])
      # As in JAX, the trace is reused for the same function and argument types (so changes to
      # globals the function reads are not seen); never when it closed over an outer tracer.
      if per_function is not None and not any(isinstance(c, core.Tracer) for c in closed.consts):
        per_function[key] = cached
    closed, out_tree = cached
    closed, hoisted = _hoist_consts(closed)
    outs = remat_p.bind(*hoisted, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                        differentiated=False, policy=policy)
    return tree_util.tree_unflatten(out_tree, outs)

  return remat_fun


def _hoist_consts(closed: ir.ClosedJaxpr):
  """The values the function closed over (outer tracers and arrays) become leading inputs of
  the jaxpr, as in JAX's printed ``remat2`` equations (lowering and differentiation then see
  them as operands)."""
  if not closed.consts:
    return closed, []
  jaxpr = closed.jaxpr
  new = ir.Jaxpr([], list(jaxpr.constvars) + list(jaxpr.invars), jaxpr.outvars, jaxpr.eqns,
                 debug_info=jaxpr.debug_info)
  return ir.ClosedJaxpr(new, []), list(closed.consts)


# function -> {(input tree, avals, static arguments, trace flags): (ClosedJaxpr, output tree)}
_remat_traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


remat = checkpoint


# ---------------------------------------------------------------------------
# Inspecting what reverse mode saves


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple]:
  """The residuals reverse-mode differentiation of ``f`` at these arguments saves from the
  forward pass for the backward pass: a list of ``(aval, description)`` pairs saying where each
  comes from (an argument, a constant, or the output of an operation at a source line)."""
  in_leaves, in_tree = tree_util.tree_flatten((args, kwargs))

  def f_flat(*leaves):
    call_args, call_kwargs = tree_util.tree_unflatten(in_tree, leaves)
    return f(*call_args, **call_kwargs)

  def residuals_of(*leaves):
    linearized = differentiation._Linearized(lambda xs: f_flat(*xs), list(leaves), False)
    return list(linearized.linear_jaxpr.consts)

  closed, _ = staging.trace_to_jaxpr(residuals_of, [core.get_aval(x) for x in in_leaves])
  arg_names = staging.flat_arg_names(f, args, kwargs)
  return _describe_residuals(closed.jaxpr, arg_names)


def _rounds_to_own_dtype(eqn) -> bool:
  """Whether ``eqn`` is the identity rounding remat puts on a saved value."""
  if eqn.primitive is not reduce_precision_primitive[0]:
    return False
  info = dtypes.finfo(eqn.outvars[0].aval.dtype)
  return (eqn.params["exponent_bits"], eqn.params["mantissa_bits"]) == (info.nexp, info.nmant)


def _describe_residuals(jaxpr: ir.Jaxpr, arg_names) -> list[tuple]:
  literal_outs = [v for v in jaxpr.outvars if type(v) is ir.Literal]
  out_vars = {v for v in jaxpr.outvars if type(v) is not ir.Literal}
  results = [(v.aval, "from a literal") for v in literal_outs]
  results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in out_vars]
  for i, v in enumerate(jaxpr.invars):
    if v in out_vars:
      name = arg_names[i] if i < len(arg_names) else None
      results.append((v.aval, f"from the argument {name}" if name
                      else f"from the argument at flattened index {i}"))
  producers = {v: e for e in jaxpr.eqns for v in e.outvars}
  for eqn in jaxpr.eqns:
    for v in eqn.outvars:
      if v in out_vars:
        if _rounds_to_own_dtype(eqn) and eqn.invars[0] in producers:
          eqn = producers[eqn.invars[0]]  # a saved value's rounding: describe what it rounds
        where = source_info_util.summarize(eqn.source_info)
        if eqn.primitive is name_p:
          results.append((v.aval, f"named '{eqn.params['name']}' from {where}"))
        else:
          results.append((v.aval, f"output of {eqn.primitive.name} from {where}"))
  return results


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
  """Prints, one per line, the residuals reverse-mode differentiation of ``f`` saves (see
  ``saved_residuals``): ``f32[5] output of sin from file.py:6:9 (g)``."""
  for aval, description in saved_residuals(f, *args, **kwargs):
    print(f"{aval.str_short()} {description}")
