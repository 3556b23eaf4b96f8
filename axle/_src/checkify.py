"""``checkify``: turning run-time checks into values a compiled function returns.

``checkify(f, errors=...)`` traces ``f`` to a jaxpr and interprets it again with an *error
state* threaded through every equation (a functionalizing transformation): the state is an
int32 code (0: no error, k: the k-th check site of this call failed first) and, for sites
whose message has formatted values, those values. Each equation's automatic checks
(NaN outputs, integer division by zero, out-of-bounds indices) and every ``check`` update the
state with ``where`` on values of the enclosing trace, so the checks are staged into ``jit``,
batched by ``vmap``, differentiated past by ``grad``; ``cond``, ``scan``, ``while_loop`` and
nested ``jit`` get bodies that take and return the state. The returned ``Error`` reads the
code (and values) back: ``err.get()`` is the message of the first failure, ``err.throw()``
raises it.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import custom_derivatives
from axle._src import ir
from axle._src import source_info as source_info_util
from axle._src import tree_util
from axle._src.api import jit_p
from axle._src.core import ShapedArray, Tracer
from axle._src.array import Array
from axle._src.checkpoint import remat_p
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering
from axle._src.interpreters import staging
from axle._src.lax import conditionals
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import loops
from axle._src.lax import slicing
from axle._src.lax import structural
from axle._src.numpy import creation
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import selection
from axle._src.numpy import ufuncs


# ---------------------------------------------------------------------------
# Error kinds and sets


class JaxRuntimeError(ValueError):
  """A check failed: raised by ``Error.throw()`` and by ``check`` run eagerly."""


class JaxException:
  """Base of the kinds of checkify errors."""


class FailedCheckError(JaxException):
  """A user ``check`` failed."""


class NaNError(JaxException):
  """An operation produced a NaN."""


class DivisionByZeroError(JaxException):
  """An integer division or remainder by zero."""


class OOBError(JaxException):
  """An index was out of bounds."""


ErrorCategory = type[JaxException]  # the kind of error a check set holds
user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


# ---------------------------------------------------------------------------
# check: the user's assertion, as a primitive


check_p = core.Primitive("check")
check_p.multiple_results = True
check_p.has_effects = True  # never removed by DCE


def _check_abstract_eval(pred, *payload, msg, payload_tree):
  return []


def _format_check_message(msg: str, payload_tree, payload_values) -> str:
  args, kwargs = tree_util.tree_unflatten(payload_tree, list(payload_values))
  return f"{msg.format(*args, **kwargs)} (`check` failed)"


def _check_impl(pred, *payload, msg, payload_tree):
  if not np.all(np.asarray(pred)):
    values = [Array(np.asarray(p)) for p in payload]
    raise JaxRuntimeError(_format_check_message(msg, payload_tree, values))
  return []


def _check_lowering(ctx, *args, **params):
  raise ValueError("Cannot abstractly evaluate a checkify.check which was not functionalized. "
                   "This probably means you tried to stage (jit/scan/pmap/...) a `check` "
                   "without functionalizing it through `checkify.checkify`.")


def _check_jvp(primals, tangents, **params):
  check_p.bind(*primals, **params)
  return [], []


def _check_batch(args, dims, *, msg, payload_tree):
  """A batched check fails when one element fails; it reports that element's values."""
  pred, *payload = args
  pred_dim, *payload_dims = dims
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  pred = batching.moveaxis(pred, pred_dim, 0) if pred_dim is not None else \
      lax_numpy.broadcast_to(pred, (size, *np.shape(pred)))
  failed = ufuncs.logical_not(pred).reshape((size, -1)).any(axis=1)
  # the last failing element, as JAX reports for a batched check
  index = size - 1 - reductions.argmax(failed[::-1])
  chosen = [p if d is None else selection.take(p, index, axis=d) for p, d in zip(payload, payload_dims)]
  check_p.bind(ufuncs.logical_not(failed.any()), *chosen, msg=msg, payload_tree=payload_tree)
  return [], []


check_p.def_abstract_eval(_check_abstract_eval)
check_p.def_impl(_check_impl)
lowering.register(check_p, _check_lowering)
ad.primitive_jvps[check_p] = _check_jvp
batching.primitive_batchers[check_p] = _check_batch
ir.pp_param_rules[check_p] = lambda params: {"msg": repr(params["msg"])}


