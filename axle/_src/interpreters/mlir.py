"""JAX's lowering-registration API (``jax.interpreters.mlir``) over axle's text lowering.

Libraries register lowering rules with ``register_lowering(prim, rule)``. Such a rule is
written against MLIR's Python bindings (jaxlib's, as in JAX): it receives a
``LoweringRuleContext`` and one ``ir.Value`` per operand, builds operations with
``hlo.AddOp(x, y).result`` and returns a sequence of result values.

axle lowers jaxprs to StableHLO text (``lowering``); a registered rule is lowered once per
module and signature (primitive, input avals, parameters) into a private function of an MLIR
module that belongs to the text module being built, its block arguments standing for the
operands, as JAX's cached lowerings are. The function is printed into the text module and each
equation of the primitive becomes a ``func.call`` of it. The MLIR state (``ModuleContext``: the
context, module, insertion point, symbol table, caches) is made on the first such rule of a
module, so that programs without registered rules never import the bindings.

``lower_fun(fun)`` lowers a function written with lax/jnp instead; used as a registered rule it
is emitted inline by the text lowering, and called from inside an MLIR rule it becomes a
private function of the text module that the rule calls.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import tree_util
from axle._src.config import config
from axle._src.interpreters import lowering
from axle._src.interpreters import staging
from axle._src.sharding import AbstractMesh
from axle._src.xla import client

Value = lowering.Value


# ---------------------------------------------------------------------------
# What a registered rule sees (JAX's records, with JAX's field names)


@dataclasses.dataclass(frozen=True)
class ShardingContext:
  """The devices a module is lowered for: ``num_devices`` of them, no explicit assignment."""
  num_devices: int
  device_assignment: Any = None
  abstract_mesh: Any = None


@dataclasses.dataclass(frozen=True)
class NameStack:
  """The name scopes an equation was staged in (outermost first)."""
  stack: tuple = ()


@dataclasses.dataclass(frozen=True)
class JaxprEqnContext:
  """Per-equation settings that lowering reads."""
  compute_type: Any = None
  threefry_partitionable: bool = True
  cur_abstract_mesh: Any = None
  remove_size_one_mesh_axis: bool = False
  xla_metadata: Any = None


def _eqn_context() -> JaxprEqnContext:
  return JaxprEqnContext(threefry_partitionable=bool(config.jax_threefry_partitionable),
                         cur_abstract_mesh=AbstractMesh((), ()))


@dataclasses.dataclass(frozen=True)
class LoweringParameters:
  """How a module is lowered (axle lowers for execution, never for export)."""
  override_lowering_rules: Any = None
  global_constant_computation: bool = False
  for_export: bool = False
  export_ignore_forward_compatibility: bool = False
  hoist_constants_as_args: bool = False


class ShapePolyLoweringState:
  """The dimension variables of a shape-polymorphic module (axle has none)."""

  def __init__(self, dim_vars: tuple = ()):
    self.dim_vars = tuple(dim_vars)
    self.uses_dim_vars = bool(dim_vars)


class TokenSet:
  """The effect tokens an equation receives (axle threads its tokens in the text lowering,
  so a registered rule gets none)."""

  def __init__(self, tokens=()):
    self._tokens = dict(tokens)

  def items(self):
    return self._tokens.items()

  def effects(self):
    return set(self._tokens)


@dataclasses.dataclass
class TracebackCaches:
  traceback_to_location_cache: Any
  canonical_name_cache: dict


@dataclasses.dataclass(frozen=True)
class LoweringCacheKey:
  """A registered rule's lowering is reused for equations with the same key."""
  primitive: core.Primitive
  eqn_ctx: JaxprEqnContext
  avals_in: tuple
  effects: frozenset
  params: tuple
  platforms: tuple


@dataclasses.dataclass(frozen=True)
class LoweringCacheValue:
  """The private function a registered rule was lowered to, and its results' structure."""
  func: Any
  flat_output_types: list
  output_treedef: Any
  const_args: tuple
  const_arg_avals: tuple
  inline: bool


