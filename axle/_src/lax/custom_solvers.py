"""Solvers with implicit derivatives: ``lax.custom_root`` and ``lax.custom_linear_solve``.

Both differentiate through the *result* of a solve (by the implicit function theorem) instead
of through the solver's iterations; the solver runs only forwards.

- ``custom_root``: the root x* of ``f`` moves with the values ``f`` closes over as
  ``x_dot = -tangent_solve(df/dx, df/dparams . params_dot)``; the initial guess gets no
  derivative. As JAX's: f, solve and "linearize f, then tangent_solve" are traced to jaxprs
  whose closed-over values are arguments of a custom_jvp function ``_custom_root``.
- ``custom_linear_solve``: ``x = solve(matvec, b)`` differentiates as
  ``x_dot = solve(matvec, b_dot - matvec_dot(x))``. It is a primitive carrying the jaxprs of
  matvec, its transpose vecmat, solve and transpose_solve (as JAX's): the solve applied to a
  tangent is the same primitive, linear in b, whose transpose is the transposed system's solve,
  so reverse mode never differentiates the solver.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

from axle._src import core
from axle._src import ir
from axle._src import tree_util
from axle._src.custom_derivatives import custom_jvp
from axle._src.differentiation import jvp, linear_transpose, linearize
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.lax import control_flow_common
from axle._src.lax import elementwise
from axle._src.lax import structural

__all__ = ["custom_linear_solve", "custom_root", "custom_linear_solve_p"]


class RootTuple(NamedTuple):
  """One entry per function of a root finding: ``f``, ``solve`` and ``l_and_s`` (linearize ``f``
  at a point and apply ``tangent_solve``): the number of closed-over values each takes first,
  or each one's jaxpr."""
  f: Any
  solve: Any
  l_and_s: Any


def _split_root_args(args, const_lengths: RootTuple):
  pieces = control_flow_common.split(list(args), list(const_lengths))
  return RootTuple(*pieces[:3]), pieces[3]


def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
  """Finds a root of ``f`` with ``solve(f, initial_guess)``, differentiable through the root.

  ``tangent_solve(g, y)`` solves the linear system ``g(x) = y`` (``g`` is the Jacobian of ``f``
  at the root applied to a vector); for a scalar ``f``, ``lambda g, y: y / g(1.0)``. With
  ``has_aux``, ``solve`` returns ``(root, aux)`` and so does custom_root (aux gets no
  derivative)."""
  guess_flat, args_tree = tree_util.tree_flatten((initial_guess,))
  guess_avals = [control_flow_common.abstractify(x) for x in guess_flat]
  (guess_tree,) = args_tree.children()
  example = (initial_guess,)
  f_jaxpr, f_consts, out_tree = _trace(f, args_tree, guess_avals, example)
  _check_tree("f", "initial_guess", out_tree, guess_tree)
  solve_jaxpr, solve_consts, solution_tree = _trace(lambda x: solve(f, x), args_tree, guess_avals,
                                                    example)
  _check_tree("solve", "initial_guess", solution_tree, guess_tree, has_aux)

  def linearize_and_solve(x, b):
    _, f_jvp = linearize(f, x)
    return tangent_solve(f_jvp, b)

  pair_tree = tree_util.tree_structure((initial_guess, initial_guess))
  l_and_s_jaxpr, l_and_s_consts, l_and_s_tree = control_flow_common.trace_hoisted(
      linearize_and_solve, pair_tree, guess_avals * 2, "custom_root")
  _check_tree("tangent_solve", "x", l_and_s_tree, guess_tree)
  all_consts = [f_consts, solve_consts, l_and_s_consts]
  const_lengths = RootTuple(*(len(c) for c in all_consts))
  jaxprs = RootTuple(f_jaxpr, solve_jaxpr, l_and_s_jaxpr)
  solution = _custom_root(const_lengths, jaxprs, *[c for cs in all_consts for c in cs],
                          *guess_flat)
  return tree_util.tree_unflatten(solution_tree, solution)


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _custom_root(const_lengths, jaxprs, *args):
  params, guess = _split_root_args(args, const_lengths)
  return ir.eval_jaxpr(jaxprs.solve.jaxpr, jaxprs.solve.consts, *params.solve, *guess)


