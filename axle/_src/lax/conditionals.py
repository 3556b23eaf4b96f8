"""``cond`` and ``switch``: the ``cond`` primitive, which runs one of several branch jaxprs.

``cond[branches=(b0, b1, ...)] index *operands`` applies ``branches[index]`` to the operands
(an out-of-range index runs the last branch, as XLA's ``case`` does). ``lax.cond(pred, t, f)``
binds ``branches=(f, t)`` with ``index = int32(pred)``; ``lax.switch`` clamps its index.
Branches take the closed-over values of every branch (hoisted, shared) followed by the
operands, and an output that every branch returns unchanged from the same input is not an
output of the equation: the caller gets that input directly, as in JAX.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import differentiation
from axle._src import dtypes
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src import tree_util
from axle._src.config import config
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.ir import ClosedJaxpr
from axle._src.lax import control_flow_common
from axle._src.lax import elementwise
from axle._src.lax import elementwise_convert
from axle._src.lax import structural

__all__ = ["cond", "switch", "cond_p", "platform_index_p"]

cond_p = core.Primitive("cond")
cond_p.multiple_results = True


def _platform_params(branches_platforms) -> dict:
  """``branches_platforms=...`` for a cond bound by a rule (only platform_dependent's conds
  carry it, as in JAX)."""
  return {} if branches_platforms is None else {"branches_platforms": branches_platforms}


def _platform_branch(platforms) -> int:
  """The entry of ``platforms`` (tuples of platform names; None for the default) that runs on
  CPU, the one platform axle compiles for."""
  for i, names in enumerate(platforms):
    if names is not None and "cpu" in names:
      return i
  for i, names in enumerate(platforms):
    if names is None:
      return i
  raise NotImplementedError(
      f"platform_dependent: no branch for platform 'cpu' (branches for {platforms}) and no "
      "default; pass cpu=... or default=...")


def _cond_abstract_eval(index: ShapedArray, *args: ShapedArray, branches,
                        branches_platforms=None):
  if index.shape != () or index.dtype != np.int32:
    raise TypeError(f"cond: the branch index must be an int32 scalar, got {index.str_short()}")
  for i, branch in enumerate(branches):
    expected = branch.in_avals
    if len(expected) != len(args) or not all(map(control_flow_common.typematch, expected, args)):
      raise TypeError(f"cond: branch {i} takes {[a.str_short() for a in expected]} but the "
                      f"operands are {[a.str_short() for a in args]}")
  # The outputs have the avals of branch 0 (weak types included), as in JAX.
  return list(branches[0].out_avals)


cond_p.def_abstract_eval(_cond_abstract_eval)


def _cond_impl(index, *args, branches, branches_platforms=None):
  i = int(index)
  if not 0 <= i < len(branches):
    i = len(branches) - 1  # XLA's case runs the last branch for an out-of-range index
  branch = branches[i]
  arrays = [control_flow_common.as_array(a, aval) for a, aval in zip(args, branch.in_avals)]
  return [control_flow_common.host(o) for o in control_flow_common.eval_closed_eager(branch, arrays)]


cond_p.def_impl(_cond_impl)


def _cond_lowering(ctx, index, *args, branches, branches_platforms=None):
  if branches_platforms is not None:
    # As JAX: only the branch for the platform compiled for is lowered (the index, from
    # platform_index, is then always 0).
    branches = (branches[_platform_branch(branches_platforms)],)
  if any(ir.ordered_effects(b.jaxpr.effects) for b in branches):
    return _cond_lowering_ordered(ctx, index, *args, branches=branches)
  regions = []
  for branch in branches:
    def body(region_ctx, branch=branch):
      return mlir.jaxpr_subcomp(region_ctx, branch.jaxpr, branch.consts, args)
    regions.append(mlir.region(ctx, [], body))
  return mlir.op(ctx, "stablehlo.case", [index], list(ctx.avals_out), regions=regions)


def _cond_lowering_ordered(ctx, index, *args, branches):
  """The case op for branches with ordered effects: each branch continues the enclosing token
  chain and returns its last token, which becomes the enclosing block's token."""
  outer = mlir.current_token(ctx)
  regions = []
  for branch in branches:
    def body(region_ctx, branch=branch):
      outs = mlir.jaxpr_subcomp(region_ctx, branch.jaxpr, branch.consts, args)
      return [*outs, mlir.current_token(region_ctx)]
    regions.append(mlir.region(ctx, [], body))
  del outer  # created before the regions so that they capture it
  outs = mlir.op(ctx, "stablehlo.case", [index], [*ctx.avals_out, mlir.TOKEN], regions=regions)
  ctx.function.token = outs[-1].name
  return outs[:-1]


