"""Eager evaluation: the EvalTrace runs each primitive right away.

``EvalTrace.process_primitive`` takes the operands' abstract values, runs the
primitive's shape rule (cached per input signature, so bad input raises the same
error as under jit) and then follows the primitive's *eager policy*:

- JAX runs every eager op as a compiled XLA program, so its eager numbers are
  XLA's. A primitive whose NumPy kernel gives XLA's bits registers that kernel as
  exact (``exact_kernels``, optionally only for some operand dtypes, and guarded
  against subnormal operands and results, which XLA's CPU runtime flushes to
  zero); it runs on NumPy values.
- Every other primitive with a lowering runs as a cached single-primitive XLA
  executable (``xla_runner``, set by ``xla/execution.py``): one put per host
  operand, execute, and device-backed results read only when needed.
- Higher-order and effectful primitives (control flow, jit, custom derivatives,
  callbacks, collectives, the PRNG) keep their own eager rule (``impl_policy``).

``config.update("axle_fast_eager", True)`` (or ``AXLE_FAST_EAGER=1``) runs every
NumPy kernel instead (faster on small arrays; transcendentals computed in float64
and rounded, which may differ from JAX's last bits).
"""
from __future__ import annotations

import math
import weakref
from typing import Callable

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src import ir
from axle._src import traceback_util
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import ShapedArray, Tracer

_python_scalar_types = core.python_scalar_types

try:  # NumPy 2 keeps its floating-point error state in a context variable
  from numpy._core._ufunc_config import _extobj_contextvar as numpy_error_state, _make_extobj
  # ``token = numpy_error_state.set(IGNORE_ALL_ERRORS)`` ... ``numpy_error_state.reset(token)``:
  # np.errstate(all="ignore") for kernels, at a fraction of its cost.
  IGNORE_ALL_ERRORS = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # pragma: no cover
  numpy_error_state = IGNORE_ALL_ERRORS = None

# (primitive, *input avals, *params items) -> output aval(s)
_abstract_eval_cache: dict = {}

# Set by axle._src.xla.execution: a function(primitive, values, avals, params) running the
# primitive as a cached single-primitive XLA executable.
fallback_impl = None

# Set by axle._src.xla.execution: ``xla_runner(primitive, avals, params, out_avals)`` returns
# ``run(operands) -> list of Arrays`` for one cached single-primitive executable; the operands
# are Arrays (their device buffers are used as they are) or canonical NumPy values.
xla_runner = None

# Set by the lowering module: whether a primitive has a lowering rule (can run on XLA).
has_lowering: Callable = lambda primitive: False


# ---------------------------------------------------------------------------
# The eager policy

class _EagerMode:
  """Whether eager kernels must give XLA's bits (the default) or may be NumPy's
  float64-rounded answers (``axle_fast_eager``)."""
  __slots__ = ("exact",)

  def __init__(self):
    self.exact = not config.read("axle_fast_eager")


eager_mode = _EagerMode()

# primitive -> None (the NumPy kernel is exact for every operand) or predicate(avals, params)
# saying whether it is exact for these operands.
_exact_kernels: dict = {}
# Primitives whose eager rule is their impl in every mode (it is not a kernel on values).
_impl_primitives: set = set()
# The same, by name, for the primitives defined above lax (calls, control flow, custom
# derivatives, callbacks, collectives, the PRNG's integer kernels): each impl runs a program,
# calls back into Python or computes integers.
_IMPL_NAMES = frozenset({
    "jit", "cond", "while", "scan", "custom_jvp_call", "custom_vjp_call", "custom_lin",
    "remat2", "name", "shard_map", "sharding_constraint", "stop_gradient", "add_any", "check",
    "debug_callback", "debug_print", "io_callback", "pure_callback",
    "all_gather", "all_to_all", "axis_index", "pmax", "pmin", "psum", "ppermute",
    "reduce_scatter", "pvary", "random_bits", "random_fold_in", "random_seed", "random_split",
    "random_wrap", "random_unwrap", "threefry2x32", "lu_pivots_to_permutation",
})
# (primitive, *avals, *params) -> (out_aval(s), run) with run None for the NumPy kernel.
_dispatch_cache: dict = {}
# The memos of the eager policy's decisions (this cache, and the eager fast paths' own, which
# register here): emptied together whenever the policy changes.
_policy_memos: list = [_dispatch_cache]


def policy_memo() -> dict:
  """A new dict for memoising eager dispatch decisions, emptied whenever the policy changes."""
  memo = {}
  _policy_memos.append(memo)
  return memo


def _policy_changed() -> None:
  for memo in _policy_memos:
    memo.clear()


def _mode_changed(name, value):
  if name == "axle_fast_eager":
    eager_mode.exact = not value
    _policy_changed()


config.add_listener(_mode_changed)

_F32 = np.dtype(np.float32)
# dtype -> the smallest exponent ``np.frexp`` gives a normal number, for the dtypes whose
# subnormals XLA's CPU runtime flushes to zero (denormals-are-zero and flush-to-zero are set
# while it runs). float16 is computed in float32, where its subnormals are normal numbers.
_MIN_FREXP_EXPONENT = {np.dtype(np.float32): -125, np.dtype(np.complex64): -125,
                       np.dtype(np.float64): -1021, np.dtype(np.complex128): -1021,
                       np.dtype(dtypes.bfloat16): -125}
_frexp = np.frexp
_min = np.minimum.reduce

# id(value) -> (weak reference, lower bound of its frexp exponents) for kernel results known to
# hold no subnormal (the next kernel reading them need not scan them again, and can bound its
# own result from the bound). NumPy values of Arrays are never mutated.
_checked: dict = {}
_weakref = weakref.ref


