"""Lowering of jaxprs to StableHLO, as MLIR text that XLA compiles.

``lowering_rules[p]`` lowers one equation of primitive ``p``:

    def _add_lowering(ctx: RuleContext, x: Value, y: Value, **params) -> Value | list[Value]

``ctx.avals_in``/``ctx.avals_out`` are the equation's abstract values; operands are
``Value``s (an SSA name and its aval). A rule emits operations with ``op`` (or the small
helpers below: ``constant``, ``broadcast_to``, ``convert``, ``compare``, ``region``) and
returns its result(s) -- a list exactly when the primitive has multiple results. Operations
are written in MLIR's generic syntax (``"stablehlo.add"(%0, %1) : (...) -> ...``), which
needs no per-op printing knowledge. A composite primitive may be lowered by lowering a
lax-level implementation with ``lower_fun``. Sub-jaxprs (nested ``jit``) become private
``func.func``s called with ``func.call`` (``call_jaxpr``).
"""
from __future__ import annotations

import itertools
import re
from typing import Callable, Sequence

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src import source_info as source_info_util
from axle._src.core import ShapedArray
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import staging
from axle._src.ir import ClosedJaxpr, Jaxpr, Literal
from axle._src.xla import client

# primitive -> rule(ctx, *operands, **params)
lowering_rules: dict = {}

# Primitives whose lowering rules thread the block's token themselves (host callbacks, cond);
# after any other equation with ordered effects (loops), the token waits for its results.
token_threading_primitives: set = set()


eval_interpreter.has_lowering = lowering_rules.__contains__


def register(primitive: core.Primitive, rule: Callable) -> Callable:
  """Sets ``rule`` as ``primitive``'s lowering rule; returns it."""
  lowering_rules[primitive] = rule
  return rule


# ---------------------------------------------------------------------------
# Types

_ELEMENT_TYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "int4": "i4", "uint4": "ui4", "int2": "i2", "uint2": "ui2",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e3m4": "f8E3M4", "float8_e4m3": "f8E4M3", "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN",
}


def element_type(dtype) -> str:
  """The MLIR element type of a dtype (``float32`` -> ``f32``, ``uint8`` -> ``ui8``)."""
  return _ELEMENT_TYPES[np.dtype(dtype).name]


_tensor_types: dict = {}


def tensor_type(aval: ShapedArray) -> str:
  """``tensor<2x3xf32>`` for f32[2,3]; ``tensor<f32>`` for a scalar."""
  key = (aval.shape, aval.dtype)
  text = _tensor_types.get(key)
  if text is None:
    # an extended dtype (PRNG keys) is stored as its physical type (uint32[..., 2])
    physical = core.physical_aval(aval)
    dims = "".join(f"{d}x" for d in physical.shape)
    text = _tensor_types[key] = f"tensor<{dims}{element_type(physical.dtype)}>"
  return text


def scalar_aval(dtype) -> ShapedArray:
  """The aval of a scalar of ``dtype`` (e.g. the arguments of a reduction region)."""
  return ShapedArray((), np.dtype(dtype))


# ---------------------------------------------------------------------------
# Values, blocks and functions


class Value:
  """An SSA value of the function being built, with its abstract value."""
  __slots__ = ("name", "aval", "splat")

  def __init__(self, name: str, aval: ShapedArray, splat=None):
    self.name = name
    self.aval = aval
    self.splat = splat  # for a constant whose elements are all equal: that element (NumPy scalar)

  @property
  def type(self) -> str:
    return tensor_type(self.aval)

  def __repr__(self):
    return f"Value({self.name}: {self.type})"


class TokenValue(Value):
  """An SSA value of type ``!stablehlo.token`` (orders side effects)."""
  __slots__ = ()

  def __init__(self, name: str):
    super().__init__(name, ShapedArray((), np.dtype(bool)))

  @property
  def type(self) -> str:
    return "!stablehlo.token"


# Stands for a ``!stablehlo.token`` among an operation's result types (see ``op``).
TOKEN = "!stablehlo.token"


def current_token(ctx: "RuleContext") -> TokenValue:
  """The token of the block's last ordered effect (a fresh one if there was none)."""
  function = ctx.function
  if function.token is None:
    function.token = function.fresh()
    function.lines.append(f'{function.indent}{function.token} = "stablehlo.after_all"() : '
                          "() -> !stablehlo.token")
  return TokenValue(function.token)


def _join_token(ctx: "RuleContext", values: Sequence[Value]) -> None:
  """Makes the block's next ordered effect wait for ``values`` (the results of an operation
  whose regions had ordered effects): a host call that does nothing, taking the token and them."""
  values = [materialize(ctx, v) for v in values if not isinstance(v, TokenValue)]
  if values:
    emit_host_callback(ctx, lambda *args: (), values, [], has_side_effect=True, ordered=True)


class _Function:
  """The body being emitted: lines of text and a fresh-name counter shared with nested regions."""

  def __init__(self, module: "ModuleContext"):
    self.module = module
    self.counter = itertools.count()
    self.lines: list[str] = []
    self.indent = "    "
    self.token: str | None = None  # the last ordered effect's token in the current block
    self.loc: str | None = None  # the location emitted operations carry (debug_info lowering)

  def fresh(self) -> str:
    return f"%{next(self.counter)}"


