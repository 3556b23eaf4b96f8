"""Staging: running a Python function on tracers to build a jaxpr.

A StagingTrace records every primitive bound while it is current as an
equation. Its own tracers become variables; a Python scalar or a concrete 0-d
value becomes a Literal; any other value -- a concrete array, or a tracer of an
outer trace -- becomes a constvar whose value is that object. So a
transformation nested inside another sees the outer values as constants.
"""
from __future__ import annotations

import gc
import inspect
import os
import sys
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src import ir
from axle._src import source_info as source_info_util
from axle._src import tree_util
from axle._src.config import config
from axle._src.core import ShapedArray, Tracer
from axle._src.interpreters import eval as eval_interpreter
from axle._src.ir import ClosedJaxpr, Eqn, Jaxpr, Literal, Var, _NameContext, pp_eqn

_python_scalar_types = core.python_scalar_types


class DebugInfo:
  """What was traced, for error messages: function, source location, argument names."""
  __slots__ = ("traced_for", "func_name", "func_src", "arg_names_fn", "_arg_names", "result_paths")

  def __init__(self, traced_for: str, fun: Callable | None, arg_names=None):
    self.traced_for = traced_for
    self.func_name = _function_name(fun)
    self.func_src = _function_source(fun)
    self._arg_names = arg_names
    self.arg_names_fn = None
    self.result_paths = None

  @property
  def arg_names(self):
    if self._arg_names is None and self.arg_names_fn is not None:
      self._arg_names = self.arg_names_fn()
    return self._arg_names

  def resolve_arg_names(self) -> None:
    """Computes the argument names now and drops the closure that computes them: it holds the
    traced function and the first call's arguments, which a cached jaxpr must not keep alive."""
    if self.arg_names_fn is not None:
      if self._arg_names is None:
        self._arg_names = self.arg_names_fn()
      self.arg_names_fn = None

  def describe(self) -> str:
    location = f" at {self.func_src}" if self.func_src else ""
    return f"{self.func_name}{location}"


def _function_name(fun) -> str:
  while hasattr(fun, "func") and not hasattr(fun, "__code__"):  # functools.partial
    fun = fun.func
  return getattr(fun, "__name__", type(fun).__name__)


def _function_source(fun) -> str | None:
  while hasattr(fun, "func") and not hasattr(fun, "__code__"):
    fun = fun.func
  fun = inspect.unwrap(fun) if callable(fun) else fun
  code = getattr(fun, "__code__", None)
  if code is None:
    return None
  return f"{code.co_filename}:{code.co_firstlineno}"


def flat_arg_names(fun, args, kwargs, static_argnums=()) -> list[str]:
  """Names of the flattened dynamic arguments: ``x``, ``params['W']``, ``args[1][0]``..."""
  try:
    signature = inspect.signature(fun)
    bound = signature.bind(*args, **kwargs)
    pairs = []
    for name, value in bound.arguments.items():
      param = signature.parameters[name]
      if param.kind == inspect.Parameter.VAR_POSITIONAL:
        for i, v in enumerate(value):
          pairs.append((f"{name}[{i}]", v))
      elif param.kind == inspect.Parameter.VAR_KEYWORD:
        for k, v in value.items():
          pairs.append((f"{name}['{k}']", v))
      else:
        pairs.append((name, value))
  except (TypeError, ValueError):
    pairs = [(f"args[{i}]", a) for i, a in enumerate(args)] + [(f"kwargs['{k}']", v)
                                                                for k, v in kwargs.items()]
  static = set(static_argnums)
  names = []
  for position, (name, value) in enumerate(pairs):
    if position in static:
      continue
    for path, _ in tree_util.tree_flatten_with_path(value)[0]:
      names.append(name + tree_util.keystr(path))
  return names


def user_source_info():
  """The SourceInfo of the user's code binding the primitive being staged (see source_info)."""
  return source_info_util.current(2)