def _mark_checked(value, exponent: int) -> None:
  try:
    ref = _weakref(value)
  except TypeError:  # NumPy scalars
    return
  if len(_checked) > 4096:
    _checked.clear()
  _checked[id(value)] = (ref, exponent)


def _min_exponent(value) -> int:
  """The smallest ``np.frexp`` exponent in a real float NumPy value (zeros, infinities and NaN
  count as 0): every nonzero element has magnitude at least ``2 ** (exponent - 1)``."""
  if type(value) is not np.ndarray or not value.shape:  # one number
    return math.frexp(float(value))[1]
  if value.dtype is _BF16:
    value = value.astype(_F32)
  return int(_min(_frexp(value)[1], axis=None))


def exponent_bound(value) -> int | None:
  """A lower bound of the ``np.frexp`` exponents of a real float NumPy ``value`` that holds no
  subnormal (remembered for kernel results, scanned and remembered otherwise); None when it
  holds one (XLA would read it as zero). For eager shortcuts that must stay out of the
  subnormal range."""
  entry = _checked.get(id(value))
  if entry is not None and entry[0]() is value:
    return entry[1]
  exponent = _min_exponent(value)
  if exponent < _MIN_FREXP_EXPONENT[value.dtype]:
    return None
  _mark_checked(value, exponent)
  return exponent


def remember_exponent_bound(value, exponent: int) -> None:
  """Records that the NumPy ``value`` (an eager shortcut's result) has no ``np.frexp`` exponent
  below ``exponent``, which must be above the subnormal range of its dtype."""
  if exponent >= _MIN_FREXP_EXPONENT[value.dtype]:
    _mark_checked(value, exponent)


def has_subnormal(value) -> bool:
  """Whether a NumPy value holds a subnormal float (which XLA's CPU runtime reads and writes
  as zero)."""
  dtype = getattr(value, "dtype", None)
  bound = _MIN_FREXP_EXPONENT.get(dtype)
  if bound is None or value.size == 0:
    return False
  if dtype.kind == "c":
    value = np.asarray(value)
    return has_subnormal(value.real) or has_subnormal(value.imag)
  return _min_exponent(value) < bound


_vdot = np.vdot


def has_nan(value: np.ndarray) -> bool:
  """Whether a real float32/float64 NumPy array holds a NaN: its sum of squares (one BLAS call,
  cheaper on small arrays than a comparison and a reduction) is NaN only then."""
  total = _vdot(value, value)
  return total != total


_BF16 = np.dtype(dtypes.bfloat16)
_TINY = {dtype: float(np.ldexp(1.0, bound - 1)) for dtype, bound in _MIN_FREXP_EXPONENT.items()}
# For eager shortcuts outside this module: dtype -> the smallest normal magnitude, and -> the
# smallest frexp exponent of a normal number, for the dtypes whose subnormals XLA flushes.
SMALLEST_NORMAL = _TINY
MIN_NORMAL_EXPONENT = _MIN_FREXP_EXPONENT


def _scalar_is_subnormal(scalar, dtype) -> bool:
  """Whether a Python scalar operand, converted to ``dtype``, is subnormal."""
  if dtype.kind == "c":
    scalar = complex(scalar)
    return (_scalar_is_subnormal(scalar.real, _F32 if dtype.itemsize == 8 else np.dtype(np.float64))
            or _scalar_is_subnormal(scalar.imag, _F32 if dtype.itemsize == 8 else np.dtype(np.float64)))
  value = abs(float(dtype.type(scalar)))
  return 0.0 < value < _TINY[dtype]


# Primitives whose result can be subnormal when no operand is (the others return operands,
# integers, booleans or values far from the subnormal range): their results are checked too.
_CREATES_SUBNORMALS = frozenset({"add", "sub", "mul", "div", "rem", "nextafter", "integer_pow",
                                 "square", "convert_element_type", "reduce_precision"})

# Significand bits of the real dtypes whose subnormals XLA flushes.
_PRECISION = {np.dtype(np.float32): 24, np.dtype(np.float64): 53, _BF16: 8}


def _div_exponent(exponents, args, params, dtype):
  divisor = args[1]
  if type(divisor) not in _python_scalar_types or type(divisor) is complex:
    return None
  if abs(divisor) <= 1:
    return exponents[0]
  # x * fl(1 / c) (XLA's division by a scalar): |c| < 2 ** ec gives |fl(1 / c)| >= 2 ** -ec,
  # a normal number while ec <= 1 - (the smallest normal exponent)
  divisor_exponent = exponents[1]
  limit = _MIN_FREXP_EXPONENT.get(dtype)
  if limit is None or divisor_exponent > 1 - limit:
    return None
  return exponents[0] - divisor_exponent