class ModuleContext:
  """One module being built: its private functions and the sub-jaxprs already lowered."""

  def __init__(self, name: str = "main", num_devices: int = 1):
    self.name = _symbol_name(name)
    self.num_devices = num_devices
    self.entry_avals: tuple = ()  # the entry function's argument then result avals
    self.mlir_context = None  # the MLIR state of registered rules (interpreters.mlir), if any
    self.functions: list[str] = []
    self.symbols: set[str] = {"main"}
    self.symbol_counter = 0  # the module-wide suffix of renamed private functions
    self.lowered_jaxprs: dict = {}  # id(Jaxpr) -> (symbol, jaxpr kept alive)
    self.host_callbacks: list = []  # Python functions the program calls back, by index
    # "jit(f)" when operations carry source locations (Lowered.as_text(debug_info=True))
    self.location_prefix: str | None = None

  def fresh_symbol(self, base: str) -> str:
    """A new private function's symbol: the function's own name (JAX keeps ``<lambda>``),
    numbered ``f_0``, ``f_1``, ... when taken. ``symbol_text`` writes it in MLIR text."""
    base = str(base) or "_"
    name = base
    # MLIR's symbol table renames a taken name with one counter for the whole module (so
    # f, f_0, g, g_1, f_2, ...), as in JAX's modules.
    while name in self.symbols:
      name = f"{base}_{self.symbol_counter}"
      self.symbol_counter += 1
    self.symbols.add(name)
    return name


_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def symbol_text(name: str) -> str:
  """A symbol as MLIR text writes it after ``@``: bare, or quoted (``@"<lambda>"``)."""
  if _BARE_SYMBOL.fullmatch(name):
    return name
  return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _symbol_name(name: str) -> str:
  cleaned = "".join(c if c.isalnum() or c in "_." else "_" for c in str(name) if c not in "<>")
  if not cleaned or cleaned[0].isdigit():
    cleaned = "_" + cleaned
  return cleaned


class RuleContext:
  """What a lowering rule sees: the equation's avals and where to emit operations."""
  __slots__ = ("function", "primitive", "avals_in", "avals_out")

  def __init__(self, function: _Function, primitive, avals_in, avals_out):
    self.function = function
    self.primitive = primitive
    self.avals_in = avals_in
    self.avals_out = avals_out

  @property
  def module(self) -> ModuleContext:
    return self.function.module

  def replace(self, avals_in=None, avals_out=None, primitive=None) -> "RuleContext":
    return RuleContext(self.function, primitive or self.primitive,
                       self.avals_in if avals_in is None else avals_in,
                       self.avals_out if avals_out is None else avals_out)


# ---------------------------------------------------------------------------
# Emitting operations


def _attribute_text(attributes) -> str:
  if not attributes:
    return ""
  if isinstance(attributes, str):
    return attributes
  return "{" + ", ".join(f"{k} = {v}" for k, v in attributes.items()) + "}"


def op(ctx: RuleContext, name: str, operands: Sequence[Value], results,
       attributes: dict | str | None = None, regions: Sequence[str] = ()):
  """Emits ``name`` (e.g. ``"stablehlo.add"``) on ``operands``.

  ``results`` is one aval (the op's value is returned) or a list of avals (a list of values is
  returned). ``attributes`` maps attribute names to MLIR attribute text
  (``{"dimensions": dense_array([0, 1])}``); ``regions`` are texts made by ``region``.
  """
  single = isinstance(results, ShapedArray)
  result_avals = [results] if single else list(results)
  function = ctx.function
  if any(v.name is None for v in operands):
    operands = [materialize(ctx, v) for v in operands]
  operand_names = ", ".join(v.name for v in operands)
  operand_types = ", ".join(v.type for v in operands)
  result_types = ", ".join(a if a is TOKEN else tensor_type(a) for a in result_avals)
  if len(result_avals) != 1:
    result_types = f"({result_types})"
  region_text = f" ({', '.join(regions)})" if regions else ""
  attr_text = _attribute_text(attributes)
  if attr_text:
    attr_text = " " + attr_text
  signature = f" : ({operand_types}) -> {result_types}"
  if function.loc is not None:
    signature += f" loc({function.loc})"
  body = f'"{name}"({operand_names}){region_text}{attr_text}{signature}'
  if not result_avals:
    function.lines.append(function.indent + body)
    return None if single else []
  base = function.fresh()
  if len(result_avals) == 1:
    function.lines.append(f"{function.indent}{base} = {body}")
    values = [Value(base, result_avals[0])]
  else:
    function.lines.append(f"{function.indent}{base}:{len(result_avals)} = {body}")
    values = [TokenValue(f"{base}#{i}") if a is TOKEN else Value(f"{base}#{i}", a)
              for i, a in enumerate(result_avals)]
  return values[0] if single else values


def region(ctx: RuleContext, arg_avals: Sequence[ShapedArray], body: Callable,
           terminator: str = "stablehlo.return") -> str:
  """The text of a one-block region whose arguments have ``arg_avals``; ``body(ctx, *args)``
  emits the block's operations and returns the values to yield."""
  function = ctx.function
  saved_lines, saved_indent = function.lines, function.indent
  saved_token = function.token
  args = [Value(function.fresh().replace("%", "%arg_r"), a) for a in arg_avals]
  function.lines = []
  function.indent = saved_indent + "  "
  # A region's ordered effects chain from the enclosing block's token (captured implicitly),
  # so they run after the ordered effects before the region.
  try:
    results = body(ctx, *args)
    if isinstance(results, Value):
      results = [results]
    op(ctx, terminator, list(results), [])
    body_lines = function.lines
  finally:
    function.lines, function.indent = saved_lines, saved_indent
    function.token = saved_token
  header = ", ".join(f"{a.name}: {a.type}" for a in args)
  return "{\n" + f"{saved_indent}^bb0({header}):\n" + "\n".join(body_lines) + f"\n{saved_indent}}}"


