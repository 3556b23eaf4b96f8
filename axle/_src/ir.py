"""The jaxpr IR: Var, Literal, Eqn, Jaxpr, ClosedJaxpr; evaluation, checking and printing.

A jaxpr is a list of equations in A-normal form. ``eval_jaxpr`` re-binds each
equation's primitive, so evaluating a jaxpr under any trace re-traces it.
``pp_jaxpr`` prints exactly JAX's text: ``{ lambda consts; args. let eqns in (outs) }``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import pretty_printer as pp
from axle._src import source_info as source_info_util
from axle._src.core import ShapedArray


class Var:
  """A variable of a jaxpr; identity is the object itself. Named only when printed."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    # JAX's form: ``Var(id=140484757991936):float32[5]``.
    return f"Var(id={id(self)}):{self.aval.str_short(short_dtypes=False)}"


class DropVar(Var):
  """An equation output nobody reads; prints as ``_``."""
  __slots__ = ()

  def __repr__(self):
    return f"_:{self.aval.str_short()}"


# ``array_from_literal(value, aval)``: the Array type's constructor, registered by the array
# module (one layer up).
array_from_literal = None


class Literal:
  """A scalar constant inlined in an equation (prints as ``1.0:f32[]``)."""
  __slots__ = ("val", "aval", "_array", "residual")

  def __init__(self, val, aval: ShapedArray, residual: bool = False):
    self.val = val
    self.aval = aval
    self._array = None
    # True for a zero that a JVP rule instantiated: partial evaluation keeps it as a residual
    # of the linear jaxpr (shown as this literal where it is used), as JAX does. "var" for a
    # constant a JVP rule applied to a tangent (ad.note_residual_constant): a residual shown
    # as the residual's variable where it is used.
    self.residual = residual

  def as_array(self):
    """The literal as an axle Array with exactly its aval (dtype and weak type)."""
    if self._array is None:
      self._array = array_from_literal(np.asarray(self.val, self.aval.dtype), self.aval)
    return self._array

  def __repr__(self):
    # JAX's form: ``Literal(TypedInt(1, dtype=int32))`` for a weakly typed scalar,
    # ``Literal(1.0)`` otherwise (the text inside a printed jaxpr is ``1:i32[]``).
    value = np.asarray(self.val)
    if value.ndim == 0 and value.dtype.kind in "biufc":
      scalar = value.item()
      if self.aval.weak_type and value.dtype.kind in "iufc":
        kind = {"i": "Int", "u": "Int", "f": "Float", "c": "Complex"}[value.dtype.kind]
        return f"Literal(Typed{kind}({scalar!r}, dtype={self.aval.dtype.name}))"
      return f"Literal({scalar!r})"
    return f"Literal({_literal_text(self)})"


Atom = "Var | Literal"


# ---------------------------------------------------------------------------
# Effects


class Effect:
  """A side effect an equation has (printing, calling back into Python). ``ordered`` effects
  run in program order, also across separate compiled calls; unordered ones may be reordered
  or (under vmap) repeated per batch element, but are never removed by dead-code elimination."""
  ordered = False

  def __repr__(self):
    return type(self).__name__


# primitive -> rule(params) -> frozenset of Effects, for primitives that have effects themselves.
# A primitive without a rule has the effects of the jaxprs among its parameters (jit, cond, scan).
effect_rules: dict = {}

no_effects: frozenset = frozenset()


def eqn_effects(primitive, params) -> frozenset:
  """The effects of one equation of ``primitive`` with ``params``."""
  rule = effect_rules.get(primitive)
  if rule is not None:
    return rule(params)
  effects = no_effects
  for sub in _subjaxprs_of_params(params):
    sub_effects = sub.effects
    if sub_effects:
      effects = effects | sub_effects
  return effects


def ordered_effects(effects) -> list:
  """The ordered effects among ``effects``."""
  return [e for e in effects if e.ordered]