# primitive name -> rule(exponents, args, params, dtype): a lower bound of the frexp exponents of
# the result of real operands whose exponents are bounded below by ``exponents`` (operand
# order, Python scalars included), or None. A nonzero element ``v`` has ``|v| >= 2**(e - 1)``:
# - mul: ``|x y| >= 2 ** (ex - 1 + ey - 1)``; square and integer_pow ``n >= 1`` likewise;
# - add/sub: the exact sum of nonzero terms is a multiple of the smaller quantum,
#   ``2 ** (min(ex, ey) - precision)``, and rounding keeps a power of two;
# - div by a Python scalar ``|c| <= 1``: ``|x / c| >= |x|``;
# - abs and clamp return operands, sqrt halves the exponent, floor/ceil/round/sign give
#   integers or zeros.
_RESULT_EXPONENT = {
    "mul": lambda e, args, params, dtype: e[0] + e[1] - 1,
    "add": lambda e, args, params, dtype: min(e) - _PRECISION[dtype] + 1,
    "sub": lambda e, args, params, dtype: min(e) - _PRECISION[dtype] + 1,
    "div": _div_exponent,
    "square": lambda e, args, params, dtype: 2 * e[0] - 1,
    "integer_pow": lambda e, args, params, dtype: (
        params["y"] * (e[0] - 1) + 1 if params["y"] >= 1 else None),
    "abs": lambda e, args, params, dtype: e[0],
    "clamp": lambda e, args, params, dtype: min(e),
    "sqrt": lambda e, args, params, dtype: (e[0] - 1) // 2 + 1,
    "floor": lambda e, args, params, dtype: 1,
    "ceil": lambda e, args, params, dtype: 1,
    "round": lambda e, args, params, dtype: 1,
    "sign": lambda e, args, params, dtype: 1,
    # (XLA's tanh returns x itself below |x| < 0.0004, whose exponent is -11; more above)
    "tanh": lambda e, args, params, dtype: min(e[0], -11),
    # float32 sinf, cosf and tanf (what XLA calls): a result whose exponent is below the
    # operand's has an exponent of at least -28, -29 and -28 (measured on every float32 input)
    "sin": lambda e, args, params, dtype: min(e[0], -28) if dtype == _F32 else None,
    "cos": lambda e, args, params, dtype: min(e[0], -29) if dtype == _F32 else None,
    "tan": lambda e, args, params, dtype: min(e[0], -28) if dtype == _F32 else None,
}


def _guard_subnormals(primitive: core.Primitive, kernel: Callable, complex_on_xla: bool
                      ) -> Callable:
  """``kernel``, answered by XLA when an operand or the result holds a subnormal float
  (XLA flushes them: ``1e-39 * 2 == 0`` and ``1e-39 > 0`` is False there) in exact mode, and
  for complex operands when ``complex_on_xla`` (callers such as the operators' fast paths call
  the kernel directly). Results are scanned only where the operands' exponent bounds do not
  already keep them out of the subnormal range (``_RESULT_EXPONENT``)."""
  flushed = _MIN_FREXP_EXPONENT
  scalars = _python_scalar_types
  checked = _checked
  mark = _mark_checked
  mode = eager_mode
  check_results = primitive.name in _CREATES_SUBNORMALS or primitive.multiple_results
  multiple = primitive.multiple_results
  name = primitive.name
  tiny = _TINY
  min_exponent = _min_exponent
  frexp = math.frexp
  result_exponent = _RESULT_EXPONENT.get(name)
  ndarray = np.ndarray

  def checked_result(out, exponent, bound, args, params):
    """A real float kernel result: marked with ``exponent`` (its bound from the operands') when
    that keeps it out of the subnormal range, else scanned where the primitive can create
    subnormals (answered by XLA if it holds one)."""
    if exponent is not None and exponent >= bound:
      mark(out, exponent)
      return out
    if not check_results or not out.size:
      return out
    exponent = min_exponent(out)
    if exponent < bound:
      return run_on_xla(primitive, args, params)
    mark(out, exponent)
    return out

  def impl(*args, **params):
    if not mode.exact:
      return kernel(*args, **params)
    if len(args) == 2:
      # The commonest call, x + y of two real float arrays whose exponent bounds are known:
      # the general loop below, unrolled.
      a, b = args
      if type(a) is ndarray and type(b) is ndarray:
        known_a = checked.get(id(a))
        known_b = checked.get(id(b))
        if known_a is not None and known_b is not None and known_a[0]() is a \
            and known_b[0]() is b:
          out = kernel(a, b, **params)
          dtype = out.dtype
          bound = flushed.get(dtype)
          if bound is None:  # (a comparison)
            return out
          if dtype.kind == "f" and a.dtype is dtype:
            exponent = None if result_exponent is None else \
                result_exponent((known_a[1], known_b[1]), args, params, dtype)
            return checked_result(out, exponent, bound, args, params)
      elif type(a) is ndarray and (type(b) is float or type(b) is int) and not params:
        # x < 0.5: an array whose bound is known and a Python number that is not subnormal
        known_a = checked.get(id(a))
        if known_a is not None and known_a[0]() is a and (b == 0 or abs(b) >= tiny[a.dtype]):
          out = kernel(a, b)
          dtype = out.dtype
          bound = flushed.get(dtype)
          if bound is None:  # (a comparison)
            return out
          if dtype.kind == "f" and a.dtype is dtype:
            try:
              scalar_exponent = frexp(b)[1]
            except OverflowError:  # an int beyond float64
              scalar_exponent = None
            exponent = None if result_exponent is None or scalar_exponent is None else \
                result_exponent((known_a[1], scalar_exponent), args, params, dtype)
            return checked_result(out, exponent, bound, args, params)
    floats = False
    exponents = []  # a bound for each real float operand; None once one is unknown (complex)
    for a in args:
      if type(a) in scalars or not hasattr(a, "dtype"):
        if type(a) in scalars:  # an operator's fast path: the scalar means the array's dtype
          for b in args:
            dtype = getattr(b, "dtype", None)
            if dtype is not None:
              break
          if dtype in flushed:
            if type(a) is complex or dtype.kind == "c":
              if _scalar_is_subnormal(a, dtype):
                return run_on_xla(primitive, args, params)
              exponents = None
            else:
              if not (a == 0 or abs(a) >= tiny[dtype]) and _scalar_is_subnormal(a, dtype):
                return run_on_xla(primitive, args, params)
              if exponents is not None:
                try:
                  exponents.append(frexp(a)[1])
                except OverflowError:  # an int beyond float64
                  exponents = None
        continue
      dtype = a.dtype
      bound = flushed.get(dtype)
      if bound is not None:
        floats = True
        if dtype.kind == "c":
          if complex_on_xla or has_subnormal(a):
            return run_on_xla(primitive, args, params)
          exponents = None
          continue
        entry = checked.get(id(a))
        if entry is not None and entry[0]() is a:
          exponent = entry[1]
        else:
          if a.size == 0:
            exponents = None
            continue
          exponent = min_exponent(a)
          if exponent < bound:
            return run_on_xla(primitive, args, params)
          mark(a, exponent)
        if exponents is not None:
          exponents.append(exponent)
    out = kernel(*args, **params)
    if not (floats or multiple):
      return out
    if not multiple:
      out_dtype = getattr(out, "dtype", None)
      bound = flushed.get(out_dtype)
      if bound is None:
        return out
      if exponents and result_exponent is not None and out_dtype.kind != "c":
        known = result_exponent(exponents, args, params, out_dtype)
        if known is not None and known >= bound:
          mark(out, known)
          return out
      if not check_results:
        return out
    for o in (out if multiple else (out,)):
      dtype = getattr(o, "dtype", None)
      bound = flushed.get(dtype)
      if bound is not None and o.size:
        if dtype.kind == "c":
          if has_subnormal(o):
            return run_on_xla(primitive, args, params)
          continue
        exponent = min_exponent(o)
        if exponent < bound:
          return run_on_xla(primitive, args, params)
        mark(o, exponent)
    return out

  impl.__name__ = getattr(kernel, "__name__", "impl")
  impl.__module__ = getattr(kernel, "__module__", __name__)
  impl.__wrapped__ = kernel
  return impl