def dense_array(values: Sequence[int], kind: str = "i64") -> str:
  """``array<i64: 1, 2>`` (MLIR's DenseArrayAttr)."""
  values = list(values)
  if kind == "i1":
    return "array<i1" + (": " + ", ".join("true" if v else "false" for v in values) if values else "") + ">"
  return f"array<{kind}" + (": " + ", ".join(str(int(v)) for v in values) if values else "") + ">"


def dense_elements(values, shape=None, kind: str = "i64") -> str:
  """``dense<[[0, 1]]> : tensor<1x2xi64>`` (a DenseIntElementsAttr)."""
  array = np.asarray(values, dtype=np.int64)
  if shape is not None:
    array = array.reshape(shape)
  dims = "".join(f"{d}x" for d in array.shape)
  return f"dense<{_nested_list(array)}> : tensor<{dims}{kind}>"


def _nested_list(array: np.ndarray) -> str:
  if array.ndim == 0:
    return str(int(array))
  if array.size == 0:
    return "[]" if array.ndim == 1 else "[" + ", ".join(_nested_list(a) for a in array) + "]"
  return "[" + ", ".join(_nested_list(a) for a in array) + "]"


def _splat_element(value: np.ndarray):
  """The one element of ``value`` if all its elements are bitwise equal (so -0.0 differs from
  0.0 and equal NaNs match), else None."""
  flat = np.ascontiguousarray(value).reshape(-1)
  if flat.size == 1 or (flat.view(np.uint8).reshape(flat.size, -1) == flat[:1].view(np.uint8)).all():
    return flat[0]
  return None


def _dense_literal(value: np.ndarray) -> str:
  """The ``dense<...>`` body of a non-empty constant, exact for every dtype (raw bytes in hex,
  one element for a splat; booleans as true/false)."""
  element = _splat_element(value)
  if value.dtype == np.bool_:
    return f"dense<{_bool_nested(value if element is None else element)}>"
  data = np.ascontiguousarray(value if element is None else np.asarray(element)).tobytes()
  return f'dense<"0x{data.hex().upper()}">'


def _bool_nested(value) -> str:
  if np.ndim(value) == 0:
    return "true" if value else "false"
  return "[" + ", ".join(_bool_nested(v) for v in value) + "]"


def constant(ctx: RuleContext, value, dtype=None) -> Value:
  """A ``stablehlo.constant`` holding ``value`` (converted to ``dtype`` if given). Each use
  emits its own constant, as JAX's lowering does (XLA folds duplicates)."""
  value = np.asarray(value, dtype=dtype)
  aval = ShapedArray(value.shape, value.dtype)
  if value.size == 0:
    zero = constant(ctx, np.zeros((), value.dtype))
    return broadcast_in_dim(ctx, zero, aval, ())
  result = op(ctx, "stablehlo.constant", [], aval,
              {"value": f"{_dense_literal(value)} : {tensor_type(aval)}"})
  result.splat = _splat_element(value)
  return result


def materialize(ctx: RuleContext, x: Value) -> Value:
  """``x`` as an emitted value: a literal of the jaxpr is only written out (as a constant in the
  current block) when an operation uses it, so literals that get broadcast cost one splat."""
  if x.name is not None:
    return x
  return constant(ctx, np.asarray(x.splat, x.aval.dtype).reshape(x.aval.shape))


def full_like_aval(ctx: RuleContext, value, aval: ShapedArray) -> Value:
  """A constant of ``aval``'s shape and dtype, every element ``value`` (a splat)."""
  if core.is_extended(aval):  # key arrays: their data filled with ``value``
    data = full_like_aval(ctx, value, core.physical_aval(aval))
    return Value(data.name, aval)
  scalar = constant(ctx, np.asarray(value).astype(aval.dtype))
  if not aval.shape:
    return scalar
  return broadcast_in_dim(ctx, scalar, aval, ())


def broadcast_in_dim(ctx: RuleContext, x: Value, out_aval: ShapedArray,
                     broadcast_dimensions: Sequence[int]) -> Value:
  """``stablehlo.broadcast_in_dim``: operand dimension i becomes result dimension
  ``broadcast_dimensions[i]``."""
  out_aval = ShapedArray(out_aval.shape, x.aval.dtype)
  return op(ctx, "stablehlo.broadcast_in_dim", [x], out_aval,
            {"broadcast_dimensions": dense_array(broadcast_dimensions)})


def transpose(ctx: RuleContext, x: Value, permutation: Sequence[int]) -> Value:
  """``stablehlo.transpose``: result dimension i is operand dimension ``permutation[i]``."""
  shape = tuple(x.aval.shape[p] for p in permutation)
  return op(ctx, "stablehlo.transpose", [x], ShapedArray(shape, x.aval.dtype),
            {"permutation": dense_array(permutation)})


