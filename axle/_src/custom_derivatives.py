"""User-defined derivative rules: ``custom_jvp``, ``custom_vjp``, and ``closure_convert``.

A call of a custom_jvp (custom_vjp) function outside any transformation just runs the function.
Under a transformation it binds ``custom_jvp_call`` (``custom_vjp_call``), a primitive carrying
the traced function (``call_jaxpr``) and the user's rule as a Python callable:
- the JVP trace runs the rule instead of differentiating ``call_jaxpr``;
- for custom_vjp, the JVP rule runs ``fwd`` and stages a ``custom_lin`` equation on the input
  tangents; transposing ``custom_lin`` calls ``bwd`` on the residuals and output cotangents. So
  reverse mode uses fwd/bwd, and forward mode raises JAX's error;
- staging records the equation (printed as JAX prints it), eager evaluation and lowering run
  ``call_jaxpr``, and vmap batches both the jaxpr and the rule.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import pretty_printer as pp
from axle._src import tree_util
from axle._src.array import Array
from axle._src.differentiation import stop_gradient
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import staging
from axle._src.vmap import vmap


def _function_name(fun) -> str:
  return staging._function_name(fun)


class _Rule:
  """A Python callable in a primitive's params, printed by name as JAX prints it."""
  __slots__ = ("fun", "name")

  def __init__(self, fun, name: str):
    self.fun = fun
    self.name = name

  def __call__(self, *args):
    return self.fun(*args)

  def __repr__(self):
    return self.name


_signatures: dict = {}


def _signature(fun):
  try:
    return _signatures[fun]
  except (KeyError, TypeError):
    pass
  try:
    signature = inspect.signature(fun)
  except (TypeError, ValueError):
    signature = None
  try:
    _signatures[fun] = signature
  except TypeError:
    pass
  return signature


def _resolve_argnums(fun, nondiff_argnums, args, kwargs):
  """Binds keyword arguments and defaults to positions, as JAX does (custom_jvp/vjp functions
  and their rules take positional arguments only)."""
  signature = _signature(fun)
  if signature is None:
    if kwargs:
      raise TypeError("custom_jvp/custom_vjp functions must be called with positional "
                      "arguments when their signature cannot be inspected")
  else:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
      raise TypeError("keyword arguments could not be resolved to positions: "
                      f"{sorted(bound.kwargs)}")
    args = bound.args
  for i in nondiff_argnums:
    if i >= len(args):
      raise TypeError(f"nondiff_argnums={nondiff_argnums} refers to argument {i}, but the "
                      f"function was called with {len(args)} positional arguments.")
  return tuple(args)


def _split_nondiff(args, nondiff_argnums):
  nondiff = tuple(args[i] for i in nondiff_argnums)
  diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
  return nondiff, diff


def _merge_nondiff(nondiff, diff, nondiff_argnums, n):
  nondiff, diff = iter(nondiff), iter(diff)
  return tuple(next(nondiff) if i in nondiff_argnums else next(diff) for i in range(n))


def _is_eager() -> bool:
  return core.current_trace() is core.eval_trace


class _LazyJaxpr:
  """The traced function of a custom_jvp/custom_vjp call, traced only when a trace needs it
  (staging, vmap, evaluation): under differentiation only the user's rule runs, as in JAX."""
  __slots__ = ("thunk", "value")

  def __init__(self, thunk):
    self.thunk = thunk
    self.value = None

  def get(self) -> ir.ClosedJaxpr:
    if self.value is None:
      self.value = self.thunk()
    return self.value


def _closed(call_jaxpr) -> ir.ClosedJaxpr:
  return call_jaxpr.get() if type(call_jaxpr) is _LazyJaxpr else call_jaxpr


def _lazy_trace(fun_flat: Callable, in_avals) -> _LazyJaxpr:
  return _LazyJaxpr(lambda: staging.trace_to_jaxpr(fun_flat, in_avals)[0])


def _call_effects(params) -> frozenset:
  """A custom_jvp/custom_vjp call has the effects of the function it calls."""
  return _closed(params["call_jaxpr"]).jaxpr.effects


def _has_tracers(leaves) -> bool:
  return any(isinstance(x, core.Tracer) for x in leaves)


