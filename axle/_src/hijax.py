"""``jax.experimental.hijax``: the names libraries use to define high-level ("hi") types and
primitives (a value made of several arrays, with its own tracing and differentiation rules).

axle does not implement hi-types. The classes and helpers exist so that libraries which define
hi-types import and run with them switched off: flax.nnx defines its hijax Variable at import
and uses it only when its ``flax_hijax_variable`` flag is on (off by default). Binding a
``HiPrimitive`` raises NotImplementedError saying so; nothing computes a wrong answer.
"""
from __future__ import annotations

from typing import Any, Callable

from axle._src import core
from axle._src.interpreters import ad

AbstractValue = core.ShapedArray
Zero = ad.Zero


def _unsupported(what: str):
  raise NotImplementedError(
      f"{what}: axle does not implement JAX's high-level types (jax.experimental.hijax). "
      "For flax.nnx, leave the flax_hijax_variable flag off (its default).")


class HiType:
  """Base of a high-level type (an abstract value standing for several arrays)."""
  __slots__ = ()
  is_high = True
  has_qdd = False
  mutable = False


class MutableHiType(HiType):
  """Base of a high-level type whose value can change (it carries quasi-dynamic data)."""
  __slots__ = ()
  has_qdd = True
  mutable = True


class AvalQDD:
  """An abstract value with its quasi-dynamic data."""
  __slots__ = ("aval", "qdd")

  def __init__(self, aval, qdd):
    self.aval, self.qdd = aval, qdd


class AvalMutableQDD:
  """An abstract value with mutable quasi-dynamic data."""
  __slots__ = ("aval", "mutable_qdd")

  def __init__(self, aval, mutable_qdd):
    self.aval, self.mutable_qdd = aval, mutable_qdd


class HiPrimitive:
  """Base of a primitive on high-level types; subclasses define ``abstract_eval``, ``impl``,
  ``to_lojax``, ``jvp``, ``transpose``... axle cannot bind one."""
  multiple_results = False

  def __init__(self, name: str):
    self.name = name

  def __repr__(self):
    return self.name

  def bind(self, *args, **params):
    _unsupported(f"binding the hi-primitive {self.name!r}")


class aval_method:
  """Marks a method of a hi-type's value class to be callable on its abstract value (and
  tracers)."""

  def __init__(self, fun: Callable):
    self.fun = fun

  def __get__(self, instance, owner=None):
    if instance is None:
      return self
    return self.fun.__get__(instance, owner)


class aval_property:
  """A property of a hi-type's value class also available on its abstract value."""

  def __init__(self, fget: Callable):
    self.fget = fget

  def __get__(self, instance, owner=None):
    if instance is None:
      return self
    return self.fget(instance)


class _EffectTypeSet:
  """A set of effect types (``control_flow_allowed_effects.add_type(SomeEffect)``)."""

  def __init__(self):
    self._types: set = set()

  def add_type(self, effect_type: type) -> None:
    self._types.add(effect_type)

  def contains(self, effect: Any) -> bool:
    return any(isinstance(effect, t) for t in self._types)

  def filter_not_in(self, effects):
    return [e for e in effects if not self.contains(e)]


# Effects that loops and conditionals may carry (axle's own primitives declare none).
control_flow_allowed_effects = _EffectTypeSet()

# Python type of a hi-value -> function giving its abstract value.
hitype_registry: dict = {}


def register_hitype(value_type: type, to_aval: Callable) -> None:
  """Records ``to_aval`` as the abstract value of ``value_type``'s instances."""
  hitype_registry[value_type] = to_aval


def instantiate_zeros(x):
  """``x`` with a symbolic zero tangent made a concrete array of zeros."""
  return ad.instantiate_zeros(x) if isinstance(x, ad.Zero) else x


def is_undefined_primal(x) -> bool:
  """Whether ``x`` stands for a linear (undefined) primal input in a transpose rule."""
  return isinstance(x, ad.UndefinedPrimal)