@dataclasses.dataclass
class ModuleContext:
  """The MLIR module a text module's registered rules are lowered into, and its caches."""
  context: Any
  module: Any
  ip: Any
  symbol_table: Any
  platforms: tuple
  backend: Any
  axis_context: ShardingContext
  keepalives: list
  channel_iterator: Any
  host_callbacks: list
  shape_poly_state: ShapePolyLoweringState
  all_default_mem_kind: bool
  lowering_cache: dict
  cached_primitive_lowerings: dict
  sharding_attr_cache: dict
  aval_to_ir_types_cache: dict
  pallas_lowering_cache: dict
  traceback_caches: TracebackCaches
  lowering_parameters: LoweringParameters

  def new_channel(self) -> int:
    return next(self.channel_iterator)


@dataclasses.dataclass
class LoweringRuleContext:
  """What a registered lowering rule receives: the module, the equation's primitive and avals."""
  module_context: ModuleContext
  name_stack: NameStack
  traceback: Any
  primitive: core.Primitive | None
  avals_in: Sequence
  avals_out: Any
  tokens_in: TokenSet
  tokens_out: TokenSet | None
  const_lowering: dict
  axis_size_env: dict | None = None
  dim_var_values: list = dataclasses.field(default_factory=list)
  jaxpr_eqn_ctx: JaxprEqnContext | None = None
  platforms: Sequence[str] | None = None

  def set_tokens_out(self, tokens_out: TokenSet) -> None:
    self.tokens_out = tokens_out

  def replace(self, **changes) -> "LoweringRuleContext":
    return dataclasses.replace(self, **changes)


_context_class: list = []


def _jax_ir_context_class():
  """``JaxIrContext``: jaxlib's ``ir.Context``, as the class of the contexts axle makes."""
  if not _context_class:
    bindings = client.mlir_bindings()
    _context_class.append(type("JaxIrContext", (bindings.ir.Context,), {
        "__module__": __name__,
        "__doc__": "An MLIR context with the StableHLO and CHLO dialects registered."}))
  return _context_class[0]


def module_context(text_module: lowering.ModuleContext) -> ModuleContext:
  """The MLIR ``ModuleContext`` of ``text_module`` (made on first use)."""
  existing = text_module.mlir_context
  if existing is not None:
    return existing
  bindings = client.mlir_bindings()
  ir = bindings.ir
  context = bindings.new_context(_jax_ir_context_class())
  with context, ir.Location.unknown():
    module = ir.Module.create()
    locations = bindings.jax_mlir_ext.TracebackToLocationCache(
        code_to_filename=lambda code: code.co_filename, frame_limit=1, context=context)
    result = ModuleContext(
        context=context, module=module, ip=ir.InsertionPoint(module.body),
        symbol_table=ir.SymbolTable(module.operation), platforms=("cpu",),
        backend=client.get_client(),
        axis_context=ShardingContext(num_devices=text_module.num_devices),
        keepalives=[],
        # Channel handle 1 is taken before any rule runs (rules see count(2), as in JAX).
        channel_iterator=itertools.count(2),
        host_callbacks=text_module.host_callbacks,
        shape_poly_state=ShapePolyLoweringState(), all_default_mem_kind=True,
        lowering_cache={}, cached_primitive_lowerings={}, sharding_attr_cache={},
        aval_to_ir_types_cache={}, pallas_lowering_cache={},
        traceback_caches=TracebackCaches(traceback_to_location_cache=locations,
                                         canonical_name_cache={}),
        lowering_parameters=LoweringParameters())
    # The types of the entry function's signature, then of the int scalar its dimension
    # variables would have, are converted before any equation is lowered.
    for aval in (*text_module.entry_avals, core.ShapedArray((), dtypes.default_int_dtype())):
      _aval_to_ir_type(result, aval)
  text_module.mlir_context = result
  return result


def _aval_to_ir_type(module_ctx: ModuleContext, aval):
  cached = module_ctx.aval_to_ir_types_cache.get(aval)
  if cached is None:
    cached = module_ctx.aval_to_ir_types_cache[aval] = aval_to_ir_type(aval)
  return cached


# ---------------------------------------------------------------------------
# Types and constants (inside a rule: an MLIR context is current)