mlir.register(cond_p, _cond_lowering)
mlir.token_threading_primitives.add(cond_p)


def _pp_cond_eqn(eqn: ir.Eqn, names) -> pp.Doc:
  """``outs = cond[branches=(...)] index operands``, one branch per line as JAX prints it."""
  lhs = ir._pp_binders(eqn.outvars, names)
  branch_docs = [ir.pp_jaxpr(b.jaxpr, names) for b in eqn.params["branches"]]
  branches = pp.group(pp.concat([pp.text("("), pp.nest(2, pp.concat([pp.brk(""), pp.join(pp.brk(), branch_docs)])),
                                 pp.brk(""), pp.text(")")]))
  shown = {"branches": branches}
  if eqn.params.get("branches_platforms") is not None:
    shown["branches_platforms"] = eqn.params["branches_platforms"]
  params = ir.pp_params(shown, names)
  head = [lhs, pp.text(" = ")] if eqn.outvars else []
  return pp.concat(head + [pp.text("cond"), params, ir.pp_operands(eqn.invars, names)])


ir.pp_eqn_rules[cond_p] = _pp_cond_eqn


# ---------------------------------------------------------------------------
# Tracing the branches


def _trace_branches(funs: Sequence[Callable], operands, traced_for: str):
  """Traces each branch on ``operands``; returns (jaxprs taking (*all consts, *operands),
  the shared consts, the output trees)."""
  ops_flat, ops_tree = tree_util.tree_flatten(tuple(operands))
  ops_avals = [control_flow_common.abstractify(x) for x in ops_flat]
  traced = [control_flow_common.trace_hoisted(f, ops_tree, ops_avals, traced_for, example_args=tuple(operands))
            for f in funs]
  # Closed-over values are shared by all branches (the same object counts once).
  consts: list = []
  positions: dict = {}
  for _, branch_consts, _ in traced:
    for c in branch_consts:
      if id(c) not in positions:
        positions[id(c)] = len(consts)
        consts.append(c)
  const_avals = [control_flow_common.abstractify(c) for c in consts]
  jaxprs = []
  for closed, branch_consts, _ in traced:
    jaxpr = closed.jaxpr
    own = jaxpr.invars[:len(branch_consts)]
    const_vars = [ir.Var(a) for a in const_avals]
    for var, c in zip(own, branch_consts):
      const_vars[positions[id(c)]] = var
    jaxprs.append(ClosedJaxpr(jaxpr.replace(invars=const_vars + jaxpr.invars[len(branch_consts):]),
                              []))
  return jaxprs, consts, ops_flat, [t[2] for t in traced]


def _branch_mismatch_error(kind: str, names: list[str], funs, out_trees, jaxprs) -> None:
  """Raises JAX's TypeError when branch outputs differ in structure or type."""
  described = [f"{n} is {staging_describe(f)}" for n, f in zip(names, funs)]
  for i in range(1, len(jaxprs)):
    n0, ni = names[0], names[i]
    header = f"{described[0]}\n{described[i]}\n\n"
    if out_trees[0] != out_trees[i]:
      t0 = tree_util.tree_unflatten(out_trees[0], [0] * out_trees[0].num_leaves)
      ti = tree_util.tree_unflatten(out_trees[i], [0] * out_trees[i].num_leaves)
      diffs = [f"{n0} output{tree_util.keystr(p)} is a {a} but {ni} output{tree_util.keystr(p)} is "
               f"a {b}, so {why}" for p, a, b, why in control_flow_common.tree_differences(t0, ti, False)]
      differences = control_flow_common._bullets(diffs, capitalize=False) if diffs else ""
      raise TypeError(f"{kind} branch outputs must have the same pytree structure, but they "
                      f"differ:\n\n{header}{differences}\nRevise {n0} and/or {ni} so that they "
                      "have the same pytree structure.")
    avals0, avalsi = jaxprs[0].out_avals, jaxprs[i].out_avals
    if not all(map(control_flow_common.typematch, avals0, avalsi)):
      tree = tree_util.tree_unflatten(out_trees[0], avals0)
      paths = [p for p, _ in tree_util.tree_flatten_with_path(tree)[0]]
      diffs = [f"the output of {n0}{tree_util.keystr(p)} has type {a.str_short(False)} but the "
               f"corresponding output of {ni} has type {b.str_short(False)}, so "
               f"{control_flow_common._mismatch_explanation(a, b)}"
               for p, a, b in zip(paths, avals0, avalsi) if not control_flow_common.typematch(a, b)]
      raise TypeError(f"{kind} branches must have equal output types but they differ.\n\n"
                      f"{header}{control_flow_common._bullets(diffs)}\nRevise {n0} and/or {ni} so that all "
                      "output types match.")