def check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Asserts ``pred`` (all elements true). Under ``checkify`` a failure is recorded in the
  returned Error; run eagerly it raises JaxRuntimeError at once; staged (``jit``) without
  ``checkify`` it is an error. ``msg`` is formatted with ``str.format`` from ``fmt_args`` and
  ``fmt_kwargs`` (arrays), e.g. ``check(x > 0, "x={x} must be positive", x=x)``."""
  if not isinstance(msg, str):
    raise TypeError(f"check takes a message string as its second argument, got {msg!r}.")
  pred_aval = _operand_aval(pred, "The predicate to checkify.check")
  if pred_aval.dtype != np.bool_:
    raise TypeError(f"check takes a boolean predicate, got {pred_aval.str_short()} "
                    f"(compare with e.g. `x > 0`).")
  leaves, tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
  for leaf in leaves:
    if not isinstance(leaf, (Array, Tracer, np.ndarray, np.generic)):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, but "
                      f"got {leaf!r} of type {type(leaf)}.")
  check_p.bind(pred, *leaves, msg=msg, payload_tree=tree)


def _operand_aval(x, what: str) -> ShapedArray:
  try:
    return core.get_aval(x)
  except TypeError:
    raise TypeError(f"{what} must be an array, got {x!r} of type {type(x)}.") from None


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Like ``check`` when transformed by ``checkify``; anywhere else (eagerly, under ``jit``) it
  is dropped, as in JAX."""
  if _inside_checkify():
    check(pred, msg, *fmt_args, **fmt_kwargs)


# ---------------------------------------------------------------------------
# Check sites and the error state


class _Site:
  """One place that can fail: its kind, how to write its message, the avals of its values."""
  __slots__ = ("error_type", "describe", "payload_avals", "source_info")

  def __init__(self, error_type, describe: Callable, payload_avals, source_info):
    self.error_type = error_type
    self.describe = describe  # payload values -> message
    self.payload_avals = tuple(payload_avals)
    self.source_info = source_info

  @property
  def effect(self) -> tuple:
    """Sites of one kind with the same value types share one slot of the error state."""
    return (self.error_type, self.payload_avals)


class _Checkify:
  """The check sites of one ``checkify`` call (codes in the order they were traced) and the
  error kinds it checks."""

  def __init__(self, enabled):
    self.enabled = frozenset(enabled)
    self.sites: list[_Site] = []
    self.keys: dict = {}
    self.effects: list[tuple] = []
    self.keep_alive: list = []

  def site(self, key, make: Callable[[], _Site]) -> int:
    """The code (1-based) of the site ``key``, registered on first use."""
    code = self.keys.get(key)
    if code is None:
      site = make()
      self.sites.append(site)
      code = self.keys[key] = len(self.sites)
      if site.effect not in self.effects:
        self.effects.append(site.effect)
    return code


class _State:
  """The error state as values of the current trace: for each effect (error kind and value
  types), the code of its first failure (0: none) and that failure's values."""
  __slots__ = ("slots",)

  def __init__(self, slots: dict):
    self.slots = slots

  def flatten(self, effects: Sequence[tuple]) -> list:
    return [v for e in effects for v in self.slots[e]]

  @staticmethod
  def unflatten(effects: Sequence[tuple], values) -> "_State":
    values = iter(values)
    return _State({e: [next(values) for _ in range(1 + len(e[1]))] for e in effects})

  def fill(self, effects: Sequence[tuple]) -> None:
    """Adds empty slots for effects registered since this state was made."""
    for e in effects:
      if e not in self.slots:
        self.slots[e] = _empty_slot(e)


def _empty_slot(effect) -> list:
  return [np.int32(0)] + [creation.zeros(a.shape, a.dtype) for a in effect[1]]


def _state_avals(effects) -> list[ShapedArray]:
  return [a for e in effects for a in (ShapedArray((), np.int32), *e[1])]


def _record(ctx: _Checkify, state: _State, code: int, failed, payload=()) -> None:
  """Updates the slot of ``code``'s effect when ``failed`` (a boolean scalar) and the slot is
  still empty: within an effect the first failure wins."""
  effect = ctx.sites[code - 1].effect
  slot = state.slots.get(effect)
  if slot is None:
    slot = _empty_slot(effect)
  fire = failed & (slot[0] == 0)
  state.slots[effect] = [lax_elementwise.select(fire, np.int32(code), slot[0])] + [
      lax_elementwise.select(fire, _like(new, prev), prev) for new, prev in zip(payload, slot[1:])]