class SymbolicZero:
  """A tangent or cotangent known to be zero, passed to custom rules defined with
  ``symbolic_zeros=True`` instead of an array of zeros; ``aval`` is its abstract value."""
  __slots__ = ("aval",)

  def __init__(self, aval):
    self.aval = aval

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)

  @staticmethod
  def from_primal_value(x) -> "SymbolicZero":
    return SymbolicZero(ad.tangent_aval(core.get_aval(x)))

  def __repr__(self):
    return "SymbolicZero"


class CustomVJPPrimal:
  """What a custom_vjp ``fwd`` rule defined with ``symbolic_zeros=True`` receives for each
  primal input leaf: its ``value`` and whether it is ``perturbed`` (has a nonzero tangent).
  It is a pytree leaf, as in JAX."""
  __slots__ = ("value", "perturbed")

  def __init__(self, value, perturbed: bool):
    self.value = value
    self.perturbed = perturbed

  def __repr__(self):
    return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed!r})"


def _to_symbolic(t):
  """An axle Zero as the SymbolicZero rules see; other values unchanged."""
  return SymbolicZero(t.aval) if type(t) is ad.Zero else t


def _from_symbolic(t):
  return ad.Zero(t.aval) if type(t) is SymbolicZero else t


# ---------------------------------------------------------------------------
# custom_jvp

custom_jvp_call_p = core.Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True


def _custom_call_abstract_eval(*avals, call_jaxpr, **_):
  return list(_closed(call_jaxpr).out_avals)


def _custom_call_impl(*args, call_jaxpr, **_):
  call_jaxpr = _closed(call_jaxpr)
  with core.set_current_trace(core.eval_trace):
    outs = ir.eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *[Array(a) for a in args])
  return [np.asarray(o) for o in outs]


def _custom_call_lowering(ctx, *args, call_jaxpr, **_):
  call_jaxpr = _closed(call_jaxpr)
  jaxpr = ad.memoized("lowered_body", call_jaxpr, None,
                      lambda: _without_dead_equations(call_jaxpr.jaxpr))
  return lowering.jaxpr_subcomp(ctx, jaxpr, call_jaxpr.consts, args)


def _without_dead_equations(jaxpr: ir.Jaxpr) -> ir.Jaxpr:
  """``jaxpr`` without the effect-free equations none of whose outputs is needed (as JAX, the
  dead work of a custom_jvp/custom_vjp function is not lowered); the kept equations, and the
  jaxprs they carry, are the same objects."""
  live = {v for v in jaxpr.outvars if type(v) is not ir.Literal}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    if (not any(v in live for v in eqn.outvars) and not eqn.primitive.has_effects
        and not ir.eqn_effects(eqn.primitive, eqn.params)):
      continue
    kept.append(eqn)
    live.update(v for v in eqn.invars if type(v) is not ir.Literal)
  if len(kept) == len(jaxpr.eqns):
    return jaxpr
  return jaxpr.replace(eqns=kept[::-1])


custom_jvp_call_p.def_abstract_eval(_custom_call_abstract_eval)
custom_jvp_call_p.def_impl(_custom_call_impl)
lowering.register(custom_jvp_call_p, _custom_call_lowering)
ir.effect_rules[custom_jvp_call_p] = _call_effects


def _hoist_call_consts(primitive):
  """The staging rule of a custom_jvp/custom_vjp call: as JAX, the constants its function's
  jaxpr closes over become the call's first operands (``num_consts`` of them), so the staged
  call jaxpr has none and the enclosing jaxpr holds them."""
  def fold(trace, args, params):
    closed = _closed(params["call_jaxpr"])
    if not closed.consts:
      return None
    jaxpr = closed.jaxpr
    hoisted = ir.ClosedJaxpr(jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars]),
                             [])
    params = dict(params, call_jaxpr=hoisted,
                  num_consts=params.get("num_consts", 0) + len(closed.consts))
    return trace.process_primitive(primitive, [*closed.consts, *args], params)
  return fold


staging.folding_rules[custom_jvp_call_p] = _hoist_call_consts(custom_jvp_call_p)