class Eqn:
  """One equation: ``outvars = primitive[params] invars``."""
  __slots__ = ("invars", "outvars", "primitive", "params", "source_info")

  @property
  def effects(self) -> frozenset:
    return eqn_effects(self.primitive, self.params)

  def __init__(self, invars, outvars, primitive, params, source_info=None):
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.primitive = primitive
    self.params = params
    self.source_info = source_info

  def replace(self, **changes) -> "Eqn":
    fields = dict(invars=self.invars, outvars=self.outvars, primitive=self.primitive,
                  params=self.params, source_info=self.source_info)
    fields.update(changes)
    return Eqn(**fields)

  def __repr__(self):
    return pp_eqn(self, _NameContext()).format()


class Jaxpr:
  """A function in A-normal form: constvars, invars, equations and outvars."""
  __slots__ = ("constvars", "invars", "outvars", "eqns", "_effects", "debug_info", "__weakref__")

  def __init__(self, constvars, invars, outvars, eqns, effects=None, debug_info=None):
    self.constvars = list(constvars)
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.eqns = list(eqns)
    self._effects = effects  # computed from the equations when first asked for
    self.debug_info = debug_info

  @property
  def effects(self) -> frozenset:
    """The union of the equations' effects (a jaxpr with an effect must not be skipped)."""
    effects = self._effects
    if effects is None:
      effects = no_effects
      for eqn in self.eqns:
        eqn_effs = eqn_effects(eqn.primitive, eqn.params)
        if eqn_effs:
          effects = effects | eqn_effs
      self._effects = effects
    return effects

  @effects.setter
  def effects(self, value) -> None:
    self._effects = None if value is None else frozenset(value)

  @property
  def in_avals(self):
    return [v.aval for v in self.invars]

  @property
  def out_avals(self):
    return [v.aval for v in self.outvars]

  def replace(self, **changes) -> "Jaxpr":
    fields = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                  eqns=self.eqns, effects=None, debug_info=self.debug_info)
    fields.update(changes)
    return Jaxpr(**fields)

  def pretty_print(self, width: int = 80, *, source_info: bool = False, name_stack: bool = False,
                   print_shapes: bool = True, custom_pp_eqn_rules: bool = True, **_) -> str:
    """The jaxpr's text; ``source_info=True`` adds each equation's user location as a comment
    (``name_stack=True``: its ``named_scope`` names)."""
    return pp_toplevel_jaxpr(self, width, source_info, name_stack)

  def __str__(self):
    return self.pretty_print()

  __repr__ = __str__


class ClosedJaxpr:
  """A jaxpr together with the values of its constvars (what ``make_jaxpr`` returns)."""
  __slots__ = ("jaxpr", "consts", "__weakref__")

  def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
    assert len(consts) == len(jaxpr.constvars)
    self.jaxpr = jaxpr
    self.consts = list(consts)

  in_avals = property(lambda self: self.jaxpr.in_avals)
  out_avals = property(lambda self: self.jaxpr.out_avals)
  eqns = property(lambda self: self.jaxpr.eqns)
  literals = property(lambda self: self.consts)
  effects = property(lambda self: self.jaxpr.effects)

  def map_jaxpr(self, f: Callable[[Jaxpr], Jaxpr]) -> "ClosedJaxpr":
    return ClosedJaxpr(f(self.jaxpr), self.consts)

  def pretty_print(self, width: int = 80, **kwargs) -> str:
    """The jaxpr's text (see ``Jaxpr.pretty_print`` for ``source_info`` and ``name_stack``)."""
    return self.jaxpr.pretty_print(width, **kwargs)

  def __str__(self):
    return self.pretty_print()

  __repr__ = __str__

  def _repr_pretty_(self, p, cycle):
    p.text(str(self))

  def __eq__(self, other):
    return self is other

  def __hash__(self):
    return id(self)