def staging_describe(fun) -> str:
  return staging.DebugInfo("", fun).describe()


def _bind_with_forwarding(index, jaxprs: list[ClosedJaxpr], args: list):
  """Binds ``cond`` for the outputs that are not the same input returned unchanged by every
  branch; returns all outputs."""
  fwds = [control_flow_common.forwarding(j.jaxpr) for j in jaxprs]
  in_fwd = [f[0] if all(g == f[0] for g in f[1:]) else None for f in zip(*fwds)] \
      if jaxprs[0].out_avals else []
  keep = [f is None for f in in_fwd]
  branches = tuple(control_flow_common.prune_outputs(j, keep) for j in jaxprs)
  outs = iter(cond_p.bind(index, *args, branches=branches))
  return [control_flow_common.as_output(args[f]) if f is not None else next(outs) for f in in_fwd]


# ---------------------------------------------------------------------------
# The public functions

_no_operand = object()


def _check_pred(pred):
  if pred is None:
    raise TypeError("cond predicate is None")
  if isinstance(pred, (str, bytes)) or not (isinstance(pred, core.Tracer) or core.valid_jaxtype(pred)):
    raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}")
  shape = np.shape(pred) if not isinstance(pred, core.Tracer) else pred.shape
  if shape != ():
    raise TypeError(f"Pred must be a scalar, got {pred} of shape {shape}.")
  dtype = core.get_aval(pred).dtype
  if not (dtype == np.bool_ or dtypes.issubdtype(dtype, np.integer)
          or dtypes.issubdtype(dtype, np.floating)):
    raise TypeError(f"Pred type must be either boolean or number, got {dtype}.")
  return dtype


def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_no_operand):
  """Conditionally applies ``true_fun`` or ``false_fun`` (``lax.cond``).

  ``pred`` is a scalar boolean (or number: nonzero means true). Both branches are traced on
  ``operands`` (any pytrees) and must return outputs of the same pytree structure, shapes and
  dtypes; only the selected branch runs. Under ``vmap`` with a batched predicate both
  branches run and the results are selected elementwise. The older forms
  ``cond(pred, operand=x, ...)`` and ``cond(pred, true_operand, true_fun, false_operand,
  false_fun)`` are still accepted.
  """
  if operand is not _no_operand:
    if operands:
      raise TypeError("if `operand` is passed, positional `operands` should not be")
    operands = (operand,)
  if not (callable(true_fun) and callable(false_fun)):
    if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
      # cond(pred, true_operand, true_fun, false_operand, false_fun)
      true_op, t_fun, false_op, f_fun = true_fun, false_fun, *operands
      return cond(pred, lambda ops: t_fun(ops[0]), lambda ops: f_fun(ops[1]), (true_op, false_op))
    raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
  dtype = _check_pred(pred)
  if config.jax_disable_jit and core.is_concrete(pred):
    return true_fun(*operands) if bool(pred) else false_fun(*operands)

  jaxprs, consts, ops_flat, out_trees = _trace_branches((true_fun, false_fun), operands, "cond")
  _branch_mismatch_error("cond", ["true_fun", "false_fun"], (true_fun, false_fun), out_trees, jaxprs)
  if dtype != np.bool_:
    pred = elementwise.ne(pred, np.zeros((), dtype))
  index = elementwise_convert.convert_element_type(pred, np.int32)
  true_jaxpr, false_jaxpr = jaxprs
  outs = _bind_with_forwarding(index, [false_jaxpr, true_jaxpr], [*consts, *ops_flat])
  return tree_util.tree_unflatten(out_trees[0], outs)