def _with_consts(params: dict, num_consts: int) -> dict:
  """``params`` of a rebound call: ``num_consts`` shown only when there are constants."""
  return dict(params, num_consts=num_consts) if num_consts else params


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, name, symbolic_zeros,
                         num_consts=0):
  # The rule closes over the constants itself: they are neither its primals nor tangents.
  primals, tangents = primals[num_consts:], tangents[num_consts:]
  tangents = [_to_symbolic(t) if symbolic_zeros else ad.instantiate_zeros(t) for t in tangents]
  trace = core.current_trace()
  if type(trace) is ad.LinearizeTrace and not trace.splits_known_jits:
    # Under linearize JAX partially evaluates the rule: the jits it calls on known values are
    # split (traced anew) as well.
    trace.splits_known_jits = True
    try:
      outs, tangent_outs = jvp(primals, tangents)
    finally:
      trace.splits_known_jits = False
  else:
    outs, tangent_outs = jvp(primals, tangents)
  return list(outs), list(tangent_outs)


ad.primitive_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp


def _moved_to_front(args, dims):
  return [batching.moveaxis(a, d, 0) if d is not None else a for a, d in zip(args, dims)]


def _custom_jvp_call_batch(args, dims, *, call_jaxpr, jvp, name, symbolic_zeros, num_consts=0):
  size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
  args = _moved_to_front(args, dims)
  in_dims = [0 if d is not None else None for d in dims]
  batched, _ = batching.batch_jaxpr(_closed(call_jaxpr), size, in_dims, True,
                                    same_level=True)
  rule_dims = in_dims[num_consts:]

  def batched_jvp(primals, tangents):
    outs, tangent_outs = vmap(lambda p, t: tuple(map(list, jvp(p, t))),
                              in_axes=(rule_dims, rule_dims), axis_size=size)(list(primals),
                                                                              list(tangents))
    return outs, tangent_outs

  params = dict(call_jaxpr=batched, jvp=_Rule(batched_jvp, getattr(jvp, "name", "jvp")),
                name=name, symbolic_zeros=symbolic_zeros)
  outs = custom_jvp_call_p.bind(*args, **_with_consts(params, num_consts))
  return outs, [0] * len(outs)


batching.primitive_batchers[custom_jvp_call_p] = _custom_jvp_call_batch


def _is_array_residual(x) -> bool:
  return isinstance(x, (core.Tracer, Array, np.ndarray, np.generic)) or (
      type(x) in (float, complex) or (type(x) is int))


class _CustomRuleFunction:
  """What custom_jvp and custom_vjp share: wrapping ``fun``, binding its arguments, and the
  lazily traced flat function their call primitives carry."""

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = tuple(nondiff_argnums)
    self.symbolic_zeros = False

  def __get__(self, instance, owner=None):
    if instance is None:
      return self
    return functools.partial(self, instance)

  def _bind_arguments(self, args, kwargs):
    """(positional args, nondiff args, flat diff leaves, their treedef)."""
    args = _resolve_argnums(self.fun, self.nondiff_argnums, args, kwargs)
    nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
    leaves, in_tree = tree_util.tree_flatten(diff)
    return args, nondiff, leaves, in_tree

  def _full_args(self, nondiff, in_tree, flat, n_args):
    return _merge_nondiff(nondiff, tree_util.tree_unflatten(in_tree, flat), self.nondiff_argnums,
                          n_args)

  def _lazy_call_jaxpr(self, nondiff, leaves, in_tree, n_args, store) -> "_LazyJaxpr":
    """``fun`` on flat differentiable leaves, traced when a trace needs it; records the output
    treedef in ``store["out_tree"]``."""
    def flat_fun(*flat):
      out = self.fun(*self._full_args(nondiff, in_tree, flat, n_args))
      out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
      return out_leaves
    return _lazy_trace(flat_fun, [core.get_aval(x) for x in leaves])