# ---------------------------------------------------------------------------
# Evaluation


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args) -> list:
  """Evaluates ``jaxpr`` on ``args`` by binding each equation under the current trace."""
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
  env: dict[Var, Any] = {}

  def read(atom):
    if type(atom) is Literal:
      if type(atom.val) is float:
        return atom.val  # a Python float stays one (so re-staging prints it as written)
      return atom.as_array()  # keeps the literal's dtype and weak type
    return env[atom]

  for var, value in zip(jaxpr.constvars, consts):
    env[var] = value
  for var, value in zip(jaxpr.invars, args):
    env[var] = value
  context = source_info_util._context
  previous = context.override
  try:
    for eqn in jaxpr.eqns:
      invals = [read(v) for v in eqn.invars]
      # Equations re-staged from this one keep the user's location (and name scope).
      if eqn.source_info is not None:
        context.override = eqn.source_info
      out = eqn.primitive.bind(*invals, **eqn.params)
      context.override = previous
      if eqn.primitive.multiple_results:
        for var, value in zip(eqn.outvars, out):
          env[var] = value
      else:
        env[eqn.outvars[0]] = out
  except Exception as e:
    source_info_util.note_origin(e, eqn.source_info, eqn.primitive.name)
    raise
  finally:
    context.override = previous
  return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr) -> Callable:
  """A Python function that evaluates ``closed_jaxpr`` (returns a list of outputs)."""
  return lambda *args: eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)


# ---------------------------------------------------------------------------
# Type checking


class JaxprTypeError(TypeError):
  """A jaxpr is ill-typed; the message names the equation."""


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Type-checks ``jaxpr``: every variable bound once before use and every equation's
  output avals equal to what its primitive's shape rule computes. Raises JaxprTypeError."""
  names = _NameContext()
  defined: set = set()

  def define(var, where):
    if isinstance(var, DropVar):
      return
    if var in defined:
      raise JaxprTypeError(f"Variable '{names.name(var)}' is defined twice ({where}).")
    defined.add(var)

  def read(atom, where):
    if type(atom) is Literal:
      return atom.aval
    if atom not in defined:
      raise JaxprTypeError(f"Variable '{names.name(atom)}' is used before it is defined, in {where}.")
    return atom.aval

  for v in jaxpr.constvars:
    define(v, "constvar")
  for v in jaxpr.invars:
    define(v, "invar")
  for i, eqn in enumerate(jaxpr.eqns):
    where = f"equation {i}: {pp_eqn(eqn, names).format()}"
    in_avals = [read(v, where) for v in eqn.invars]
    try:
      out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
    except Exception as e:
      raise JaxprTypeError(f"The shape rule of '{eqn.primitive.name}' rejected {where}: {e}") from e
    out_avals = list(out) if eqn.primitive.multiple_results else [out]
    if len(out_avals) != len(eqn.outvars):
      raise JaxprTypeError(f"{where} binds {len(eqn.outvars)} outputs, but its primitive produces "
                           f"{len(out_avals)}.")
    for var, aval in zip(eqn.outvars, out_avals):
      if not _avals_match(var.aval, aval):
        raise JaxprTypeError(f"In {where}: output variable has type {var.aval.str_short()} but the "
                             f"primitive produces {aval.str_short()}"
                             f"{' (weak)' if aval.weak_type else ''}.")
      define(var, where)
    for param in eqn.params.values():
      for sub in _subjaxprs(param):
        check_jaxpr(sub)
  for v in jaxpr.outvars:
    read(v, "the output list")


def _avals_match(declared: ShapedArray, computed: ShapedArray) -> bool:
  return declared.shape == computed.shape and declared.dtype == computed.dtype


def _subjaxprs(param):
  if isinstance(param, ClosedJaxpr):
    yield param.jaxpr
  elif isinstance(param, Jaxpr):
    yield param
  elif isinstance(param, (tuple, list)):
    for p in param:
      yield from _subjaxprs(p)


# ---------------------------------------------------------------------------
# Pretty printing

# primitive -> function(params) -> dict of the params to show (values may be pre-formatted strings)
pp_param_rules: dict[core.Primitive, Callable[[dict], dict]] = {}
# primitive -> function(eqn, names) -> Doc, for primitives printed in a special way (e.g. jit)
pp_eqn_rules: dict[core.Primitive, Callable] = {}


def _encode_name(n: int) -> str:
  s = ""
  while not s or n:
    n, i = divmod(n, 26)
    s = chr(ord("a") + i) + s
  return s