# Set by xla/spmd_jit: (primitive, operand avals, params, result aval(s)) -> the result aval(s)
# with the mesh axes sharding-in-types gives them; called when an operand's aval is not a plain
# ShapedArray, and always for the primitives named in sharded_type_primitives.
sharded_types_hook = lambda primitive, avals, params, out: out
sharded_type_primitives: set = set()
# Set by lax/parallel_spmd: (operands, their avals) -> the operands with pvary applied to those
# that vary over fewer manual axes than the others (None when they all agree).
match_vma_hook = lambda args, avals: None
# primitive -> rule(trace, args, params): the result without staging an equation (a forwarded
# operand, a folded literal) or None to stage one; set by the primitive's lax block.
folding_rules: dict = {}
# Primitives whose operands keep their own variation (collectives, calls of jaxprs).
_no_pvary = frozenset({
    "psum", "pmax", "pmin", "all_gather", "reduce_scatter", "ppermute", "all_to_all", "pvary",
    "shard_map", "jit", "remat2", "custom_jvp_call", "custom_vjp_call", "custom_lin", "cond",
    "while", "scan", "sharding_constraint", "debug_callback", "pure_callback", "io_callback"})


# primitive -> rule(operand avals, params) giving, per output, the position of the operand it
# merely forwards (or None). Staging such an equation records nothing: the output is that
# operand (JAX's ``partial_eval.forwarding_rules``: an identity convert_element_type or
# broadcast_in_dim disappears from a jaxpr). Filled by the primitives' own modules.
forwarding_rules: dict = {}
_forwarding = [True]


class no_forwarding:
  """Within it, staging records identity equations too (JAX keeps a convert whose sharding
  differs, e.g. the standard basis of ``jacfwd``)."""

  def __enter__(self):
    _forwarding.append(False)

  def __exit__(self, *exc):
    _forwarding.pop()


class StagingTracer(Tracer):
  """A tracer of a StagingTrace: an abstract value bound to a jaxpr variable."""
  __slots__ = ("aval", "jaxpr_var")
  _public_type_name = "DynamicJaxprTracer"  # what JAX's messages call a staging tracer

  def __init__(self, trace: "StagingTrace", aval: ShapedArray, var: Var):
    self._trace = trace
    self.aval = aval
    self.jaxpr_var = var

  def _tracer_type_name(self) -> str:
    return "JitTracer"

  def _origin_message(self) -> str:
    return self._trace.origin_message(self)

  def _leak_description(self) -> str:
    trace = self._trace
    info = trace.debug_info
    message = ""
    if info is not None:
      message += (f"\nThe function being traced when the value leaked was {info.describe()} traced "
                  f"for {info.traced_for}.")
    if self.jaxpr_var in trace.invars:
      names = (info.arg_names if info is not None else None) or []
      position = trace.invars.index(self.jaxpr_var)
      name = names[position] if position < len(names) else f"args[{position}]"
      message += f"\nThe leaked value is the traced argument {name}."
    else:
      created = next((eqn.source_info for eqn in trace.eqns if self.jaxpr_var in eqn.outvars), None)
      if created:
        rule = "-" * 30
        message += (f"\n{rule}\nThe leaked intermediate value was created on line {created}. \n"
                    f"{rule}\nWhen the value was created, the final 5 stack frames (most recent "
                    f"last) excluding JAX-internal frames were:\n{rule}\n{created}\n{rule}\n")
    return message

  def full_lower(self):
    return self