def _root_jvp(const_lengths, jaxprs, primals, tangents):
  # F(m, u*(m)) = 0 around the root, so du* = -(d_u F)^-1 (d_m F . dm): the tangent solve of
  # minus the parameters' tangent through f at the root
  params, _ = _split_root_args(primals, const_lengths)
  solution = _custom_root(const_lengths, jaxprs, *primals)
  n_out = len(jaxprs.f.out_avals)
  solution, aux = list(solution[:n_out]), list(solution[n_out:])
  params_dot, _ = _split_root_args(tangents, const_lengths)
  f_jaxpr = jaxprs.f

  def f_at_solution(*f_params):
    return ir.eval_jaxpr(f_jaxpr.jaxpr, f_jaxpr.consts, *f_params, *solution)

  _, rhs = jvp(f_at_solution, tuple(params.f), tuple(params_dot.f))
  l_and_s = jaxprs.l_and_s
  solved = ir.eval_jaxpr(l_and_s.jaxpr, l_and_s.consts, *params.l_and_s, *solution, *rhs)
  solution_dot = [elementwise.neg(x) for x in solved]
  return solution + aux, solution_dot + [structural.full_like(x, 0) for x in aux]


_custom_root.defjvp(_root_jvp)


# ---------------------------------------------------------------------------
# custom_linear_solve: a primitive carrying the four jaxprs (JAX's ``custom_linear_solve``)


class LinearSolveTuple(NamedTuple):
  """One entry per function of a linear solve: the number of closed-over values each takes
  first, or each one's jaxpr. Prints as JAX's ``_LinearSolveTuple(...)``."""
  matvec: Any
  vecmat: Any
  solve: Any
  transpose_solve: Any

  def transpose(self) -> "LinearSolveTuple":
    """The entries of the transposed system: vecmat for matvec, transpose_solve for solve."""
    return LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)

  def __repr__(self):
    return (f"_LinearSolveTuple(matvec={self.matvec!r}, vecmat={self.vecmat!r}, "
            f"solve={self.solve!r}, transpose_solve={self.transpose_solve!r})")


def _split_solve_args(args, const_lengths: LinearSolveTuple):
  """``args`` = the four functions' closed-over values, then b: as (LinearSolveTuple, b)."""
  pieces = control_flow_common.split(list(args), list(const_lengths))
  return LinearSolveTuple(*pieces[:4]), pieces[4]


def _flat(params: LinearSolveTuple) -> list:
  return [x for part in params for x in part]


def _trace(fun, args_tree, avals, example):
  closed, consts, out_tree = control_flow_common.trace_hoisted(
      fun, args_tree, avals, "custom_linear_solve", example_args=example)
  return closed, consts, out_tree


def _check_tree(func_name: str, expected_name: str, actual_tree, expected_tree, has_aux=False):
  if has_aux:
    children = actual_tree.children()
    if len(children) != 2:
      raise ValueError(f"{func_name}() produced a pytree that is not a pair (x, aux) although "
                       "has_aux=True")
    actual_tree = children[0]
  if actual_tree != expected_tree:
    raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, got "
                    f"{actual_tree} and {expected_tree}.")


def _check_avals(func_name: str, closed, b_avals, has_aux=False):
  outs = closed.out_avals[:len(b_avals)] if has_aux else closed.out_avals
  for out, expected in zip(outs, b_avals):
    if out.shape != expected.shape or out.dtype != expected.dtype:
      raise TypeError(f"{func_name}() output shapes must match b, got "
                      f"{[a.str_short() for a in outs]} and "
                      f"{[a.str_short() for a in b_avals]}")