def switch(index, branches: Sequence[Callable], *operands, operand=_no_operand):
  """Applies ``branches[index]`` to ``operands`` (``lax.switch``).

  ``index`` is a scalar integer, clamped to ``[0, len(branches) - 1]``. Every branch is
  traced and must return the same pytree structure, shapes and dtypes; only the selected one
  runs.
  """
  if operand is not _no_operand:
    if operands:
      raise TypeError("if `operand` is passed, positional `operands` should not be")
    operands = (operand,)
  if not (isinstance(index, core.Tracer) or core.valid_jaxtype(index)):
    raise TypeError(f"Index type must be an integer, got {index} as {type(index)}")
  shape = index.shape if isinstance(index, core.Tracer) else np.shape(index)
  if shape != ():
    raise TypeError(f"Branch index must be scalar, got {index} of shape {shape}.")
  index_dtype = core.get_aval(index).dtype
  if not dtypes.issubdtype(index_dtype, np.integer):
    raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
  branches = tuple(branches)
  if not branches:
    raise ValueError("Empty branch sequence")
  if len(branches) == 1:
    return branches[0](*operands)
  for b in branches:
    if not callable(b):
      raise TypeError(f"switch: every branch must be callable, got {b!r}")
  index = elementwise_convert.convert_element_type(index, np.int32)
  lo, hi = np.array(0, np.int32), np.array(len(branches) - 1, np.int32)
  if config.jax_disable_jit and core.is_concrete(index):
    return branches[int(np.clip(int(index), 0, len(branches) - 1))](*operands)
  index = elementwise.clamp(lo, index, hi)
  jaxprs, consts, ops_flat, out_trees = _trace_branches(branches, operands, "switch")
  names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]
  _branch_mismatch_error("switch", names, branches, out_trees, jaxprs)
  outs = _bind_with_forwarding(index, jaxprs, [*consts, *ops_flat])
  return tree_util.tree_unflatten(out_trees[0], outs)


# ---------------------------------------------------------------------------
# Transformation rules


def _trace_closed(fun: Callable, in_avals) -> ClosedJaxpr:
  """``fun`` (flat arrays in, list out) traced to a ClosedJaxpr with its constants hoisted into
  no inputs (they stay constants of the jaxpr)."""
  closed, _ = staging.trace_to_jaxpr(lambda *xs: list(fun(*xs)), list(in_avals))
  return closed


def _cond_jvp(primals, tangents, *, branches, branches_platforms=None):
  index, *ops = primals
  nonzeros = [type(t) is not ad.Zero for t in tangents[1:]]
  n_out = len(branches[0].out_avals)
  out_nz = [False] * n_out
  for branch in branches:
    _, nz = ad.jvp_jaxpr(branch, nonzeros, False)
    out_nz = [a or b for a, b in zip(out_nz, nz)]
  jvps = []
  for branch in branches:
    closed, nz = ad.jvp_jaxpr(branch, nonzeros, out_nz)
    jvps.append(closed)
  final_nz = nz
  tangents_in = [t for t, n, p in zip(tangents[1:], nonzeros, ops)
                 if n and ad.tangent_aval(core.get_aval(p)).dtype != ad.float0]
  outs = cond_p.bind(index, *ops, *tangents_in, branches=tuple(jvps),
                     **_platform_params(branches_platforms))
  primal_out = outs[:n_out]
  tangent_iter = iter(outs[n_out:])
  tangent_out = [next(tangent_iter) if n else ad.Zero(ad.tangent_aval(a))
                 for n, a in zip(final_nz, branches[0].out_avals)]
  return primal_out, tangent_out


ad.primitive_jvps[cond_p] = _cond_jvp


