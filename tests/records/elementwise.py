"""Op records for the non-transcendental elementwise lax primitives.

References are plain NumPy code for what XLA computes. Edge-value semantics (integer division by
zero, shifts past the width, saturating conversions, NaN handling, ...) are checked against real
JAX outputs in tests/test_elementwise.py; these records cover shapes, dtypes and broadcasting.
"""
import ml_dtypes
import numpy as np

from axle._src.lax import elementwise as lax
from tests.op_record import OpRecord, edge_values, random_array

bf16 = np.dtype(ml_dtypes.bfloat16)
INTS = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]
SIGNED = [np.int8, np.int16, np.int32]
FLOATS = [np.float16, bf16, np.float32]
NUMS = INTS + FLOATS + [np.complex64]
SHAPES = [(), (3,), (2, 3), (1, 3)]  # (1, 3) broadcasts against (2, 3)


def _name(dtype):
  return np.dtype(dtype).name


def _binary_args(dtype, shape_a=(2, 3), shape_b=(2, 3), low=-5, high=5, nonzero=False):
  def make(rng):
    a = random_array(rng, shape_a, dtype, low, high)
    b = random_array(rng, shape_b, dtype, low, high)
    if nonzero:
      b = np.where(b == 0, np.ones((), dtype), b).astype(dtype)
    return [a, b]
  return make


def _unary_args(dtype, shape=(2, 3), low=-5, high=5, with_edges=True):
  def make(rng):
    x = random_array(rng, shape, dtype, low, high)
    if with_edges and np.dtype(dtype).kind in "biu":
      x = np.concatenate([x.ravel(), edge_values(dtype)])
    return [x]
  return make


def _in_dtype(fn):
  """A reference computed in float32 and rounded back (for float16/bfloat16 inputs)."""
  def reference(*args):
    dtype = args[0].dtype
    if dtype in (np.float16, bf16):
      return np.asarray(fn(*[a.astype(np.float32) for a in args])).astype(dtype)
    with np.errstate(all="ignore"):
      return np.asarray(fn(*args)).astype(dtype)
  return reference


RECORDS = []


def _add(name, primitive, fun, reference, make_args, **kw):
  RECORDS.append(OpRecord(name, primitive, fun, reference, make_args, **kw))


for dtype in NUMS:
  n = _name(dtype)
  tol = dict(rtol=1e-2, atol=1e-2) if dtype in (np.float16, bf16) else {}
  for op, ref in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply)]:
    for sa, sb in [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((), (3,))]:
      _add(f"ew_{op}_{n}_{sa}_{sb}", op, getattr(lax, op), _in_dtype(ref),
           _binary_args(dtype, sa, sb), **tol)
  _add(f"ew_square_{n}", "square", lax.square, _in_dtype(np.square), _unary_args(dtype), **tol)
  _add(f"ew_integer_pow3_{n}", "integer_pow", lambda x: lax.integer_pow(x, 3),
       _in_dtype(lambda x: x * x * x), _unary_args(dtype, low=-3, high=3), **tol)
  _add(f"ew_neg_{n}", "neg", lax.neg, _in_dtype(np.negative), _unary_args(dtype), **tol)
  _add(f"ew_sign_{n}", "sign", lax.sign, _in_dtype(np.sign), _unary_args(dtype, with_edges=False),
       **tol)
  _add(f"ew_eq_{n}", "eq", lax.eq, np.equal, _binary_args(dtype, low=-2, high=2))
  _add(f"ew_ne_{n}", "ne", lax.ne, np.not_equal, _binary_args(dtype, low=-2, high=2))
  _add(f"ew_div_{n}", "div", lax.div,
       _in_dtype(np.true_divide) if np.dtype(dtype).kind in "fcV" else
       (lambda x, y: (np.trunc(x.astype(np.float64) / y)).astype(x.dtype)),
       _binary_args(dtype, nonzero=True, low=-20 if np.dtype(dtype).kind == "i" else 0, high=20),
       **({"rtol": 2e-2, "atol": 2e-2} if dtype in (np.float16, bf16) else {"rtol": 1e-5}))

