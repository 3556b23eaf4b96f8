"""JAX's lowering-registration API (``jax.interpreters.mlir``) over axle's text lowering.

Libraries register lowering rules with ``register_lowering(prim, rule)``; a rule receives a
``LoweringRuleContext`` (axle's ``RuleContext``: ``avals_in``, ``avals_out``) and one value per
operand, and returns a sequence of result values, as in JAX. Rules build operations with the
``hlo`` module (``hlo.AddOp(x, y).result``), which emits StableHLO into the rule's function;
``lower_fun`` lowers a function written with lax/jnp instead. While a registered rule runs,
its context is the current one, which the ``hlo`` op builders use.
"""
from __future__ import annotations

import contextvars
from typing import Callable

from axle._src import core
from axle._src.interpreters import lowering

LoweringRuleContext = lowering.RuleContext
Value = lowering.Value

_current_rule_context: contextvars.ContextVar = contextvars.ContextVar(
    "axle_current_lowering_rule_context", default=None)


def current_rule_context() -> lowering.RuleContext:
  """The context of the lowering rule running now (for the ``hlo`` op builders)."""
  ctx = _current_rule_context.get()
  if ctx is None:
    raise RuntimeError("hlo operations can only be built inside a lowering rule registered "
                       "with jax.interpreters.mlir.register_lowering.")
  return ctx


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None,
                      **_options) -> None:
  """Registers ``rule(ctx, *operands, **params) -> sequence of values`` as ``prim``'s
  lowering. ``platform`` may be None or ``'cpu'`` (axle's one backend); rules for other
  platforms are accepted and never used."""
  if platform not in (None, "cpu"):
    return

  def axle_rule(ctx, *operands, **params):
    token = _current_rule_context.set(ctx)
    try:
      out = rule(ctx, *operands, **params)
    finally:
      _current_rule_context.reset(token)
    if prim.multiple_results:
      return list(out)
    if isinstance(out, (list, tuple)):
      if len(out) != 1:
        raise ValueError(f"The lowering rule of '{prim.name}' returned {len(out)} values for "
                         "a primitive with one result.")
      return out[0]
    return out

  axle_rule.__name__ = getattr(rule, "__name__", "lowering_rule")
  lowering.register(prim, axle_rule)


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that lowers ``fun(*operands, **params)`` (written with lax/jnp) inline;
  its result is a list of values (JAX's convention for ``register_lowering`` rules)."""
  inner = lowering.lower_fun(fun, multiple_results)

  def rule(ctx, *operands, **params):
    out = inner(ctx, *operands, **params)
    return list(out) if multiple_results else [out]

  return rule


def aval_to_ir_type(aval) -> str:
  """The MLIR tensor type of an aval (``tensor<2x3xf32>``)."""
  return lowering.tensor_type(aval)


def ir_constant(value) -> lowering.Value:
  """A constant value in the current lowering rule."""
  return lowering.constant(current_rule_context(), value)