class _NameContext:
  """Assigns a, b, ..., z, ba, bb, ... to variables in the order they are first printed, and
  records the jaxprs printed once up front as ``let name = {...} in`` (``shared``)."""
  __slots__ = ("names", "counter", "shared", "source_info", "name_stack")

  def __init__(self, source_info: bool = False, name_stack: bool = False):
    self.names: dict[Var, str] = {}
    self.counter = 0
    self.shared: dict[Jaxpr, str] = {}
    self.source_info = source_info  # annotate each equation with its user location
    self.name_stack = name_stack  # ... and its named_scope names

  def name(self, var: Var) -> str:
    if isinstance(var, DropVar):
      return "_"
    name = self.names.get(var)
    if name is None:
      shared_names = set(self.shared.values())
      name = _encode_name(self.counter)
      self.counter += 1
      while name in shared_names:
        name = _encode_name(self.counter)
        self.counter += 1
      self.names[var] = name
    return name

  def alias(self, var: Var, name: str) -> None:
    """Gives ``var`` an existing name (a nested jaxpr's binder printed as the caller's operand)."""
    if var not in self.names:
      self.names[var] = name

  def suggest_same_names(self, inner_vars, outer_atoms) -> None:
    """Names each inner variable like the outer variable it stands for, unless that outer
    variable already lent its name to an earlier inner one or the inner one is named."""
    if len(inner_vars) != len(outer_atoms):
      return
    lent: set = set()
    for inner, outer in zip(inner_vars, outer_atoms):
      if (type(outer) is not Literal and outer not in lent and type(inner) is not Literal
          and inner not in self.names):
        self.names[inner] = self.name(outer)
        lent.add(outer)


def _literal_text(lit: Literal) -> str:
  val = lit.val
  if isinstance(val, np.ndarray):
    val = val[()] if val.ndim == 0 else val
  kind = lit.aval.dtype.kind
  if kind == "b":
    s = str(bool(val))
  elif kind in "iu":
    s = str(int(val))
  elif kind == "f" or lit.aval.dtype == dtypes.bfloat16:
    s = repr(float(val))
  elif kind == "c":
    s = repr(complex(val))
  else:
    s = str(val)
  return f"{s}:{lit.aval.str_short()}"


def _pp_atom(atom, names: _NameContext) -> str:
  if type(atom) is Literal:
    return _literal_text(atom)
  return names.name(atom)


def _pp_binder(var: Var, names: _NameContext) -> str:
  return f"{names.name(var)}:{var.aval.str_short()}"


def pp_param_value(value, names: _NameContext) -> pp.Doc:
  """Formats one equation parameter as JAX does."""
  if isinstance(value, ClosedJaxpr):
    return pp_jaxpr(value.jaxpr, names)
  if isinstance(value, Jaxpr):
    return pp_jaxpr(value, names)
  if isinstance(value, pp.Doc):
    return value
  if isinstance(value, tuple) and hasattr(type(value), "_fields"):
    return pp.text(repr(value))  # a NamedTuple (of jaxprs too) prints as its repr, as in JAX
  if isinstance(value, (tuple, list)) and value and all(isinstance(v, (ClosedJaxpr, Jaxpr)) for v in value):
    return pp.concat([pp.text("(")] + [pp.concat([pp_param_value(v, names), pp.text(",")])
                                        for v in value] + [pp.text(")")]) if len(value) == 1 else \
        pp.concat([pp.text("(")] + [pp.concat([pp_param_value(v, names), pp.text(", " if i < len(value) - 1 else "")])
                                     for i, v in enumerate(value)] + [pp.text(")")])
  if isinstance(value, np.dtype):
    return pp.text(value.name)
  if isinstance(value, type) and issubclass(value, np.generic):
    return pp.text(np.dtype(value).name)
  if isinstance(value, str):
    return pp.text(value)
  if isinstance(value, core.Primitive):
    return pp.text(value.name)
  return pp.text(repr(value) if not callable(value) or isinstance(value, tuple) else getattr(value, "__name__", repr(value)))


