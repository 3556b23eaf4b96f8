"""Forward- and reverse-mode differentiation: the JVP trace, linearize, transposition.

Forward mode: a ``JVPTrace`` carries (primal, tangent) pairs. Binding a primitive on
its tracers runs the primitive's JVP rule (``primitive_jvps[p]``) with the trace's
``tangent_trace`` current, so primal operations go to the parent trace.

Reverse mode is built as JAX builds it: linearize, then transpose. Under
``linearize``/``vjp``/``grad`` the tangent trace is a ``LinearizeTrace``, an online
partial evaluator: an operation whose operands are all known (primal values) runs on
the parent trace right away, an operation on a tangent is staged into the linear
jaxpr (known operands become its constants, the *residuals*). ``backward_pass`` then
walks the linear jaxpr backwards, calling each primitive's transpose rule
(``primitive_transposes[p]``). Primal values stay concrete under eager ``grad``, so
Python control flow on them works.

Symbolic zeros (``Zero``) stand for tangents and cotangents known to be zero, so
non-differentiated inputs cost nothing. Integer and boolean values have float0
tangents, which are always symbolic zeros.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import source_info as source_info_util
from axle._src.core import ShapedArray, Tracer
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering
from axle._src.interpreters import partial_eval
from axle._src.interpreters import staging

primitive_jvps: dict = {}
primitive_transposes: dict = {}
partial_eval_rules: dict = {}

float0 = dtypes.float0

# ---------------------------------------------------------------------------
# Tangent values


def tangent_dtype(dtype) -> np.dtype:
  """The dtype of tangents of a value of ``dtype``: itself if inexact, else float0."""
  if isinstance(dtype, dtypes.ExtendedDType):  # PRNG keys: not differentiable
    return float0
  dtype = np.dtype(dtype)
  return dtype if dtypes.issubdtype(dtype, np.inexact) else float0


def tangent_aval(aval: ShapedArray) -> ShapedArray:
  """The abstract value of tangents (and cotangents) of a value of ``aval``."""
  return aval.to_tangent_aval()


class Zero:
  """A symbolic zero tangent or cotangent of abstract value ``aval``."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"Zero({self.aval})"  # JAX: Zero(~float32[])

  @staticmethod
  def from_primal_value(x) -> "Zero":
    return Zero(tangent_aval(core.get_aval(x)))


# ``broadcast_zeros(aval)``: zeros of ``aval`` built with lax's broadcast_in_dim, so that they are
# staged when tracing; registered by lax.structural (JAX's ``aval_zeros_likers`` pattern).
broadcast_zeros = None
# ``full_like(x, fill_value)``: lax.full_like, registered by lax.structural (for the seed
# cotangent of a traced output, which is then a tracer as in JAX).
full_like = None


def zeros_like_aval(aval: ShapedArray):
  """An array of zeros of ``aval`` (a NumPy float0 array for float0). The zeros keep the weak
  type, as JAX's zeros_like does."""
  if aval.dtype == float0:
    return np.zeros(aval.shape, float0)
  return broadcast_zeros(aval)


def instantiate_zeros(t):
  """``t`` itself, or an array of zeros if ``t`` is a symbolic ``Zero``."""
  if type(t) is not Zero:
    return t
  return note_instantiated_zero(zeros_like_aval(t.aval))


def note_instantiated_zero(value):
  """``value``, a zero tangent a JVP rule built. A concrete scalar one is noted by the trace
  being staged: its literal stays a residual of the linear jaxpr, as in JAX (where such a
  zero is a constant of the primal computation)."""
  if (isinstance(value, staging.StagingTracer) and type(value.jaxpr_var) is ir.Literal
      and not value.aval.shape and value._trace is core.current_trace()):
    value = value.jaxpr_var.as_array()  # a folded scalar constant: noted as the constant
  if not isinstance(value, core.Tracer) and not np.shape(value):
    trace = core.current_trace()
    if isinstance(trace, staging.StagingTrace):
      trace.instantiated_zeros[id(value)] = value
  return value


def note_residual_constant(value):
  """``value``, a scalar constant (a NumPy scalar array) that a JVP rule applies to a tangent,
  as JAX's rules do with the arrays jnp makes of Python scalars (``.5 * dS``): under linearize
  it is a residual of the linear jaxpr, read there through the residual's variable (where a
  plain scalar would be inlined as a literal)."""
  trace = core.current_trace()
  if isinstance(trace, staging.StagingTrace) and not isinstance(value, core.Tracer):
    trace.residual_constants[id(value)] = value
  return value


