"""Small jitted programs answered on the host, with XLA's bits.

A call of a jitted function costs at least one XLA execute (about 4 us from Python on the
CPU), however little the program computes. Where a compiled signature's program is small and
every equation is one whose eager NumPy kernel gives XLA's bits (arithmetic, comparisons,
selects, structural ops: ``eval.exact_kernels``), later calls whose arguments are host values
(Arrays with a host value, NumPy arrays, Python scalars) run those kernels directly instead,
in one generated function (used by the call plans of ``execution.signature_runner``).

That is only XLA's answer where the compiled program computes what its equations compute one
by one, so a program qualifies only when:

- it is small: its equations' estimated time on the host is at most the compiled call's;
- every equation's kernel is registered exact for its operands (float32/float64, integers and
  bools; nothing complex or narrow), nested ``jit`` equations being inlined as XLA inlines
  them;
- no sum or difference reads a product (XLA contracts ``x * y + z`` into one fused
  multiply-add, which rounds once), and no sum (product) with a constant reads another (XLA
  folds ``(x + 1.5) + 1.5`` into ``x + 3.0``);
- no value is subnormal: XLA's CPU runtime flushes subnormal operands and results to zero.
  Arguments are scanned (or their remembered exponent bounds read, see ``eval``), and each
  float result is bounded from its operands' bounds or scanned; a call that meets one runs
  the compiled program instead;
- the compiled program and the host function agree, bit for bit, on probe arguments full of
  special values (signed zeros, infinities, NaN, extremes), checked once when the host
  function is made: an algebraic simplification of XLA's that changes a bit disqualifies it.

Arguments on the device (results of XLA not yet read) run the compiled program: reading them
would wait for them.
"""
from __future__ import annotations

import functools

import numpy as np

from axle._src import dtypes
from axle._src.array import Array
from axle._src.interpreters import eval as eval_interpreter
from axle._src.ir import Literal

# Equations a host function may run (when their kernels are registered exact for the operands).
_ELEMENTWISE = frozenset({
    "add", "sub", "mul", "neg", "abs", "sign", "floor", "ceil", "round", "square",
    "integer_pow", "eq", "ne", "lt", "le", "gt", "ge", "select_n", "clamp", "and", "or", "xor",
    "not", "shift_left", "shift_right_logical", "shift_right_arithmetic", "convert_element_type",
    "copy"})
# (these move or gather their operands' bits)
_STRUCTURAL = frozenset({"broadcast_in_dim", "reshape", "squeeze", "transpose", "rev",
                         "concatenate", "stack", "pad", "slice", "dynamic_slice",
                         "dynamic_update_slice", "gather", "iota"})
# Results that are products: a sum or difference of one is contracted by XLA.
_PRODUCTS = frozenset({"mul", "square", "integer_pow"})
_SUMS = frozenset({"add", "sub"})
# Primitives that only move or select their float operands' values (their results' exponent
# bound is the smallest of the operands').
_MOVES = frozenset({"neg", "abs", "select_n", "clamp", "copy"}) | _STRUCTURAL

# Primitives through which XLA may still fold a constant of their operand into a later one's.
_PASSES_ON_CONSTANTS = frozenset({"neg", "copy"}) | _STRUCTURAL

# A program qualifies when running it on the host is estimated to cost no more than the
# compiled call (microseconds on this class of CPU, measured from Python): per equation, and
# per element of its result; against an execute, and per argument and result handled.
_HOST_PER_EQUATION = 0.6
_HOST_PER_ELEMENT = 0.0005
# the equations whose kernels cost more (measured on f32[100] operands)
_HOST_EQUATION_COSTS = {
    "clamp": 7.2, "convert_element_type": 1.2, "round": 4.7, "shift_left": 4.5,
    "shift_right_logical": 4.5, "shift_right_arithmetic": 4.5, "gather": 5.0, "pad": 3.2,
    "stack": 2.7, "dynamic_update_slice": 2.2, "select_n": 1.5, "broadcast_in_dim": 1.5,
    "integer_pow": 1.7, "dynamic_slice": 1.7, "rev": 1.7, "sign": 1.5, "slice": 1.0,
    "squeeze": 0.9, "concatenate": 0.9}