class custom_jvp(_CustomRuleFunction):
  """Wraps ``fun`` so that differentiation uses a rule you define with ``defjvp`` (or
  ``defjvps``) instead of differentiating ``fun``'s body. ``nondiff_argnums`` name positional
  arguments that are not differentiated (passed first to the rule)."""

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
    super().__init__(fun, nondiff_argnums)
    self.jvp = None

  def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
    """Sets the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)`` (with nondiff
    arguments first: ``jvp(*nondiff, primals, tangents)``)."""
    self.jvp = jvp
    self.symbolic_zeros = symbolic_zeros
    return jvp

  def defjvps(self, *tangent_fns) -> None:
    """Sets the rule from one function per argument, ``fn(tangent, primal_out, *primals)``
    (None for an argument with zero derivative); the contributions are summed."""
    def jvp(primals, tangents):
      out = self(*primals)
      total = None
      for fn, t in zip(tangent_fns, tangents):
        if fn is None:
          continue
        contribution = fn(t, out, *primals)
        total = contribution if total is None else tree_util.tree_map(
            lambda a, b: a + b, total, contribution)
      if total is None:
        total = tree_util.tree_map(lambda o: ad.zeros_like_aval(core.get_aval(o)), out)
      return out, total
    self.defjvp(jvp)

  def __call__(self, *args, **kwargs):
    if self.jvp is None:
      raise AttributeError(f"No JVP defined for custom_jvp function {_function_name(self.fun)} "
                           "using defjvp.")
    args, nondiff, leaves, in_tree = self._bind_arguments(args, kwargs)
    traced_nondiff = [i for i, v in zip(self.nondiff_argnums, nondiff)
                      if _has_tracers(tree_util.tree_leaves(v))]
    if traced_nondiff and not _is_eager():
      return self._call_with_traced_nondiff(args, traced_nondiff)
    if _is_eager() or not _has_tracers(leaves):
      return self.fun(*args)
    out_store = {}
    call_jaxpr = self._lazy_call_jaxpr(nondiff, leaves, in_tree, len(args), out_store)
    user_jvp = self.jvp

    def flat_jvp(primals, tangents):
      primal_tree = tree_util.tree_unflatten(in_tree, primals)
      tangent_tree = tree_util.tree_unflatten(in_tree, tangents)
      out = user_jvp(*nondiff, primal_tree, tangent_tree)
      if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("Custom JVP rule must produce a pair (list or tuple of length two) "
                        f"representing primal and tangent outputs, but got {out}.")
      primal_out, tangent_out = out
      p_leaves, p_tree = tree_util.tree_flatten(primal_out)
      t_leaves, t_tree = tree_util.tree_flatten(tangent_out)
      out_tree = out_store.setdefault("out_tree", p_tree)
      if p_tree != out_tree:
        raise TypeError("Custom JVP rule must produce primal outputs with the same container "
                        f"(pytree) structure as the primal function, got {p_tree} and "
                        f"{out_tree} respectively.")
      if t_tree != p_tree:
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with equal "
                        f"container (pytree) structures, but got {p_tree} and {t_tree} "
                        "respectively.")
      for p, t in zip(p_leaves, t_leaves):
        if type(t) in (SymbolicZero, ad.Zero):
          continue
        p_aval, t_aval = core.get_aval(p), core.get_aval(t)
        expected = ad.tangent_aval(p_aval)
        if t_aval.shape != expected.shape:
          raise ValueError("Custom JVP rule must produce primal and tangent outputs with "
                           "corresponding shapes, but got primal output shape "
                           f"{p_aval.shape} and tangent output shape {t_aval.shape}.")
      return p_leaves, [_cast_tangent(t, p) for p, t in zip(p_leaves, t_leaves)]

    outs = custom_jvp_call_p.bind(
        *leaves, call_jaxpr=call_jaxpr,
        jvp=_Rule(flat_jvp, _function_name(self.jvp)), name=_function_name(self.fun),
        symbolic_zeros=self.symbolic_zeros)
    return tree_util.tree_unflatten(out_store["out_tree"], outs)


  def _call_with_traced_nondiff(self, args, traced):
    """As JAX: a nondiff argument holding tracers is passed through ``stop_gradient`` as an
    operand of the call (its tangent is dropped before the rule sees the arguments)."""
    args = [stop_gradient(a) if i in traced else a for i, a in enumerate(args)]
    static = tuple(i for i in self.nondiff_argnums if i not in traced)
    diff_positions = [i for i in range(len(args)) if i not in self.nondiff_argnums]
    n_args, user_jvp, nondiff_argnums = len(args), self.jvp, self.nondiff_argnums

    @functools.wraps(user_jvp)
    def rule(*rest):
      *static_values, primals, tangents = rest
      by_position = dict(zip(static, static_values))
      dynamic = [i for i in range(n_args) if i not in static]
      by_position.update(zip(dynamic, primals))
      tangent_of = dict(zip(dynamic, tangents))
      return user_jvp(*(by_position[i] for i in nondiff_argnums),
                      tuple(by_position[i] for i in diff_positions),
                      tuple(tangent_of[i] for i in diff_positions))

    inner = custom_jvp(self.fun, nondiff_argnums=static)
    inner.defjvp(rule, symbolic_zeros=self.symbolic_zeros)
    return inner(*args)