def exact_kernels(*primitives: core.Primitive, when: Callable | None = None,
                  subnormals: bool = False, max_size: int | None = None,
                  narrow_max_size: int | None = None) -> None:
  """Registers the NumPy kernels of ``primitives`` as giving XLA's bits, for the operands
  where ``when(avals, params)`` holds (every operand when None). ``subnormals``: the kernel
  does float arithmetic or comparisons, so operands or results holding subnormal floats are
  answered by XLA instead (which flushes them to zero). ``max_size``: operands of more
  elements than this run on XLA, which is faster there (NumPy's kernel for the op is slow on
  large arrays: a scalar or branching loop); ``narrow_max_size`` the same for float16 and
  bfloat16 operands only (NumPy computes those element by element)."""
  complex_on_xla = when is no_complex
  if max_size is not None:
    when = _at_most(max_size, when)
  if narrow_max_size is not None:
    when = _at_most(narrow_max_size, when, NARROW_FLOATS)
  for primitive in primitives:
    if primitive.impl is None:
      raise ValueError(f"{primitive.name} has no eager kernel to register as exact")
    if subnormals and getattr(primitive.impl, "__wrapped__", None) is None:
      primitive.impl = _guard_subnormals(primitive, primitive.impl, complex_on_xla)
    _exact_kernels[primitive] = when
  _policy_changed()


def _at_most(max_size: int, when: Callable | None, of_dtypes=None) -> Callable:
  """``when``, and no operand (of ``of_dtypes`` when given) of more than ``max_size``
  elements."""
  def predicate(avals, params) -> bool:
    for aval in avals:
      if aval.size > max_size and (of_dtypes is None or aval.dtype in of_dtypes):
        return False
    return when is None or bool(when(avals, params))
  return predicate


# Elementwise kernels run on the host up to this many elements per operand; larger operands
# run on XLA. There NumPy's loops are no faster than XLA's, and a computation that mixes ops
# running on the host with ops XLA must run (or runs faster) copies each host result into a
# device buffer (NumPy's memory is not aligned for XLA to use in place): with every op on XLA
# the values stay on the device. Measured on float32 chains, host operands vs device operands:
# (x + y) / (y * y + 1) 184 us vs 92 at 100,000 elements, 1364 vs 782 at 2**20; 47 vs 34 at
# 16,384; x * y + 1 9.5 vs 17 at 16,384.
HOST_KERNEL_LIMIT = 65536

# float16/bfloat16 arithmetic and comparisons: NumPy's loops (ml_dtypes' for bfloat16) convert
# each element; XLA's vectorised ones win from about a thousand elements (float16 x + y:
# 40 us vs 11 at 4,096 elements, 556 vs 30 at 65,536; bfloat16 x * y 40 vs 15 at 16,384).
NARROW_HOST_LIMIT = 1024


def impl_policy(*primitives: core.Primitive) -> None:
  """Registers primitives whose eager rule is always their impl (control flow, calls,
  callbacks, collectives: rules that are not kernels on values)."""
  _impl_primitives.update(primitives)
  _policy_changed()


def runs_kernel(primitive: core.Primitive, avals, params) -> bool:
  """Whether eager evaluation of ``primitive`` on ``avals`` runs its impl (True) or a
  single-primitive XLA executable (False)."""
  if primitive.impl is None:
    return False
  if not eager_mode.exact or primitive in _impl_primitives:
    return True
  if primitive.name in _IMPL_NAMES:
    fields = _COMPILED_CONTROL_FLOW.get(primitive.name)
    # JAX compiles an eager loop or cond as one program (XLA may fuse its body's arithmetic);
    # one whose body calls back into Python keeps the interpreted rule.
    return fields is None or _calls_back(params, fields)
  if primitive in _exact_kernels:
    when = _exact_kernels[primitive]
    return when is None or bool(when(avals, params))
  # Not known to be exact: XLA when it can (new primitives default to JAX's bits).
  return not has_lowering(primitive) or xla_runner is None