def broadcast_to(ctx: RuleContext, x: Value, shape: Sequence[int]) -> Value:
  """``x`` broadcast to ``shape`` the way elementwise lax ops broadcast: a rank-0 operand
  everywhere (a scalar literal becomes a scalar constant and a ``broadcast_in_dim``, as in
  JAX), otherwise dimension by dimension (sizes equal or 1)."""
  shape = tuple(shape)
  if x.aval.shape == shape:
    return x
  if not x.aval.shape:
    dims = ()
  else:
    if x.aval.shape != shape and all(d == 1 or d == s for d, s in zip(x.aval.shape, shape)) \
        and len(x.aval.shape) == len(shape):
      dims = tuple(range(len(shape)))
    else:
      raise ValueError(f"cannot broadcast {x.aval.shape} to {shape}")
  return broadcast_in_dim(ctx, x, ShapedArray(shape, x.aval.dtype), dims)


def convert(ctx: RuleContext, x: Value, dtype) -> Value:
  """``stablehlo.convert`` of ``x`` to ``dtype`` (identity when already that dtype)."""
  dtype = np.dtype(dtype)
  if x.aval.dtype == dtype:
    return x
  return op(ctx, "stablehlo.convert", [x], ShapedArray(x.aval.shape, dtype))


def compare_type(dtype) -> str:
  """The ``comparison_type`` for ``dtype``: FLOAT (total order not used), SIGNED, UNSIGNED."""
  dtype = np.dtype(dtype)
  if dtypes.issubdtype(dtype, np.inexact):
    return "FLOAT"
  if dtypes.issubdtype(dtype, np.signedinteger):
    return "SIGNED"
  return "UNSIGNED"


def compare(ctx: RuleContext, x: Value, y: Value, direction: str,
            comparison_type: str | None = None) -> Value:
  """``stablehlo.compare`` with ``direction`` in EQ, NE, LT, LE, GT, GE; a bool result."""
  kind = comparison_type or compare_type(x.aval.dtype)
  shape = x.aval.shape if x.aval.shape else y.aval.shape
  return op(ctx, "stablehlo.compare", [x, y], ShapedArray(shape, np.dtype(np.bool_)),
            {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
             "compare_type": f"#stablehlo<comparison_type {kind}>"})


def _component_aval(aval: ShapedArray) -> ShapedArray:
  return ShapedArray(aval.shape, np.dtype(np.float32 if aval.dtype == np.complex64 else np.float64))


def real_part(ctx: RuleContext, x: Value) -> Value:
  """``stablehlo.real`` of a complex value."""
  return op(ctx, "stablehlo.real", [x], _component_aval(x.aval))


def imag_part(ctx: RuleContext, x: Value) -> Value:
  """``stablehlo.imag`` of a complex value."""
  return op(ctx, "stablehlo.imag", [x], _component_aval(x.aval))


def select(ctx: RuleContext, predicate: Value, on_true: Value, on_false: Value) -> Value:
  """``stablehlo.select``: elementwise ``on_true`` where ``predicate`` else ``on_false``."""
  return op(ctx, "stablehlo.select", [predicate, on_true, on_false], on_true.aval)


def elementwise(name: str) -> Callable:
  """The rule of an elementwise primitive that maps onto one op ``name`` (operands broadcast to
  the result shape first)."""

  def rule(ctx: RuleContext, *operands, **params):
    out = ctx.avals_out[0]
    operands = [broadcast_to(ctx, x, out.shape) for x in operands]
    return op(ctx, name, operands, ShapedArray(out.shape, out.dtype))

  rule.__name__ = f"lower_{name.replace('.', '_')}"
  return rule


# ---------------------------------------------------------------------------
# Host callbacks


def emit_host_callback(ctx: RuleContext, callback: Callable, operands: Sequence[Value],
                       result_avals: Sequence[ShapedArray], *, has_side_effect: bool,
                       ordered: bool = False) -> list[Value]:
  """Emits a call from the compiled program back into Python: ``callback(*operand arrays)``
  must return a tuple of NumPy arrays of exactly ``result_avals``.

  An ``ordered`` call takes and returns a token chained through the block's ordered calls, so
  XLA keeps them in program order. The callback is registered in the module's
  ``host_callbacks``; its index there is the custom call's ``backend_config``."""
  function = ctx.function
  module = ctx.module
  operands = [materialize(ctx, v) for v in operands]
  index = len(module.host_callbacks)
  names = [v.name for v in operands]
  types = [v.type for v in operands]
  result_types = [tensor_type(a) for a in result_avals]
  if ordered:
    names.insert(0, current_token(ctx).name)
    types.insert(0, "!stablehlo.token")
    result_types.insert(0, "!stablehlo.token")
    inner = callback

    def callback(token, *args):  # noqa: F811  (the token passes through untouched)
      return (token, *inner(*args))
  module.host_callbacks.append(callback)
  attributes = (f'{{call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = '
                f'{"true" if has_side_effect else "false"}, api_version = 4 : i32, '
                f"backend_config = {{index = {index} : ui64}}}}")
  body = (f'"stablehlo.custom_call"({", ".join(names)}) {attributes} : '
          f'({", ".join(types)}) -> ({", ".join(result_types)})')
  if not result_types:
    function.lines.append(function.indent + body)
    return []
  base = function.fresh()
  function.lines.append(f"{function.indent}{base}:{len(result_types)} = {body}"
                        if len(result_types) > 1 else f"{function.indent}{base} = {body}")
  results = [f"{base}#{i}" for i in range(len(result_types))] if len(result_types) > 1 else [base]
  if ordered:
    function.token = results.pop(0)
  return [Value(name, aval) for name, aval in zip(results, result_avals)]


# ---------------------------------------------------------------------------
# Jaxprs