def custom_linear_solve(matvec: Callable, b, solve: Callable, transpose_solve: Callable | None = None,
                        symmetric: bool = False, has_aux: bool = False):
  """Solves ``matvec(x) = b`` with ``x = solve(matvec, b)``, differentiated implicitly.

  ``matvec`` must be linear; ``transpose_solve(vecmat, b)`` solves the transposed system and
  is needed for reverse-mode differentiation (``symmetric=True``: matvec is its own transpose,
  and ``solve`` serves as transpose_solve when none is given). With ``has_aux``, the solvers return ``(x, aux)`` and so does
  custom_linear_solve (aux gets no derivative)."""
  if transpose_solve is None and symmetric:
    transpose_solve = solve
  b_flat, args_tree = tree_util.tree_flatten((b,))
  b_avals = [control_flow_common.abstractify(x) for x in b_flat]
  (b_tree,) = args_tree.children()

  matvec_jaxpr, matvec_consts, out_tree = _trace(matvec, args_tree, b_avals, (b,))
  _check_tree("matvec", "b", out_tree, b_tree)
  _check_avals("matvec", matvec_jaxpr, b_avals)
  solve_jaxpr, solve_consts, solve_tree = _trace(lambda x: solve(matvec, x), args_tree, b_avals, (b,))
  _check_tree("solve", "b", solve_tree, b_tree, has_aux)
  _check_avals("solve", solve_jaxpr, b_avals, has_aux)
  if transpose_solve is None:
    vecmat_jaxpr = tr_solve_jaxpr = None
    vecmat_consts, tr_solve_consts = [], []
  else:
    if symmetric:
      vecmat = matvec
      vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
    else:
      # traced as JAX's linear_transpose traces: identity equations are kept (and transposed)
      with staging.no_forwarding():
        transposed = linear_transpose(matvec, b)
      vecmat = lambda y: transposed(y)[0]  # noqa: E731
      vecmat_jaxpr, vecmat_consts, _ = _trace(vecmat, args_tree, b_avals, (b,))
    tr_solve_jaxpr, tr_solve_consts, tr_tree = _trace(lambda x: transpose_solve(vecmat, x),
                                                      args_tree, b_avals, (b,))
    _check_tree("transpose_solve", "b", tr_tree, b_tree, has_aux)
    _check_avals("transpose_solve", tr_solve_jaxpr, b_avals, has_aux)
  all_consts = [matvec_consts, vecmat_consts, solve_consts, tr_solve_consts]
  const_lengths = LinearSolveTuple(*(len(c) for c in all_consts))
  jaxprs = LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr)
  outs = custom_linear_solve_p.bind(*[c for cs in all_consts for c in cs], *b_flat,
                                    const_lengths=const_lengths, jaxprs=jaxprs)
  return tree_util.tree_unflatten(solve_tree, outs)


custom_linear_solve_p = core.Primitive("custom_linear_solve")
custom_linear_solve_p.multiple_results = True


def _linear_solve_abstract_eval(*args, const_lengths, jaxprs):
  b_avals = list(args[sum(const_lengths):])
  return b_avals + list(jaxprs.solve.out_avals[len(b_avals):])  # + the aux outputs


custom_linear_solve_p.def_abstract_eval(_linear_solve_abstract_eval)


def _linear_solve_impl(*args, const_lengths, jaxprs):
  params, b = _split_solve_args(args, const_lengths)
  return control_flow_common.eval_closed_eager(jaxprs.solve, params.solve + b)


custom_linear_solve_p.def_impl(_linear_solve_impl)


def _linear_solve_lowering(ctx, *args, const_lengths, jaxprs):
  params, b = _split_solve_args(args, const_lengths)
  return mlir.jaxpr_subcomp(ctx, jaxprs.solve.jaxpr, jaxprs.solve.consts, params.solve + b)


mlir.register(custom_linear_solve_p, _linear_solve_lowering)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
  # A x = b  =>  A dx = db - dA x: the same solve applied to the right-hand side's tangent
  x = custom_linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
  params, b = _split_solve_args(primals, const_lengths)
  params_dot, b_dot = _split_solve_args(tangents, const_lengths)
  x_leaves = x[:len(b)]
  if all(type(t) is ad.Zero for t in params_dot.matvec):
    rhs = list(b_dot)
  else:
    nonzeros = [type(t) is not ad.Zero for t in params_dot.matvec] + [False] * len(x_leaves)
    jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxprs.matvec, nonzeros, False)
    outs = ir.eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *params.matvec, *x_leaves,
                         *[t for t in params_dot.matvec if type(t) is not ad.Zero])
    tangent_outs = iter(outs[len(x_leaves):])
    matvec_dots = [next(tangent_outs) if nz else None for nz in out_nonzeros]
    rhs = [db if mt is None else ad.add_tangents(db, elementwise.neg(mt))
           for db, mt in zip(b_dot, matvec_dots)]
  rhs = [ad.instantiate_zeros_tangent(r) if type(r) is ad.Zero else r for r in rhs]
  x_dot = custom_linear_solve_p.bind(*_flat(params), *rhs, const_lengths=const_lengths,
                                     jaxprs=jaxprs)
  aux_dots = [ad.Zero.from_primal_value(a) for a in x[len(b):]]
  return x, list(x_dot[:len(b)]) + aux_dots