def dtype_to_ir_type(dtype):
  """The MLIR element type of ``dtype`` (``ir.F32Type`` for float32, ...)."""
  ir = client.mlir_bindings().ir
  return ir.Type.parse(lowering.element_type(np.dtype(dtype)))


def aval_to_ir_type(aval):
  """The MLIR tensor type of an aval (``RankedTensorType(tensor<2x3xf32>)``)."""
  ir = client.mlir_bindings().ir
  return ir.RankedTensorType.get(list(aval.shape), dtype_to_ir_type(aval.dtype))


def aval_to_ir_types(aval) -> tuple:
  return (aval_to_ir_type(aval),)


def ir_constant(value):
  """A ``stablehlo.constant`` holding ``value`` (a NumPy array or scalar), as an ``ir.Value``."""
  bindings = client.mlir_bindings()
  array = np.asarray(value)
  array = array.astype(dtypes.canonicalize_dtype(array.dtype), copy=False)
  ir_type = aval_to_ir_type(core.ShapedArray(array.shape, array.dtype))
  if array.dtype == np.bool_:
    attribute = bindings.ir.DenseElementsAttr.get(np.packbits(array, bitorder="little"),
                                                  type=ir_type.element_type, shape=array.shape)
  else:
    attribute = bindings.ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ir_type)
  return bindings.stablehlo.ConstantOp(attribute).result


# ---------------------------------------------------------------------------
# Registering rules


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None,
                      inline: bool = True, cacheable: bool = True) -> None:
  """Registers ``rule(ctx, *operands, **params) -> sequence of values`` as ``prim``'s lowering.

  ``platform`` may be None or ``'cpu'`` (axle's one backend); rules for other platforms are
  accepted and never used. ``cacheable=False`` lowers the rule again for every equation."""
  if platform not in (None, "cpu"):
    return
  text_rule = getattr(rule, "_axle_text_rule", None)
  if text_rule is not None:  # made by lower_fun: emitted inline by the text lowering
    lowering.register(prim, text_rule)
    return

  def registered_rule(ctx: lowering.RuleContext, *operands, **params):
    return _call_registered_rule(prim, rule, inline, cacheable, ctx, operands, params)

  registered_rule.__name__ = getattr(rule, "__name__", "lowering_rule")
  lowering.register(prim, registered_rule)


def _call_registered_rule(prim, rule, inline, cacheable, ctx: lowering.RuleContext, operands,
                          params):
  module_ctx = module_context(ctx.module)
  key = LoweringCacheKey(primitive=prim, eqn_ctx=_eqn_context(), avals_in=tuple(ctx.avals_in),
                         effects=frozenset(), params=tuple(sorted(params.items())),
                         platforms=module_ctx.platforms)
  try:
    cached = module_ctx.lowering_cache.get(key) if cacheable else None
  except TypeError:  # unhashable parameters: lowered for each equation
    cached, cacheable = None, False
  if cached is None:
    cached = _lower_rule_to_function(module_ctx, ctx, prim, rule, inline, params)
    if cacheable:
      module_ctx.lowering_cache[key] = cached
  results = lowering.op(ctx, "func.call", list(operands), list(ctx.avals_out),
                        {"callee": f"@{lowering.symbol_text(cached.func.sym_name.value)}"})
  return results if prim.multiple_results else results[0]