_HOST_FLOAT_TO_INTEGER_COST = 6.0  # (out-of-range values are clamped as XLA clamps them)
_HOST_PER_LEAF = 0.3
_XLA_PER_CALL = 5.0
_XLA_PER_LEAF = 0.7
_MAX_ELEMENTS = 2048  # (and no value larger)

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _kind(aval) -> str | None:
  """'f' for the float dtypes a host function handles, 'x' for integers and bools, None for
  the rest (complex, narrow floats, extended dtypes)."""
  dtype = getattr(aval, "dtype", None)
  if not isinstance(dtype, np.dtype):
    return None
  if dtype in _FLOATS:
    return "f"
  if dtype.kind in "biu":
    return "x"
  return None


class _Unsupported(Exception):
  pass


class _Program:
  """The equations of a closed jaxpr flattened (nested jit calls inlined) into generated
  source lines."""

  def __init__(self):
    self.namespace = {"ndarray": np.ndarray, "asarray": np.asarray, "Array": Array,
                      "checked": eval_interpreter._checked,
                      "bound": eval_interpreter.exponent_bound}
    self.lines: list[str] = []
    self.count = 0
    self.cost = 0.0  # the estimated time of the equations on the host
    self.products: set = set()  # names of values that are (derived from) products
    self.constants: set = set()  # names of constants and of values computed from them only
    # names of values that are sums (products) with a constant, maybe negated or reshaped
    self.constant_sums: set = set()
    self.constant_products: set = set()

  def name(self, prefix: str) -> str:
    self.count += 1
    return f"{prefix}{self.count}"

  def constant(self, value, aval) -> tuple[str, str | None]:
    """The (value name, bound expression) of a constant operand."""
    kind = _kind(aval)
    if kind is None or aval.size == 0:
      raise _Unsupported
    value = np.array(value, aval.dtype)  # a copy of its own, shared by every call's results
    value.flags.writeable = False
    name = self.name("C")
    self.constants.add(name)
    self.namespace[name] = value
    if kind != "f":
      return name, None
    exponent = eval_interpreter._min_exponent(value)
    if exponent < eval_interpreter.MIN_NORMAL_EXPONENT[aval.dtype]:
      raise _Unsupported  # a subnormal constant: XLA reads it as zero
    return name, str(int(exponent))

  def inline(self, closed, operands) -> list:
    """Emits the equations of ``closed`` on ``operands`` ((name, bound) pairs); returns the
    (name, bound) pairs of its outputs."""
    jaxpr = closed.jaxpr
    env = {}
    for var, const in zip(jaxpr.constvars, closed.consts):
      value = const._host_value() if type(const) is Array else const
      if not isinstance(value, (np.ndarray, np.generic, int, float, bool)):
        raise _Unsupported
      env[var] = self.constant(value, var.aval)
    for var, operand in zip(jaxpr.invars, operands):
      env[var] = operand

    def read(atom):
      if type(atom) is Literal:
        return self.constant(atom.val, atom.aval)
      return env[atom]

    for eqn in jaxpr.eqns:
      ins = [read(atom) for atom in eqn.invars]
      name = eqn.primitive.name
      if name == "jit":
        outs = self.inline(eqn.params["jaxpr"], ins)
        for var, out in zip(eqn.outvars, outs):
          env[var] = out
        continue
      if eqn.primitive.multiple_results or len(eqn.outvars) != 1:
        raise _Unsupported
      env[eqn.outvars[0]] = self.equation(eqn, ins)
    return [read(atom) for atom in jaxpr.outvars]

  def equation(self, eqn, ins) -> tuple[str, str | None]:
    primitive, params = eqn.primitive, eqn.params
    name = primitive.name
    if name not in _ELEMENTWISE and name not in _STRUCTURAL:
      raise _Unsupported
    in_avals = [atom.aval for atom in eqn.invars]
    out_aval = eqn.outvars[0].aval
    if any(_kind(a) is None or a.size > _MAX_ELEMENTS for a in (*in_avals, out_aval)) \
        or out_aval.size == 0:
      raise _Unsupported
    if primitive not in eval_interpreter._exact_kernels:
      raise _Unsupported
    when = eval_interpreter._exact_kernels[primitive]
    if when is not None and not when(in_avals, params):
      raise _Unsupported
    impl = primitive.impl
    kernel = getattr(impl, "__wrapped__", impl)
    if kernel is None:
      raise _Unsupported
    # a kernel that is one ufunc call under silenced FP warnings: the ufunc (the whole host
    # function runs with them silenced)
    kernel = getattr(kernel, "ufunc", kernel)
    operand_names = [n for n, _ in ins]
    is_float = _kind(out_aval) == "f"
    if is_float and name in _SUMS and any(n in self.products or n in self.constant_sums
                                          for n in operand_names):
      # XLA would fuse a multiply-add, or fold ``(x + c1) + c2`` into ``x + (c1 + c2)``
      raise _Unsupported
    if is_float and name == "mul" and any(n in self.constant_products for n in operand_names):
      raise _Unsupported  # XLA would fold ``(x * c1) * c2`` into ``x * (c1 * c2)``
    cost = _HOST_EQUATION_COSTS.get(name, _HOST_PER_EQUATION)
    if name == "convert_element_type" and in_avals[0].dtype.kind == "f" \
        and out_aval.dtype.kind in "iu":
      cost = _HOST_FLOAT_TO_INTEGER_COST
    self.cost += cost + _HOST_PER_ELEMENT * out_aval.size
    k = self.name("K")
    self.namespace[k] = functools.partial(kernel, **params) if params else kernel
    result = self.name("t")
    dtype = self.name("D")
    self.namespace[dtype] = out_aval.dtype
    if all(n in self.constants for n in operand_names):
      self.constants.add(result)  # XLA folds it into a constant
    self.lines.append(f"{result} = {k}({', '.join(operand_names)})")
    if not _gives_array_of(kernel, in_avals, out_aval):
      self.lines.append(f"if type({result}) is not ndarray or {result}.dtype is not {dtype}: "
                        f"{result} = asarray({result}, {dtype})")
    if is_float:
      if name in _PRODUCTS or any(n in self.products for n in operand_names):
        self.products.add(result)
      with_constant = any(n in self.constants for n in operand_names)
      passes_on = name in _PASSES_ON_CONSTANTS
      if (name in _SUMS and with_constant) or (
          passes_on and any(n in self.constant_sums for n in operand_names)):
        self.constant_sums.add(result)
      if (name == "mul" and with_constant) or (
          passes_on and any(n in self.constant_products for n in operand_names)):
        self.constant_products.add(result)
    if _kind(out_aval) != "f":
      return result, None
    float_bounds = [b for (_, b), a in zip(ins, in_avals) if _kind(a) == "f"]
    rule = eval_interpreter._RESULT_EXPONENT.get(name)
    if name in _MOVES and float_bounds and None not in float_bounds:
      if len(float_bounds) == 1:
        return result, float_bounds[0]
      bound = self.name("e")
      self.lines.append(f"{bound} = min({', '.join(float_bounds)})")
      return result, bound
    bound = self.name("e")
    limit = eval_interpreter.MIN_NORMAL_EXPONENT[out_aval.dtype]
    inline = _inline_bound(name, float_bounds, out_aval.dtype) if (
        len(float_bounds) == len(ins) and None not in float_bounds) else None
    if inline is not None:
      if inline.lstrip("-").isdigit():  # known when the function is made
        if int(inline) >= limit:
          return result, inline
        self.lines.append(f"{bound} = bound({result})")
      else:
        self.lines.append(f"{bound} = {inline}")
        self.lines.append(f"if {bound} < {limit}: {bound} = bound({result})")
    elif rule is not None and float_bounds and None not in float_bounds and \
        len(float_bounds) == len(ins):
      r, p = self.name("R"), self.name("P")
      self.namespace[r] = rule
      self.namespace[p] = dict(params)
      self.namespace[f"L{bound}"] = eval_interpreter.MIN_NORMAL_EXPONENT[out_aval.dtype]
      self.lines.append(f"{bound} = {r}(({', '.join(float_bounds)},), None, {p}, {dtype})")
      self.lines.append(f"if {bound} is None or {bound} < L{bound}: {bound} = bound({result})")
    else:
      self.lines.append(f"{bound} = bound({result})")
    self.lines.append(f"if {bound} is None: return None")  # a subnormal: XLA flushes it
    return result, bound


