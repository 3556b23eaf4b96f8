"""Op records for the non-transcendental elementwise lax primitives.

Every primitive is covered with every dtype it accepts (64-bit dtypes are covered under x64 by
tests/test_elementwise_lowering.py, which runs JAX's recorded edge cases under jit), on random
values plus ``edge_values(dtype)`` (0, -0, +-1, +-inf, NaN, the extremes, the smallest normal).
References are plain NumPy (or per-element Python for integer C semantics) written from XLA's
definitions; the same tolerance bounds eager vs reference and jit vs eager.

Tolerances:
- EXACT (rtol 0, atol 1.2e-38): bitwise agreement, except that XLA's CPU runtime flushes
  float32/bfloat16 subnormal results to zero while NumPy keeps them (every subnormal is below
  1.2e-38). Booleans and integers are always compared exactly by the driver.
- ULP (rtol 2e-6 for float32, 1e-3 for float16, 8e-3 for bfloat16): ops that XLA and NumPy
  compute with different (correctly-rounded-ish) libm algorithms: pow, complex multiply/divide/
  square/abs/sign. Where NumPy and XLA use different formulas for complex numbers with infinite
  or NaN parts, those records use finite values only (JAX's answers on non-finite complex
  values are checked in test_elementwise.py / test_elementwise_lowering.py).
"""
import itertools
import warnings

import ml_dtypes
import numpy as np

from axle._src.lax import elementwise as lax
from tests.op_record import OpRecord, edge_values, random_array

bf16 = np.dtype(ml_dtypes.bfloat16)
BOOL = [np.dtype(np.bool_)]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32)]
INTS = SIGNED + UNSIGNED
FLOATS = [np.dtype(np.float16), bf16, np.dtype(np.float32)]
COMPLEX = [np.dtype(np.complex64)]
NUMS = INTS + FLOATS + COMPLEX
ALL = BOOL + NUMS

EXACT = dict(rtol=0.0, atol=1.2e-38)
_ULP = {np.dtype(np.float16): 1e-3, bf16: 8e-3, np.dtype(np.float32): 2e-6,
        np.dtype(np.complex64): 2e-6}


def ulp(dtype):
  """A few units in the last place of ``dtype`` (for libm-level differences)."""
  return dict(rtol=_ULP[np.dtype(dtype)], atol=1.2e-38)


def _name(dtype):
  return np.dtype(dtype).name


def _finite_complex_edges(dtype):
  parts = np.array([0.0, -0.0, 1.0, -2.5, 0.5, 3.5], np.float32)
  return (parts[:, None] + 1j * parts[None, :]).ravel().astype(dtype)


def _edges(dtype, finite_complex=False):
  dtype = np.dtype(dtype)
  if dtype.kind == "c":
    if finite_complex:
      return _finite_complex_edges(dtype)
    real = np.array([0.0, -0.0, 1.0, -2.5, np.inf, np.nan], np.float32)
    out = np.zeros((real.size, real.size), dtype)
    out.real, out.imag = real[:, None], real[None, :]
    return out.ravel()
  return edge_values(dtype)


def unary(dtype, shape=(2, 3), low=-5, high=5, edges=True, finite_complex=False):
  """Random values of ``shape``; with ``edges``, flattened and followed by the edge values."""
  def make(rng):
    x = random_array(rng, shape, dtype, low, high)
    if edges:
      x = np.concatenate([x.ravel(), _edges(dtype, finite_complex)])
    return [x]
  return make


def binary(dtype, shape_a=(2, 3), shape_b=(2, 3), low=-5, high=5, nonzero=False):
  """Random operands of the given shapes (broadcasting), no edge values."""
  def make(rng):
    a = random_array(rng, shape_a, dtype, low, high)
    b = random_array(rng, shape_b, dtype, low, high)
    if nonzero:
      b = np.where(b == 0, np.ones((), dtype), b).astype(dtype)
    return [a, b]
  return make


def edge_pairs(dtype, finite_complex=False, nonzero=False, low=-5, high=5):
  """Every pair of edge values, then random pairs: two flat operands."""
  def make(rng):
    edges = _edges(dtype, finite_complex)
    if nonzero:
      edges = edges[edges != 0]
    a, b = (np.array(v, dtype) for v in zip(*itertools.product(edges, edges)))
    ra = random_array(rng, (24,), dtype, low, high)
    rb = random_array(rng, (24,), dtype, low, high)
    if nonzero:
      rb = np.where(rb == 0, np.ones((), dtype), rb).astype(dtype)
    return [np.concatenate([a, ra]), np.concatenate([b, rb])]
  return make


def _in_dtype(fn):
  """A reference computed in float32 and rounded once to float16/bfloat16 (as XLA and NumPy do)."""
  def reference(*args):
    dtype = args[0].dtype
    with np.errstate(all="ignore"):
      if dtype in (np.float16, bf16):
        return np.asarray(fn(*[a.astype(np.float32) for a in args])).astype(dtype)
      return np.asarray(fn(*args)).astype(dtype)
  return reference


def _quiet(fn):
  """``fn`` with NumPy's floating-point warnings silenced (NaN comparisons, overflow)."""
  def reference(*args):
    with np.errstate(all="ignore"):
      return fn(*args)
  return reference