def instantiate_zeros_tangent(t):
  """``instantiate_zeros`` for a tangent a rule hands to a linear computation: under
  linearize the zeros are staged into the linear jaxpr (as JAX builds them in its tangent
  trace), not computed with the primal values."""
  if type(t) is not Zero:
    return t
  trace = core.current_trace()
  if not isinstance(trace, LinearizeTrace):
    if not isinstance(trace, staging.StagingTrace):
      return instantiate_zeros(t)
    # staged into a jaxpr (a jit's JVP): not a residual of the primal side (a scalar zero stays
    # a literal of the linear side), and partial evaluation makes an array of zeros on the
    # unknown side
    zeros = zeros_like_aval(t.aval)
    if (isinstance(zeros, staging.StagingTracer) and zeros._trace is trace and trace.eqns
        and trace.eqns[-1].outvars == [zeros.jaxpr_var]
        and all(type(a) is ir.Literal for a in trace.eqns[-1].invars)):
      trace.tangent_zero_vars.add(zeros.jaxpr_var)
    return zeros
  trace.stage_known = True
  try:
    return instantiate_zeros(t)
  finally:
    trace.stage_known = False


def is_zero(t) -> bool:
  return type(t) is Zero


# add_any: the sum of two tangents or cotangents (JAX prints it as ``add_any``).

add_jaxvals_p = core.Primitive("add_any")


def _add_any_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
  if x.shape != y.shape or x.dtype != y.dtype:
    raise TypeError(f"add_any requires operands of the same type, got {x.str_short()} and "
                    f"{y.str_short()}")
  return ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


add_jaxvals_p.def_abstract_eval(_add_any_abstract_eval)
add_jaxvals_p.def_impl(lambda x, y: np.add(x, y))
lowering.register(add_jaxvals_p, lowering.elementwise("stablehlo.add"))


def add_tangents(x, y):
  """The sum of two tangents (or cotangents), either of which may be a symbolic zero."""
  if type(x) is Zero:
    return y
  if type(y) is Zero:
    return x
  return add_jaxvals_p.bind(x, y)


def _add_any_jvp(primals, tangents):
  x, y = primals
  tx, ty = tangents
  if type(tx) is Zero and type(ty) is Zero:
    return add_jaxvals_p.bind(x, y), tx
  # As in JAX, one symbolic zero is instantiated and added (not dropped).
  return add_jaxvals_p.bind(x, y), add_jaxvals_p.bind(instantiate_zeros(tx), instantiate_zeros(ty))


primitive_jvps[add_jaxvals_p] = _add_any_jvp
primitive_transposes[add_jaxvals_p] = lambda ct, x, y: [ct, ct]


def _add_any_batcher(values, dims):
  x, y = values
  dx, dy = dims
  if dx != dy:
    size = core.get_aval(x).shape[dx] if dx is not None else core.get_aval(y).shape[dy]
    x, y = batching.bdim_at_front(x, dx, size), batching.bdim_at_front(y, dy, size)
    dx = 0
  return add_jaxvals_p.bind(x, y), dx


batching.primitive_batchers[add_jaxvals_p] = _add_any_batcher


# ---------------------------------------------------------------------------
# Forward mode


class JVPTracer(Tracer):
  """A value under differentiation: its primal and its tangent (possibly a symbolic Zero)."""
  __slots__ = ("primal", "tangent")
  _public_type_name = "JVPTracer"

  def __init__(self, trace: "JVPTrace", primal, tangent):
    self._trace = trace
    self.primal = primal
    self.tangent = tangent

  @property
  def aval(self) -> ShapedArray:
    return core.get_aval(self.primal)

  def __repr__(self):
    if self._trace.linearize:
      tangent_aval_ = self.tangent.aval if hasattr(self.tangent, "aval") else core.get_aval(
          self.tangent)
      return f"GradTracer(primal={self.primal}, typeof(tangent)={tangent_aval_.str_short()})"
    tangent = self.tangent
    shown = f"Zero({tangent.aval.str_short()})" if type(tangent) is Zero else str(tangent)
    return f"JVPTracer(primal={self.primal}, tangent={shown})"

  __str__ = __repr__

  def _origin_message(self) -> str:
    inner = getattr(self.primal, "_origin_message", None)
    return inner() if inner is not None else ""

  def _leak_description(self) -> str:
    return ""


class LinearizeTracer(JVPTracer):
  """A JVPTracer of ``linearize``/``vjp``/``grad``, whose tangent is staged (JAX's
  LinearizeTracer; prints as ``GradTracer(...)``)."""
  __slots__ = ()
  _public_type_name = "LinearizeTracer"


def _integer_output_rule(primitive, primals, params):
  """Without a JVP rule, a primitive whose outputs are all integer or boolean still
  differentiates (its tangents are float0 zeros); any other raises. A user-defined primitive
  (whose shape rule may have side effects) raises without consulting its shape rule, as JAX."""
  if not primitive.memoise_abstract_eval:
    raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented")
  avals = eval_interpreter.abstract_eval(primitive, [core.get_aval(p) for p in primals], params)
  avals = avals if primitive.multiple_results else [avals]
  if any(dtypes.issubdtype(a.dtype, np.inexact) for a in avals):
    raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented")
  return _zero_jvp_rule(primitive)