class StagingTrace(core.Trace):
  """Records primitives as equations of a jaxpr under construction."""
  tracer_type = StagingTracer  # the class of this trace's tracers

  def __init__(self, parent: core.Trace | None = None, debug_info: DebugInfo | None = None):
    self.parent = parent
    self.debug_info = debug_info
    self.eqns: list[Eqn] = []
    self.invars: list[Var] = []
    self.constvars: list[Var] = []
    self.constvals: list[Any] = []
    self._const_ids: dict[int, Var] = {}
    self.finished = False
    # Scalar zeros that JVP rules instantiated while this trace was current, by id (their
    # literals are marked: partial evaluation keeps them as residuals, as JAX does).
    self.instantiated_zeros: dict = {}
    # Scalar constants that JVP rules applied to tangents, by id (see
    # ad.note_residual_constant): their literals are marked "var".
    self.residual_constants: dict = {}
    # Variables holding zero tangents a JVP rule instantiated for a linear computation
    # (``ad.instantiate_zeros_tangent``): partial evaluation makes them on the unknown side.
    self.tangent_zero_vars: set = set()

  def __repr__(self):
    return "DynamicJaxprTrace"  # JAX's name for it, as its leak messages print it

  def new_arg(self, aval: ShapedArray) -> StagingTracer:
    var = Var(aval)
    self.invars.append(var)
    return self.tracer_type(self, aval, var)

  def to_atom(self, x):
    """The jaxpr atom (Var or Literal) standing for operand ``x``."""
    if isinstance(x, StagingTracer) and x._trace is self:
      return x.jaxpr_var
    if isinstance(x, Tracer):
      if isinstance(x, StagingTracer) and x._trace.finished:
        raise errors.UnexpectedTracerError(eval_interpreter._leaked_tracer_message(x))
      return self._const_var(x, x.aval)
    if type(x) in _python_scalar_types:
      value = dtypes.scalar_to_array(x)
      # A Python float keeps its own value (JAX prints the weakly typed literal of 0.4 as 0.4,
      # not as the float32 nearest to it).
      kept = x if type(x) is float and np.isfinite(x) and np.isfinite(value) else value[()]
      return Literal(kept, ShapedArray((), value.dtype, type(x) is not bool))
    aval = core.get_aval(x)
    if not aval.shape and not core.is_extended(aval):  # (a key is a constant, not a literal)
      value = np.asarray(x)
      if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
      residual = "var" if id(x) in self.residual_constants else id(x) in self.instantiated_zeros
      return Literal(value[()], aval, residual)
    return self._const_var(x, aval)

  def _const_var(self, value, aval: ShapedArray) -> Var:
    var = self._const_ids.get(id(value))
    if var is None:
      var = Var(aval)
      self._const_ids[id(value)] = var
      self.constvars.append(var)
      self.constvals.append(value)
    return var

  def literal_tracer(self, value, aval: ShapedArray) -> StagingTracer:
    """A tracer of this trace standing for the scalar constant ``value`` (a literal wherever
    it is used, as JAX's tracers of known scalars)."""
    return self.tracer_type(self, aval, Literal(value, aval))

  def process_primitive(self, primitive, args, params):
    fold = folding_rules.get(primitive)
    if fold is not None:
      out = fold(self, args, params)
      if out is not None:
        return out
    try:
      atoms = [self.to_atom(x) for x in args]
    except TypeError:
      bad_operands = [(i, x) for i, x in enumerate(args) if not _is_operand(x)]
      if not bad_operands:
        raise
      position, bad = bad_operands[0]
      raise TypeError(f"Error interpreting argument to {primitive.name} as a JAX value. The "
                      f"problematic value is of type {type(bad)} and was passed to "
                      f"{primitive.name} at position {position}.") from None
    avals = [a.aval for a in atoms]
    if len(avals) > 1 and primitive.name not in _no_pvary:
      for a in avals:
        if a.__class__ is not ShapedArray:
          # operands varying over different manual axes: the others are pvary'd first, as JAX
          changed = match_vma_hook(args, avals)
          if changed is not None:
            args = changed
            atoms = [self.to_atom(x) for x in args]
            avals = [a.aval for a in atoms]
          break
    out_aval = eval_interpreter.abstract_eval(primitive, avals, params)  # memoised per signature
    if primitive.name in sharded_type_primitives:
      out_aval = sharded_types_hook(primitive, avals, params, out_aval)
    else:
      for a in avals:
        if a.__class__ is not ShapedArray:  # a type with a sharding (sharding in types)
          out_aval = sharded_types_hook(primitive, avals, params, out_aval)
          break
    forward = forwarding_rules.get(primitive)
    if forward is not None and _forwarding[-1]:
      positions = forward(avals, params)
      if not primitive.multiple_results and positions[0] is not None:
        atom = atoms[positions[0]]
        return self.tracer_type(self, atom.aval, atom)
    source_info = source_info_util.current(1)
    if primitive.multiple_results:
      outvars = [Var(a) for a in out_aval]
      self.eqns.append(Eqn(atoms, outvars, primitive, params, source_info))
      return [self.tracer_type(self, a, v) for a, v in zip(out_aval, outvars)]
    outvar = Var(out_aval)
    self.eqns.append(Eqn(atoms, [outvar], primitive, params, source_info))
    return self.tracer_type(self, out_aval, outvar)

  def to_jaxpr(self, outputs: Sequence[Any]) -> ClosedJaxpr:
    """Closes the trace: a ClosedJaxpr whose outputs are ``outputs``."""
    outvars = [self.to_atom(x) for x in outputs]
    jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns, debug_info=self.debug_info)
    if self.tangent_zero_vars:
      tangent_zeros[jaxpr] = frozenset(self.tangent_zero_vars)
    self.finished = True
    return ClosedJaxpr(jaxpr, self.constvals)

  # -- error messages -------------------------------------------------------
  def origin_message(self, tracer: StagingTracer) -> str:
    info = self.debug_info
    if info is None:
      return ""
    message = f"The error occurred while tracing the function {info.describe()} for {info.traced_for}. "
    producers = {}
    for eqn in self.eqns:
      for v in eqn.outvars:
        producers[v] = eqn
    invar_positions = {v: i for i, v in enumerate(self.invars)}
    seen, stack, used_args = set(), [tracer.jaxpr_var], set()
    while stack:
      var = stack.pop()
      if var in seen or type(var) is Literal:
        continue
      seen.add(var)
      if var in invar_positions:
        used_args.add(invar_positions[var])
      eqn = producers.get(var)
      if eqn is not None:
        stack.extend(v for v in eqn.invars if type(v) is not Literal)
    names = info.arg_names or []
    used = [names[i] if i < len(names) else f"args[{i}]" for i in sorted(used_args)]
    if len(used) == 1:
      message += ("This concrete value was not available in Python because it depends on the "
                  f"value of the argument {used[0]}.")
    elif used:
      joined = ", ".join(used[:-1]) + f" and {used[-1]}"
      message += ("This concrete value was not available in Python because it depends on the "
                  f"values of the arguments {joined}.")
    else:
      message += "This value became a tracer due to JAX operations on these lines:\n"
      names_ctx = _NameContext()
      for eqn in self.eqns:
        if any(v in seen for v in eqn.outvars):
          message += f"\n  operation {pp_eqn(eqn, names_ctx).format()}\n"
          if eqn.source_info:
            message += f"    from line {eqn.source_info}\n"
    return message