ad.primitive_jvps[custom_linear_solve_p] = _linear_solve_jvp


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
  if jaxprs.transpose_solve is None:
    raise TypeError("transpose_solve required for backwards mode automatic differentiation "
                    "of custom_linear_solve")
  params, b = _split_solve_args(args, const_lengths)
  if not all(ad.is_undefined_primal(x) for x in b):
    raise TypeError("custom_linear_solve is linear only in b")
  cts = [ad.instantiate_zeros(ct) for ct in list(cts)[:len(b)]]
  ct_b = custom_linear_solve_p.bind(*_flat(params.transpose()), *cts,
                                    const_lengths=const_lengths.transpose(),
                                    jaxprs=jaxprs.transpose())
  return [None] * sum(const_lengths) + list(ct_b[:len(b)])


ad.primitive_transposes[custom_linear_solve_p] = _linear_solve_transpose


def _batch_flags(closed, size, in_batched, instantiate):
  """batch_jaxpr on inputs batched at axis 0 where flagged: (jaxpr, which outputs are batched)."""
  batched, out_dims = batching.batch_jaxpr(closed, size, [0 if b else None for b in in_batched],
                                           instantiate)
  return batched, [d is not None for d in out_dims]


def _linear_solve_batch(args, dims, *, const_lengths, jaxprs):
  size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
  params, b = _split_solve_args(args, const_lengths)
  params_dims, b_dims = _split_solve_args(dims, const_lengths)
  params_bat = LinearSolveTuple(*([d is not None for d in part] for part in params_dims))
  orig_b_bat = [d is not None for d in b_dims]
  matvec, vecmat, solve, solve_t = jaxprs
  n_aux = len(solve.out_avals) - len(b)
  # Which parts of x and b end up batched must agree among all four functions: iterate to a
  # fixed point (each round can only add batched parts).
  b_bat = orig_b_bat
  x_bat = [False] * len(solve.out_avals)
  for _ in range(1 + len(orig_b_bat) + len(solve.out_avals)):
    solve_batched, solve_x_bat = _batch_flags(solve, size, params_bat.solve + b_bat, x_bat)
    if vecmat is None:
      vecmat_batched = None
      x_bat_out = solve_x_bat
    else:
      vecmat_batched, vecmat_x_bat = _batch_flags(vecmat, size, params_bat.vecmat + b_bat, b_bat)
      x_bat_out = [u or v for u, v in zip(vecmat_x_bat + [True] * n_aux, solve_x_bat)]
    x_bat_noaux = x_bat_out[:len(b_bat)]
    matvec_batched, matvec_b_bat = _batch_flags(matvec, size, params_bat.matvec + x_bat_noaux, b_bat)
    if solve_t is None:
      solve_t_batched = None
      b_bat_out = [u or v for u, v in zip(matvec_b_bat, orig_b_bat)]
    else:
      solve_t_batched, solve_t_bat = _batch_flags(solve_t, size, params_bat.transpose_solve + x_bat_noaux,
                                                  x_bat_out)
      b_bat_out = [m or s or o for m, s, o in zip(matvec_b_bat, solve_t_bat[:len(orig_b_bat)], orig_b_bat)]
    if x_bat_out == x_bat and b_bat_out == b_bat:
      break
    x_bat, b_bat = x_bat_out, b_bat_out
  else:
    raise AssertionError("custom_linear_solve batching: no fixed point")
  batched_jaxprs = LinearSolveTuple(matvec_batched, vecmat_batched, solve_batched, solve_t_batched)
  new_params = [batching.moveaxis(x, d, 0) if d is not None and d != 0 else x
                for x, d in zip(_flat(params), _flat(params_dims))]
  new_b = [batching.broadcast(x, size, 0) if now and not was else
           batching.moveaxis(x, d, 0) if now and d != 0 else x
           for x, d, was, now in zip(b, b_dims, orig_b_bat, b_bat)]
  outs = custom_linear_solve_p.bind(*new_params, *new_b, const_lengths=const_lengths,
                                    jaxprs=batched_jaxprs)
  return outs, [0 if bat else None for bat in solve_x_bat]


batching.primitive_batchers[custom_linear_solve_p] = _linear_solve_batch