class JVPTrace(core.Trace):
  """Forward-mode differentiation. ``tangent_trace`` is where JVP rules run: the parent
  trace for ``jvp``, a LinearizeTrace for ``linearize``/``vjp``/``grad``."""

  def __init__(self, parent: core.Trace, tangent_trace: core.Trace | None = None):
    self.parent = parent
    self.tangent_trace = parent if tangent_trace is None else tangent_trace
    self.linearize = tangent_trace is not None and tangent_trace is not parent

  def to_primal_tangent(self, x):
    if isinstance(x, JVPTracer) and x._trace is self:
      return x.primal, x.tangent
    return x, None

  def process_primitive(self, primitive, args, params):
    primals = []
    tangents = []
    nonzero = False
    for x in args:
      if isinstance(x, JVPTracer) and x._trace is self:
        primals.append(x.primal)
        tangents.append(x.tangent)
        if type(x.tangent) is not Zero:
          nonzero = True
      else:
        primals.append(x)
        tangents.append(None)
    if not nonzero:
      with core.set_current_trace(self.parent):
        return primitive.bind(*primals, **params)
    tangents = [Zero.from_primal_value(p) if t is None else t for p, t in zip(primals, tangents)]
    rule = primitive_jvps.get(primitive)
    if rule is None:
      rule = _integer_output_rule(primitive, primals, params)
    with core.set_current_trace(self.tangent_trace):
      primal_out, tangent_out = rule(tuple(primals), tuple(tangents), **params)
    if primitive.multiple_results:
      return [self.pack(p, t) for p, t in zip(primal_out, tangent_out)]
    return self.pack(primal_out, tangent_out)

  def pack(self, primal, tangent):
    """A tracer of this trace, or just ``primal`` when the tangent is a symbolic zero."""
    if type(tangent) is Zero:
      return primal
    if self.linearize:
      if not self.tangent_trace.is_unknown(tangent):
        # As JAX: a tangent that does not depend on the input tangents (a rule's zeros) is a
        # symbolic zero of the linear map.
        return primal
      return LinearizeTracer(self, primal, tangent)
    return JVPTracer(self, primal, tangent)

  def __repr__(self):
    return "JVPTrace"


# ---------------------------------------------------------------------------
# Partial evaluation (the tangent trace of linearize)


class LinearizeTrace(staging.StagingTrace):
  """Stages operations on its own (unknown) tracers into a jaxpr and runs operations on known
  values right away on the parent trace. Known operands of staged operations become the
  jaxpr's constants (residuals)."""
  tracer_type = partial_eval.JaxprTracer
  stage_known = False  # while true, operations on known values are staged too
  jit_residuals_last = False  # see partial_eval_jaxpr
  # While true, a jit whose operands are all known runs as the known part of its split (a new
  # trace of its body), not as the jaxpr it carries: JAX's partial evaluation of a custom_jvp
  # rule under linearize (its JaxprTrace) does so, and every split inside it too.
  splits_known_jits = False
  # True for the trace partial_eval_jaxpr runs a jaxpr's equations on: JAX memoises the splits
  # of the jits inside apart from the splits at the top of a linearization.
  inside_split = False

  def __init__(self, parent: core.Trace | None = None, debug_info=None):
    super().__init__(parent, debug_info)
    # A scalar zero a JVP rule instantiated is, as in JAX, a residual of the linear jaxpr
    # although its uses show it as a literal: ``literal_uses`` maps the id of each such literal
    # to its residual variable.
    self.literal_uses: dict = {}

  def to_atom(self, x):
    if id(x) in self.residual_constants and not isinstance(x, core.Tracer):
      return self._const_var(x, core.get_aval(x))
    if id(x) in self.instantiated_zeros and not isinstance(x, core.Tracer):
      var = self._const_var(x, core.get_aval(x))
      literal = staging.StagingTrace.to_atom(self, x)
      self.literal_uses[id(literal)] = var
      return literal
    return staging.StagingTrace.to_atom(self, x)

  def is_unknown(self, x) -> bool:
    return isinstance(x, staging.StagingTracer) and x._trace is self

  def process_primitive(self, primitive, args, params):
    for x in args:
      if isinstance(x, staging.StagingTracer) and x._trace is self:
        break
    else:
      if self.stage_known:
        return self.stage(primitive, args, params)
      if self.splits_known_jits and primitive.name == "jit":
        known, _, _, _ = partial_eval_jaxpr(params["jaxpr"], [False] * len(args))
        params = dict(params, jaxpr=known)
      with core.set_current_trace(self.parent):
        return primitive.bind(*args, **params)
    rule = partial_eval_rules.get(primitive)
    if rule is not None:
      return rule(self, args, params)
    return self.stage(primitive, args, params)

  def stage(self, primitive, args, params):
    """Records ``primitive`` as an equation of the linear jaxpr (no partial evaluation)."""
    return staging.StagingTrace.process_primitive(self, primitive, args, params)

  def __repr__(self):
    return "LinearizeTrace"