def _is_operand(x) -> bool:
  return isinstance(x, Tracer) or core.valid_jaxtype(x)


def trace_to_jaxpr(fun: Callable, in_avals: Sequence[ShapedArray],
                   debug_info: DebugInfo | None = None) -> tuple[ClosedJaxpr, Any]:
  """Traces ``fun`` (flat arguments in, any pytree out) to a ClosedJaxpr.

  Returns the ClosedJaxpr and the output pytree structure."""
  parent = core.current_trace()
  trace = StagingTrace(parent, debug_info)
  with core.set_current_trace(trace):
    tracers = [trace.new_arg(aval) for aval in in_avals]
    out = fun(*tracers)
  if debug_info is not None:
    debug_info.resolve_arg_names()
  out_leaves, out_tree = tree_util.tree_flatten(out)
  for leaf in out_leaves:
    if not core.valid_jaxtype(leaf):
      what = (f"function {debug_info.describe()} traced for {debug_info.traced_for}"
              if debug_info else "the traced function")
      raise TypeError(f"{what} returned a value of type {type(leaf)}, which is not a valid "
                      "JAX type")
  closed = trace.to_jaxpr(out_leaves)
  if config.jax_check_tracer_leaks:
    tracers = out = out_leaves = leaf = None  # the trace's own references
    _check_for_leaks(trace)
  return closed, out_tree


def _check_for_leaks(trace: StagingTrace) -> None:
  """With jax_check_tracer_leaks: raises if a tracer of the finished ``trace`` is still alive
  (kept by the traced function in some outer structure), saying where each was created."""
  gc.collect()
  leaked = [o for o in gc.get_objects() if isinstance(o, StagingTracer) and o._trace is trace]
  if not leaked:
    return
  parts = []
  for tracer in leaked:
    where = tracer._leak_description().strip("\n")
    parts.append(f"{tracer!r}\n{where}\n")
  raise Exception(f"Leaked trace {trace!r}. Leaked tracer(s):\n\n" + "\n".join(parts))