def _gives_array_of(kernel, in_avals, out_aval) -> bool:
  """Whether ``kernel`` surely returns an ndarray of ``out_aval``'s dtype: a NumPy ufunc whose
  loop for these operand dtypes has that output dtype, with a result that is not 0-d (a 0-d
  result may come back as a NumPy scalar)."""
  if not isinstance(kernel, np.ufunc) or not out_aval.shape or kernel.nout != 1:
    return False
  try:
    resolved = kernel.resolve_dtypes(tuple(a.dtype for a in in_avals) + (None,))
  except (TypeError, ValueError, AttributeError):
    return False
  return resolved[-1] == out_aval.dtype


def _inline_bound(name: str, bounds: list, dtype) -> str | None:
  """``eval._RESULT_EXPONENT``'s bound for the commonest rules as a Python expression over the
  operands' bound expressions (folded where they are numbers), or None."""
  numbers = [int(b) for b in bounds if b.lstrip("-").isdigit()]
  names = [b for b in bounds if not b.lstrip("-").isdigit()]
  if name == "mul" and len(bounds) == 2:
    if not names:
      return str(numbers[0] + numbers[1] - 1)
    return f"{' + '.join(names)} + {sum(numbers) - 1}"
  if name in ("add", "sub") and len(bounds) == 2:
    shift = eval_interpreter._PRECISION[dtype] - 1
    if not names:
      return str(min(numbers) - shift)
    terms = names + ([str(min(numbers))] if numbers else [])
    return f"min({', '.join(terms)}) - {shift}"
  return None