def _cond_partial_eval(trace, args, params):
  branches = params["branches"]
  index, *ops = args
  if trace.is_unknown(index):
    return trace.stage(cond_p, args, params)
  unknowns = [trace.is_unknown(x) for x in ops]
  n_out = len(branches[0].out_avals)
  out_uk = [False] * n_out
  for branch in branches:
    _, _, uk, _ = ad.partial_eval_jaxpr(branch, unknowns, False)
    out_uk = [a or b for a, b in zip(out_uk, uk)]
  splits = [ad.partial_eval_jaxpr(branch, unknowns, out_uk) for branch in branches]
  # Residuals are merged by type: the k-th residual of a given type in any branch shares one
  # slot; each branch's known part fills the slots it does not use with empty values.
  res_avals = [list(known.out_avals[len(known.out_avals) - num_res:])
               for known, _, _, num_res in splits]
  all_res, res_indices = _merge_branch_residuals(res_avals)
  n_known_out = n_out - sum(out_uk)
  known_avals = [core.get_aval(x) for x, u in zip(ops, unknowns) if not u]
  known_branches, unknown_branches = [], []
  for (known, unknown, _, num_res), indices in zip(splits, res_indices):
    def known_fun(*xs, known=known, indices=indices):
      outs = control_flow_common.eval_closed_eager_here(known, xs)
      res = [control_flow_common.empty_like_aval(a) for a in all_res]
      for j, r in zip(indices, outs[n_known_out:]):
        res[j] = r
      return outs[:n_known_out] + res

    known_branches.append(_trace_closed(known_fun, known_avals))
    res_vars = [ir.Var(a) for a in all_res]
    for j, v in zip(indices, unknown.jaxpr.invars[:num_res]):
      res_vars[j] = v
    unknown_branches.append(ClosedJaxpr(
        unknown.jaxpr.replace(invars=res_vars + list(unknown.jaxpr.invars[num_res:])),
        unknown.consts))
  known_branches = [control_flow_common.hoist_consts(b) for b in known_branches]
  unknown_branches = [control_flow_common.hoist_consts(b) for b in unknown_branches]
  # Each branch may close over different values: make them shared operands.
  known_jaxprs, known_extra = _share_consts(known_branches)
  unknown_jaxprs, unknown_extra = _share_consts(unknown_branches)
  known_ops = [x for x, u in zip(ops, unknowns) if not u]
  with core.set_current_trace(trace.parent):
    known_outs = cond_p.bind(index, *known_extra, *known_ops, branches=tuple(known_jaxprs),
                             **_platform_params(params.get("branches_platforms")))
  residuals = known_outs[n_known_out:]
  unknown_ops = [x for x, u in zip(ops, unknowns) if u]
  unknown_outs = iter(trace.stage(cond_p, [index, *unknown_extra, *residuals, *unknown_ops],
                                  dict(branches=tuple(unknown_jaxprs),
                                       **_platform_params(params.get("branches_platforms")))))
  known_iter = iter(known_outs[:n_known_out])
  return [next(unknown_outs) if u else next(known_iter) for u in out_uk]


def _merge_branch_residuals(res_avals):
  """All branches' residual types merged (the k-th residual of one type in each branch shares
  a slot), and each branch's slot indices."""
  slots: dict = {}
  indices = []
  for avals in res_avals:
    seen: dict = {}
    own = []
    for a in avals:
      tag = (a, seen.get(a, 0))
      seen[a] = tag[1] + 1
      own.append(slots.setdefault(tag, len(slots)))
    indices.append(own)
  return [a for a, _ in slots], indices


def _share_consts(hoisted):
  """[(jaxpr taking (*consts, *args), consts)] -> jaxprs all taking (*all consts, *args)."""
  consts, positions = [], {}
  for _, cs in hoisted:
    for c in cs:
      if id(c) not in positions:
        positions[id(c)] = len(consts)
        consts.append(c)
  avals = [core.get_aval(c) for c in consts]
  out = []
  for closed, cs in hoisted:
    jaxpr = closed.jaxpr
    const_vars = [ir.Var(a) for a in avals]
    for var, c in zip(jaxpr.invars[:len(cs)], cs):
      const_vars[positions[id(c)]] = var
    out.append(ClosedJaxpr(jaxpr.replace(invars=const_vars + jaxpr.invars[len(cs):]), []))
  return out, consts


ad.partial_eval_rules[cond_p] = _cond_partial_eval