def _lower_rule_to_function(module_ctx: ModuleContext, ctx: lowering.RuleContext, prim, rule,
                            inline: bool, params: dict) -> LoweringCacheValue:
  bindings = client.mlir_bindings()
  ir, func = bindings.ir, bindings.func
  text_module = ctx.module
  symbol = text_module.fresh_symbol(prim.name)
  prefix = text_module.location_prefix  # set when the text carries locations (debug_info)
  with module_ctx.context, (ir.Location.unknown() if prefix is None
                            else ir.Location.name(f"{prefix}/{prim.name}")):
    in_types = [_aval_to_ir_type(module_ctx, a) for a in ctx.avals_in]
    out_types = [_aval_to_ir_type(module_ctx, a) for a in ctx.avals_out]
    body_ops_before = len(list(module_ctx.module.body.operations))
    with module_ctx.ip:
      function = func.FuncOp(symbol, ir.FunctionType.get(in_types, out_types))
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    block = function.add_entry_block()
    rule_ctx = LoweringRuleContext(
        module_context=module_ctx, name_stack=NameStack(), traceback=None, primitive=prim,
        avals_in=tuple(ctx.avals_in), avals_out=list(ctx.avals_out), tokens_in=TokenSet(),
        tokens_out=None, const_lowering={}, axis_size_env=None, dim_var_values=[],
        jaxpr_eqn_ctx=_eqn_context(), platforms=None)
    rule_ctx._axle_text_ctx = ctx  # for lower_fun called inside the rule
    with ir.InsertionPoint(block):
      outs = rule(rule_ctx, *block.arguments, **params)
      flat = _flatten_results(prim, outs, len(out_types))
      func.ReturnOp(flat)
    # Everything the rule added at module level (its function, helpers it inserted) is printed
    # into the text module, in order.
    new_ops = list(module_ctx.module.body.operations)[body_ops_before:]
    for operation in new_ops:
      text = operation.operation.get_asm(print_generic_op_form=True,
                                         enable_debug_info=prefix is not None)
      text_module.functions.append("  " + text.replace("\n", "\n  "))
  return LoweringCacheValue(func=function, flat_output_types=out_types,
                            output_treedef=tree_util.tree_structure(list(flat)), const_args=(),
                            const_arg_avals=(), inline=inline)


def _flatten_results(prim, outs, count: int) -> list:
  if outs is None or isinstance(outs, (str, bytes)) or not isinstance(outs, Sequence):
    if hasattr(outs, "result") and hasattr(outs, "results"):  # an operation: its results
      outs = list(outs.results)
    else:
      raise TypeError(f"The lowering rule of '{prim.name}' must return a sequence of MLIR "
                      f"values (e.g. [hlo.AddOp(x, y).result]), got {type(outs).__name__}.")
  flat = []
  for out in outs:
    if isinstance(out, Sequence) and not isinstance(out, (str, bytes)):
      flat.extend(out)
    else:
      flat.append(out)
  if len(flat) != count:
    raise ValueError(f"The lowering rule of '{prim.name}' returned {len(flat)} values for "
                     f"{count} output(s) of the primitive.")
  return flat


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that lowers ``fun(*operands, **params)`` (written with lax/jnp); its result
  is a list of values (JAX's convention for ``register_lowering`` rules)."""
  inner = lowering.lower_fun(fun, multiple_results)

  def text_rule(ctx, *operands, **params):
    return inner(ctx, *operands, **params)

  def rule(ctx, *operands, **params):
    if isinstance(ctx, LoweringRuleContext):
      return _lower_fun_in_mlir_rule(fun, multiple_results, ctx, operands, params)
    out = inner(ctx, *operands, **params)
    return list(out) if multiple_results else [out]

  rule._axle_text_rule = text_rule
  rule.__name__ = f"lower_fun_{getattr(fun, '__name__', 'fun')}"
  return rule


def _lower_fun_in_mlir_rule(fun, multiple_results, ctx: LoweringRuleContext, operands, params):
  """``fun`` traced on the rule's avals, lowered to a private function of the text module, and
  called from the rule's MLIR function."""
  bindings = client.mlir_bindings()
  text_ctx = ctx._axle_text_ctx
  avals_in = [a.strip_weak_type() if hasattr(a, "strip_weak_type") else a for a in ctx.avals_in]
  with core.set_current_trace(core.eval_trace):
    closed, _ = staging.trace_to_jaxpr(lambda *xs: fun(*xs, **params), avals_in)
  symbol = lowering.lower_private_function(text_ctx.module, closed,
                                           getattr(fun, "__name__", "lower_fun"))
  result_types = [_aval_to_ir_type(ctx.module_context, a) for a in closed.out_avals]
  call = bindings.func.CallOp(result_types, bindings.ir.FlatSymbolRefAttr.get(symbol),
                              list(operands))
  outs = list(call.results)
  return outs if multiple_results else outs[:1]


__all__ = ["LoweringRuleContext", "ModuleContext", "register_lowering", "lower_fun",
           "aval_to_ir_type", "aval_to_ir_types", "dtype_to_ir_type", "ir_constant"]