def _remember(seen: dict, key, value) -> tuple:
  """``(value, exponent bound or None)`` of a converted argument value (read-only from here
  on), remembered in ``seen`` (a host function's values of one argument) under ``key``."""
  value.flags.writeable = False
  bound = None
  if value.dtype.kind == "f":
    bound = eval_interpreter._min_exponent(value)
    if bound < eval_interpreter.MIN_NORMAL_EXPONENT[value.dtype]:
      bound = None  # subnormal: the compiled program answers
  if len(seen) >= 64:
    seen.clear()
  seen[key] = entry = (value, bound)
  return entry


def _convert_scalar(seen: dict, scalar, dtype, key) -> tuple:
  """A Python scalar argument converted to ``dtype`` as the compiled call converts it (the
  same values and errors); see ``_remember``."""
  return _remember(seen, key, dtypes.scalar_to_array(scalar, dtype))


def _convert_small_array(seen: dict, array, dtype, key: bytes) -> tuple:
  """A small NumPy argument (``key`` its bytes) as a copy of ``dtype``; see ``_remember``."""
  return _remember(seen, key, np.asarray(array).astype(dtype, copy=True))


# NumPy arguments of at most this many bytes are remembered by their contents (a scan for
# subnormals costs more than reading the bytes).
_SMALL_NUMPY_BYTES = 64


# Kinds of argument leaves a host function takes.
ARRAY, SCALAR, NUMPY = "array", "scalar", "numpy"