def _cond_dce(used_outputs, eqn: ir.Eqn):
  """JAX's DCE of a cond: the unused outputs go, then the operands no branch reads; every
  branch is pruned to that signature (dead equations inside included)."""
  branches = eqn.params["branches"]
  if not any(used_outputs) and not any(b.effects for b in branches):
    return [False] * len(eqn.invars), None
  used_outputs = tuple(used_outputs)
  per_branch = [staging.dce_jaxpr_with_inputs(b.jaxpr, used_outputs)[1] for b in branches]
  used_inputs = [any(flags) for flags in zip(*per_branch)] if per_branch else []
  new_branches = []
  for b in branches:
    jaxpr = staging.dce_jaxpr(b.jaxpr, used_outputs)
    jaxpr = jaxpr.replace(invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u])
    new_branches.append(ClosedJaxpr(jaxpr, b.consts))
  new_eqn = eqn.replace(
      invars=[eqn.invars[0], *[v for v, u in zip(eqn.invars[1:], used_inputs) if u]],
      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
      params={**eqn.params, "branches": tuple(new_branches)})
  return [True, *used_inputs], new_eqn


staging.dce_rules[cond_p] = _cond_dce


def _cond_transpose(cts, index, *ops, branches, branches_platforms=None):
  if ad.is_undefined_primal(index):
    raise ValueError("cond: the branch index cannot be a linear input")
  linear = [ad.is_undefined_primal(x) for x in ops]
  ct_avals = [ad.tangent_aval(a) for a in branches[0].out_avals]
  cts = [np.zeros(a.shape, ad.float0) if a.dtype == ad.float0 else ad.instantiate_zeros(ct)
         for ct, a in zip(cts, ct_avals)]
  # The linear operands are transposed at their cotangents' types (JAX's accumulators).
  linear_avals = [x.aval for x in ops if ad.is_undefined_primal(x)]
  given_avals = [core.get_aval(ct) for ct in cts]
  transposed = tuple(ad.transpose_jaxpr(b, linear, linear_avals, given_avals) for b in branches)
  nonlinear = [x for x in ops if not ad.is_undefined_primal(x)]
  outs = iter(cond_p.bind(index, *nonlinear, *cts, branches=transposed,
                          **_platform_params(branches_platforms)))
  return [None] + [next(outs) if lin else None for lin in linear]


ad.primitive_transposes[cond_p] = _cond_transpose


def _cond_batch(args, dims, *, branches, branches_platforms=None):
  index, *ops = args
  index_dim, *op_dims = dims
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  if index_dim is not None:
    # A batched index: run every branch on the whole batch and select elementwise.
    ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
    index = batching.moveaxis(index, index_dim, 0)
    branch_outs = []
    for i, branch in enumerate(branches):
      batched, _ = batching.batch_jaxpr(branch, size, [0] * len(ops), True)
      # As JAX: each branch sees its operands only where it is selected (a stop_gradient copy
      # elsewhere), so reverse-mode through the unselected branch adds nothing.
      predicate = elementwise.eq(index, np.array(i, core.get_aval(index).dtype))
      ops_i = [_bcast_select(predicate, x, differentiation.stop_gradient(x)) for x in ops]
      branch_outs.append(ir.eval_jaxpr(batched.jaxpr, batched.consts, *ops_i))
    outs = [_bcast_select_n(index, *cases) for cases in zip(*branch_outs)]
    return outs, [0] * len(outs)
  ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
  in_dims = [0 if d is not None else None for d in op_dims]
  n_out = len(branches[0].out_avals)
  out_batched = [False] * n_out
  for branch in branches:
    _, out_dims = batching.batch_jaxpr(branch, size, in_dims, False)
    out_batched = [a or d is not None for a, d in zip(out_batched, out_dims)]
  batched = tuple(batching.batch_jaxpr(b, size, in_dims, out_batched)[0] for b in branches)
  outs = cond_p.bind(index, *ops, branches=batched, **_platform_params(branches_platforms))
  return outs, [0 if b else None for b in out_batched]


def _bcast_select(predicate, on_true, on_false):
  shape = core.get_aval(on_true).shape
  if len(core.get_aval(predicate).shape) != len(shape):
    predicate = structural.broadcast_in_dim(predicate, shape, tuple(range(len(core.get_aval(predicate).shape))))
  return elementwise.select_n(predicate, on_false, on_true)