def _cast_tangent(t, p):
  if type(t) in (SymbolicZero, ad.Zero):
    return ad.Zero(ad.tangent_aval(core.get_aval(p)))
  expected = ad.tangent_dtype(core.get_aval(p).dtype)
  if expected == ad.float0:
    return ad.Zero(ad.tangent_aval(core.get_aval(p)))
  if core.get_aval(t).dtype != expected:
    from axle._src.lax import elementwise_convert  # lax sits above the custom rules
    return elementwise_convert.convert_element_type(t, expected)
  return t


def _pp_in_order(*keys):
  """An equation printer showing ``keys`` of the params in this order (as JAX does)."""

  def rule(eqn, names):
    shown = {k: _closed(eqn.params[k]) if k == "call_jaxpr" else eqn.params[k] for k in keys
             if k in eqn.params}
    return pp.concat([ir._pp_binders(eqn.outvars, names), pp.text(f" = {eqn.primitive.name}"),
                      ir.pp_params(shown, names, sort=False), ir.pp_operands(eqn.invars, names)])
  return rule


ir.pp_eqn_rules[custom_jvp_call_p] = _pp_in_order("name", "call_jaxpr", "jvp", "num_consts",
                                                  "symbolic_zeros")
ir.pp_unnamed_subjaxprs[custom_jvp_call_p] = lambda params: [_closed(params["call_jaxpr"]).jaxpr]


# ---------------------------------------------------------------------------
# custom_vjp

custom_vjp_call_p = core.Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True
custom_vjp_call_p.def_abstract_eval(_custom_call_abstract_eval)
custom_vjp_call_p.def_impl(_custom_call_impl)
lowering.register(custom_vjp_call_p, _custom_call_lowering)
ir.effect_rules[custom_vjp_call_p] = _call_effects
staging.folding_rules[custom_vjp_call_p] = _hoist_call_consts(custom_vjp_call_p)

# custom_lin: the linear map "bwd transposed", applied to tangents; only ever transposed.
custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True


def _custom_lin_abstract_eval(*avals, num_res, bwd, out_avals, **_):
  return [ad.tangent_aval(a) for a in out_avals]


def _custom_lin_impl(*args, **params):
  raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_abstract_eval(_custom_lin_abstract_eval)
custom_lin_p.def_impl(_custom_lin_impl)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, in_avals):
  residuals = args[:num_res]
  cts_in = bwd(residuals, list(cts))  # bwd instantiates zeros unless its rule takes symbolic ones
  return [None] * num_res + list(cts_in)


def _custom_lin_jvp(primals, tangents, **params):
  raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


ad.primitive_transposes[custom_lin_p] = _custom_lin_transpose
ad.primitive_jvps[custom_lin_p] = _custom_lin_jvp


def _custom_lin_batch(args, dims, **params):
  raise NotImplementedError("vmap of the linearized part of a custom_vjp function: apply vmap "
                            "outside of grad/vjp instead.")


batching.primitive_batchers[custom_lin_p] = _custom_lin_batch
lowering.register(custom_lin_p, lambda ctx, *args, **params: _custom_lin_impl())


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, name, symbolic_zeros,
                         num_consts=0):
  primals, tangents = primals[num_consts:], tangents[num_consts:]
  perturbed = [type(t) is not ad.Zero for t in tangents]
  outs, residuals = fwd(primals, perturbed)  # JAX runs fwd before refusing forward mode
  # Reverse mode (a LinearizeTrace) and the JVP of a staged call (jit, scan, cond bodies under
  # grad: a StagingTrace) record custom_lin, which only its transpose ever evaluates; plain
  # forward mode on values has nothing to record it into.
  if not isinstance(core.current_trace(), staging.StagingTrace):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")
  in_avals = [core.get_aval(p) for p in primals]
  out_avals = [core.get_aval(o) for o in outs]
  tangent_outs = custom_lin_p.bind(
      *residuals, *[ad.instantiate_zeros(t) for t in tangents], num_res=len(residuals),
      bwd=bwd, out_avals=tuple(out_avals), in_avals=tuple(in_avals))
  return list(outs), [ad.Zero(ad.tangent_aval(a)) if ad.tangent_aval(a).dtype == ad.float0
                      else t for a, t in zip(out_avals, tangent_outs)]