def host_function(closed, leaf_kinds):
  """``(*leaves) -> list of Arrays, or None`` running ``closed`` (a jitted signature's
  program) on the host with XLA's bits, or None where the program does not qualify (see the
  module docstring). ``leaf_kinds`` says what each argument is: an Array (``ARRAY``), a Python
  scalar (``SCALAR``) or a NumPy array or scalar (``NUMPY``, copied: the caller may change it).
  The function answers None, having done nothing observable, for a call it cannot answer
  exactly (an argument on the device or holding a subnormal, a subnormal result): the
  compiled program runs then."""
  jaxpr = closed.jaxpr
  if len(jaxpr.invars) != len(leaf_kinds) or jaxpr.effects:
    return None
  program = _Program()
  lines = program.lines
  namespace = program.namespace
  namespace["convert_scalar"] = _convert_scalar
  namespace["convert_small_array"] = _convert_small_array
  namespace["min_exponent"] = eval_interpreter._min_exponent
  operands = []
  for i, (var, leaf_kind) in enumerate(zip(jaxpr.invars, leaf_kinds)):
    kind = _kind(var.aval)
    if kind is None or var.aval.size > _MAX_ELEMENTS or var.aval.size == 0:
      return None
    namespace[f"A{i}"] = var.aval.dtype
    # (key of a value remembered converted, converter) for Python scalars, converted as the
    # compiled call converts them (the same values and errors; floats keyed by their bits,
    # 0.0 == -0.0), and small NumPy arrays, keyed by their bytes (the call plan has checked
    # their type, shape and dtype)
    remembered = None
    if leaf_kind == SCALAR:
      remembered = (f"l{i}.hex() if type(l{i}) is float else l{i}", "convert_scalar")
    elif leaf_kind == NUMPY and var.aval.size * var.aval.dtype.itemsize <= _SMALL_NUMPY_BYTES:
      remembered = (f"l{i}.tobytes()", "convert_small_array")
    if remembered is not None:
      key, converter = remembered
      namespace[f"S{i}"] = {}  # the values seen
      lines.append(f"q{i} = {key}\n  s{i} = S{i}.get(q{i})")
      lines.append(f"if s{i} is None: s{i} = {converter}(S{i}, l{i}, A{i}, q{i})")
      lines.append(f"v{i} = s{i}[0]")
      if kind == "f":
        lines.append(f"b{i} = s{i}[1]\n  if b{i} is None: return None")
        operands.append((f"v{i}", f"b{i}"))
      else:
        operands.append((f"v{i}", None))
      continue
    if leaf_kind == ARRAY:
      lines.append(f"v{i} = l{i}._value")
      lines.append(f"if v{i} is None: return None")  # on the device
    elif leaf_kind == NUMPY:
      lines.append(f"v{i} = asarray(l{i})\n  v{i} = v{i}.astype(A{i}, copy=True)")
    else:
      return None
    if kind == "f":
      if leaf_kind == ARRAY:  # its exponent bound may be remembered
        lines.append(f"k{i} = checked.get(id(v{i}))")
        lines.append(f"if k{i} is not None and k{i}[0]() is v{i}: b{i} = k{i}[1]")
        lines.append(f"else:\n    b{i} = bound(v{i})\n    if b{i} is None: return None")
      else:
        limit = eval_interpreter.MIN_NORMAL_EXPONENT[var.aval.dtype]
        lines.append(f"b{i} = min_exponent(v{i})\n  if b{i} < {limit}: return None")
      operands.append((f"v{i}", f"b{i}"))
    else:
      operands.append((f"v{i}", None))
  leaf_lines = len(lines)
  try:
    outs = program.inline(closed, operands)
  except (_Unsupported, KeyError, TypeError, ValueError, OverflowError):
    return None
  leaves = len(leaf_kinds)
  if program.cost + _HOST_PER_LEAF * leaves > _XLA_PER_CALL + _XLA_PER_LEAF * (leaves + len(outs)):
    return None  # the compiled program is faster
  results = []
  namespace["new"] = object.__new__
  for j, ((name, _), aval) in enumerate(zip(outs, jaxpr.out_avals)):
    if _kind(aval) is None:
      return None
    namespace[f"O{j}"] = aval
    # (Array(value, False, aval), without the call)
    lines.append(f"r{j} = new(Array)\n  r{j}._value = {name}\n  r{j}._aval = O{j}\n"
                 f"  r{j}._buffer = None")
    results.append(f"r{j}")
  arguments = "".join(f"l{i}, " for i in range(len(leaf_kinds)))
  body = lines[:leaf_lines] + ["token = error_state.set(IGNORE)", "try:"] + [
      f"  {line}".replace("\n", "\n  ") for line in lines[leaf_lines:]] + [
      "  pass", "finally:", "  error_state.reset(token)", f"return [{', '.join(results)}]"]
  if eval_interpreter.numpy_error_state is None:  # pragma: no cover (an older NumPy)
    body = lines + [f"return [{', '.join(results)}]"]
  program.namespace["error_state"] = eval_interpreter.numpy_error_state
  program.namespace["IGNORE"] = eval_interpreter.IGNORE_ALL_ERRORS
  source = f"def host({arguments}):\n" + "".join(f"  {line}\n" for line in body)
  exec(compile(source, f"{__file__}:<host call>", "exec"), program.namespace)
  return program.namespace["host"]