def jaxpr_subcomp(ctx: RuleContext, jaxpr: Jaxpr, consts: Sequence, args: Sequence[Value]) -> list[Value]:
  """Emits ``jaxpr``'s equations into the current function; returns its outputs."""
  env: dict = {}

  def read(atom):
    if type(atom) is Literal:  # a constant per use, emitted when the equation reads it (as JAX)
      return constant(ctx, np.asarray(atom.val, atom.aval.dtype))
    return env[atom]

  for var, value in zip(jaxpr.constvars, consts):
    env[var] = value if isinstance(value, Value) else _constant_of(ctx, value, var.aval)
  for var, value in zip(jaxpr.invars, args):
    env[var] = value
  function = ctx.function
  prefix = function.module.location_prefix
  outer_loc = function.loc
  for eqn in jaxpr.eqns:
    if prefix is not None:
      function.loc = _eqn_location(prefix, eqn)
    rule = lowering_rules.get(eqn.primitive)
    operands = [read(a) for a in eqn.invars]
    avals_out = [v.aval for v in eqn.outvars]
    avals_in = [a.aval for a in eqn.invars]
    if physical_lowering is not None and eqn.primitive not in extended_dtype_rules and (
        any(isinstance(a.dtype, dtypes.ExtendedDType) for a in avals_in)
        or any(isinstance(a.dtype, dtypes.ExtendedDType) for a in avals_out)) and not _has_subjaxprs(eqn):
      # an operation on key arrays whose rule knows only NumPy dtypes: lowered on the
      # physical representation (see ``physical_lowering``)
      rule = physical_lowering(eqn.primitive, avals_in, avals_out)
    rule_ctx = RuleContext(function, eqn.primitive, avals_in, avals_out)
    try:
      if rule is None:
        raise NotImplementedError(f"MLIR translation rule for primitive '{eqn.primitive.name}' "
                                  "not found for platform cpu")
      out = rule(rule_ctx, *operands, **eqn.params)
    except Exception as e:
      # As JAX: the error's cause shows the user code that staged the equation.
      source_info_util.attach_source_traceback(e, eqn.source_info)
      raise
    if not eqn.primitive.multiple_results:
      out = [out]
    if (eqn.primitive not in token_threading_primitives
        and ir.ordered_effects(ir.eqn_effects(eqn.primitive, eqn.params))):
      _join_token(rule_ctx, out)
    if len(out) != len(eqn.outvars):
      raise RuntimeError(f"lowering rule of {eqn.primitive.name} returned {len(out)} values for "
                         f"{len(eqn.outvars)} outputs")
    for var, value in zip(eqn.outvars, out):
      if value.aval.shape != var.aval.shape or value.aval.dtype != var.aval.dtype:
        raise RuntimeError(f"lowering rule of {eqn.primitive.name} produced {value.type} for an "
                           f"output of type {var.aval.str_short()}")
      env[var] = value
  function.loc = outer_loc
  return [read(v) for v in jaxpr.outvars]


# Extended dtypes (PRNG keys). Primitives whose lowering rules take key-typed operands as
# they are (the random primitives, and every primitive carrying sub-jaxprs); any other
# primitive applied to keys (indexing, reshape, select, ...) is lowered by the rule that
# ``physical_lowering(primitive, avals_in, avals_out)`` returns, set by the random package.
extended_dtype_rules: set = set()
physical_lowering: Callable | None = None


def _has_subjaxprs(eqn) -> bool:
  for value in eqn.params.values():
    if type(value) is tuple and value:
      value = value[0]
    if isinstance(value, (ClosedJaxpr, Jaxpr)) or hasattr(value, "eqns") or hasattr(
        value, "jaxpr"):
      return True
  return False


def physical_values(values: Sequence[Value]) -> list[Value]:
  """``values`` typed by their physical avals (keys as their uint32 data); same SSA names."""
  return [Value(v.name, core.physical_aval(v.aval), v.splat) if core.is_extended(v.aval)
          else v for v in values]


# ---------------------------------------------------------------------------
# Dead code: what XLA is given for a jitted call (JAX's dce_jaxpr before lowering)

# Call primitives (``jit``) whose ``jaxpr`` parameter (a ClosedJaxpr) dead-code elimination
# enters: a call keeps only the results its caller uses and the operands those need, so the
# private function it lowers to has that smaller signature.
prunable_calls: set = set()

# primitive -> rule(used_outputs, eqn, cache) -> (used_inputs, new equation or None): how
# dead-code elimination prunes an equation with sub-jaxprs (scan drops unused carries).
dce_rules: dict = {}


def _has_effects(eqn) -> bool:
  return bool(eqn.primitive.has_effects or ir.eqn_effects(eqn.primitive, eqn.params))