def _bcast_select_n(which, *cases):
  shape = core.get_aval(cases[0]).shape
  if len(core.get_aval(which).shape) != len(shape):
    which = structural.broadcast_in_dim(which, shape, tuple(range(len(core.get_aval(which).shape))))
  return elementwise.select_n(which, *cases)


batching.primitive_batchers[cond_p] = _cond_batch


# platform_index: which of platform_dependent's branches runs on the platform compiled for.

platform_index_p = core.Primitive("platform_index")
platform_index_p.def_abstract_eval(lambda *, platforms: ShapedArray((), np.dtype(np.int32)))
platform_index_p.def_impl(lambda *, platforms: np.array(_platform_branch(platforms), np.int32))


def _platform_index_lowering(ctx, *, platforms):
  # As JAX: the platform's position among the lowering platforms (CPU's branch here) selects,
  # through a case with one region per entry, the branch's position among those lowered (0).
  chosen = mlir.constant(ctx, np.array(_platform_branch(platforms), np.int32))
  index_aval = ShapedArray((), np.dtype(np.int32))
  regions = [mlir.region(ctx, [], lambda region_ctx: [
      mlir.constant(region_ctx, np.array(0, np.int32))]) for _ in platforms]
  return mlir.op(ctx, "stablehlo.case", [chosen], index_aval, regions=regions)


mlir.register(platform_index_p, _platform_index_lowering)
ad.defjvp_zero(platform_index_p)  # an integer with no operands
batching.primitive_batchers[platform_index_p] = lambda values, dims, **params: (
    platform_index_p.bind(**params), None)


def platform_dependent(*args, default: Callable | None = None, **per_platform: Callable):
  """Calls the branch for the platform the computation runs on (``lax.platform_dependent``):
  ``per_platform`` maps platform names (``cpu=...``, ``cuda=...``, ``tpu=...``) to functions of
  ``*args``; ``default`` is used for a platform without its own branch.

  As in JAX, every branch is traced: a ``platform_index`` equation picks the branch of a
  ``cond`` whose ``branches_platforms`` name each branch's platforms, and lowering keeps only
  the branch for CPU (the one platform axle compiles for).
  """
  for name, branch in per_platform.items():
    if not callable(branch):
      raise TypeError(f"platform_dependent: the branch for {name!r} must be callable, got "
                      f"{branch!r}")
  platforms = [(name,) for name in per_platform]
  branches = list(per_platform.values())
  if default is not None:
    platforms.append(None)
    branches.append(default)
  platforms = tuple(platforms)
  index = platform_index_p.bind(platforms=platforms)
  jaxprs, consts, ops_flat, out_trees = _trace_branches(branches, args, "platform_dependent")
  _branch_mismatch_error("platform_dependent", [f"branch {i}" for i in range(len(branches))],
                         branches, out_trees, jaxprs)
  outs = cond_p.bind(index, *consts, *ops_flat, branches=tuple(jaxprs),
                     branches_platforms=platforms)
  return tree_util.tree_unflatten(out_trees[0], outs)


def composite(decomposition: Callable, name: str, version: int = 0):
  """Marks ``decomposition`` as the composite operation ``name`` (``lax.composite``): returns a
  function that computes ``decomposition(*args, **attributes)``.

  In JAX the call becomes one ``composite`` equation, lowered to ``stablehlo.composite`` so
  that a backend may replace it with a fused kernel. axle has no such backends: it calls
  ``decomposition`` inline (the values are the same; the jaxpr and StableHLO show the
  decomposition's equations instead of a ``composite`` equation).
  """
  if not callable(decomposition):
    raise TypeError(f"composite: decomposition must be callable, got {decomposition!r}")
  if not isinstance(name, str) or not name:
    raise TypeError(f"composite: name must be a non-empty string, got {name!r}")
  if not isinstance(version, int) or version < 0:
    raise ValueError(f"composite: version must be a non-negative int, got {version!r}")

  def composite_call(*args, **attributes):
    return decomposition(*args, **attributes)

  composite_call.__name__ = getattr(decomposition, "__name__", "composite")
  composite_call.__doc__ = getattr(decomposition, "__doc__", None)
  return composite_call