# Control-flow primitives that run eagerly as one XLA program (as in JAX) unless their jaxprs
# (the params named here) have effects.
_COMPILED_CONTROL_FLOW = {"cond": ("branches",), "while": ("cond_jaxpr", "body_jaxpr"),
                          "scan": ("jaxpr",)}


_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})
_calls_back_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _jaxpr_calls_back(jaxpr) -> bool:
  """Whether ``jaxpr`` (or one inside it) has effects or calls back into Python (a
  pure_callback has no effect but must run in Python)."""
  try:
    return _calls_back_cache[jaxpr]
  except (KeyError, TypeError):
    pass
  found = bool(getattr(jaxpr, "effects", None)) or any(
      eqn.primitive.name in _CALLBACKS
      or any(_jaxpr_calls_back(getattr(sub, "jaxpr", sub))
             for sub in ir._subjaxprs_of_params(eqn.params))
      for eqn in getattr(jaxpr, "eqns", ()))
  try:
    _calls_back_cache[jaxpr] = found
  except TypeError:
    pass
  return found


def _calls_back(params, fields) -> bool:
  for field in fields:
    value = params.get(field)
    for closed in value if isinstance(value, (tuple, list)) else (value,):
      if _jaxpr_calls_back(getattr(closed, "jaxpr", closed)):
        return True
  return False


# Dtype predicates for ``exact_kernels(when=...)``.
def no_complex(avals, params) -> bool:
  """No operand is complex."""
  for aval in avals:
    if aval.dtype.kind == "c":
      return False
  return True


# float16 and bfloat16: XLA computes them in float32 (eager shortcuts outside this module too)
NARROW_FLOATS = frozenset({np.dtype(np.float16), np.dtype(dtypes.bfloat16)})


def no_complex_or_narrow(avals, params) -> bool:
  """No operand is complex, float16 or bfloat16 (XLA computes those in float32 and its NaN
  results may carry another sign than NumPy's)."""
  for aval in avals:
    if aval.dtype.kind == "c" or aval.dtype in NARROW_FLOATS:
      return False
  return True


def integral(avals, params) -> bool:
  """Every operand is an integer or bool (float and complex arithmetic run on XLA)."""
  for aval in avals:
    if aval.dtype.kind not in "biu":
      return False
  return True


def first_operand(predicate: Callable) -> Callable:
  """``predicate`` applied to the first operand only."""
  return lambda avals, params: predicate(avals[:1], params)

# How many ``ensure_compile_time_eval`` blocks are open (a one-element list, set by the api).
compile_time_eval_depth = [0]


def _to_value(x):
  """The NumPy value and abstract value of an eager operand."""
  if type(x) is Array:
    return x._value if x._value is not None else x._host_value(), x.aval
  if type(x) in _python_scalar_types:
    value = dtypes.scalar_to_array(x)
    return value, ShapedArray((), value.dtype, type(x) is not bool)
  if isinstance(x, (np.ndarray, np.generic)):
    # Copy: kernels may return views of their inputs, and the caller may mutate its array.
    target = dtypes.canonicalize_dtype(x.dtype)
    x = x.astype(target) if isinstance(x, np.ndarray) else np.asarray(x, target)
    return x, ShapedArray(x.shape, target, False)
  if isinstance(x, Array):  # a subclass
    return x._host_value(), x.aval
  if isinstance(x, Tracer):
    raise errors.UnexpectedTracerError(_leaked_tracer_message(x))
  if hasattr(x, "__jax_array__"):
    return _to_value(x.__jax_array__())
  raise TypeError(f"Value {x!r} with type {type(x)} is not a valid JAX type")


def _leaked_tracer_message(tracer) -> str:
  describe = getattr(tracer, "_leak_description", None)
  details = describe() if describe is not None else ""
  return ("Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
          f"allowing for a reference to an intermediate value with type {tracer.aval.str_short(False)} "
          f"wrapped in a {tracer._public_type_name} to escape the scope of the transformation.\n"
          "JAX transformations require that functions explicitly return their outputs, and disallow "
          f"saving intermediate values to global state.{details}\n"
          "To catch the leak earlier, try setting the environment variable JAX_CHECK_TRACER_LEAKS or "
          "using the `jax.checking_leaks` context manager.")


def _shape_rule(primitive: core.Primitive):
  rule = primitive.abstract_eval
  if rule is None:
    raise NotImplementedError(f"Abstract evaluation for '{primitive.name}' not implemented")
  return rule


def _call_array_impl(primitive: core.Primitive, values, avals, params):
  """Runs an impl defined outside axle on Arrays (it may return Arrays or NumPy values)."""
  outs = primitive.impl(*[Array(v, aval=a) for v, a in zip(values, avals)], **params)
  return outs


def _eval_without_shape_rule(primitive: core.Primitive, values, params, avals=None):
  """Eager evaluation of a (user-defined) primitive that has an impl but no abstract eval
  yet: the output avals are those of what the impl returns, as in JAX."""
  if primitive.impl is None:
    raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")
  if primitive.impl_takes_arrays and avals is not None:
    out = _call_array_impl(primitive, values, avals, params)
  else:
    out = primitive.impl(*values, **params)
  outs = out if primitive.multiple_results else [out]
  wrapped = []
  for o in outs:
    if isinstance(o, Array) or core.is_extended(getattr(o, "aval", None)):
      wrapped.append(o)
      continue
    value = np.asarray(o)
    value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)
    wrapped.append(Array(value, False, ShapedArray(value.shape, value.dtype)))
  return wrapped if primitive.multiple_results else wrapped[0]