def _dce(jaxpr: Jaxpr, used_outputs: Sequence[bool], cache: dict) -> tuple[Jaxpr, list, bool]:
  """``jaxpr`` without the equations nothing needs for ``used_outputs`` (calls pruned inside);
  returns it (outputs and inputs untouched), which inputs it uses and whether it changed."""
  live = {v for v, used in zip(jaxpr.outvars, used_outputs) if used and type(v) is not Literal}
  kept = []
  changed = False
  for eqn in reversed(jaxpr.eqns):
    used = [v in live for v in eqn.outvars]
    effects = _has_effects(eqn)
    if not any(used) and not effects:
      changed = True
      continue
    rule = dce_rules.get(eqn.primitive)
    if rule is not None:
      used_inputs, new_eqn = rule(used, eqn, cache)
      if new_eqn is None:
        changed = True
        continue
      if new_eqn is not eqn:
        changed = True
        eqn = new_eqn
      kept.append(eqn)
      live.update(v for v in eqn.invars if type(v) is not Literal)
      continue
    if eqn.primitive in prunable_calls:
      callee, used_inputs = _dce_call(eqn.params["jaxpr"], tuple(used), cache)
      if callee is not eqn.params["jaxpr"]:
        changed = True
        eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used) if u],
                          params=dict(eqn.params, jaxpr=callee))
    kept.append(eqn)
    live.update(v for v in eqn.invars if type(v) is not Literal)
  kept.reverse()
  used_inputs = [v in live for v in jaxpr.invars]
  return (jaxpr.replace(eqns=kept) if changed else jaxpr), used_inputs, changed


def _dce_call(closed: ClosedJaxpr, used_outputs: tuple, cache: dict):
  """The callee of a call equation keeping ``used_outputs`` and the inputs they need (one
  object per callee and usage, so that equal calls share a private function)."""
  key = (id(closed.jaxpr), used_outputs)
  entry = cache.get(key)
  if entry is None:
    jaxpr, used_inputs, changed = _dce(closed.jaxpr, used_outputs, cache)
    if changed or not all(used_outputs) or not all(used_inputs):
      jaxpr = jaxpr.replace(
          invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
          outvars=[v for v, u in zip(jaxpr.outvars, used_outputs) if u])
      result = ClosedJaxpr(jaxpr, closed.consts)
    else:
      result = closed
    entry = cache[key] = (result, used_inputs, closed)
  return entry[0], entry[1]


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool], instantiate: Sequence[bool],
              cache: dict) -> tuple[Jaxpr, list]:
  """``jaxpr`` keeping ``used_outputs`` and the inputs they need or ``instantiate`` marks (for
  dead-code elimination rules); returns it and which inputs it kept."""
  pruned, used_inputs, _ = _dce(jaxpr, used_outputs, cache)
  used_inputs = [u or i for u, i in zip(used_inputs, instantiate)]
  return pruned.replace(invars=[v for v, u in zip(pruned.invars, used_inputs) if u],
                        outvars=[v for v, u in zip(pruned.outvars, used_outputs) if u]), used_inputs


def dce_program(closed: ClosedJaxpr, keep_inputs: bool = False) -> tuple[ClosedJaxpr, list]:
  """The jaxpr of a jitted call as lowered: equations whose results nothing uses removed (calls
  lose their unused results and operands, recursively), then -- unless ``keep_inputs`` -- the
  arguments nothing uses. Returns it and which arguments it kept."""
  jaxpr, used_inputs, changed = _dce(closed.jaxpr, [True] * len(closed.jaxpr.outvars), {})
  kept = [True] * len(used_inputs) if keep_inputs else used_inputs
  if not all(kept):
    jaxpr = jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, kept) if k])
  elif not changed:
    return closed, kept
  return ClosedJaxpr(jaxpr, closed.consts), kept


def _eqn_location(prefix: str, eqn) -> str:
  """``"jit(f)/scope/sin"("file.py":4:8 to :18)``: the equation's name-scoped primitive name at
  the user's source location (MLIR location syntax)."""
  info = eqn.source_info
  parts = [prefix, *(info.name_stack if info is not None else ()), eqn.primitive.name]
  name = "/".join(parts).replace("\\", "\\\\").replace('"', '\\"')
  if info is None:
    return f'"{name}"'
  return f'"{name}"({info.mlir_location()})'


def _constant_of(ctx: RuleContext, value, aval: ShapedArray) -> Value:
  if core.is_extended(aval):  # a key array: its data, typed as keys
    data = _constant_of(ctx, value._base_array, core.physical_aval(aval))
    return Value(data.name, aval)
  host = np.asarray(value.__array__() if hasattr(value, "__array__") else value)
  if host.dtype != aval.dtype:
    host = host.astype(aval.dtype)
  return constant(ctx, host.reshape(aval.shape))


def call_jaxpr(ctx: RuleContext, closed: ClosedJaxpr, args: Sequence[Value], name: str = "jaxpr") -> list[Value]:
  """Lowers ``closed`` to a private function (once per module) and emits a ``func.call``."""
  module = ctx.module
  if ir.ordered_effects(closed.jaxpr.effects):
    # Inlined, so that its ordered effects join this function's token chain.
    return jaxpr_subcomp(ctx, closed.jaxpr, closed.consts, args)
  entry = module.lowered_jaxprs.get(id(closed.jaxpr))
  if entry is None:
    symbol = module.fresh_symbol(name)
    module.lowered_jaxprs[id(closed.jaxpr)] = (symbol, closed)
    # The function's place in the module is taken before its body is lowered: callees follow
    # their first caller, as in JAX's modules.
    slot = len(module.functions)
    module.functions.append("")
    module.functions[slot] = _function_text(module, symbol, closed, private=True)
  else:
    symbol = entry[0]
  return op(ctx, "func.call", list(args), list(closed.out_avals), {"callee": f"@{symbol_text(symbol)}"})


def lower_private_function(module: ModuleContext, closed: ClosedJaxpr, name: str) -> str:
  """Lowers ``closed`` to a new private function of ``module``; returns its symbol."""
  symbol = module.fresh_symbol(name)
  slot = len(module.functions)
  module.functions.append("")
  module.functions[slot] = _function_text(module, symbol, closed, private=True)
  return symbol


