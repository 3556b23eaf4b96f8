"""Solvers with implicit derivatives: ``lax.custom_root`` and ``lax.custom_linear_solve``.

Both differentiate through the *result* of a solve (by the implicit function theorem) instead
of through the solver's iterations; the solver runs only forwards.

- ``custom_root``: the root x* of ``f`` moves with the values ``f`` closes over as
  ``x_dot = tangent_solve(df/dx, -(df/dparams . params_dot))``; the initial guess gets no
  derivative.
- ``custom_linear_solve``: ``x = solve(matvec, b)`` differentiates as
  ``x_dot = solve(matvec, b_dot - matvec_dot(x))``. The solve applied to a tangent is a
  custom_vjp (linear in the right-hand side) whose transpose is
  ``transpose_solve(vecmat, ct)``, so reverse mode never differentiates the solver.
  Limitation: forward mode inside ``jit`` (``jit(jvp(...))``) of a custom_linear_solve is not
  supported (reverse mode and eager ``jvp`` are).
"""
from __future__ import annotations

from typing import Callable

from axle._src import core
from axle._src import tree_util
from axle._src.custom_derivatives import closure_convert, custom_jvp, custom_vjp
from axle._src.differentiation import jvp, linear_transpose, stop_gradient
from axle._src.interpreters import staging
from axle._src.lax import elementwise
from axle._src.lax import structural

__all__ = ["custom_linear_solve", "custom_root"]


def _zeros_like_tree(tree):
  return tree_util.tree_map(lambda x: structural.full_like(x, 0), tree)


def _neg_tree(tree):
  return tree_util.tree_map(elementwise.neg, tree)


def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
  """Finds a root of ``f`` with ``solve(f, initial_guess)``, differentiable through the root.

  ``tangent_solve(g, y)`` solves the linear system ``g(x) = y`` (``g`` is the Jacobian of ``f``
  at the root applied to a vector); for a scalar ``f``, ``lambda g, y: y / g(1.0)``. With
  ``has_aux``, ``solve`` returns ``(root, aux)`` and so does custom_root (aux gets no
  derivative)."""
  converted, consts = closure_convert(f, initial_guess)
  guess = stop_gradient(initial_guess)

  @custom_jvp
  def root(consts, guess):
    return solve(lambda x: converted(x, *consts), guess)

  @root.defjvp
  def root_jvp(primals, tangents):
    consts, guess = primals
    consts_dot, _ = tangents
    solution = root(consts, guess)
    x = solution[0] if has_aux else solution
    _, rhs = jvp(lambda c: converted(x, *c), (list(consts),), (list(consts_dot),))
    x_dot = tangent_solve(lambda v: jvp(lambda y: converted(y, *consts), (x,), (v,))[1],
                          _neg_tree(rhs))
    if has_aux:
      return solution, (x_dot, _zeros_like_tree(solution[1]))
    return solution, x_dot

  return root(list(consts), guess)


def custom_linear_solve(matvec: Callable, b, solve: Callable, transpose_solve: Callable | None = None,
                        symmetric: bool = False, has_aux: bool = False):
  """Solves ``matvec(x) = b`` with ``x = solve(matvec, b)``, differentiated implicitly.

  ``matvec`` must be linear; ``transpose_solve(vecmat, b)`` solves the transposed system and
  is needed for reverse-mode differentiation (``symmetric=True`` uses ``solve`` for it). With
  ``has_aux``, the solvers return ``(x, aux)`` and so does custom_linear_solve."""
  if transpose_solve is None and symmetric:
    transpose_solve = solve
  # Every value the functions close over becomes an explicit argument; the solvers' own
  # closed-over values get no derivative (only matvec's and b's do).
  matvec_converted, matvec_consts = closure_convert(matvec, b)
  solve_converted, solve_consts = closure_convert(lambda rhs: solve(matvec, rhs), b)
  if transpose_solve is not None:
    vecmat = lambda y: linear_transpose(matvec, b)(y)[0]
    tsolve_converted, tsolve_consts = closure_convert(
        lambda rhs: transpose_solve(vecmat, rhs), b)
  else:
    tsolve_converted, tsolve_consts = None, []
  n_matvec, n_solve = len(matvec_consts), len(solve_consts)

  def split(consts):
    return (consts[:n_matvec], consts[n_matvec:n_matvec + n_solve],
            consts[n_matvec + n_solve:])

  def solution_of(out):
    return out[0] if has_aux else out

  @custom_vjp
  def linear_solve(consts, rhs):  # linear in rhs; consts are treated as constants
    _, solve_c, _ = split(consts)
    return solution_of(solve_converted(rhs, *solve_c))

  def linear_solve_fwd(consts, rhs):
    return linear_solve(consts, rhs), consts

  def linear_solve_bwd(consts, ct):
    if tsolve_converted is None:
      raise TypeError("transpose_solve required for backwards mode automatic differentiation "
                      "of custom_linear_solve.")
    _, _, tsolve_c = split(consts)
    return [None] * len(consts), solution_of(tsolve_converted(ct, *tsolve_c))

  linear_solve.defvjp(linear_solve_fwd, linear_solve_bwd)

  @custom_jvp
  def solve_with_implicit_derivative(consts, b):
    _, solve_c, _ = split(consts)
    return solve_converted(b, *solve_c)

  @solve_with_implicit_derivative.defjvp
  def solve_jvp(primals, tangents):
    consts, b = primals
    consts_dot, b_dot = tangents
    out = solve_with_implicit_derivative(consts, b)
    x = solution_of(out)
    matvec_c = split(consts)[0]
    matvec_c_dot = split(consts_dot)[0]
    _, matvec_dot = jvp(lambda c: matvec_converted(x, *c), (list(matvec_c),),
                        (list(matvec_c_dot),))
    rhs = tree_util.tree_map(elementwise.sub, b_dot, matvec_dot)
    if isinstance(core.current_trace(), staging.StagingTrace):
      x_dot = linear_solve(consts, rhs)  # transposable under reverse mode
    else:
      x_dot = solution_of(solve_converted(rhs, *split(consts)[1]))
    if has_aux:
      return out, (x_dot, _zeros_like_tree(out[1]))
    return out, x_dot

  return solve_with_implicit_derivative(
      list(matvec_consts) + list(solve_consts) + list(tsolve_consts), b)