# primitive -> rule(used_outputs, eqn) -> (used_inputs, the equation without what is unused,
# or None to drop it): dead-code elimination inside equations that carry jaxprs (JAX's
# ``partial_eval.dce_rules``). Filled by the primitives' own modules.
dce_rules: dict = {}


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None) -> Jaxpr:
  """Removes equations whose outputs are not needed (effect-free primitives only); equations
  with a DCE rule (jit) also lose their unused outputs and inputs."""
  outvars = jaxpr.outvars if used_outputs is None else [
      v for v, used in zip(jaxpr.outvars, used_outputs) if used]
  live = {v for v in outvars if type(v) is not Literal}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    used = [v in live for v in eqn.outvars]
    effects = eqn.primitive.has_effects or ir.eqn_effects(eqn.primitive, eqn.params)
    if not (any(used) or effects):
      continue
    rule = dce_rules.get(eqn.primitive)
    if rule is not None:
      _, eqn = rule(used, eqn)
      if eqn is None:
        continue
    kept.append(eqn)
    live.update(v for v in eqn.invars if type(v) is not Literal)
  kept.reverse()
  return _carry_literal_inputs(jaxpr, jaxpr.replace(eqns=kept, outvars=outvars))


# Jaxpr -> inputs that count as used although no equation reads them (residuals shown as
# literals where they are used: see ad.note_instantiated_zero).
literal_inputs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def dce_jaxpr_with_inputs(jaxpr: Jaxpr, used_outputs: Sequence[bool]) -> tuple[Jaxpr, list]:
  """``jaxpr`` computing only the outputs marked in ``used_outputs``, without the inputs that
  are then unused; returns it and which inputs it kept (JAX's ``dce_jaxpr``)."""
  kept_anyway = literal_inputs.get(jaxpr, ())
  jaxpr = dce_jaxpr(jaxpr, used_outputs)
  used = {v for eqn in jaxpr.eqns for v in eqn.invars if type(v) is not Literal}
  used.update(v for v in jaxpr.outvars if type(v) is not Literal)
  used.update(kept_anyway)
  kept = [v in used for v in jaxpr.invars]
  new = _carry_literal_inputs(
      jaxpr, jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, kept) if k]))
  if kept_anyway and new not in literal_inputs:  # (still kept by a later DCE of the same program)
    literal_inputs[new] = kept_anyway
  return new, kept


def _carry_literal_inputs(old: Jaxpr, new: Jaxpr) -> Jaxpr:
  """``new`` (a pruned copy of ``old``), keeping ``old``'s inputs that count as used and its
  marked tangent zeros."""
  kept_anyway = literal_inputs.get(old)
  if kept_anyway:
    literal_inputs[new] = kept_anyway
  zeros = tangent_zeros.get(old)
  if zeros:
    tangent_zeros[new] = zeros
  return new


# Jaxpr -> the variables of zero tangents made for linear computations (see
# StagingTrace.tangent_zero_vars), each made by an equation on literals only.
tangent_zeros: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def dce_with_inputs(closed: ClosedJaxpr, keep_inputs: Sequence[bool]) -> tuple[ClosedJaxpr, list]:
  """Dead-code elimination: removes unneeded equations and the inputs that are then unused,
  except those marked in ``keep_inputs``. Returns the jaxpr and which inputs it kept."""
  jaxpr = dce_jaxpr(closed.jaxpr)
  used = {v for eqn in jaxpr.eqns for v in eqn.invars if type(v) is not Literal}
  used.update(v for v in jaxpr.outvars if type(v) is not Literal)
  kept = [k or v in used for v, k in zip(jaxpr.invars, keep_inputs)]
  jaxpr = jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, kept) if k])
  return ClosedJaxpr(jaxpr, closed.consts), kept


def trace_to_jaxpr_dynamic(fun, in_avals: Sequence[ShapedArray], debug_info=None):
  """Traces ``fun`` (a callable or a ``linear_util.WrappedFun`` taking flat arguments and
  returning a flat sequence of arrays) to ``(jaxpr, out_avals, consts)``: the jaxpr's
  constvars take ``consts`` (JAX's ``partial_eval.trace_to_jaxpr_dynamic``)."""
  call = fun.call_wrapped if hasattr(fun, "call_wrapped") else fun
  closed, _ = trace_to_jaxpr(lambda *args: list(call(*args)), list(in_avals), debug_info)
  return closed.jaxpr, list(closed.out_avals), list(closed.consts)