# Probe values per kind: special values first (each argument sees them in another order, so
# that pairs of operands meet in many combinations), then ordinary ones.
# (none tiny: a product of a few of them with a program's constants must stay normal, or the
# host function declines the probe)
_FLOAT_PROBES = (0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e30, -1e30,
                 1e-5, -7.25, 0.1, 65504.0, 3e38, -3e38, 2.0, -0.75, 1.5, 1e10, -1e-3, 4.0)
_INTEGER_PROBES = (0, 1, -1, 2, -7, 100, 12345, -128, 127, 255, 3, -3)


def _probe_values(aval, shift: int, plain: bool):
  """Probe values of ``aval``: the probes of its kind from the ``shift``-th on, repeated."""
  dtype = aval.dtype
  if dtype.kind == "b":
    base = np.array([True, False, False, True, True], dtype)
  elif dtype.kind in "iu":
    info = np.iinfo(dtype)
    base = np.array([v for v in _INTEGER_PROBES if info.min <= v <= info.max]
                    + [info.min, info.max], dtype)
  elif plain:
    base = np.random.default_rng(shift).uniform(-4.0, 4.0, 29).astype(dtype)
  else:
    with np.errstate(over="ignore"):
      base = np.array(_FLOAT_PROBES, dtype)
  base = np.roll(base, -shift)
  return np.resize(base, aval.shape).astype(dtype)


def agrees_with_xla(host, run_compiled, in_avals, leaf_kinds) -> bool:
  """Whether ``host`` answers as the compiled program ``run_compiled(leaves) -> Arrays`` does,
  bit for bit, on probe arguments of ``in_avals`` (of ``leaf_kinds``): special values, which
  it must answer (in as many rounds as it takes the smallest argument to see each of them),
  then ordinary ones."""
  smallest = min(aval.size for aval in in_avals)
  rounds = min(len(_FLOAT_PROBES), -(-len(_FLOAT_PROBES) // smallest))
  for round_ in range(rounds + 1):
    plain = round_ == rounds
    leaves = []
    for i, (aval, kind) in enumerate(zip(in_avals, leaf_kinds)):
      value = _probe_values(aval, i * 5 + round_ * smallest, plain)
      if kind == ARRAY:
        leaves.append(Array(value, False, aval))
      elif kind == SCALAR:
        leaves.append(value.item())
      else:
        leaves.append(value)
    mine = host(*leaves)
    if mine is None:
      if plain:
        continue
      return False  # the special values are not verified: the program keeps running on XLA
    theirs = run_compiled(leaves)
    for a, b in zip(mine, theirs):
      a, b = np.asarray(a), np.asarray(b)
      if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
        return False
  return True