for dtype in INTS + FLOATS:
  n = _name(dtype)
  tol = dict(rtol=1e-2, atol=1e-2) if dtype in (np.float16, bf16) else {}
  for op, ref in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                  ("ge", np.greater_equal)]:
    _add(f"ew_{op}_{n}", op, getattr(lax, op), ref, _binary_args(dtype, (2, 3), (1, 3), -2, 2))
  _add(f"ew_max_{n}", "max", lax.max, _in_dtype(np.maximum), _binary_args(dtype))
  _add(f"ew_min_{n}", "min", lax.min, _in_dtype(np.minimum), _binary_args(dtype, (), (2, 3)))
  _add(f"ew_rem_{n}", "rem", lax.rem, _in_dtype(np.fmod), _binary_args(dtype, nonzero=True), **tol)
  _add(f"ew_clamp_{n}", "clamp", lambda x: lax.clamp(np.array(0, x.dtype), x, np.array(3, x.dtype)),
       lambda x: np.clip(x, np.array(0, x.dtype), np.array(3, x.dtype)).astype(x.dtype),
       _unary_args(dtype))

for dtype in SIGNED + [np.float32, np.complex64]:
  _add(f"ew_abs_{_name(dtype)}", "abs", lax.abs, np.abs, _unary_args(dtype, with_edges=False))

for dtype in FLOATS:
  n = _name(dtype)
  for op, ref in [("floor", np.floor), ("ceil", np.ceil), ("is_finite", np.isfinite)]:
    _add(f"ew_{op}_{n}", op, getattr(lax, op),
         (lambda r: lambda x: r(x.astype(np.float32)).astype(
             np.bool_ if r is np.isfinite else x.dtype))(ref), _unary_args(dtype))
  _add(f"ew_round_even_{n}", "round", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
       lambda x: np.rint(x.astype(np.float32)).astype(x.dtype), _unary_args(dtype))
  _add(f"ew_round_away_{n}", "round", lax.round,
       lambda x: (np.sign(x.astype(np.float32)) * np.floor(np.abs(x.astype(np.float32)) + 0.5)
                  ).astype(x.dtype), _unary_args(dtype))
  _add(f"ew_nextafter_{n}", "nextafter", lax.nextafter,
       lambda x, y: x, _binary_args(dtype), rtol=1e-2, atol=0)  # one ulp away
  _add(f"ew_pow_{n}", "pow", lax.pow,
       lambda x, y: np.power(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype),
       _binary_args(dtype, low=0, high=3), rtol=2e-2 if dtype != np.float32 else 1e-5)
  _add(f"ew_pow_int_exponent_{n}", "pow", lax.pow,
       lambda x, y: np.power(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype),
       lambda rng, dtype=dtype: [random_array(rng, (2, 3), dtype, 1, 3),
                                 random_array(rng, (2, 3), np.int32, -2, 3)],
       rtol=2e-2 if dtype != np.float32 else 1e-5)
  _add(f"ew_reduce_precision_{n}", "reduce_precision", lambda x: lax.reduce_precision(x, 5, 3),
       lambda x: x, _unary_args(dtype, low=1, high=4), rtol=0.07, atol=0)

for dtype in INTS + [np.bool_]:
  n = _name(dtype)
  for op, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                  ("bitwise_xor", np.bitwise_xor)]:
    _add(f"ew_{op}_{n}", {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}[op],
         getattr(lax, op), ref, _binary_args(dtype, low=-100, high=100))
  _add(f"ew_not_{n}", "not", lax.bitwise_not, np.invert, _unary_args(dtype))