def _divide_by_broadcast(x, y):
  """XLA rewrites x / broadcast(y) as x * broadcast(1 / y) (float16/32/64; one rounding each)."""
  with np.errstate(all="ignore"):
    if x.dtype.kind == "f" and np.broadcast_shapes(x.shape, y.shape) != y.shape:
      return np.multiply(x, np.true_divide(np.ones((), y.dtype), y))
    return _in_dtype(np.true_divide)(x, y)


def _per_element(fn, out_dtype=None):
  """A reference applying ``fn`` to Python numbers element by element (broadcasting the args)."""
  def reference(*args):
    args = np.broadcast_arrays(*args)
    dtype = np.dtype(out_dtype or args[0].dtype)
    flat = [fn(*(v.item() for v in vals)) for vals in zip(*(a.ravel() for a in args))]
    return _wrap(flat, dtype).reshape(args[0].shape)
  return reference


def _wrap(values, dtype):
  """Python numbers to ``dtype``; integers wrap around modulo 2**bits (as XLA's integers do)."""
  dtype = np.dtype(dtype)
  if dtype.kind in "iu":
    bits = 8 * dtype.itemsize
    return np.array([int(v) % (1 << bits) for v in values], np.uint64).astype(dtype)
  return np.array(values, dtype)


def _bits(dtype):
  return 8 * np.dtype(dtype).itemsize


RECORDS = []


def _add(name, primitive, fun, reference, make_args, **kw):
  RECORDS.append(OpRecord(name, primitive, fun, reference, make_args, **kw))


# ---------------------------------------------------------------------------
# Arithmetic

def _c_div(x, y):  # C's truncating division; x / 0 is -1 (all bits set); INT_MIN / -1 wraps
  if y == 0:
    return -1
  q = abs(x) // abs(y)
  return q if (x < 0) == (y < 0) else -q


def _c_rem(x, y):  # the sign of the dividend; x % 0 is x
  if y == 0:
    return x
  return x - _c_div(x, y) * y


for dtype in NUMS:
  n = _name(dtype)
  kind = dtype.kind
  finite = kind == "c"  # NumPy's and XLA's complex formulas differ on infinite/NaN parts
  for op, ref in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply)]:
    tol = ulp(dtype) if (op == "mul" and kind == "c") else EXACT
    for sa, sb in [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((), (3,))]:
      _add(f"ew_{op}_{n}_{sa}_{sb}", op, getattr(lax, op), _in_dtype(ref), binary(dtype, sa, sb),
           **tol)
    _add(f"ew_{op}_{n}_edges", op, getattr(lax, op), _in_dtype(ref),
         edge_pairs(dtype, finite_complex=finite and op == "mul"), **tol)
  if kind in "iu":
    _add(f"ew_div_{n}_edges", "div", lax.div, _per_element(_c_div), edge_pairs(dtype), **EXACT)
    _add(f"ew_div_{n}_broadcast", "div", lax.div, _per_element(_c_div),
         binary(dtype, (2, 3), (1, 3), low=-20, high=20), **EXACT)
  else:
    tol = ulp(dtype) if kind == "c" else EXACT
    _add(f"ew_div_{n}_edges", "div", lax.div, _in_dtype(np.true_divide),
         edge_pairs(dtype, finite_complex=finite, nonzero=finite), **tol)
    for sa, sb in [((2, 3), (1, 3)), ((2, 3), ()), ((1, 3), (2, 3))]:
      _add(f"ew_div_{n}_{sa}_{sb}", "div", lax.div, _divide_by_broadcast,
           binary(dtype, sa, sb, nonzero=True), **tol)
  _add(f"ew_square_{n}", "square", lax.square, _in_dtype(np.square),
       unary(dtype, finite_complex=finite), **(ulp(dtype) if kind == "c" else EXACT))
  _add(f"ew_neg_{n}", "neg", lax.neg, _in_dtype(np.negative), unary(dtype), **EXACT)
  if kind == "c":
    _add(f"ew_sign_{n}", "sign", lax.sign, _quiet(lambda x: np.where(x == 0, x, x / np.abs(x))),
         unary(dtype, finite_complex=True), **ulp(dtype))
  else:
    _add(f"ew_sign_{n}", "sign", lax.sign, _in_dtype(np.sign), unary(dtype), **EXACT)
  # integer_pow: the multiplies JAX emits (binary exponentiation, one rounding per multiply).
  for y in ([0, 1, 2, 3, 5, 8] if kind in "iu" else [-3, -1, 0, 1, 2, 3, 7]):
    _add(f"ew_integer_pow{y}_{n}", "integer_pow", lambda x, y=y: lax.integer_pow(x, y),
         lambda x, y=y: _integer_pow_reference(x, y),
         unary(dtype, low=-3, high=3, finite_complex=finite),
         **(ulp(dtype) if kind == "c" else EXACT))

def _integer_pow_reference(x, y):
  """x ** y by binary exponentiation: x**7 = (x * x**2) * (x**2)**2; 1 / x**-y for y < 0."""
  with np.errstate(all="ignore"):
    if y == 0:
      return np.ones_like(x)
    acc, power, n = None, x, abs(y)
    while n:
      if n & 1:
        acc = power if acc is None else np.multiply(acc, power)
      n >>= 1
      if n:
        power = np.multiply(power, power)
    return np.true_divide(np.ones((), x.dtype), acc) if y < 0 else acc