def _function_text(module: ModuleContext, symbol: str, closed: ClosedJaxpr, private: bool,
                   arg_attributes: dict | None = None) -> str:
  function = _Function(module)
  in_avals = closed.in_avals
  args = [Value(f"%arg{i}", a) for i, a in enumerate(in_avals)]
  ctx = RuleContext(function, None, in_avals, closed.out_avals)
  outs = [materialize(ctx, v) for v in jaxpr_subcomp(ctx, closed.jaxpr, closed.consts, args)]
  arg_names = None
  if module.location_prefix is not None and not private:
    arg_names = getattr(closed.jaxpr.debug_info, "arg_names", None) or []
  return _assemble_function(function, symbol, args, outs, private, arg_attributes, arg_names)


def _assemble_function(function: _Function, symbol: str, args: Sequence[Value],
                       outs: Sequence[Value], private: bool, arg_attributes: dict | None = None,
                       arg_names: Sequence[str] | None = None) -> str:
  """The text of a ``func.func`` whose body ``function`` has emitted, returning ``outs``."""
  arg_attributes = arg_attributes or {}
  prefix = function.module.location_prefix
  arg_locs = [""] * len(args)
  if prefix is not None:  # argument names as locations, as JAX's debug_info lowering
    names = arg_names or []
    arg_locs = [f' loc("{_escape(names[i])}")' if i < len(names) and names[i] else " loc(unknown)"
                for i in range(len(args))]
  params = ", ".join(f"{a.name}: {a.type}" + (f" {arg_attributes[i]}" if i in arg_attributes else "")
                     + arg_locs[i] for i, a in enumerate(args))
  result_types = ", ".join(v.type for v in outs)
  visibility = "private" if private else "public"
  return_loc = f' loc("{_escape(prefix)}")' if prefix is not None else ""
  lines = [f"  func.func {visibility} @{symbol_text(symbol)}({params}) -> ({result_types}) {{"]
  lines.extend(function.lines)
  if outs:
    lines.append(f"    func.return {', '.join(v.name for v in outs)} : {result_types}{return_loc}")
  else:
    lines.append(f"    func.return{return_loc}")
  lines.append("  }" + (" loc(unknown)" if prefix is not None else ""))
  return "\n".join(lines)


def outlined(rule: Callable) -> Callable:
  """``rule`` emitted as a private function named after the primitive, once per module and
  signature, and called where the primitive is used (JAX outlines the cumulative reductions'
  lowerings this way)."""

  def outlined_rule(ctx: RuleContext, *operands, **params):
    module = ctx.module
    primitive = ctx.primitive
    key = ("outlined", primitive, tuple(ctx.avals_in), tuple(sorted(params.items())))
    entry = module.lowered_jaxprs.get(key)
    if entry is None:
      symbol = module.fresh_symbol(primitive.name)
      module.lowered_jaxprs[key] = (symbol, None)
      slot = len(module.functions)
      module.functions.append("")
      function = _Function(module)
      args = [Value(f"%arg{i}", a) for i, a in enumerate(ctx.avals_in)]
      inner = RuleContext(function, primitive, ctx.avals_in, ctx.avals_out)
      outs = rule(inner, *args, **params)
      outs = [materialize(inner, v) for v in (outs if primitive.multiple_results else [outs])]
      module.functions[slot] = _assemble_function(function, symbol, args, outs, private=True)
    else:
      symbol = entry[0]
    results = op(ctx, "func.call", list(operands), list(ctx.avals_out), {"callee": f"@{symbol_text(symbol)}"})
    return results if primitive.multiple_results else results[0]

  outlined_rule.__name__ = f"outlined_{getattr(rule, '__name__', 'rule')}"
  return outlined_rule


def call_private(ctx: RuleContext, name: str, key, operands: Sequence[Value],
                 result_avals: Sequence[ShapedArray], body: Callable) -> list[Value]:
  """Emits a ``func.call`` of the private function ``name`` that ``body(ctx, *args)`` builds
  (once per module and ``key``; the function's arguments have the operands' types)."""
  module = ctx.module
  full_key = ("private", name, key)
  entry = module.lowered_jaxprs.get(full_key)
  if entry is None:
    symbol = module.fresh_symbol(name)
    module.lowered_jaxprs[full_key] = (symbol, None)
    slot = len(module.functions)
    module.functions.append("")
    function = _Function(module)
    args = [Value(f"%arg{i}", v.aval) for i, v in enumerate(operands)]
    inner = RuleContext(function, ctx.primitive, [a.aval for a in args], list(result_avals))
    outs = [materialize(inner, v) for v in body(inner, *args)]
    module.functions[slot] = _assemble_function(function, symbol, args, outs, private=True)
  else:
    symbol = entry[0]
  return op(ctx, "func.call", list(operands), list(result_avals),
            {"callee": f"@{symbol_text(symbol)}"})


def _escape(text: str) -> str:
  return str(text).replace("\\", "\\\\").replace('"', '\\"')


def donation_aliases(closed: ClosedJaxpr, donated: Sequence[int]) -> dict[int, int]:
  """Pairs donated argument positions with outputs of the same shape and dtype, each output used
  once: {argument position: output index}. Unpaired donations are not donated."""
  aliases = {}
  free_outputs = list(enumerate(closed.out_avals))
  for position in donated:
    aval = closed.in_avals[position]
    for j, (index, out_aval) in enumerate(free_outputs):
      if out_aval.shape == aval.shape and out_aval.dtype == aval.dtype:
        aliases[position] = index
        del free_outputs[j]
        break
  return aliases