ad.primitive_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp


def _custom_vjp_call_transpose(cts, *args, call_jaxpr, fwd, bwd, name, symbolic_zeros,
                               num_consts=0):
  """A custom_vjp call applied to linear values (a tangent, as in ``custom_linear_solve``):
  the function is linear in its undefined inputs, so its VJP is the same at every point and
  ``bwd`` at the residuals of ``fwd`` at zero is its transpose."""
  if num_consts:
    return [None] * num_consts + _custom_vjp_call_transpose(
        cts, *args[num_consts:], call_jaxpr=call_jaxpr, fwd=fwd, bwd=bwd, name=name,
        symbolic_zeros=symbolic_zeros)
  primals = [ad.zeros_like_aval(a.aval) if ad.is_undefined_primal(a) else a for a in args]
  perturbed = [ad.is_undefined_primal(a) for a in args]
  _, residuals = fwd(primals, perturbed)
  cts_in = bwd(residuals, list(cts))
  return [ct if ad.is_undefined_primal(a) else None for a, ct in zip(args, cts_in)]


ad.primitive_transposes[custom_vjp_call_p] = _custom_vjp_call_transpose


def _custom_vjp_call_batch(args, dims, *, call_jaxpr, fwd, bwd, name, symbolic_zeros,
                           num_consts=0):
  size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
  args = _moved_to_front(args, dims)
  in_dims = [0 if d is not None else None for d in dims]
  batched, _ = batching.batch_jaxpr(_closed(call_jaxpr), size, in_dims, True,
                                    same_level=True)
  rule_dims = in_dims[num_consts:]

  def batched_fwd(primals, perturbed=None):
    return vmap(lambda p: fwd(p, perturbed), in_axes=(rule_dims,), axis_size=size)(list(primals))

  def batched_bwd(residuals, cts):
    cts_in = vmap(lambda r, c: list(bwd(r, c)), axis_size=size)(list(residuals), list(cts))
    return cts_in

  params = dict(call_jaxpr=batched, fwd=_Rule(batched_fwd, repr(fwd)),
                bwd=_Rule(batched_bwd, repr(bwd)), name=name, symbolic_zeros=symbolic_zeros)
  outs = custom_vjp_call_p.bind(*args, **_with_consts(params, num_consts))
  return outs, [0] * len(outs)


batching.primitive_batchers[custom_vjp_call_p] = _custom_vjp_call_batch


ir.pp_eqn_rules[custom_vjp_call_p] = _pp_in_order("name", "bwd", "call_jaxpr", "fwd",
                                                  "num_consts", "symbolic_zeros")
ir.pp_unnamed_subjaxprs[custom_vjp_call_p] = lambda params: [_closed(params["call_jaxpr"]).jaxpr]