def pp_params(params: dict, names: _NameContext, sort: bool = True) -> pp.Doc:
  """``[k=v ...]``, broken one parameter per line when too wide (sorted unless ``sort=False``)."""
  if not params:
    return pp.text("")
  ordered = sorted(params.items()) if sort else params.items()
  items = [pp.concat([pp.text(f"{key}="), pp_param_value(value, names)]) for key, value in ordered]
  return pp.group(pp.concat([pp.text("["), pp.nest(2, pp.concat([pp.brk(""), pp.join(pp.brk(), items)])),
                             pp.brk(""), pp.text("]")]))


def pp_eqn(eqn: Eqn, names: _NameContext) -> pp.Doc:
  """``outs = primitive[params] operands`` as JAX prints an equation."""
  if names.source_info or names.name_stack:
    notes = []
    info = eqn.source_info
    if names.source_info:
      notes.append(source_info_util.summarize(info))
    if names.name_stack:
      notes.append(f"[{info.name_stack_text() if info is not None else ''}]")
    return pp.concat([pp.annotation(*notes), _pp_eqn_body(eqn, names)])
  return _pp_eqn_body(eqn, names)


def _pp_eqn_body(eqn: Eqn, names: _NameContext) -> pp.Doc:
  rule = pp_eqn_rules.get(eqn.primitive)
  if rule is not None:
    return rule(eqn, names)
  lhs = _pp_binders(eqn.outvars, names)
  shown = pp_param_rules.get(eqn.primitive, lambda p: p)(eqn.params)
  params_doc = pp_params(shown, names)
  if not eqn.outvars:  # an equation run only for its effect (debug_print)
    return pp.concat([pp.text(eqn.primitive.name), params_doc, pp_operands(eqn.invars, names)])
  return pp.concat([lhs, pp.text(" = "), pp.text(eqn.primitive.name), params_doc,
                    pp_operands(eqn.invars, names)])


def pp_operands(atoms, names: _NameContext) -> pp.Doc:
  """`` a b c``: operands separated by breaks that wrap (indented 2) past the line width."""
  if not atoms:
    return pp.text(" ")  # JAX prints the separator even with no operands
  docs = [pp.text(_pp_atom(v, names)) for v in atoms]
  return pp.concat([pp.text(" "), pp.nest(2, pp.group(pp.join(pp.group(pp.brk()), docs)))])


def _pp_binders(vars_, names: _NameContext) -> pp.Doc:
  """``a:f32[3] b:i32[]``, wrapping (indented 2) past the line width."""
  docs = [pp.text(_pp_binder(v, names)) for v in vars_]
  return pp.nest(2, pp.group(pp.join(pp.group(pp.brk()), docs)))


def _pp_atoms(atoms, names: _NameContext, separator: str = "") -> pp.Doc:
  docs = [pp.text(_pp_atom(v, names)) for v in atoms]
  return pp.nest(2, pp.group(pp.join(pp.concat([pp.text(separator), pp.group(pp.brk())]), docs)))


def pp_jaxpr(jaxpr: Jaxpr, names: _NameContext) -> pp.Doc:
  """``{ lambda consts; args. let eqns in (outs) }`` as JAX prints a jaxpr (or the name it was
  bound to by a ``let`` when it is shared)."""
  shared_name = names.shared.get(jaxpr)
  if shared_name is not None:
    return pp.text(shared_name)
  return _pp_jaxpr_skeleton(jaxpr, names)


def _pp_jaxpr_skeleton(jaxpr: Jaxpr, names: _NameContext) -> pp.Doc:
  constvars = _pp_binders(jaxpr.constvars, names)
  invars = _pp_binders(jaxpr.invars, names)
  eqns = [pp_eqn(eqn, names) for eqn in jaxpr.eqns]
  outs = pp.concat([pp.text("("), _pp_atoms(jaxpr.outvars, names, ","),
                    pp.text(",)" if len(jaxpr.outvars) == 1 else ")")])
  # On one line equations are separated by "; ", otherwise each gets its own line.
  body = pp.join(pp.brk("; "), eqns)
  return pp.group(pp.concat([pp.nest(2, pp.concat([
      pp.text("{ lambda "), constvars, pp.text("; "), invars, pp.text(". let"),
      pp.nest(2, pp.concat([pp.brk(), body])), pp.brk(), pp.text("in "), outs])),
      pp.text(" }")]))


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=None, source_info=None,
                  ctx=None) -> Eqn:
  """An equation (JAX's ``new_jaxpr_eqn``; effects and context are not tracked by axle)."""
  return Eqn(invars, outvars, primitive, params, source_info)