def _like(value, reference):
  """``value`` with ``reference``'s dtype (a weakly typed value is converted)."""
  aval = core.get_aval(value)
  if aval.dtype != reference.dtype or aval.weak_type:
    return lax_elementwise.convert_element_type(value, reference.dtype)
  return value


# ---------------------------------------------------------------------------
# Automatic checks

# The primitives whose NaN outputs nan_checks reports (JAX's set; e.g. max, min, neg and the
# structural operations pass NaNs through unreported).
_NAN_CHECKED = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e", "bessel_i1e",
    "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax", "cummin", "cumprod",
    "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp", "expm1", "fft",
    "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma", "custom_linear_solve", "log1p",
    "log", "logistic", "mul", "pad", "pow", "psum", "reduce", "reduce_prod", "reduce_sum",
    "reduce_window", "reduce_window_sum", "regularized_incomplete_beta", "rem", "rng_uniform",
    "rsqrt", "sin", "sinh", "sqrt", "sub", "tan", "tanh", "div",
})


def _nan_check(ctx, state, eqn, invals, outvals):
  code = None
  for out in outvals:
    aval = core.get_aval(out)
    if aval.dtype.kind not in "fc":
      continue
    if code is None:
      name = eqn.primitive.name
      code = ctx.site((id(eqn), "nan"), lambda: _Site(
          NaNError, lambda _: f"nan generated by primitive: {name}.", (), eqn.source_info))
    _record(ctx, state, code, ufuncs.isnan(out).any())


def _div_check(ctx, state, eqn, invals, outvals):
  divisor = invals[1]
  code = ctx.site((id(eqn), "div"), lambda: _Site(
      DivisionByZeroError, lambda _: "division by zero", (), eqn.source_info))
  _record(ctx, state, code, (divisor == 0).any())


def _oob_message(shape):
  def describe(payload):
    index, axis, size = (int(v) for v in np.asarray(payload[0]).reshape(-1))
    return (f"out-of-bounds indexing for array of shape {tuple(shape)}: index {index} is out of "
            f"bounds for axis {axis} with size {size}. ")
  return describe


def _record_oob(ctx, state, eqn, shape, columns, axes, bounds):
  """``columns``: index values (int arrays, one per addressed axis ``axes``), each valid in
  ``[0, bounds[i]]``; records the first out-of-bounds one (value, axis, size)."""
  if not columns:
    return
  code = ctx.site((id(eqn), "oob"), lambda: _Site(
      OOBError, _oob_message(shape), (ShapedArray((3,), np.int32),), eqn.source_info))
  flat = [lax_numpy.ravel(c).astype(np.int32) for c in columns]
  stacked = lax_numpy.stack(flat, axis=1)  # (n, k)
  bad = (stacked < 0) | (stacked > np.asarray(bounds, np.int32))
  failed = bad.any()
  first = reductions.argmax(lax_numpy.ravel(bad))
  column = first % len(columns)
  value = lax_numpy.ravel(stacked)[first]
  axis = selection.take(np.asarray(axes, np.int32), column)
  size = selection.take(np.asarray([shape[a] for a in axes], np.int32), column)
  payload = lax_numpy.stack([value, axis, size])
  _record(ctx, state, code, failed, [payload])


def _dynamic_slice_check(ctx, state, eqn, invals, outvals):
  operand, *starts = invals
  shape = core.get_aval(operand).shape
  sizes = eqn.params["slice_sizes"]
  _record_oob(ctx, state, eqn, shape, list(starts), list(range(len(shape))),
              [d - s for d, s in zip(shape, sizes)])


def _dynamic_update_slice_check(ctx, state, eqn, invals, outvals):
  operand, update, *starts = invals
  shape = core.get_aval(operand).shape
  sizes = core.get_aval(update).shape
  _record_oob(ctx, state, eqn, shape, list(starts), list(range(len(shape))),
              [d - s for d, s in zip(shape, sizes)])


def _gather_check(ctx, state, eqn, invals, outvals):
  operand, indices = invals
  dn = eqn.params["dimension_numbers"]
  shape = core.get_aval(operand).shape
  sizes = eqn.params["slice_sizes"]
  axes = list(dn.start_index_map)
  columns = [indices[..., j] for j in range(len(axes))]
  _record_oob(ctx, state, eqn, shape, columns, axes, [shape[a] - sizes[a] for a in axes])