def lower_jaxpr_to_module(closed: ClosedJaxpr, name: str = "main",
                          aliases: dict[int, int] | None = None, num_replicas: int = 1,
                          num_partitions: int = 1, host_callbacks: list | None = None,
                          location_prefix: str | None = None) -> str:
  """The StableHLO module text whose public ``@main`` computes ``closed``.

  ``aliases`` maps argument positions to the outputs that may reuse their buffers (donation;
  see ``donation_aliases``). The Python functions the program calls back (``debug.print``,
  ``pure_callback``) are appended to ``host_callbacks``; a module that has any must be compiled
  with them."""
  module = ModuleContext(name, num_devices=num_replicas * num_partitions)
  module.location_prefix = location_prefix
  module.entry_avals = (*closed.in_avals, *closed.out_avals)
  arg_attributes = {position: f"{{tf.aliasing_output = {index} : i32}}"
                    for position, index in (aliases or {}).items()}
  main = _function_text(module, "main", closed, private=False, arg_attributes=arg_attributes)
  if module.host_callbacks:
    if host_callbacks is None:
      raise ValueError("lower_jaxpr_to_module: the program calls back into Python; pass a "
                       "host_callbacks list to receive the callbacks it must be compiled with.")
    host_callbacks.extend(module.host_callbacks)
  header = (f"module @{module.name} attributes {{mhlo.num_partitions = {num_partitions} : i32, "
            f"mhlo.num_replicas = {num_replicas} : i32}} {{")
  footer = "} loc(unknown)" if location_prefix is not None else "}"
  return "\n".join([header, main, *module.functions, footer]) + "\n"


# ---------------------------------------------------------------------------
# lower_fun: lowering a composite primitive through a lax implementation

_lower_fun_cache: dict = {}


def lower_fun(fun: Callable, multiple_results: bool = False) -> Callable:
  """A lowering rule that traces ``fun(*operands, **params)`` (written with lax functions) on
  the equation's avals and emits the resulting jaxpr inline."""

  def rule(ctx: RuleContext, *operands, **params):
    try:
      key = (fun, tuple(ctx.avals_in), tuple(params.items()))
      hash(key)
    except TypeError:
      key = None
    closed = _lower_fun_cache.get(key) if key is not None else None
    if closed is None:
      with core.set_current_trace(core.eval_trace):
        closed, _ = staging.trace_to_jaxpr(lambda *xs: fun(*xs, **params),
                                           [a.strip_weak_type() if hasattr(a, "strip_weak_type")
                                            else a for a in ctx.avals_in])
      if key is not None:
        _lower_fun_cache[key] = closed
    outs = jaxpr_subcomp(ctx, closed.jaxpr, closed.consts, operands)
    return outs if multiple_results else outs[0]

  rule.__name__ = f"lower_fun_{getattr(fun, '__name__', 'fun')}"
  return rule


# ---------------------------------------------------------------------------
# Single-primitive programs: eager primitives on XLA, and reads of bf16/fp8 buffers

def primitive_module(primitive: core.Primitive, avals_in: Sequence[ShapedArray], params: dict):
  """``(module text, physical output avals)`` of one equation of ``primitive`` on arguments of
  ``avals_in`` (weak types stripped): the program of an eager primitive run on XLA."""
  avals_in = [a.strip_weak_type() for a in avals_in]
  out = eval_interpreter.abstract_eval(primitive, avals_in, params)
  avals_out = list(out) if primitive.multiple_results else [out]
  invars = [ir.Var(a) for a in avals_in]
  outvars = [ir.Var(a) for a in avals_out]
  jaxpr = Jaxpr([], invars, outvars, [ir.Eqn(invars, outvars, primitive, params)])
  text = lower_jaxpr_to_module(ClosedJaxpr(jaxpr, []), primitive.name)
  return text, [core.physical_aval(a) for a in avals_out]


# (shape, dtype, target) -> the bitcast executable of ``bitcast_reader``
_bitcast_readers: dict = {}


def clear_caches() -> None:
  """Forgets the bitcast readers and the jaxprs traced for ``lower_fun`` rules."""
  _bitcast_readers.clear()
  _lower_fun_cache.clear()


def bitcast_reader(aval: ShapedArray, target: np.dtype):
  """An executable that reinterprets a buffer of ``aval`` as unsigned integers ``target`` (for
  dtypes the buffer protocol cannot export)."""
  key = (aval.shape, aval.dtype, target)
  executable = _bitcast_readers.get(key)
  if executable is None:
    out_aval = ShapedArray(aval.shape, target)
    source, result = tensor_type(aval), tensor_type(out_aval)
    if aval.dtype.itemsize != target.itemsize:
      raise NotImplementedError(f"reading {aval.dtype.name} arrays back to the host")
    kind = "stablehlo.bitcast_convert"
    text = (f"module @read {{\n  func.func public @main(%arg0: {source}) -> ({result}) {{\n"
            f'    %0 = "{kind}"(%arg0) : ({source}) -> {result}\n'
            f"    func.return %0 : {result}\n  }}\n}}\n")
    executable = client.compile(text, [out_aval])
    _bitcast_readers[key] = executable
  return executable


client.bitcast_reader = bitcast_reader