for dtype in SIGNED + FLOATS + COMPLEX:
  n = _name(dtype)
  if dtype.kind == "c":
    _add(f"ew_abs_{n}", "abs", lax.abs, np.abs, unary(dtype, finite_complex=True), **ulp(dtype))
  else:
    _add(f"ew_abs_{n}", "abs", lax.abs, np.abs, unary(dtype), **EXACT)

for dtype in INTS + FLOATS:
  n = _name(dtype)
  if dtype.kind in "iu":
    _add(f"ew_rem_{n}_edges", "rem", lax.rem, _per_element(_c_rem), edge_pairs(dtype), **EXACT)
  else:
    _add(f"ew_rem_{n}_edges", "rem", lax.rem, _in_dtype(np.fmod), edge_pairs(dtype), **EXACT)
  _add(f"ew_rem_{n}_broadcast", "rem", lax.rem, _in_dtype(np.fmod) if dtype.kind == "f" or
       dtype == bf16 else _per_element(_c_rem), binary(dtype, (), (2, 3), nonzero=True), **EXACT)

# pow: NumPy's and XLA's pow are different libm-quality algorithms (ULP). XLA computes complex
# powers as exp(y * log(x)) (the eager kernel runs complex pow on XLA): no edge values (0 ** z is
# NaN there, 0 in NumPy) and a looser tolerance, the error growing with the exponent.
for dtype in FLOATS:
  n = _name(dtype)
  _add(f"ew_pow_{n}_edges", "pow", lax.pow, _in_dtype(np.power),
       edge_pairs(dtype, low=0, high=3), **ulp(dtype))
  for exponent_dtype in [np.int8, np.int32, np.uint8]:
    def make(rng, dtype=dtype, exponent_dtype=exponent_dtype):
      base = np.concatenate([random_array(rng, (8,), dtype, 0, 3), _edges(dtype)])
      exponents = np.array([0, 1, 2, 3, 7, 100] + ([-1, -2, -128] if exponent_dtype != np.uint8
                                                   else [255]), exponent_dtype)
      x, e = (np.array(v) for v in zip(*itertools.product(base, exponents)))
      return [x.astype(dtype), e.astype(exponent_dtype)]
    _add(f"ew_pow_{n}_{_name(exponent_dtype)}_exponent", "pow", lax.pow,
         lambda x, y: _in_dtype(np.power)(x, y.astype(np.float64).astype(x.dtype)), make,
         **ulp(dtype))
for dtype in COMPLEX:
  n = _name(dtype)
  _add(f"ew_pow_{n}", "pow", lax.pow, np.power, binary(dtype, (2, 3), (1, 3), low=0.5, high=2),
       rtol=1e-5, atol=1e-6)
  for exponent_dtype in [np.int8, np.int32, np.uint8]:
    _add(f"ew_pow_{n}_{_name(exponent_dtype)}_exponent", "pow", lax.pow,
         lambda x, y: np.power(x, y.astype(x.dtype)),
         lambda rng, dtype=dtype, exponent_dtype=exponent_dtype: [
             random_array(rng, (3, 4), dtype, 0.5, 2), random_array(rng, (3, 4), exponent_dtype, -3, 7)],
         rtol=1e-5, atol=1e-6)

# ---------------------------------------------------------------------------
# max / min / clamp (NaN propagates; complex numbers compare lexicographically)


def _complex_pick(better):
  def reference(x, y):
    x, y = np.broadcast_arrays(x, y)
    with np.errstate(invalid="ignore"):
      pick_x = better(x.real, y.real) | ((x.real == y.real) & better(x.imag, y.imag))
    return np.where(pick_x, x, y)
  return reference


def _complex_clamp(lo, x, hi):
  """XLA's clamp of complex numbers compares real parts only (not lexicographically)."""
  with np.errstate(invalid="ignore"):
    low = np.where(x.real <= lo.real, lo, x)
    return np.where(low.real <= hi.real, low, hi).astype(x.dtype)


for dtype in ALL:
  n = _name(dtype)
  if dtype.kind == "c":
    max_ref, min_ref = _complex_pick(np.greater), _complex_pick(np.less)
  else:
    max_ref, min_ref = _in_dtype(np.maximum), _in_dtype(np.minimum)
  _add(f"ew_max_{n}_edges", "max", lax.max, max_ref, edge_pairs(dtype), **EXACT)
  _add(f"ew_min_{n}_broadcast", "min", lax.min, min_ref, binary(dtype, (), (2, 3)), **EXACT)
  _add(f"ew_min_{n}_edges", "min", lax.min, min_ref, edge_pairs(dtype), **EXACT)
  lo, hi = (np.array(v).astype(dtype) for v in ((0, 3) if dtype != np.bool_ else (False, True)))
  if dtype.kind == "c":
    clamp_ref = _complex_clamp
  else:
    clamp_ref = lambda a, x, b, max_ref=max_ref, min_ref=min_ref: min_ref(max_ref(x, a), b)
  _add(f"ew_clamp_{n}", "clamp", lambda x, lo=lo, hi=hi: lax.clamp(lo, x, hi),
       lambda x, lo=lo, hi=hi, clamp_ref=clamp_ref: clamp_ref(lo, x, hi), unary(dtype), **EXACT)
  _add(f"ew_clamp_{n}_array_bounds", "clamp", lax.clamp, clamp_ref,
       lambda rng, dtype=dtype: [random_array(rng, (2, 3), dtype, -3, 0), random_array(rng, (2, 3), dtype),
                                 random_array(rng, (2, 3), dtype, 0, 3)], **EXACT)