def abstract_eval(primitive: core.Primitive, avals, params):
  """The primitive's output aval(s) for ``avals``, memoised per signature."""
  if not primitive.memoise_abstract_eval:
    return _shape_rule(primitive)(*avals, **params)
  if params:
    key = (primitive, *avals, *params.items())
  else:
    key = (primitive, *avals)
  try:
    return _abstract_eval_cache[key]
  except KeyError:
    pass
  except TypeError:  # unhashable params
    return _shape_rule(primitive)(*avals, **params)
  out = _shape_rule(primitive)(*avals, **params)
  if len(_abstract_eval_cache) > 20000:
    _abstract_eval_cache.clear()
  _abstract_eval_cache[key] = out
  return out


def wrap_kernel_output(value, aval: ShapedArray) -> Array:
  """A kernel's output as an Array of ``aval`` (cast if the kernel returned another dtype)."""
  if type(value) is not np.ndarray and not isinstance(value, np.generic):
    value = np.asarray(value)
  if value.dtype is not aval.dtype and value.dtype != aval.dtype:
    value = value.astype(aval.dtype)
  return Array(value, False, aval)


class _SpecialValueChecks:
  """Whether eager results are checked for NaN (``jax_debug_nans``) and infinities
  (``jax_debug_infs``); fast eager paths test ``enabled`` and step aside when it is set."""
  __slots__ = ("nans", "infs", "enabled")

  def __init__(self):
    self.refresh()

  def refresh(self, *_):
    self.nans = bool(config.read("jax_debug_nans"))
    self.infs = bool(config.read("jax_debug_infs"))
    self.enabled = self.nans or self.infs


special_checks = _SpecialValueChecks()
config.add_listener(special_checks.refresh)

DEOPTIMIZED_MESSAGE = ("Invalid nan value encountered in the output of a jax.jit function. "
                       "Calling the de-optimized version.")


def special_value_kind(values) -> str | None:
  """``"nan"`` or ``"inf"`` when one of ``values`` (NumPy values or Arrays) holds a value the
  debug flags ask to catch, else None."""
  checks = special_checks
  for value in values:
    dtype = getattr(value, "dtype", None)
    if dtype is None or dtype.kind not in "fc" and dtype != dtypes.bfloat16:
      continue
    host = value._host_value() if isinstance(value, Array) else np.asarray(value)
    if dtype.kind == "V":  # bfloat16 and the float8 types: NumPy cannot test them directly
      host = host.astype(np.float32)
    if checks.nans and np.isnan(host).any():
      return "nan"
    if checks.infs and np.isinf(host).any():
      return "inf"
  return None


def check_special_values(name: str, outputs) -> None:
  """Raises FloatingPointError naming ``name`` when an output is NaN/inf and the debug flags ask
  for it (an eager primitive: JAX runs each as a small jitted program, hence the message)."""
  kind = special_value_kind(outputs)
  if kind is not None:
    print(DEOPTIMIZED_MESSAGE)
    error = FloatingPointError(f"invalid value ({kind}) encountered in {name}")
    if traceback_util.filtering_enabled():
      # raised from JAX's jitted dispatch of the op, so its traceback carries the filtering note
      error._axle_traceback_filtered = True
      error.add_note(traceback_util.FILTERING_NOTE)
    raise error


def _operand_error(primitive, position, x) -> TypeError:
  return TypeError(f"Error interpreting argument to {primitive.name} as a JAX value. The "
                   f"problematic value is of type {type(x)} and was passed to "
                   f"{primitive.name} at position {position}.")


# Set by axle._src.xla.spmd_jit: runs a primitive whose operands are laid out over a mesh as
# one program over that mesh (None when it cannot).
sharded_hook: Callable | None = None


def _device_runner(primitive: core.Primitive, avals, params, out_aval):
  """The XLA runner of an exact kernel's primitive (for operands already on the device), or
  None where the impl must run (control flow, effects, no lowering, fast mode)."""
  if (not eager_mode.exact or primitive.impl is None or primitive in _impl_primitives
      or primitive.name in _IMPL_NAMES or xla_runner is None or not has_lowering(primitive)):
    return None
  key = (primitive, *avals, *params.items())
  try:
    run = _forced_runners.get(key)
  except TypeError:
    return None
  if run is None:
    run = xla_runner(primitive, avals, params,
                     list(out_aval) if primitive.multiple_results else [out_aval])
    if len(_forced_runners) > 4096:
      _forced_runners.clear()
    _forced_runners[key] = run
  return run


# (primitive, *avals, *params) -> the runner of an eager primitive with an operand on the device
_device_entries: dict = policy_memo()


def device_entry(primitive: core.Primitive, avals, param_items=()):
  """The runner of an eager ``primitive`` on ``avals`` (parameters ``param_items``) for
  operands of which one is still on the device -- what ``process_primitive`` runs then: the
  dispatch's XLA runner, or for a NumPy kernel its XLA runner (reading the operand back would
  wait for it). None where the eager rule is not a kernel. For the eager fast paths."""
  key = (primitive, *avals, *param_items)
  run = _device_entries.get(key)
  if run is None:
    params = dict(param_items)
    out_aval, run = dispatch(primitive, avals, params)
    if run is None:
      run = _device_runner(primitive, avals, params, out_aval)
      if run is None:
        return None
    if len(_device_entries) > 4096:
      _device_entries.clear()
    _device_entries[key] = run
  return run