def _scatter_check(ctx, state, eqn, invals, outvals):
  operand, indices, updates = invals[:3]
  dn = eqn.params["dimension_numbers"]
  shape = core.get_aval(operand).shape
  update_shape = core.get_aval(updates).shape
  window_axes = [d for d in range(len(shape))
                 if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
  window = {d: update_shape[u] for d, u in zip(window_axes, dn.update_window_dims)}
  axes = list(dn.scatter_dims_to_operand_dims)
  columns = [indices[..., j] for j in range(len(axes))]
  _record_oob(ctx, state, eqn, shape, columns, axes, [shape[a] - window.get(a, 1) for a in axes])


_automatic_checks: dict = {
    lax_elementwise.div_p: (DivisionByZeroError, _div_check),
    lax_elementwise.rem_p: (DivisionByZeroError, _div_check),
    structural.dynamic_slice_p: (OOBError, _dynamic_slice_check),
    structural.dynamic_update_slice_p: (OOBError, _dynamic_update_slice_check),
    slicing.gather_p: (OOBError, _gather_check),
}
for _p in (slicing.scatter_p, slicing.scatter_add_p, slicing.scatter_sub_p, slicing.scatter_mul_p,
           slicing.scatter_min_p, getattr(slicing, "scatter_max_p", None)):
  if _p is not None:
    _automatic_checks[_p] = (OOBError, _scatter_check)


# ---------------------------------------------------------------------------
# Interpreting a jaxpr with the error state


def _checkify_eval(ctx: _Checkify, jaxpr: ir.Jaxpr, consts, state: _State, args) -> list:
  """Evaluates ``jaxpr`` under the current trace, updating ``state`` with every check."""
  env: dict = {}

  def read(atom):
    if type(atom) is ir.Literal:
      return atom.as_array()
    return env[atom]

  for var, value in zip(jaxpr.constvars, consts):
    env[var] = value
  for var, value in zip(jaxpr.invars, args):
    env[var] = value
  ctx.keep_alive.append(jaxpr)
  for eqn in jaxpr.eqns:
    invals = [read(v) for v in eqn.invars]
    with source_info_util.user_context(eqn.source_info):
      rule = _checkify_rules.get(eqn.primitive)
      if rule is not None:
        outs = rule(ctx, state, eqn, invals)
      else:
        outs = eqn.primitive.bind(*invals, **eqn.params)
        outs = list(outs) if eqn.primitive.multiple_results else [outs]
        automatic = _automatic_checks.get(eqn.primitive)
        if automatic is not None and automatic[0] in ctx.enabled:
          automatic[1](ctx, state, eqn, invals, outs)
        if NaNError in ctx.enabled and eqn.primitive.name in _NAN_CHECKED:
          _nan_check(ctx, state, eqn, invals, outs)
    for var, value in zip(eqn.outvars, outs):
      env[var] = value
  return [read(v) for v in jaxpr.outvars]


def _check_rule(ctx, state, eqn, invals):
  if FailedCheckError in ctx.enabled:
    pred, *payload = invals
    msg, tree = eqn.params["msg"], eqn.params["payload_tree"]
    avals = [core.get_aval(p).strip_weak_type().update(weak_type=False) for p in payload]
    code = ctx.site((id(eqn), "check"), lambda: _Site(
        FailedCheckError, lambda values: _format_check_message(msg, tree, values), avals,
        eqn.source_info))
    _record(ctx, state, code, ufuncs.logical_not(pred).any(), payload)
  return []


def _checkify_closed(ctx: _Checkify, closed: ir.ClosedJaxpr, effects):
  """``closed`` as a ClosedJaxpr taking and returning the flat error state (for ``effects``)
  before its own inputs and outputs."""
  state_avals = _state_avals(effects)

  def fun(*args):
    state = _State.unflatten(effects, args[:len(state_avals)])
    outs = _checkify_eval(ctx, closed.jaxpr, closed.consts, state, args[len(state_avals):])
    state.fill(effects)
    return state.flatten(effects) + list(outs)

  new, _ = staging.trace_to_jaxpr(fun, state_avals + list(closed.in_avals))
  return new


def _discover_effects(ctx: _Checkify, state: _State, closeds) -> list[tuple]:
  """Traces the bodies once so every site inside them is registered; returns the effects (the
  state layout the bodies will take and return), with ``state`` filled to match."""
  effects = list(ctx.effects)
  for closed in closeds:
    _checkify_closed(ctx, closed, effects)
  effects = list(ctx.effects)
  state.fill(effects)
  return effects


def _split_state(state: _State, effects, outs):
  n = len(_state_avals(effects))
  state.slots.update(_State.unflatten(effects, outs[:n]).slots)
  return list(outs[n:])


def _jit_rule(ctx, state, eqn, invals):
  closed = eqn.params["jaxpr"]
  effects = _discover_effects(ctx, state, [closed])
  new = _checkify_closed(ctx, closed, effects)
  outs = jit_p.bind(*state.flatten(effects), *invals, **dict(eqn.params, jaxpr=new))
  return _split_state(state, effects, outs)


def _cond_rule(ctx, state, eqn, invals):
  branches = eqn.params["branches"]
  index, *ops = invals
  effects = _discover_effects(ctx, state, branches)
  new_branches = tuple(_checkify_closed(ctx, b, effects) for b in branches)
  outs = conditionals.cond_p.bind(index, *state.flatten(effects), *ops,
                                 **dict(eqn.params, branches=new_branches))
  return _split_state(state, effects, outs)


def _scan_rule(ctx, state, eqn, invals):
  params = dict(eqn.params)
  closed, num_consts, num_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
  effects = _discover_effects(ctx, state, [closed])
  n_state = len(_state_avals(effects))
  # the body takes (state, consts, carry, xs): the state moves after the consts, into the carry
  new = _move_state_after(_checkify_closed(ctx, closed, effects), n_state, num_consts)
  consts, rest = invals[:num_consts], invals[num_consts:]
  params.update(jaxpr=new, num_carry=num_carry + n_state,
                linear=(False,) * (len(invals) + n_state))
  outs = loops.scan_p.bind(*consts, *state.flatten(effects), *rest, **params)
  return _split_state(state, effects, outs)


def _move_state_after(closed: ir.ClosedJaxpr, n_state: int, n_before: int) -> ir.ClosedJaxpr:
  jaxpr = closed.jaxpr
  invars = list(jaxpr.invars)
  state_vars, others = invars[:n_state], invars[n_state:]
  return ir.ClosedJaxpr(jaxpr.replace(invars=others[:n_before] + state_vars + others[n_before:]),
                        closed.consts)


def _while_rule(ctx, state, eqn, invals):
  params = dict(eqn.params)
  cond_closed, body_closed = params["cond_jaxpr"], params["body_jaxpr"]
  cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
  effects = _discover_effects(ctx, state, [body_closed])
  state_avals = _state_avals(effects)
  body = _move_state_after(_checkify_closed(ctx, body_closed, effects), len(state_avals),
                           body_nconsts)
  # the loop condition reads the carry but not the state (checks in it are not recorded)
  cj = cond_closed.jaxpr
  state_vars = [ir.Var(a) for a in state_avals]
  cond_new = ir.ClosedJaxpr(cj.replace(invars=list(cj.invars[:cond_nconsts]) + state_vars
                                       + list(cj.invars[cond_nconsts:])), cond_closed.consts)
  consts = invals[:cond_nconsts + body_nconsts]
  carry = invals[cond_nconsts + body_nconsts:]
  params.update(cond_jaxpr=cond_new, body_jaxpr=body)
  outs = loops.while_p.bind(*consts, *state.flatten(effects), *carry, **params)
  return _split_state(state, effects, outs)


def _remat_rule(ctx, state, eqn, invals):
  closed = eqn.params["jaxpr"]
  return _checkify_eval(ctx, closed.jaxpr, closed.consts, state, invals)


def _custom_derivative_rule(ctx, state, eqn, invals):
  """The checks inside a custom_jvp/custom_vjp function are run on its primal jaxpr (for the
  error state only); the call itself is bound unchanged, so its custom rule still applies
  when the checkified function is differentiated. (Under jit XLA merges the duplicate work.)"""
  closed = custom_derivatives._closed(eqn.params["call_jaxpr"])
  _checkify_eval(ctx, closed.jaxpr, closed.consts, state, invals)
  return list(eqn.primitive.bind(*invals, **eqn.params))


_checkify_rules: dict = {
    custom_derivatives.custom_jvp_call_p: _custom_derivative_rule,
    custom_derivatives.custom_vjp_call_p: _custom_derivative_rule,
    check_p: _check_rule,
    jit_p: _jit_rule,
    conditionals.cond_p: _cond_rule,
    loops.scan_p: _scan_rule,
    loops.while_p: _while_rule,
    remat_p: _remat_rule,
}


# ---------------------------------------------------------------------------
# The Error value and checkify


class Error:
  """The outcome of a checkified function: which check failed first (if any) and its values.

  ``get()`` returns the failure message or None; ``throw()`` raises JaxRuntimeError. Under
  ``vmap`` the codes have batch dimensions and ``get()`` lists each failing element."""

  def __init__(self, slots: dict, sites: tuple):
    self._slots = slots  # effect -> [code, *values]
    self._sites = sites

  def _message_at(self, index) -> str | None:
    best = None
    for slot in self._slots.values():
      code = int(np.asarray(slot[0])[index])
      if code and (best is None or code < best[0]):
        best = (code, slot)
    if best is None:
      return None
    code, slot = best
    values = [Array(np.asarray(np.asarray(v)[index])) for v in slot[1:]]
    return self._sites[code - 1].describe(values)

  def _batch_shape(self) -> tuple:
    for slot in self._slots.values():
      return np.shape(slot[0])
    return ()

  def get(self) -> str | None:
    """The message of the first failed check, or None when every check passed."""
    shape = self._batch_shape()
    if not shape:
      return self._message_at(())
    lines = []
    for index in np.ndindex(shape):
      message = self._message_at(index)
      if message is not None:
        lines.append(f"at mapped index {', '.join(str(i) for i in index)}: {message}")
    return "\n".join(lines) if lines else None

  def get_exception(self) -> JaxRuntimeError | None:
    """The JaxRuntimeError ``throw`` would raise, or None."""
    message = self.get()
    return None if message is None else JaxRuntimeError(message)

  def throw(self) -> None:
    """Raises JaxRuntimeError with the failure message if a check failed."""
    message = self.get()
    if message is not None:
      raise JaxRuntimeError(message)

  def __repr__(self):
    return f"Error({self.get()!r})"

  __str__ = __repr__


def _error_flatten(err: Error):
  effects = tuple(err._slots)
  return [v for e in effects for v in err._slots[e]], (effects, err._sites)


def _error_unflatten(aux, leaves):
  effects, sites = aux
  return Error(_State.unflatten(effects, leaves).slots, sites)


tree_util.register_pytree_node(Error, _error_flatten, _error_unflatten)

_active: list = []


def _inside_checkify() -> bool:
  return bool(_active)


def checkify(f: Callable, errors=user_checks) -> Callable:
  """Returns ``checked_f`` with ``checked_f(*args) == (err, f(*args))``: the checks that
  ``f`` would raise (``check`` calls and, per ``errors``, automatic NaN / division / index
  checks) become the returned ``Error`` instead, so they work under ``jit``, ``vmap``,
  ``grad``, ``scan`` and ``cond``. ``errors`` is a set of error kinds, e.g.
  ``checkify.user_checks | checkify.index_checks`` or ``checkify.all_checks``."""
  enabled = frozenset(errors)
  unknown = [e for e in enabled if not (isinstance(e, type) and issubclass(e, JaxException))]
  if unknown:
    raise TypeError(f"checkify: errors must be a set of checkify error kinds (e.g. "
                    f"checkify.user_checks, checkify.all_checks), got {unknown[0]!r}.")

  @functools.wraps(f)
  def checked(*args, **kwargs):
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    store = {}

    def flat(*xs):
      call_args, call_kwargs = tree_util.tree_unflatten(in_tree, list(xs))
      out = f(*call_args, **call_kwargs)
      out_leaves, store["tree"] = tree_util.tree_flatten(out)
      return out_leaves

    # Python scalars are passed to ``f`` as they are (as JAX's checkify does): only arrays are
    # traced.
    traced = [type(x) not in core.python_scalar_types for x in leaves]
    traced_leaves = [x for x, t in zip(leaves, traced) if t]

    def flat_traced(*xs):
      it = iter(xs)
      return flat(*[next(it) if t else x for x, t in zip(leaves, traced)])

    debug = staging.DebugInfo("checkify", f)
    _active.append(True)
    try:
      closed, _ = staging.trace_to_jaxpr(flat_traced, [_leaf_aval(x) for x in traced_leaves], debug)
    finally:
      _active.pop()
    leaves = traced_leaves
    ctx = _Checkify(enabled)
    state = _State({})
    outs = _checkify_eval(ctx, closed.jaxpr, closed.consts, state, leaves)
    state.fill(ctx.effects)
    error = Error({e: state.slots[e] for e in ctx.effects}, tuple(ctx.sites))
    return error, tree_util.tree_unflatten(store["tree"], outs)

  return checked


def _leaf_aval(x) -> ShapedArray:
  try:
    return core.get_aval(x)
  except TypeError:
    raise TypeError(f"checkify: argument {x!r} of type {type(x)} is not a valid JAX type.") from None