for dtype in FLOATS:  # NaN bounds propagate
  nan = np.array(np.nan, dtype)
  _add(f"ew_clamp_{_name(dtype)}_nan_bound", "clamp", lambda x, nan=nan: lax.clamp(nan, x, nan),
       lambda x: np.full_like(x, np.nan), unary(dtype), **EXACT)

# ---------------------------------------------------------------------------
# Floating-point functions


def _round_away(x):
  x = x.astype(np.float64)
  return np.copysign(np.floor(np.abs(x) + 0.5), x)


for dtype in FLOATS:
  n = _name(dtype)
  wide = lambda r: lambda x: r(x.astype(np.float64)).astype(x.dtype)  # exact in float64
  _add(f"ew_floor_{n}", "floor", lax.floor, wide(np.floor), unary(dtype), **EXACT)
  _add(f"ew_ceil_{n}", "ceil", lax.ceil, wide(np.ceil), unary(dtype), **EXACT)
  _add(f"ew_is_finite_{n}", "is_finite", lax.is_finite, lambda x: np.isfinite(x.astype(np.float32)),
       unary(dtype))
  _add(f"ew_round_even_{n}", "round", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
       wide(np.rint), unary(dtype), **EXACT)
  _add(f"ew_round_away_{n}", "round", lax.round, lambda x: _round_away(x).astype(x.dtype),
       unary(dtype), **EXACT)
  _add(f"ew_nextafter_{n}", "nextafter", lax.nextafter,
       _quiet(lambda x, y: np.nextafter(x, y) if x.dtype == np.float32
              else _nextafter_reference(x, y)), edge_pairs(dtype), **EXACT)


def _nextafter_reference(x, y):
  """nextafter for 16-bit floats by stepping the bit pattern (C's definition)."""
  uint = np.uint16
  out = []
  for a, b in zip(x.ravel(), y.ravel()):
    fa, fb = float(a), float(b)
    if np.isnan(fa) or np.isnan(fb):
      out.append(np.array(np.nan, x.dtype))
    elif fa == fb:
      out.append(np.array(b, x.dtype))
    elif fa == 0:
      bits = np.array(1 if fb > 0 else 0x8001, uint)
      out.append(bits.view(x.dtype))
    else:
      bits = np.array(a, x.dtype).view(uint)
      up = (fb > fa) == (fa > 0)
      out.append(np.array(int(bits) + (1 if up else -1), uint).view(x.dtype))
  return np.array(out, x.dtype).reshape(x.shape)


# reduce_precision as a cast to the narrower format and back, its subnormals flushed to zero.
_FORMATS = {(8, 7): bf16, (5, 10): np.dtype(np.float16), (5, 2): np.dtype(ml_dtypes.float8_e5m2)}


def _reduce_precision_reference(x, exponent_bits, mantissa_bits):
  target = _FORMATS[(exponent_bits, mantissa_bits)]
  with np.errstate(all="ignore"):
    narrow = x.astype(np.float32).astype(target).astype(np.float32)
    tiny = float(ml_dtypes.finfo(target).tiny)
    narrow = np.where(np.abs(narrow) < tiny, np.copysign(np.float32(0), narrow), narrow)
    return narrow.astype(x.dtype)


for dtype in FLOATS:
  for bits in [(8, 7), (5, 10), (5, 2)]:
    _add(f"ew_reduce_precision_{bits[0]}_{bits[1]}_{_name(dtype)}", "reduce_precision",
         lambda x, bits=bits: lax.reduce_precision(x, *bits),
         lambda x, bits=bits: _reduce_precision_reference(x, *bits),
         unary(dtype, low=-60000, high=60000), **EXACT)

# ---------------------------------------------------------------------------
# Complex numbers

for dtype in [np.dtype(np.float32)]:
  _add("ew_complex_f32", "complex", lax.complex, lambda x, y: x + 1j * y.astype(np.complex64),
       binary(dtype, (2, 3), (1, 3)), **EXACT)
  _add("ew_complex_f32_edges", "complex", lax.complex,
       lambda x, y: _complex_of(x, y), edge_pairs(dtype), **EXACT)
  _add("ew_conj_f32", "conj", lax.conj, lambda x: x.astype(np.complex64), unary(dtype), **EXACT)


def _complex_of(x, y):
  out = np.empty(x.shape, np.complex64)
  out.real, out.imag = x, y
  return out


for dtype in COMPLEX:
  _add("ew_real_c64", "real", lax.real, np.real, unary(dtype), **EXACT)
  _add("ew_imag_c64", "imag", lax.imag, np.imag, unary(dtype), **EXACT)
  _add("ew_conj_c64", "conj", lax.conj, np.conj, unary(dtype), **EXACT)