for dtype in INTS:
  n = _name(dtype)
  bits = np.dtype(dtype).itemsize * 8
  amounts = lambda rng, dtype=dtype, bits=bits: [random_array(rng, (2, 3), dtype, -100, 100),
                                                 random_array(rng, (2, 3), dtype, 0, bits - 1)]
  _add(f"ew_shift_left_{n}", "shift_left", lax.shift_left, np.left_shift, amounts)
  _add(f"ew_shift_right_arithmetic_{n}", "shift_right_arithmetic", lax.shift_right_arithmetic,
       lambda x, y: np.right_shift(x.astype(f"i{x.dtype.itemsize}"), y.astype(f"i{x.dtype.itemsize}")
                                   ).astype(x.dtype), amounts)
  _add(f"ew_shift_right_logical_{n}", "shift_right_logical", lax.shift_right_logical,
       lambda x, y: np.right_shift(x.astype(f"u{x.dtype.itemsize}"), y.astype(f"u{x.dtype.itemsize}")
                                   ).astype(x.dtype), amounts)
  _add(f"ew_population_count_{n}", "population_count", lax.population_count,
       lambda x: np.array([bin(int(v) & ((1 << 8 * x.dtype.itemsize) - 1)).count("1") for v in x.ravel()],
                          x.dtype).reshape(x.shape), _unary_args(dtype, low=-100, high=100))
  _add(f"ew_clz_{n}", "clz", lax.clz,
       lambda x: np.array([8 * x.dtype.itemsize - (int(v) & ((1 << 8 * x.dtype.itemsize) - 1)).bit_length()
                           for v in x.ravel()], x.dtype).reshape(x.shape),
       _unary_args(dtype, low=-100, high=100))

for dtype in [np.float32]:
  _add("ew_complex_f32", "complex", lax.complex, lambda x, y: x + 1j * y.astype(np.complex64),
       _binary_args(dtype, (2, 3), (1, 3)))
  _add("ew_conj_f32", "conj", lax.conj, lambda x: x.astype(np.complex64), _unary_args(dtype))
for dtype in [np.complex64]:
  _add("ew_real_c64", "real", lax.real, np.real, _unary_args(dtype))
  _add("ew_imag_c64", "imag", lax.imag, np.imag, _unary_args(dtype))
  _add("ew_conj_c64", "conj", lax.conj, np.conj, _unary_args(dtype))

for dtype in [np.int32, np.float32, bf16, np.bool_]:
  n = _name(dtype)
  _add(f"ew_select_{n}", "select_n", lax.select,
       lambda p, x, y: np.where(p, x, y),
       lambda rng, dtype=dtype: [random_array(rng, (2, 3), np.bool_), random_array(rng, (2, 3), dtype),
                                 random_array(rng, (2, 3), dtype)])
  _add(f"ew_select_n3_{n}", "select_n", lambda w, a, b, c: lax.select_n(w, a, b, c),
       lambda w, a, b, c: np.choose(w, [a, b, c]),
       lambda rng, dtype=dtype: [random_array(rng, (2, 3), np.int32, 0, 2)] +
       [random_array(rng, (2, 3), dtype) for _ in range(3)])
  _add(f"ew_copy_{n}", "copy", lambda x: lax.copy_p.bind(x), np.copy, _unary_args(dtype))

_CONVERT_DTYPES = [np.bool_, np.int8, np.int32, np.uint8, np.uint32, np.float16, bf16, np.float32,
                   np.complex64]
for src in _CONVERT_DTYPES:
  for dst in _CONVERT_DTYPES:
    if np.dtype(src).kind == "c" and np.dtype(dst).kind != "c":
      continue  # complex -> real warns; covered in test_elementwise.py
    # In-range values, where XLA's conversion is NumPy's astype.
    _add(f"ew_convert_{_name(src)}_to_{_name(dst)}", "convert_element_type",
         lambda x, dst=dst: lax.convert_element_type(x, dst),
         lambda x, dst=dst: x.astype(np.float32).astype(dst) if x.dtype == bf16 else x.astype(dst),
         _unary_args(src, low=0, high=100, with_edges=False))

for src, dst in [(np.float32, np.int32), (np.float32, np.uint8), (np.int32, np.float32),
                 (np.uint16, np.float16), (np.int16, bf16), (np.float32, np.int16)]:
  _add(f"ew_bitcast_{_name(src)}_to_{_name(dst)}", "bitcast_convert_type",
       lambda x, dst=dst: lax.bitcast_convert_type(x, dst),
       lambda x, dst=dst: (x.reshape(x.shape + (1,)).view(dst) if np.dtype(dst).itemsize < x.dtype.itemsize
                           else x.view(dst).reshape(x.shape[:-1]) if np.dtype(dst).itemsize > x.dtype.itemsize
                           else x.view(dst)),
       _unary_args(src, shape=(3, 2), with_edges=False))