def dispatch(primitive: core.Primitive, avals, params):
  """``(out_aval(s), run)`` for an eager ``primitive`` on ``avals``: ``run`` is None when its
  NumPy kernel runs, else the cached single-primitive XLA runner. Memoised per signature."""
  if params:
    key = (primitive, *avals, *params.items())
  else:
    key = (primitive, *avals)
  try:
    return _dispatch_cache[key]
  except KeyError:
    pass
  except TypeError:  # unhashable params: the kernel (or the uncached fallback)
    return abstract_eval(primitive, avals, params), None
  out_aval = abstract_eval(primitive, avals, params)
  run = None
  if not runs_kernel(primitive, avals, params) and xla_runner is not None \
      and has_lowering(primitive):
    out_avals = list(out_aval) if primitive.multiple_results else [out_aval]
    run = xla_runner(primitive, avals, params, out_avals)
  if len(_dispatch_cache) > 20000:
    _dispatch_cache.clear()
  _dispatch_cache[key] = entry = (out_aval, run)
  return entry


# primitive -> rule(*args, **params): the eager rule of a primitive that takes key arrays
# (``random_bits`` etc. run their NumPy kernels on the keys' data); set by the random package.
extended_eval_rules: dict = {}


# Concrete array types of extended dtypes (the random module registers its key array type).
extended_array_types: set = set()


def eval_on_extended(primitive: core.Primitive, args, params):
  """Eager evaluation of ``primitive`` where an operand is a key array (an extended dtype):
  its own rule if it has one, else one compiled equation on the keys' data (structural ops,
  control flow), whose key-typed results come back as key arrays."""
  rule = extended_eval_rules.get(primitive)
  if rule is not None:
    return rule(*args, **params)
  avals = []
  for x in args:
    if isinstance(x, Tracer):
      raise errors.UnexpectedTracerError(_leaked_tracer_message(x))
    avals.append(core.get_aval(x).strip_weak_type())
  out_aval = abstract_eval(primitive, avals, params)
  out_avals = list(out_aval) if primitive.multiple_results else [out_aval]
  outs = xla_runner(primitive, avals, params, out_avals)(list(args))
  return outs if primitive.multiple_results else outs[0]


class EvalTrace(core.Trace):
  """The root trace: evaluates primitives right away with NumPy kernels."""
  parent = None

  def process_primitive(self, primitive, args, params):
    # The hot path of every eager op: keep it to plain loops and one dict lookup.
    values = []  # Arrays stay Arrays until a kernel needs their host values
    avals = []
    for position, x in enumerate(args):
      if type(x) is Array:
        values.append(x)
        avals.append(x._aval)
        continue
      if sharded_hook is not None and hasattr(x, "_sharded_buffer"):
        out = sharded_hook(primitive, args, params)  # operands laid out over a mesh
        if out is not None:
          return out
      if type(x) in extended_array_types:
        return eval_on_extended(primitive, args, params)  # an operand is a key array
      try:
        value, aval = _to_value(x)
      except errors.UnexpectedTracerError:
        if compile_time_eval_depth[0] and isinstance(x, Tracer):
          # Inside ensure_compile_time_eval, an operation on a traced value is traced by the
          # value's own trace instead (only concrete operands are computed right away), as in JAX.
          with core.set_current_trace(x._trace):
            return primitive.bind(*args, **params)
        raise
      except TypeError:
        if core.is_extended(getattr(x, "aval", None)):
          return eval_on_extended(primitive, args, params)  # an operand is a key array
        raise _operand_error(primitive, position, x) from None
      values.append(value)
      avals.append(aval)
    if primitive.abstract_eval is None or primitive.impl_takes_arrays:
      # A user-defined primitive runs its impl eagerly, without its shape rule (as in JAX).
      values = [v._host_value() if type(v) is Array else v for v in values]
      return _eval_without_shape_rule(primitive, values, params, avals)
    out_aval, run = dispatch(primitive, avals, params)
    if run is not None:
      outs = run(values)  # host-backed Arrays are put on the device once (and keep the buffer)
      if special_checks.enabled:
        check_special_values(primitive.name, outs)
      return outs if primitive.multiple_results else outs[0]
    for v in values:
      if type(v) is Array and v._value is None:
        # An operand is still on the device (a result of XLA): running this op there too
        # keeps the computation asynchronous instead of waiting to read the operand back (and
        # the other operands' device buffers are used as they are).
        run = _device_runner(primitive, avals, params, out_aval)
        if run is not None:
          outs = run(values)
          if special_checks.enabled:
            check_special_values(primitive.name, outs)
          return outs if primitive.multiple_results else outs[0]
        break
    for i, v in enumerate(values):
      if type(v) is Array:
        values[i] = v._host_value()
    impl = primitive.impl
    if impl is None:
      if fallback_impl is None:
        raise NotImplementedError(f"Primitive '{primitive.name}' has no eager implementation.")
      out = fallback_impl(primitive, values, avals, params)
    else:
      out = impl(*values, **params)
    if special_checks.enabled:
      check_special_values(primitive.name, out if primitive.multiple_results else [out])
    if primitive.multiple_results:
      return [wrap_kernel_output(o, a) for o, a in zip(out, out_aval)]
    return wrap_kernel_output(out, out_aval)

  def __repr__(self):
    return "EvalTrace"


core._install_eval_trace(EvalTrace())