# ---------------------------------------------------------------------------
# Comparisons (FLOAT / SIGNED / UNSIGNED compare types; complex: EQ and NE only)

for dtype in ALL:
  n = _name(dtype)
  ops = [("eq", np.equal), ("ne", np.not_equal)]
  if dtype.kind != "c":
    ops += [("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)]
  for op, ref in ops:
    _add(f"ew_{op}_{n}_edges", op, getattr(lax, op), _quiet(ref),
         edge_pairs(dtype))
    _add(f"ew_{op}_{n}_broadcast", op, getattr(lax, op), lambda x, y, ref=ref: ref(x, y),
         binary(dtype, (2, 3), (1, 3), -2, 2))

# ---------------------------------------------------------------------------
# Bitwise operations


def _shift_left(x, s, bits):
  s %= 1 << bits  # the amount as unsigned: a negative amount is huge
  return 0 if s >= bits else x << s


def _shift_right_logical(x, s, bits):
  s %= 1 << bits
  return 0 if s >= bits else (x % (1 << bits)) >> s


def _shift_right_arithmetic(x, s, bits):
  s %= 1 << bits
  signed = x % (1 << bits)
  if signed >= 1 << (bits - 1):  # the bit pattern read as a signed number, for any dtype
    signed -= 1 << bits
  return signed >> min(s, bits - 1)


for dtype in INTS + BOOL:
  n = _name(dtype)
  for op, prim, ref in [("bitwise_and", "and", np.bitwise_and), ("bitwise_or", "or", np.bitwise_or),
                        ("bitwise_xor", "xor", np.bitwise_xor)]:
    _add(f"ew_{op}_{n}_edges", prim, getattr(lax, op), ref, edge_pairs(dtype, low=-100, high=100))
    _add(f"ew_{op}_{n}_broadcast", prim, getattr(lax, op), ref, binary(dtype, (), (2, 3)))
  _add(f"ew_not_{n}", "not", lax.bitwise_not, np.invert, unary(dtype))

for dtype in INTS:
  n = _name(dtype)
  bits = _bits(dtype)

  def shift_args(rng, dtype=dtype, bits=bits):
    amounts = [0, 1, 2, bits - 1, bits, bits + 1, 2 * bits, 100, -1, -bits]
    values = np.concatenate([random_array(rng, (6,), dtype, -100, 100), edge_values(dtype)])
    x, s = zip(*itertools.product(values.tolist(), amounts))
    return [_wrap(x, dtype), _wrap(s, dtype)]

  for op, fn in [("shift_left", _shift_left), ("shift_right_logical", _shift_right_logical),
                 ("shift_right_arithmetic", _shift_right_arithmetic)]:
    _add(f"ew_{op}_{n}", op, getattr(lax, op),
         _per_element(lambda x, s, fn=fn, bits=bits: fn(x, s, bits)), shift_args)
    _add(f"ew_{op}_{n}_broadcast", op, getattr(lax, op),
         _per_element(lambda x, s, fn=fn, bits=bits: fn(x, s, bits)),
         lambda rng, dtype=dtype, bits=bits: [random_array(rng, (2, 3), dtype, -100, 100),
                                              random_array(rng, (1, 3), dtype, 0, bits - 1)])
  _add(f"ew_population_count_{n}", "population_count", lax.population_count,
       _per_element(lambda x, bits=bits: bin(x % (1 << bits)).count("1")),
       unary(dtype, low=-100, high=100))
  _add(f"ew_clz_{n}", "clz", lax.clz,
       _per_element(lambda x, bits=bits: bits - (x % (1 << bits)).bit_length()),
       unary(dtype, low=-100, high=100))

# ---------------------------------------------------------------------------
# Selection

for dtype in ALL:
  n = _name(dtype)
  _add(f"ew_select_{n}", "select_n", lax.select, lambda p, x, y: np.where(p, x, y),
       lambda rng, dtype=dtype: [random_array(rng, (2, 3), np.bool_), random_array(rng, (2, 3), dtype),
                                 random_array(rng, (2, 3), dtype)])
  _add(f"ew_copy_{n}", "copy", lambda x: lax.copy_p.bind(x), np.copy, unary(dtype))
for dtype in [np.dtype(np.int32), np.dtype(np.float32), bf16, np.dtype(np.bool_),
              np.dtype(np.complex64)]:
  n = _name(dtype)
  _add(f"ew_select_scalar_pred_{n}", "select_n", lax.select, lambda p, x, y: np.where(p, x, y),
       lambda rng, dtype=dtype: [np.bool_(rng.random() < 0.5), random_array(rng, (2, 3), dtype),
                                 random_array(rng, (2, 3), dtype)])
  for which_dtype in [np.int32, np.uint8]:
    for ncases in [1, 2, 3, 5]:
      # indices past either end pick the nearest case (XLA's nested selects)
      _add(f"ew_select_n{ncases}_{_name(which_dtype)}_{n}", "select_n",
           lambda w, *cases: lax.select_n(w, *cases),
           lambda w, *cases: np.choose(np.clip(w.astype(np.int64), 0, len(cases) - 1), cases),
           lambda rng, dtype=dtype, which_dtype=which_dtype, ncases=ncases:
           [random_array(rng, (2, 3), which_dtype, -2 if which_dtype == np.int32 else 0, ncases + 1)]
           + [random_array(rng, (2, 3), dtype) for _ in range(ncases)])
  _add(f"ew_select_n3_scalar_{n}", "select_n", lambda w, *cases: lax.select_n(w, *cases),
       lambda w, *cases: cases[int(np.clip(w, 0, 2))],
       lambda rng, dtype=dtype: [np.int32(rng.integers(-1, 4))] +
       [random_array(rng, (2, 3), dtype) for _ in range(3)])

# ---------------------------------------------------------------------------
# Conversions


def _convert_reference(x, dst):
  """XLA's convert: float -> integer truncates and saturates (NaN -> 0); anything -> bool is
  ``x != 0``; complex -> real keeps the real part; integer -> integer wraps."""
  dst = np.dtype(dst)
  if x.dtype.kind == "c" and dst.kind != "c":
    x = x.real
  if dst == np.bool_:
    return x.astype(np.float64) != 0 if x.dtype == bf16 else x != 0
  if (x.dtype.kind == "f" or x.dtype == bf16) and dst.kind in "iu":
    info = np.iinfo(dst)
    out = []
    for v in x.astype(np.float64).ravel():
      out.append(0 if np.isnan(v) else int(np.clip(np.trunc(v), info.min, info.max)))
    return np.array(out, dst).reshape(x.shape)
  with np.errstate(all="ignore"):
    if x.dtype == bf16:
      x = x.astype(np.float32)  # exact
    return x.astype(dst)


def _convert(dst):
  def fun(x):
    with warnings.catch_warnings():
      warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
      return lax.convert_element_type(x, dst)
  return fun


_CONVERT_DTYPES = ALL
_FLOAT_EXTRAS = np.array([1e10, -1e10, 3e9, -3e9, 70000.0, -70000.0, 255.5, 256.0, -129.0,
                          4294967295.0, 2147483648.0, -2147483904.0, 0.9, -0.9, 16777217.0])


def _convert_args(src):
  def make(rng):
    x = np.concatenate([random_array(rng, (8,), src, -100, 100), _edges(src)])
    if src.kind == "f" or src == bf16:
      with np.errstate(over="ignore"):
        x = np.concatenate([x, _FLOAT_EXTRAS.astype(src)])
    return [x]
  return make


for src in _CONVERT_DTYPES:
  for dst in _CONVERT_DTYPES:
    # In-range and out-of-range values, infinities and NaN for every pair of dtypes.
    _add(f"ew_convert_{_name(src)}_to_{_name(dst)}", "convert_element_type", _convert(dst),
         lambda x, dst=dst: _convert_reference(x, dst), _convert_args(src), **EXACT)

_SAME_WIDTH = [np.int8, np.uint8, np.int16, np.uint16, np.float16, bf16, np.int32, np.uint32,
               np.float32]
for src in _SAME_WIDTH:
  for dst in _SAME_WIDTH:
    if np.dtype(src).itemsize != np.dtype(dst).itemsize:
      continue
    _add(f"ew_bitcast_{_name(src)}_to_{_name(dst)}", "bitcast_convert_type",
         lambda x, dst=dst: lax.bitcast_convert_type(x, dst),
         lambda x, dst=dst: x.view(dst), unary(np.dtype(src), shape=(3, 2)), **EXACT)
for src, dst in [(np.float32, np.uint8), (np.float32, np.int16), (np.int32, bf16),
                 (np.uint16, np.int8), (np.int8, np.float32), (np.uint8, np.uint32),
                 (np.int16, np.float32), (bf16, np.int32), (np.bool_, np.bool_),
                 (np.complex64, np.complex64)]:
  _add(f"ew_bitcast_{_name(src)}_to_{_name(dst)}", "bitcast_convert_type",
       lambda x, dst=dst: lax.bitcast_convert_type(x, dst),
       lambda x, dst=dst: (x.reshape(x.shape + (1,)).view(dst) if np.dtype(dst).itemsize < x.dtype.itemsize
                           else x.view(dst).reshape(x.shape[:-1]) if np.dtype(dst).itemsize > x.dtype.itemsize
                           else x.view(dst)),
       lambda rng, src=np.dtype(src), dst=np.dtype(dst): [random_array(
           rng, (3, max(1, dst.itemsize // src.itemsize)), src, -100, 100)], **EXACT)

# ---------------------------------------------------------------------------
# Transformations: vmap vs a loop on a representative subset of the records above (one or two
# dtypes per primitive, broadcasting shapes included), and check_grads records at points away
# from kinks, ties and poles (float32 and complex64 operands of moderate magnitude).

_VMAP_DTYPES = ("float32", "int32", "bool", "complex64")


def _vmap_subset(record) -> bool:
  if record.primitive == "convert_element_type":
    return record.name in {"ew_convert_float32_to_int32", "ew_convert_int8_to_float32",
                           "ew_convert_complex64_to_float32", "ew_convert_float32_to_bool",
                           "ew_convert_bfloat16_to_float16"}
  parts = record.name.split("_")
  if record.primitive == "div" and record.rtol == 0 and not any(p.startswith(("int", "uint"))
                                                                for p in parts):
    # Batching one operand broadcasts the other, and XLA (like the eager kernel) divides by a
    # broadcast divisor as a multiplication by its reciprocal: 1 ulp from the per-example
    # quotient, beyond these records' exact tolerance. The ew_grad_div records cover vmap.
    return False
  return any(d in parts for d in _VMAP_DTYPES) or record.primitive == "bitcast_convert_type"


for _record in RECORDS:
  if _vmap_subset(_record):
    _record.transforms = _record.transforms | {"vmap"}

_GRAD = frozenset({"grad", "vmap"})
F32 = np.dtype(np.float32)
C64 = np.dtype(np.complex64)


def _uniform(rng, shape, dtype, low, high):
  dtype = np.dtype(dtype)
  if dtype.kind == "c":
    return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
  return rng.uniform(low, high, shape).astype(dtype)


def _away_from_zero(rng, shape, dtype, low=0.5, high=3.0):
  x = _uniform(rng, shape, dtype, low, high)
  signs = np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype)
  return (x * signs).astype(dtype)


def _grad_record(name, primitive, fun, make_args, reference, **kw):
  """A record whose main purpose is check_grads (and vmap); the eager check compares against
  the NumPy ``reference``, or is skipped (and reported so) where ``reference`` is None."""
  RECORDS.append(OpRecord(name, primitive, fun, reference, make_args,
                          transforms=frozenset({"jit"}) | _GRAD, trials=1, **kw))


def _select_n_reference(which, *cases):
  """lax.select_n: an out-of-range ``which`` picks the nearest case (XLA's lowering)."""
  which = np.broadcast_to(np.asarray(which, np.intp), np.shape(cases[0]))
  return np.choose(which, cases, mode="clip")


def _integer_pow_grad_reference(x, y):
  one = np.ones((), x.dtype)
  return (x ** y if y >= 0 else one / x ** -y).astype(x.dtype)


_GRAD_REFERENCES = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


for _dtype in (F32, C64):
  _n = _dtype.name
  for _sa, _sb in [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((), (3,)), ((2, 1), ())]:
    _shapes = f"{'x'.join(map(str, _sa)) or 'scalar'}_{'x'.join(map(str, _sb)) or 'scalar'}"
    for _op in ("add", "sub", "mul"):
      _grad_record(f"ew_grad_{_op}_{_n}_{_shapes}", _op, getattr(lax, _op),
                   lambda rng, d=_dtype, a=_sa, b=_sb: [_uniform(rng, a, d, -2, 2),
                                                        _uniform(rng, b, d, -2, 2)],
                   _GRAD_REFERENCES[_op])
    _grad_record(f"ew_grad_div_{_n}_{_shapes}", "div", lax.div,
                 lambda rng, d=_dtype, a=_sa, b=_sb: [_uniform(rng, a, d, -2, 2),
                                                      _away_from_zero(rng, b, d)], np.divide)
  _grad_record(f"ew_grad_neg_{_n}", "neg", lax.neg, lambda rng, d=_dtype: [_uniform(rng, (2, 3), d, -2, 2)],
               np.negative)
  _grad_record(f"ew_grad_square_{_n}", "square", lax.square,
               lambda rng, d=_dtype: [_uniform(rng, (2, 3), d, -2, 2)], lambda x: x * x)
  for _y in (-3, -1, 0, 1, 2, 3, 7):
    _grad_record(f"ew_grad_integer_pow{_y}_{_n}", "integer_pow",
                 lambda x, y=_y: lax.integer_pow(x, y),
                 lambda rng, d=_dtype: [_away_from_zero(rng, (2, 3), d, 0.6, 1.4)],
                 lambda x, y=_y: _integer_pow_grad_reference(x, y))
  _grad_record(f"ew_grad_abs_{_n}", "abs", lax.abs,
               lambda rng, d=_dtype: [_away_from_zero(rng, (2, 3), d)], np.abs)
  if _dtype == F32:  # complex sign z/|z| varies, but its JVP is zero (as JAX): see the test file
    _grad_record(f"ew_grad_sign_{_n}", "sign", lax.sign,
                 lambda rng, d=_dtype: [_away_from_zero(rng, (2, 3), d)], np.sign)
  _grad_record(f"ew_grad_pow_{_n}", "pow", lax.pow,
               lambda rng, d=_dtype: [_uniform(rng, (2, 3), d, 0.5, 2), _uniform(rng, (1, 3), d, -2, 2)],
               np.power if _dtype == F32 else None)  # complex pow is XLA's exp(y log x)
  _grad_record(f"ew_grad_pow_int_exponent_{_n}", "pow", lax.pow,
               lambda rng, d=_dtype: [_uniform(rng, (2, 3), d, 0.5, 2),
                                      np.array([[0, 1, 2], [3, -1, -2]], np.int32)],
               (lambda x, y: np.power(x, y.astype(x.dtype))) if _dtype == F32 else None)
  _grad_record(f"ew_grad_copy_{_n}", "copy", lambda x: lax.copy_p.bind(x),
               lambda rng, d=_dtype: [_uniform(rng, (2, 3), d, -2, 2)], np.copy)
  _grad_record(f"ew_grad_select_{_n}", "select_n", lax.select,
               lambda rng, d=_dtype: [rng.random((2, 3)) < 0.5, _uniform(rng, (2, 3), d, -2, 2),
                                      _uniform(rng, (2, 3), d, -2, 2)],
               lambda pred, on_true, on_false: np.where(pred, on_true, on_false))
  _grad_record(f"ew_grad_select_scalar_pred_{_n}", "select_n", lax.select,
               lambda rng, d=_dtype: [np.bool_(True), _uniform(rng, (2, 3), d, -2, 2),
                                      _uniform(rng, (2, 3), d, -2, 2)],
               lambda pred, on_true, on_false: np.where(pred, on_true, on_false))
  # (indices in range: as in JAX, an out-of-range index passes no cotangent to the case the
  # forward pass clamps it to, so finite differences would not agree there)
  _grad_record(f"ew_grad_select_n3_{_n}", "select_n", lambda w, *c: lax.select_n(w, *c),
               lambda rng, d=_dtype: [np.array([[0, 1, 2], [2, 0, 1]], np.int32)]
               + [_uniform(rng, (2, 3), d, -2, 2) for _ in range(3)], _select_n_reference)

_distinct = lambda rng, a=(2, 3), b=(2, 3): [rng.permutation(np.linspace(-2, 2, 6, dtype=np.float32))[:int(np.prod(a))].reshape(a),
                                             rng.permutation(np.linspace(-1.9, 2.1, 6, dtype=np.float32))[:int(np.prod(b))].reshape(b)]
for _op in ("max", "min"):
  _np_op = np.maximum if _op == "max" else np.minimum
  _grad_record(f"ew_grad_{_op}_float32", _op, getattr(lax, _op), _distinct, _np_op)
  _grad_record(f"ew_grad_{_op}_float32_broadcast", _op, getattr(lax, _op),
               lambda rng: _distinct(rng, (2, 3), (1, 3)), _np_op)
_grad_record("ew_grad_rem_float32", "rem", lax.rem,
             lambda rng: [np.array([[2.3, -2.3, 0.7], [5.2, -1.4, 3.3]], np.float32),
                          np.array([[1.0, 1.0, 2.0], [-2.0, 1.1, 1.5]], np.float32)], np.fmod)
_grad_record("ew_grad_clamp_float32", "clamp", lax.clamp,
             lambda rng: [np.full((2, 3), -1, np.float32),
                          np.array([[-2.0, -0.5, 0.3], [0.8, 1.5, 2.5]], np.float32),
                          np.full((2, 3), 1, np.float32)], lambda lo, x, hi: np.clip(x, lo, hi))
_grad_record("ew_grad_clamp_scalar_bounds_float32", "clamp", lax.clamp,
             lambda rng: [np.float32(-1), np.array([[-2.0, -0.5, 0.3], [0.8, 1.5, 2.5]], np.float32),
                          np.float32(1)], lambda lo, x, hi: np.clip(x, lo, hi))
for _op in ("floor", "ceil", "round"):
  _grad_record(f"ew_grad_{_op}_float32", _op, getattr(lax, _op),
               lambda rng: [np.array([[0.3, -0.3, 1.2], [2.7, -1.6, 5.4]], np.float32)],
               {"floor": np.floor, "ceil": np.ceil, "round": np.round}[_op])  # no .5 ties
_grad_record("ew_grad_real_complex64", "real", lax.real, lambda rng: [_uniform(rng, (2, 3), C64, -2, 2)],
             np.real)
_grad_record("ew_grad_imag_complex64", "imag", lax.imag, lambda rng: [_uniform(rng, (2, 3), C64, -2, 2)],
             np.imag)
_grad_record("ew_grad_conj_complex64", "conj", lax.conj, lambda rng: [_uniform(rng, (2, 3), C64, -2, 2)],
             np.conj)
_grad_record("ew_grad_conj_float32", "conj", lax.conj, lambda rng: [_uniform(rng, (2, 3), F32, -2, 2)],
             lambda x: np.conj(x.astype(np.complex64)))
_grad_record("ew_grad_complex_float32", "complex", lax.complex,
             lambda rng: [_uniform(rng, (2, 3), F32, -2, 2), _uniform(rng, (1, 3), F32, -2, 2)],
             lambda x, y: (x + 1j * y).astype(np.complex64))
for _src, _dst in [(F32, C64), (C64, F32), (F32, np.dtype(np.float16)), (F32, np.dtype(np.int32))]:
  _grad_record(f"ew_grad_convert_{_src.name}_to_{_dst.name}", "convert_element_type",
               lambda x, dst=_dst: _convert(dst)(x),
               lambda rng, s=_src: [_uniform(rng, (2, 3), s, -2, 2)],
               lambda x, dst=_dst: _convert_reference(x, dst),
               grad_tol=5e-2 if _dst == np.float16 else None)
_grad_record("ew_grad_reduce_precision_float32", "reduce_precision",
             lambda x: lax.reduce_precision(x, 8, 20),
             lambda rng: [_uniform(rng, (2, 3), F32, -2, 2)],
             None)  # _reduce_precision_reference knows only the named formats