class custom_vjp(_CustomRuleFunction):
  """Wraps ``fun`` so that reverse-mode differentiation uses the rules you define with
  ``defvjp(fwd, bwd)``: ``fwd`` returns the output and residuals, ``bwd(residuals, ct)`` the
  cotangents of the (differentiable) arguments as a tuple. Forward mode is not supported."""

  def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
    super().__init__(fun, nondiff_argnums)
    self.fwd = None
    self.bwd = None

  def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
             optimize_remat: bool = False) -> None:
    """Sets ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, ct) -> tuple of cotangents``
    (with nondiff arguments first in bwd: ``bwd(*nondiff, residuals, ct)``)."""
    self.fwd = fwd
    self.bwd = bwd
    self.symbolic_zeros = symbolic_zeros

  def __call__(self, *args, **kwargs):
    if self.fwd is None or self.bwd is None:
      raise AttributeError(f"No VJP defined for custom_vjp function {_function_name(self.fun)} "
                           "using defvjp.")
    args, nondiff, leaves, in_tree = self._bind_arguments(args, kwargs)
    if _is_eager() or not _has_tracers(leaves):
      return self.fun(*args)
    n_args = len(args)
    diff = tree_util.tree_unflatten(in_tree, leaves)
    store = {}
    call_jaxpr = self._lazy_call_jaxpr(nondiff, leaves, in_tree, n_args, store)
    user_fwd, user_bwd = self.fwd, self.bwd

    symbolic_zeros = self.symbolic_zeros

    def flat_fwd(primals, perturbed=None):
      if symbolic_zeros:
        if perturbed is None:
          perturbed = [True] * len(primals)
        primals = [CustomVJPPrimal(p, bool(q)) for p, q in zip(primals, perturbed)]
      full = self._full_args(nondiff, in_tree, primals, n_args)
      result = user_fwd(*full)
      if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError("Custom VJP fwd rule must produce a pair (list or tuple of length two) "
                        "where the first element represents the primal output (equal to the "
                        "output of the custom_vjp-decorated function) and the second element "
                        "represents residuals (i.e. values stored from the forward pass for use "
                        f"on the backward pass), but instead the fwd rule output's type was "
                        f"{type(result)}.")
      out, residuals = result
      out_leaves, fwd_tree = tree_util.tree_flatten(out)
      out_tree = store.setdefault("out_tree", fwd_tree)
      if fwd_tree != out_tree:
        raise TypeError("Custom VJP fwd rule must produce an output with the same container "
                        "(pytree) structure as the args tuple of the primal function, and in "
                        f"particular must produce a tuple of length equal to the number of "
                        f"arguments to the primal function, but got fwd output structure "
                        f"{fwd_tree} for primal output structure {out_tree}.")
      res_leaves, res_tree = tree_util.tree_flatten(residuals)
      store["res_tree"] = res_tree
      # Residual leaves that are not arrays (Python bools, None-like flags, strings) reach bwd
      # unchanged, as static values; only arrays travel through the linear computation.
      static = {i: x for i, x in enumerate(res_leaves) if not _is_array_residual(x)}
      store["res_static"] = static
      return out_leaves, [x for i, x in enumerate(res_leaves) if i not in static]

    def flat_bwd(res_leaves, cts):
      cts = [_to_symbolic(ct) if symbolic_zeros else ad.instantiate_zeros(ct) for ct in cts]
      static = store.get("res_static", {})
      dynamic = iter(res_leaves)
      n_leaves = store["res_tree"].num_leaves
      res_leaves = [static[i] if i in static else next(dynamic) for i in range(n_leaves)]
      residuals = tree_util.tree_unflatten(store["res_tree"], res_leaves)
      ct_tree = tree_util.tree_unflatten(store["out_tree"], cts)
      cts_in = user_bwd(*nondiff, residuals, ct_tree)
      if not isinstance(cts_in, (tuple, list)):
        raise TypeError("Custom VJP bwd rule must produce a tuple of cotangents, one per "
                        f"positional argument of the primal function, but got {type(cts_in)}.")
      if len(cts_in) != len(diff):
        raise TypeError(f"Custom VJP bwd rule must produce a tuple of length equal to the "
                        f"number of differentiable positional arguments ({len(diff)}), but "
                        f"got a tuple of length {len(cts_in)}.")
      flat = []
      for ct, primal in zip(cts_in, diff):
        primal_leaves, primal_tree = tree_util.tree_flatten(primal)
        if ct is None:
          flat.extend(ad.Zero(ad.tangent_aval(core.get_aval(p))) for p in primal_leaves)
          continue
        ct_leaves = primal_tree.flatten_up_to(ct)
        for c, p in zip(ct_leaves, primal_leaves):
          flat.append(ad.Zero(ad.tangent_aval(core.get_aval(p))) if c is None else
                      _cast_tangent(c, p))  # a SymbolicZero becomes a Zero
      return flat

    outs = custom_vjp_call_p.bind(
        *leaves, call_jaxpr=call_jaxpr, fwd=_Rule(flat_fwd, _function_name(self.fwd)),
        bwd=_Rule(flat_bwd, _function_name(self.bwd)), name=_function_name(self.fun),
        symbolic_zeros=self.symbolic_zeros)
    return tree_util.tree_unflatten(store["out_tree"], outs)


# ---------------------------------------------------------------------------
# closure_convert


