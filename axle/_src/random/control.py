"""The loop used by the rejection samplers: ``lax.while_loop`` when axle has it, otherwise a
Python loop (eager only: under a trace the loop condition cannot be read)."""
from __future__ import annotations


def while_loop(cond_fun, body_fun, init_val):
  """``lax.while_loop(cond_fun, body_fun, init_val)``."""
  from axle._src.lax import control_flow
  lax_while_loop = getattr(control_flow, "while_loop", None)
  if lax_while_loop is not None:
    return lax_while_loop(cond_fun, body_fun, init_val)
  value = init_val
  while bool(cond_fun(value)):
    value = body_fun(value)
  return value