class PartialVal(tuple):
  """A partially known value (JAX's ``partial_eval.PartialVal``): ``(None, value)`` when known,
  ``(aval, None)`` when only its abstract value is known."""

  @classmethod
  def known(cls, value) -> "PartialVal":
    return cls((None, value))

  @classmethod
  def unknown(cls, aval: ShapedArray) -> "PartialVal":
    return cls((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self):
    return self[1] if self[0] is None else None

  def get_aval(self) -> ShapedArray:
    return core.get_aval(self[1]) if self[0] is None else self[0]


def trace_to_jaxpr_nounits(fun, pvals: Sequence[PartialVal], instantiate=False):
  """Partial evaluation of ``fun`` (a callable or WrappedFun on flat arguments): operations on
  known values run now, the rest is staged. Returns ``(jaxpr, out_pvals, residuals)``: the
  jaxpr takes the residuals (constvars) and the unknown inputs and computes the unknown
  outputs; ``out_pvals`` holds the known outputs' values."""
  call = fun.call_wrapped if hasattr(fun, "call_wrapped") else fun
  parent = core.current_trace()
  trace = LinearizeTrace(parent)
  with core.set_current_trace(trace):
    args = [pv[1] if pv[0] is None else trace.new_arg(pv[0]) for pv in pvals]
    outs = list(call(*args))
  out_pvals, unknown_outs = [], []
  for out, inst in zip(outs, _flags(instantiate, len(outs))):
    if trace.is_unknown(out):
      out_pvals.append(PartialVal.unknown(out.aval))
      unknown_outs.append(out)
    elif inst:
      raise NotImplementedError("trace_to_jaxpr_nounits: instantiate=True for an output that "
                                "does not depend on the unknown inputs is not supported.")
    else:
      out_pvals.append(PartialVal.known(out))
  closed = trace.to_jaxpr(unknown_outs)
  return closed.jaxpr, out_pvals, list(closed.consts)


# ---------------------------------------------------------------------------
# Transposition


class UndefinedPrimal:
  """Stands for a linear input of a primitive being transposed."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray):
    self.aval = aval

  def __repr__(self):
    return f"UndefinedPrimal({self.aval})"  # JAX: UndefinedPrimal(~float32[])


def is_undefined_primal(x) -> bool:
  return type(x) is UndefinedPrimal


def _transpose_rule(primitive):
  try:
    return primitive_transposes[primitive]
  except KeyError as err:
    raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                              f"'{primitive.name}' not implemented") from err


def backward_pass(jaxpr: ir.Jaxpr, consts: Sequence[Any], args: Sequence[Any],
                  cotangents_out: Sequence[Any], accumulators: Sequence[Any] | None = None) -> list:
  """Transposes ``jaxpr`` with respect to its inputs given as ``UndefinedPrimal``.

  ``args`` holds one entry per invar (an UndefinedPrimal or a value); ``cotangents_out``
  one per outvar (a value or Zero). Returns the cotangent (a value or Zero) of each
  undefined input, in order. Equations whose operands are all known run forward first.
  ``accumulators`` (one per invar, None for none) are values the cotangents of those inputs
  are added to as they arrive (a loop's running sum of cotangents, as JAX's accumulators)."""
  known: dict = {}
  for var, value in zip(jaxpr.constvars, consts):
    known[var] = value
  # An undefined input is transposed at the type its cotangent accumulates in (as JAX's
  # accumulators); other linear variables at their own type.
  undefined: dict = {}
  for var, value in zip(jaxpr.invars, args):
    if type(value) is not UndefinedPrimal:
      known[var] = value
    else:
      undefined[var] = value

  def read(atom):
    if type(atom) is ir.Literal:
      return atom.as_array()  # an Array of the literal's exact type (weak or not)
    return known[atom]

  def is_known(atom):
    return type(atom) is ir.Literal or atom in known

  linear_eqns = []
  for eqn in jaxpr.eqns:
    if all(is_known(a) for a in eqn.invars):
      outs = eqn.primitive.bind(*[read(a) for a in eqn.invars], **eqn.params)
      if not eqn.primitive.multiple_results:
        outs = [outs]
      for var, value in zip(eqn.outvars, outs):
        known[var] = value
    else:
      linear_eqns.append(eqn)

  cotangents: dict = {}

  def write(var, ct):
    if type(var) is ir.Literal or type(ct) is Zero or ct is None or var in known:
      return
    previous = cotangents.get(var)
    cotangents[var] = ct if previous is None else add_tangents(previous, ct)

  if accumulators is not None:
    for var, value in zip(jaxpr.invars, accumulators):
      if value is not None and var in undefined:
        cotangents[var] = value
  for var, ct in zip(jaxpr.outvars, cotangents_out):
    write(var, ct)

  for eqn in reversed(linear_eqns):
    cts_out = [cotangents.pop(v, None) for v in eqn.outvars]
    if all(ct is None for ct in cts_out):
      continue
    cts_out = [Zero(tangent_aval(v.aval)) if ct is None else ct for v, ct in zip(eqn.outvars, cts_out)]
    operands = [read(a) if is_known(a) else undefined.get(a) or UndefinedPrimal(a.aval)
                for a in eqn.invars]
    ct = cts_out if eqn.primitive.multiple_results else cts_out[0]
    try:
      cts_in = _transpose_rule(eqn.primitive)(ct, *operands, **eqn.params)
    except Exception as e:
      # As JAX: the error's cause shows the user code that staged the equation.
      source_info_util.attach_source_traceback(e, eqn.source_info)
      raise
    for atom, operand, ct_in in zip(eqn.invars, operands, cts_in):
      if type(operand) is UndefinedPrimal:
        write(atom, ct_in)

  results = []
  for var, value in zip(jaxpr.invars, args):
    if type(value) is UndefinedPrimal:
      ct = cotangents.get(var)
      results.append(Zero(tangent_aval(var.aval)) if ct is None else ct)
  return results


# ---------------------------------------------------------------------------
# Jaxpr-level transformations (for primitives that carry jaxprs)

_jaxpr_transform_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def memoized(kind: str, closed: ir.ClosedJaxpr, key, build: Callable):
  """``build()``, computed once per (``closed``, ``kind``, ``key``) while ``closed`` lives."""
  try:
    per_jaxpr = _jaxpr_transform_cache.setdefault(closed, {})
  except TypeError:
    return build()
  full_key = (kind, key)
  if full_key not in per_jaxpr:
    per_jaxpr[full_key] = build()
  return per_jaxpr[full_key]


def _flags(value, n: int) -> tuple:
  if isinstance(value, bool):
    return (value,) * n
  return tuple(bool(v) for v in value)


def jvp_jaxpr(closed: ir.ClosedJaxpr, nonzeros: Sequence[bool], instantiate=False):
  """The JVP of ``closed`` as a ClosedJaxpr and which tangent outputs it returns.

  The result takes ``(*primals, *tangents of the nonzero inputs)`` and returns
  ``(*primal outputs, *tangents of the nonzero outputs)``. ``instantiate`` forces tangent
  outputs to be returned (as zeros) even when symbolically zero; it never applies to
  outputs whose tangents are float0."""
  nonzeros = tuple(bool(n) and tangent_aval(a).dtype != float0
                   for n, a in zip(nonzeros, closed.in_avals))
  instantiate = _flags(instantiate, len(closed.out_avals))
  return memoized("jvp", closed, (nonzeros, instantiate),
                   lambda: _jvp_jaxpr(closed, nonzeros, instantiate))


def _jvp_jaxpr(closed, nonzeros, instantiate):
  in_avals = list(closed.in_avals)
  tangent_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
  n = len(in_avals)
  out_nonzeros: list = []

  def jvp_fun(*args):
    primals, tangents = args[:n], iter(args[n:])
    parent = core.current_trace()
    trace = JVPTrace(parent)
    tracers = [JVPTracer(trace, p, next(tangents)) if nz else p
               for p, nz in zip(primals, nonzeros)]
    with core.set_current_trace(trace):
      outs = ir.eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
    primal_outs, tangent_outs = [], []
    for out, inst in zip(outs, instantiate):
      primal, tangent = trace.to_primal_tangent(out)
      if tangent is None:
        tangent = Zero.from_primal_value(primal)
      if type(tangent) is Zero and inst and tangent.aval.dtype != float0:
        tangent = instantiate_zeros(tangent)
      primal_outs.append(primal)
      out_nonzeros.append(type(tangent) is not Zero)
      tangent_outs.append(tangent)
    return primal_outs + [t for t in tangent_outs if type(t) is not Zero]

  jvp_closed, _ = staging.trace_to_jaxpr(jvp_fun, in_avals + tangent_avals)
  return jvp_closed, out_nonzeros


def partial_eval_jaxpr(closed: ir.ClosedJaxpr, unknowns: Sequence[bool], instantiate=False,
                       dce_known: bool = True, jit_residuals_last: bool = False):
  """Splits ``closed`` into the part computable from its known inputs and the rest.

  Returns ``(known_closed, unknown_closed, out_unknowns, num_residuals)``: known_closed takes
  the known inputs and returns ``(*known outputs, *residuals)``; unknown_closed takes
  ``(*residuals, *unknown inputs)`` and returns the unknown outputs. ``instantiate`` forces
  outputs to be unknown. With ``dce_known=False`` the known jaxpr keeps every equation (as
  JAX's scan keeps the known work it hoists out of its loop, empty known jits included).
  ``jit_residuals_last``: the jits inside are split as JAX splits them in the bodies of control
  flow (its JaxprTrace partial evaluation): the staged jit takes its residuals after its
  unknown operands (at top level, before them)."""
  unknowns = tuple(bool(u) for u in unknowns)
  instantiate = _flags(instantiate, len(closed.out_avals))
  # Splits made where known jits are split too (see LinearizeTrace.splits_known_jits) are
  # JAX's other partial evaluation: memoised apart from the others, and they split known jits.
  current = core.current_trace()
  split_known = getattr(current, "splits_known_jits", False)
  inside = getattr(current, "inside_split", False)
  return memoized("partial_eval", closed,
                  (unknowns, instantiate, dce_known, jit_residuals_last, split_known, inside),
                  lambda: _partial_eval_jaxpr(closed, unknowns, instantiate, dce_known,
                                              jit_residuals_last, split_known))


def _partial_eval_jaxpr(closed, unknowns, instantiate, dce_known=True, jit_residuals_last=False,
                        split_known=False):
  in_avals = list(closed.in_avals)
  known_avals = [a for a, u in zip(in_avals, unknowns) if not u]
  unknown_avals = [a for a, u in zip(in_avals, unknowns) if u]
  result: dict = {}

  def known_fun(*known_args):
    trace = LinearizeTrace(core.current_trace())
    trace.jit_residuals_last = jit_residuals_last
    trace.splits_known_jits = split_known
    trace.inside_split = True
    unknown_args = iter([trace.new_arg(a) for a in unknown_avals])
    known_iter = iter(known_args)
    args = [next(unknown_args) if u else next(known_iter) for u in unknowns]
    for eqn in closed.jaxpr.eqns:
      for atom in eqn.invars:
        if type(atom) is ir.Literal and atom.residual:
          value = atom.as_array()
          if atom.residual == "var":
            trace.residual_constants[id(value)] = value
          elif not split_known:  # (JAX's JaxprTrace keeps a scalar zero a literal)
            trace.instantiated_zeros[id(value)] = value
    jaxpr = closed.jaxpr
    zero_vars = staging.tangent_zeros.get(jaxpr)
    zeros = []
    if zero_vars:
      # Zero tangents a JVP rule made for a linear computation are made on the unknown side
      # (in the linear jaxpr), as JAX's linearization makes them in its tangent trace.
      made = [e for e in jaxpr.eqns if e.outvars and e.outvars[0] in zero_vars]
      jaxpr = jaxpr.replace(invars=list(jaxpr.invars) + [e.outvars[0] for e in made],
                            eqns=[e for e in jaxpr.eqns if not (e.outvars and e.outvars[0] in zero_vars)])
      trace.stage_known = True
      try:
        with core.set_current_trace(trace):
          for e in made:
            zeros.append(e.primitive.bind(*[a.as_array() if type(a.val) is not float else a.val
                                            for a in e.invars], **e.params))
      finally:
        trace.stage_known = False
    with core.set_current_trace(trace):
      outs = ir.eval_jaxpr(jaxpr, closed.consts, *args, *zeros)
    out_unknowns = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
    unknown_closed = trace.to_jaxpr([o for o, u in zip(outs, out_unknowns) if u])
    # Only residuals the live part of the unknown jaxpr reads are passed on (a zero a JVP rule
    # instantiated counts as read where its literal is).
    jaxpr = staging.dce_jaxpr(unknown_closed.jaxpr)
    used = _used_vars(jaxpr)
    if trace.literal_uses:
      used.update(trace.literal_uses[id(a)] for eqn in jaxpr.eqns for a in eqn.invars
                  if type(a) is ir.Literal and id(a) in trace.literal_uses)
    kept = [(v, c) for v, c in zip(jaxpr.constvars, unknown_closed.consts) if v in used]
    if jit_residuals_last:
      kept = _residuals_in_jaxpr_trace_order(jaxpr, kept)
    residual_vars = [v for v, _ in kept]
    residuals = [c for _, c in kept]
    unknown_jaxpr = jaxpr.replace(constvars=[], invars=residual_vars + list(jaxpr.invars))
    if trace.literal_uses:
      staging.literal_inputs[unknown_jaxpr] = set(trace.literal_uses.values())
    result["unknown"] = ir.ClosedJaxpr(unknown_jaxpr, [])
    result["out_unknowns"] = out_unknowns
    result["num_residuals"] = len(residuals)
    return [o for o, u in zip(outs, out_unknowns) if not u] + residuals

  known_closed, _ = staging.trace_to_jaxpr(known_fun, known_avals)
  # Known work whose results neither the known outputs nor the residuals need (e.g. a JVP
  # rule's primal-side bookkeeping for a tangent that is dropped) is removed.
  if dce_known:
    known_closed = known_closed.map_jaxpr(staging.dce_jaxpr)
  return known_closed, result["unknown"], result["out_unknowns"], result["num_residuals"]


def _residuals_in_jaxpr_trace_order(jaxpr: ir.Jaxpr, kept: list) -> list:
  """``kept`` (residual variable, value) pairs in the order JAX's JaxprTrace partial evaluation
  gives its residuals (the partial evaluation of control-flow bodies): the order in which each
  residual's first use appears in a topological sort of the unknown computation, taken from
  its inputs and outputs as JAX's ``toposort`` takes it (every use of a residual is a node of
  its own without parents)."""
  residual_set = {v for v, _ in kept}
  producers = {}
  for eqn in jaxpr.eqns:
    for v in eqn.outvars:
      producers[v] = eqn
  parents: dict = {}  # node -> parent nodes; a node is a Var or ("use", var, n) for a residual use
  uses = 0

  def node_of(atom):
    nonlocal uses
    if atom in residual_set:
      uses += 1
      return ("use", atom, uses)
    return atom

  eqn_parents: dict = {}
  for eqn in jaxpr.eqns:
    eqn_parents[id(eqn)] = [node_of(a) for a in eqn.invars if type(a) is not ir.Literal]
  for v, eqn in producers.items():
    parents[v] = eqn_parents[id(eqn)]
  ends = list(jaxpr.invars) + [node_of(a) for a in jaxpr.outvars if type(a) is not ir.Literal]
  ends = list(dict.fromkeys(ends))
  child_counts: dict = {}
  stack = list(ends)
  while stack:
    node = stack.pop()
    if node in child_counts:
      child_counts[node] += 1
    else:
      child_counts[node] = 1
      stack.extend(parents.get(node, ()))
  for node in ends:
    child_counts[node] -= 1
  ordered = []
  childless = [n for n in ends if child_counts[n] == 0]
  while childless:
    node = childless.pop()
    ordered.append(node)
    for parent in parents.get(node, ()):
      if child_counts[parent] == 1:
        childless.append(parent)
      else:
        child_counts[parent] -= 1
  rank: dict = {}
  for node in reversed(ordered):
    if type(node) is tuple:
      rank.setdefault(node[1], len(rank))
  return sorted(kept, key=lambda pair: rank.get(pair[0], len(rank)))


def _used_vars(jaxpr: ir.Jaxpr) -> set:
  used = {v for v in jaxpr.outvars if type(v) is not ir.Literal}
  for eqn in jaxpr.eqns:
    used.update(a for a in eqn.invars if type(a) is not ir.Literal)
  return used


def transpose_jaxpr(closed: ir.ClosedJaxpr, linear: Sequence[bool], linear_avals=None,
                    ct_avals=None):
  """The transpose of ``closed`` with respect to its ``linear`` inputs, as a ClosedJaxpr taking
  ``(*non-linear inputs, *cotangents of the outputs)`` and returning the cotangents of the
  linear inputs (zeros instantiated). Cotangents of float0 outputs are ignored.
  ``linear_avals`` (one per linear input) are the types the cotangents accumulate in, when they
  differ from the inputs' (a loop's carry is transposed at its cotangent's type, as JAX);
  ``ct_avals`` (one per output) the types of the cotangents given, when they differ from the
  outputs' (JAX traces a transposition at the types of the values it is given)."""
  linear = tuple(bool(x) for x in linear)
  linear_avals = None if linear_avals is None else tuple(linear_avals)
  ct_avals = None if ct_avals is None else tuple(ct_avals)
  return memoized("transpose", closed, (linear, linear_avals, ct_avals),
                  lambda: _transpose_jaxpr(closed, linear, linear_avals, ct_avals))


def _transpose_jaxpr(closed, linear, linear_avals, given_ct_avals):
  in_avals = list(closed.in_avals)
  nonlinear_avals = [a for a, lin in zip(in_avals, linear) if not lin]
  undefined_avals = (linear_avals if linear_avals is not None
                     else [a for a, lin in zip(in_avals, linear) if lin])
  ct_avals = (list(given_ct_avals) if given_ct_avals is not None
              else [tangent_aval(a) for a in closed.out_avals])
  k = len(nonlinear_avals)

  def transposed(*args):
    nonlinear, cts = iter(args[:k]), args[k:]
    undefined = iter(undefined_avals)
    full_args = [UndefinedPrimal(next(undefined)) if lin else next(nonlinear) for lin in linear]
    cts = [Zero(a) if a.dtype == float0 else ct for a, ct in zip(ct_avals, cts)]
    cts_in = backward_pass(closed.jaxpr, closed.consts, full_args, cts)
    return [instantiate_zeros(ct) for ct in cts_in]

  transposed_closed, _ = staging.trace_to_jaxpr(transposed, nonlinear_avals + ct_avals)
  return transposed_closed


def transpose_jaxpr_symbolic(closed: ir.ClosedJaxpr, linear: Sequence[bool],
                             zero_cts: Sequence[bool], linear_avals=None, ct_avals=None):
  """Like ``transpose_jaxpr``, with symbolic zeros kept out of the signature (JAX's transpose
  of a jit): the result takes ``(*non-linear inputs, *cotangents of the outputs not marked in
  ``zero_cts``)`` and returns the linear inputs' cotangents that are not symbolically zero.
  Returns ``(transposed, which linear inputs get a cotangent)``."""
  linear = tuple(bool(x) for x in linear)
  zero_cts = tuple(bool(z) for z in zero_cts)
  linear_avals = None if linear_avals is None else tuple(linear_avals)
  ct_avals = None if ct_avals is None else tuple(ct_avals)
  return memoized("transpose_symbolic", closed, (linear, zero_cts, linear_avals, ct_avals),
                  lambda: _transpose_jaxpr_symbolic(closed, linear, zero_cts, linear_avals,
                                                    ct_avals))


def _transpose_jaxpr_symbolic(closed, linear, zero_cts, linear_avals, given_ct_avals):
  in_avals = list(closed.in_avals)
  if linear_avals is not None:
    given = iter(linear_avals)
    in_avals = [next(given) if lin else a for a, lin in zip(in_avals, linear)]
  nonlinear_avals = [a for a, lin in zip(in_avals, linear) if not lin]
  all_ct_avals = (list(given_ct_avals) if given_ct_avals is not None
                  else [tangent_aval(a) for a in closed.out_avals])
  ct_avals = [a for a, z in zip(all_ct_avals, zero_cts) if not z]
  k = len(nonlinear_avals)
  nonzero_out: list = []

  def transposed(*args):
    nonlinear, given = iter(args[:k]), iter(args[k:])
    full_args = [UndefinedPrimal(a) if lin else next(nonlinear) for a, lin in zip(in_avals, linear)]
    cts = [Zero(a) if z else next(given) for a, z in zip(all_ct_avals, zero_cts)]
    cts_in = backward_pass(closed.jaxpr, closed.consts, full_args, cts)
    nonzero_out.extend(type(ct) is not Zero for ct in cts_in)
    return [ct for ct in cts_in if type(ct) is not Zero]

  transposed_closed, _ = staging.trace_to_jaxpr(transposed, nonlinear_avals + ct_avals)
  return transposed_closed, tuple(nonzero_out)


# ---------------------------------------------------------------------------
# Rule constructors


def defjvp(primitive: core.Primitive, *jvp_fns) -> None:
  """JVP from one function per operand, ``fn(g, *primals, **params)`` giving that operand's
  contribution to the output tangent (None: the operand is never differentiated)."""
  def rule(primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    total = Zero(tangent_aval(core.get_aval(out)))
    for fn, t in zip(jvp_fns, tangents):
      if fn is not None and type(t) is not Zero:
        total = add_tangents(total, fn(t, *primals, **params))
    return out, total
  primitive_jvps[primitive] = rule


def defjvp2(primitive: core.Primitive, *jvp_fns) -> None:
  """Like ``defjvp`` with the primal output available: ``fn(g, ans, *primals, **params)``."""
  def rule(primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    total = Zero(tangent_aval(core.get_aval(out)))
    for fn, t in zip(jvp_fns, tangents):
      if fn is not None and type(t) is not Zero:
        total = add_tangents(total, fn(t, out, *primals, **params))
    return out, total
  primitive_jvps[primitive] = rule


def _zero_jvp_rule(primitive: core.Primitive) -> Callable:
  def rule(primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    if primitive.multiple_results:
      return out, [Zero.from_primal_value(o) for o in out]
    return out, Zero.from_primal_value(out)
  return rule


def defjvp_zero(primitive: core.Primitive) -> None:
  """The primitive is not differentiable: its outputs get symbolic zero tangents."""
  primitive_jvps[primitive] = _zero_jvp_rule(primitive)


def linear_jvp(primitive: core.Primitive, primals, tangents, **params):
  """JVP of a primitive linear in all its operands: the primitive applied to the tangents."""
  out = primitive.bind(*primals, **params)
  if all(type(t) is Zero for t in tangents):
    zero = (lambda o: Zero.from_primal_value(o))
    return out, ([zero(o) for o in out] if primitive.multiple_results else zero(out))
  return out, primitive.bind(*[instantiate_zeros(t) for t in tangents], **params)


def deflinear(primitive: core.Primitive, transpose_fn: Callable) -> None:
  """The primitive is linear in all its operands; ``transpose_fn(ct, **params)`` returns one
  cotangent per operand."""
  primitive_jvps[primitive] = lambda primals, tangents, **params: linear_jvp(
      primitive, primals, tangents, **params)
  primitive_transposes[primitive] = lambda ct, *args, **params: transpose_fn(ct, **params)


def deflinear2(primitive: core.Primitive, transpose_rule: Callable) -> None:
  """Linear in all its operands; ``transpose_rule(ct, *args, **params)`` (args may be
  UndefinedPrimal)."""
  primitive_jvps[primitive] = lambda primals, tangents, **params: linear_jvp(
      primitive, primals, tangents, **params)
  primitive_transposes[primitive] = transpose_rule


def defbilinear(primitive: core.Primitive, lhs_rule: Callable, rhs_rule: Callable) -> None:
  """The primitive is bilinear in its two operands (mul, dot_general, conv): JVP by the
  product rule; ``lhs_rule(ct, x, y, **params)`` is the cotangent of x when x is the linear
  operand, ``rhs_rule`` likewise for y."""
  def jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    out = primitive.bind(x, y, **params)
    total = Zero(tangent_aval(core.get_aval(out)))
    if type(tx) is not Zero:
      total = add_tangents(total, primitive.bind(tx, y, **params))
    if type(ty) is not Zero:
      total = add_tangents(total, primitive.bind(x, ty, **params))
    return out, total

  def transpose(ct, x, y, **params):
    ct_x = lhs_rule(ct, x, y, **params) if type(x) is UndefinedPrimal else None
    ct_y = rhs_rule(ct, x, y, **params) if type(y) is UndefinedPrimal else None
    return [ct_x, ct_y]

  primitive_jvps[primitive] = jvp
  primitive_transposes[primitive] = transpose