def closure_convert(fun: Callable, *example_args):
  """Returns ``(converted, consts)``: ``converted(*args, *consts)`` computes ``fun(*args)`` with
  the floating-point values ``fun`` closes over hoisted into explicit arguments ``consts``
  (so that custom_vjp rules can differentiate with respect to them)."""
  leaves, in_tree = tree_util.tree_flatten(example_args)
  store = {}

  def flat_fun(*flat):
    out = fun(*tree_util.tree_unflatten(in_tree, flat))
    out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
    return out_leaves

  closed, _ = staging.trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in leaves])
  out_tree = store["out_tree"]
  jaxpr = closed.jaxpr
  hoist = [dtypes.issubdtype(core.get_aval(c).dtype, np.inexact) for c in closed.consts]
  hoisted = [c for c, h in zip(closed.consts, hoist) if h]
  kept = [c for c, h in zip(closed.consts, hoist) if not h]
  hoisted_vars = [v for v, h in zip(jaxpr.constvars, hoist) if h]
  kept_vars = [v for v, h in zip(jaxpr.constvars, hoist) if not h]
  new_jaxpr = jaxpr.replace(constvars=kept_vars, invars=list(jaxpr.invars) + hoisted_vars)

  def converted(*args_and_consts):
    args = args_and_consts[:len(args_and_consts) - len(hoisted)]
    consts = args_and_consts[len(args_and_consts) - len(hoisted):]
    flat_args, _ = tree_util.tree_flatten(args)
    outs = ir.eval_jaxpr(new_jaxpr, kept, *flat_args, *consts)
    return tree_util.tree_unflatten(out_tree, outs)

  return converted, hoisted


# ---------------------------------------------------------------------------
# custom_gradient


class _GradientRule:
  """The residual of a custom_gradient call: the traced gradient function (static) and the
  values it closes over (pytree children, so they travel as custom_vjp residuals)."""

  def __init__(self, jaxpr, consts, in_tree, out_tree):
    self.jaxpr, self.consts, self.in_tree, self.out_tree = jaxpr, consts, in_tree, out_tree


tree_util.register_pytree_node(
    _GradientRule, lambda r: (tuple(r.consts), (r.jaxpr, r.in_tree, r.out_tree)),
    lambda aux, consts: _GradientRule(aux[0], list(consts), aux[1], aux[2]))


def custom_gradient(fun: Callable) -> Callable:
  """Defines a function's gradient along with it: ``fun(*args)`` returns ``(out, vjp_fun)``
  where ``vjp_fun(ct)`` returns the cotangents of ``args`` (a tuple, or a single value for a
  single argument). The decorated function returns ``out`` alone."""
  @custom_vjp
  def wrapped(*args):
    out, _ = fun(*args)
    return out

  def fwd(*args):
    out, rule = fun(*args)
    out_leaves, out_tree = tree_util.tree_flatten((out,))
    ct_avals = [ad.tangent_aval(core.get_aval(x)) for x in out_leaves]
    store = {}

    def flat_rule(*cts):
      result = rule(*tree_util.tree_unflatten(out_tree, list(cts)))
      leaves, store["in_tree"] = tree_util.tree_flatten(result)
      return leaves

    closed, _ = staging.trace_to_jaxpr(flat_rule, ct_avals)
    return out, _GradientRule(closed.jaxpr, closed.consts, store["in_tree"], out_tree)

  def bwd(res, ct):
    ct_leaves, _ = tree_util.tree_flatten((ct,))
    cts_in = ir.eval_jaxpr(res.jaxpr, res.consts, *ct_leaves)
    cts_in = tree_util.tree_unflatten(res.in_tree, cts_in)
    if tree_util.treedef_is_leaf(res.in_tree):
      cts_in = (cts_in,)
    return tuple(cts_in)

  wrapped.defvjp(fwd, bwd)
  return wrapped


def zero_from_primal(val, symbolic_zeros: bool = False):
  """A tangent of zeros for each leaf of ``val`` (``SymbolicZero``s with ``symbolic_zeros``)."""
  def zero(x):
    aval = ad.tangent_aval(core.get_aval(x))
    return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
  return tree_util.tree_map(zero, val)


def custom_vjp_primal_tree_values(tree):
  """``tree`` with each ``CustomVJPPrimal`` replaced by its value."""
  return tree_util.tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree)