def jaxprs_in_params(params: dict) -> list:
  """The jaxprs held in an equation's params (sub-jaxprs of control flow, jit, ...)."""
  return list(_subjaxprs_of_params(params))


def subjaxprs(jaxpr: Jaxpr):
  """Yields the jaxprs nested directly in ``jaxpr``'s equations."""
  for eqn in jaxpr.eqns:
    yield from _subjaxprs_of_params(eqn.params)


def _subjaxprs_of_params(params: dict):
  for value in params.values():
    if isinstance(value, ClosedJaxpr):
      yield value.jaxpr
    elif isinstance(value, Jaxpr):
      yield value
    elif isinstance(value, (tuple, list)):
      for item in value:
        if isinstance(item, ClosedJaxpr):
          yield item.jaxpr
        elif isinstance(item, Jaxpr):
          yield item


# Primitive -> params -> the jaxprs its equations print, for primitives whose jaxprs are kept
# in a form ``_subjaxprs_of_params`` does not see (custom_jvp_call's lazily traced call_jaxpr).
# Such a jaxpr is shared by ``let`` as any other, under the name ``jaxpr``.
pp_unnamed_subjaxprs: dict = {}


def pp_toplevel_jaxpr(jaxpr: Jaxpr, width: int = 80, source_info: bool = False,
                      name_stack: bool = False) -> str:
  """The text of a jaxpr as ``print`` shows it.

  Equation outputs nobody reads print as ``_``. A nested jaxpr used more than once -- a large
  one (over 10 equations) counts twice -- is printed first, as ``let name = {...} in``, and
  referred to by its name (the ``name`` parameter of the equations that carry it).
  """
  names = _NameContext(source_info, name_stack)
  used = {v for v in jaxpr.outvars if type(v) is not Literal}
  for eqn in reversed(jaxpr.eqns):
    for v in eqn.outvars:
      if v not in used:
        names.alias(v, "_")
    used.update(v for v in eqn.invars if type(v) is not Literal)

  counts: dict[Jaxpr, int] = {}
  suggested: dict[Jaxpr, str] = {}
  queue = [jaxpr]
  while queue:
    current = queue.pop(0)
    counts[current] = counts.get(current, 0) + 1
    if current is not jaxpr and len(current.eqns) > 10:
      counts[current] += 1
    for eqn in current.eqns:
      unnamed = pp_unnamed_subjaxprs.get(eqn.primitive)
      if unnamed is not None:
        # (a custom_jvp/custom_vjp call: its ``name`` is shown, not a name for its jaxpr)
        queue.extend(unnamed(eqn.params))
        continue
      name = eqn.params.get("name")
      for sub in _subjaxprs_of_params(eqn.params):
        queue.append(sub)
        if isinstance(name, str):
          suggested.setdefault(sub, name.strip("<>"))
  name_counts: dict[str, int] = {}
  shared = []
  for sub, count in counts.items():
    if count == 1:
      continue
    name = suggested.get(sub, "jaxpr")
    seen = name_counts.get(name, 0)
    name_counts[name] = seen + 1
    if seen:
      name += str(seen)
      name_counts[name] = name_counts.get(name, 0) + 1
    shared.append((name, sub))
  for name, sub in shared:
    names.shared[sub] = name
  docs = [pp.concat([pp.text(f"let {name} = "), _pp_jaxpr_skeleton(sub, names), pp.text(" in"),
                     pp.brk()]) for name, sub in shared]
  docs.append(pp_jaxpr(jaxpr, names))
  return pp.concat(docs).format(width)