def eager_unary(primitive: core.Primitive, bind: Callable, **params) -> Callable:
  """``bind`` (a one-operand lax function that binds ``primitive`` with ``params``) with a
  shortcut for an eager Array whose signature has been seen before: the kernel (or the XLA
  runner) the eager policy chose runs directly with the cached output aval -- exactly what
  ``process_primitive`` would do, minus the dispatch."""
  impl = primitive.impl
  context = core._context
  root = core.eval_trace
  cache = _dispatch_cache
  param_items = tuple(params.items())
  checks = special_checks
  # A real float operand whose exponent bound is known (``_checked``) needs no subnormal scan
  # when the primitive's result bound keeps the result out of the subnormal range: the kernel
  # runs without the guard's generic argument handling.
  kernel = getattr(impl, "__wrapped__", None)
  result_exponent = _RESULT_EXPONENT.get(primitive.name) if kernel is not None else None
  # (passing keyword parameters costs more than a float32[100] sqrt: skipped where unused)
  bare_kernel = not params or getattr(kernel, "ignores_params", False)
  checked = _checked
  mark = _mark_checked
  flushed = _MIN_FREXP_EXPONENT
  mode = eager_mode
  # id(aval) -> (aval, runner): the XLA runner the policy chose for operands of that aval (every
  # operand when the op runs on XLA; for a NumPy kernel, operands on the device or pending)
  xla_runs = policy_memo()
  device_runs = policy_memo()
  # id(aval) -> (aval, out aval, smallest normal exponent): avals whose kernel runs on the host
  # and keeps a real float dtype, so that a result bound from ``result_exponent`` spares the scan
  host_runs = policy_memo()
  new_object = object.__new__

  def call(x):
    if type(x) is Array and context.trace is root and not checks.enabled:
      aval = x._aval
      value = x._value
      if value is not None:
        host = host_runs.get(id(aval))
        if host is not None and host[0] is aval:
          known = checked.get(id(value))
          if known is not None and known[0]() is value:
            bound = result_exponent((known[1],), (value,), params, aval.dtype)
            if bound is not None and bound >= host[2]:
              out = kernel(value) if bare_kernel else kernel(value, **params)
              if type(out) is np.ndarray and out.dtype is aval.dtype:
                mark(out, bound)
                return Array(out, False, host[1])
      known = xla_runs.get(id(aval))
      if known is None and value is None:
        known = device_runs.get(id(aval))
      if known is not None and known[0] is aval:
        if value is None:
          return known[1]([x])[0]
        direct = known[3]
        buffer = x._buffer
        if direct is not None and buffer is not None:
          # a host value already put on the device: the runner's execute, inlined
          try:
            out = direct[0]([buffer]).consume_with_handlers(direct[1])[0]
          except Exception:  # noqa: BLE001 - the runner reports or recovers
            return known[2]([x])[0]
          result = new_object(Array)
          result._value = None
          result._buffer = out
          result._aval = direct[2]
          return result
        return known[2]([x])[0]
      entry = cache.get((primitive, aval, *param_items))
      if entry is not None:
        run = entry[1]
        if run is not None:
          if len(xla_runs) > 256:
            xla_runs.clear()
          # (with the runner that skips deferral, for operands with a host value)
          undeferred = getattr(run, "undeferred", run)
          xla_runs[id(aval)] = (aval, run, undeferred, getattr(undeferred, "direct", None))
          return run([x])[0]
        if value is not None:
          if result_exponent is not None and mode.exact:
            dtype = value.dtype
            out_aval = entry[0]
            limit = flushed.get(dtype)
            if limit is not None and dtype.kind == "f" and out_aval.dtype is dtype \
                and aval.dtype is dtype:
              if len(host_runs) > 256:
                host_runs.clear()
              host_runs[id(aval)] = (aval, out_aval, limit)  # (the next call takes it above)
          if impl is not None:
            return wrap_kernel_output(impl(value, **params), entry[0])
        else:  # the operand is on the device (or pending): the op runs there too
          run = device_entry(primitive, (aval,), param_items)
          if run is not None:
            if len(device_runs) > 256:
              device_runs.clear()
            device_runs[id(aval)] = (aval, run, run, None)
            return run([x])[0]
    return bind(x)

  return call


# (primitive, *avals, *params) -> XLA runner, for kernels handing inputs over to XLA.
_forced_runners: dict = {}


def run_on_xla(primitive: core.Primitive, values, params: dict):
  """One equation of ``primitive`` on NumPy ``values``, run as a cached single-primitive XLA
  executable. For eager kernels on inputs where NumPy's answer would differ from XLA's (JAX's
  answer is XLA's); returns NumPy values, like a kernel. Python scalars mean the dtype of the
  first array operand."""
  dtype = next((v.dtype for v in values if hasattr(v, "dtype")), None)
  values = [np.asarray(v, dtype) if type(v) in _python_scalar_types else np.asarray(v)
            for v in values]
  avals = [ShapedArray(v.shape, v.dtype) for v in values]
  key = (primitive, *avals, *params.items())
  try:
    run = _forced_runners.get(key)
  except TypeError:  # unhashable params
    return fallback_impl(primitive, values, avals, params)
  if run is None:
    out = abstract_eval(primitive, avals, params)
    run = xla_runner(primitive, avals, params, list(out) if primitive.multiple_results else [out])
    if len(_forced_runners) > 4096:
      _forced_runners.clear()
    _forced_runners[key] = run
  outs = [o._host_value() for o in run(values)]
  return outs if primitive.multiple_results else outs[0]
