"""Dtype conversions among the elementwise lax primitives: ``convert_element_type``,
``bitcast_convert_type``, ``reduce_precision`` and ``copy``.

The conversion kernel reproduces XLA's ``convert`` on the CPU: float -> integer truncates
toward zero and saturates at the integer's range, NaN becomes 0; float -> bool is ``x != 0``
(NaN is True); complex -> real keeps the real part; integer -> integer wraps.
"""
from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from axle._src import checkpoint
from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.interpreters import staging
from axle._src.lax import utils

_extobj_contextvar = eval_interpreter.numpy_error_state
_IGNORE_ALL = eval_interpreter.IGNORE_ALL_ERRORS


class _QuietFloatingPoint:
  """``np.errstate(all="ignore")`` at a fraction of its cost (this is on every eager op's path):
  XLA raises no floating-point exceptions, so kernels must not warn."""
  __slots__ = ("_token", "_fallback")

  def __enter__(self):
    if _extobj_contextvar is None:
      self._fallback = np.errstate(all="ignore")
      self._fallback.__enter__()
    else:
      self._token = _extobj_contextvar.set(_IGNORE_ALL)

  def __exit__(self, *exc):
    if _extobj_contextvar is None:
      self._fallback.__exit__(*exc)
    else:
      _extobj_contextvar.reset(self._token)
    return False


_ignore_fp = _QuietFloatingPoint


def quiet(ufunc):
  """``ufunc`` called with floating-point warnings silenced."""
  if _extobj_contextvar is None:  # pragma: no cover
    def call(*args):
      with np.errstate(all="ignore"):
        return ufunc(*args)
    return call

  def call(*args):
    token = _extobj_contextvar.set(_IGNORE_ALL)
    try:
      return ufunc(*args)
    finally:
      _extobj_contextvar.reset(token)
  return call
_python_scalar_types = core.python_scalar_types
_custom_floats = frozenset({np.dtype(dtypes.bfloat16)})


def _is_float(dtype: np.dtype) -> bool:
  return dtype.kind == "f" or dtype in _custom_floats


# ---------------------------------------------------------------------------
# convert_element_type


def _float_to_int(x, new_dtype: np.dtype):
  if x.dtype.itemsize < 4:
    x = x.astype(np.float32)  # exact; NumPy has no direct bfloat16 -> int cast we can trust
  bits = 8 * new_dtype.itemsize
  info = np.iinfo(new_dtype)
  with _ignore_fp():
    if new_dtype.kind == "i":
      high = x >= float(2 ** (bits - 1))
      low = x < -float(2 ** (bits - 1))
    else:
      high = x >= float(2 ** bits)
      low = x <= -1.0
    bad = high | low | np.isnan(x)
    if not bad.any():
      return x.astype(new_dtype)
    out = np.where(bad, np.zeros((), x.dtype), x).astype(new_dtype)
  out = np.where(high, np.array(info.max, new_dtype), out)
  return np.where(low, np.array(info.min, new_dtype), out)


def convert_value(x, new_dtype: np.dtype):
  """``x`` (a NumPy value) converted to ``new_dtype`` with XLA's semantics."""
  old_dtype = x.dtype
  if old_dtype == new_dtype:
    return x
  if old_dtype.kind == "c" and new_dtype.kind != "c":
    x = np.real(x)
    old_dtype = x.dtype
    if old_dtype == new_dtype:
      return np.array(x, copy=True)
  if _is_float(old_dtype):
    if new_dtype.kind in "iu":
      return _float_to_int(x, new_dtype)
    if new_dtype.kind == "b":
      return np.not_equal(x, np.zeros((), old_dtype))
  with _ignore_fp():
    return x.astype(new_dtype)


def _convert_element_type_rule(x: ShapedArray, *, new_dtype, weak_type, sharding) -> ShapedArray:
  return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_element_type_impl(x, *, new_dtype, weak_type, sharding):
  return convert_value(x, new_dtype)


convert_element_type_p = core.Primitive("convert_element_type")
convert_element_type_p.def_abstract_eval(_convert_element_type_rule)
convert_element_type_p.def_impl(_convert_element_type_impl)
staging.forwarding_rules[convert_element_type_p] = lambda avals, params: [
    0 if (avals[0].dtype == params["new_dtype"] and avals[0].weak_type == params["weak_type"]
          and params["sharding"] is None) else None]
# JAX prints no sharding: the binder's type implies it.
ir.pp_param_rules[convert_element_type_p] = lambda params: {
    k: v for k, v in params.items() if k != "sharding"}


def _convert_element_type_lowering(ctx, x, *, new_dtype, weak_type, sharding):
  # XLA's convert already saturates float -> integer (NaN -> 0) and wraps integer -> integer.
  # As in JAX: complex -> real takes the real part first; anything -> bool is ``x != 0``; the
  # convert is emitted even when the types already agree (the equation changed the weak type).
  old_dtype = x.aval.dtype
  if old_dtype.kind == "c" and new_dtype.kind != "c":
    x = mlir.op(ctx, "stablehlo.real", [x], ShapedArray(x.aval.shape, utils.real_dtype_of(old_dtype)))
  if new_dtype == np.bool_:  # (bool -> bool too: a weak bool made strong)
    x = mlir.compare(ctx, x, mlir.full_like_aval(ctx, 0, x.aval), "NE")
  return mlir.op(ctx, "stablehlo.convert", [x], ShapedArray(x.aval.shape, np.dtype(new_dtype)))


mlir.register(convert_element_type_p, _convert_element_type_lowering)


def _convert_element_type_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
  (operand,), (tangent,) = primals, tangents
  out = convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type,
                                    sharding=sharding)
  tangent_dtype = ad.tangent_dtype(new_dtype)
  if tangent_dtype == ad.float0:
    return out, ad.Zero.from_primal_value(out)
  return out, _convert_tangent(tangent, tangent_dtype, weak_type, sharding)


def _convert_tangent(t, new_dtype, weak_type, sharding):
  # A constant scalar (grad's seed 1.0) is converted right away, as JAX folds it.
  if isinstance(t, (np.ndarray, np.generic, Array)) and np.ndim(t) == 0 and sharding is None:
    return _convert_element_type(np.asarray(t), new_dtype, weak_type,
                                 warn_on_complex_to_real_cast=False)
  return convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                     sharding=sharding)


def _convert_element_type_transpose(ct, operand, *, new_dtype, weak_type, sharding):
  aval = operand.aval
  if ad.tangent_dtype(aval.dtype) == ad.float0:
    return [ad.Zero(ad.tangent_aval(aval))]
  return [_convert_tangent(ct, aval.dtype, aval.weak_type, sharding)]


ad.primitive_jvps[convert_element_type_p] = _convert_element_type_jvp
ad.primitive_transposes[convert_element_type_p] = _convert_element_type_transpose
batching.defvectorized(convert_element_type_p)


def _convert_element_type_fold(trace, args, params):
  # Staging the conversion of a literal of the trace folds it into a new literal (JAX's
  # constant folding of convert_element_type), e.g. the seed cotangent of grad under jit.
  (operand,) = args
  if (params["sharding"] is not None or getattr(operand, "_trace", None) is not trace
      or type(getattr(operand, "jaxpr_var", None)) is not ir.Literal):
    return None
  literal = operand.jaxpr_var
  new_dtype = params["new_dtype"]
  value = convert_value(np.asarray(literal.val, literal.aval.dtype), new_dtype)
  return trace.literal_tracer(np.asarray(value, new_dtype)[()],
                              ShapedArray((), new_dtype, params["weak_type"]))


staging.folding_rules[convert_element_type_p] = _convert_element_type_fold


def _fold_scalar(operand, old_dtype, new_dtype, weak_type):
  """A Python or NumPy scalar converted right away (no equation is staged, as in JAX)."""
  value = np.asarray(operand)
  if value.dtype == object:  # a Python int beyond 64 bits, e.g. convert_element_type(2**100, float32)
    with _ignore_fp():
      value = value.astype(new_dtype)
  else:
    if value.dtype != old_dtype and type(operand) is not int:
      value = value.astype(old_dtype)  # a Python int keeps 64 bits: 2**40 -> float32 is fine
    value = convert_value(value, new_dtype)
  return Array(np.asarray(value, new_dtype), weak_type)


def _convert_element_type(operand, new_dtype=None, weak_type=False, sharding=None,
                          warn_on_complex_to_real_cast=True, explicit=False):
  """Converts ``operand`` to ``new_dtype`` (a canonical np.dtype, or None to keep the dtype)
  with weak type ``weak_type``: the internal form of ``lax.convert_element_type``.

  Python and NumPy scalars (0-d NumPy arrays included) are converted right away (under a trace
  they become literals, as JAX folds such constants);
  an Array or tracer that already has the dtype and weak type is returned as is; anything
  else binds ``convert_element_type``.
  """
  if not isinstance(operand, (Array, core.Tracer)) and hasattr(operand, "__jax_array__"):
    operand = operand.__jax_array__()
  weak_type = bool(weak_type)
  typ = type(operand)
  if typ in _python_scalar_types or isinstance(operand, np.generic) or (
      typ is np.ndarray and operand.ndim == 0):
    if typ in _python_scalar_types:
      dtypes.check_python_scalar(operand, new_dtype, explicit)
      old_dtype = dtypes.python_scalar_dtype(typ)
    else:
      old_dtype = dtypes.canonicalize_dtype(operand.dtype)
    new_dtype = old_dtype if new_dtype is None else np.dtype(new_dtype)
    _maybe_warn_complex_to_real(old_dtype, new_dtype, warn_on_complex_to_real_cast)
    if sharding is None and not (
        # Non-finite floats to integers go through the primitive (XLA's saturating semantics).
        new_dtype.kind in "iu" and isinstance(operand, (float, builtins.complex, np.inexact))
        and not np.isfinite(operand)):
      return _fold_scalar(operand, old_dtype, new_dtype, weak_type)
  else:
    aval = getattr(operand, "aval", None)
    if aval is None:
      aval = core.get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else np.dtype(new_dtype)
    _maybe_warn_complex_to_real(aval.dtype, new_dtype, warn_on_complex_to_real_cast)
    if (isinstance(operand, (Array, core.Tracer)) and aval.dtype == new_dtype
        and aval.weak_type == weak_type and sharding is None):
      return operand
  return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type,
                                     sharding=sharding)


def _maybe_warn_complex_to_real(old_dtype, new_dtype, warn: bool) -> None:
  if warn and old_dtype.kind == "c" and new_dtype.kind != "c":
    warnings.warn("Casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=4)


def convert_element_type(operand, new_dtype):
  """Elementwise cast of ``operand`` to ``new_dtype`` (``lax.convert_element_type``), like a C
  ``static_cast``: floats to integers truncate toward zero and saturate (NaN gives 0), complex
  to real keeps the real part. A 64-bit ``new_dtype`` becomes its 32-bit counterpart unless
  x64 is enabled. An array that already has ``new_dtype`` is returned unchanged."""
  new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type")
  return _convert_element_type(operand, new_dtype, weak_type=False, explicit=True)


# ---------------------------------------------------------------------------
# bitcast_convert_type


def _bitcast_convert_type_rule(x: ShapedArray, *, new_dtype) -> ShapedArray:
  old_dtype = x.dtype
  if (old_dtype.kind in "bc" or new_dtype.kind in "bc") and old_dtype != new_dtype:
    raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless the "
                    f"operand and destination types match. Got operand dtype={old_dtype}, "
                    f"new_dtype={new_dtype!r}. Consider using the arr.view() method instead.")
  old_bits = dtypes.itemsize_bits(old_dtype)
  new_bits = dtypes.itemsize_bits(new_dtype)
  if old_bits == new_bits:
    shape = x.shape
  elif old_bits > new_bits:
    shape = (*x.shape, old_bits // new_bits)
  else:
    size = x.shape[-1] if x.shape else 1
    if size * old_bits != new_bits:
      raise ValueError(f"Attempting to convert array of shape {x.shape} from {old_dtype} of size "
                       f"{old_bits} bits to {new_dtype} of size {new_bits}, bits but {size} * "
                       f"{old_bits} != {new_bits}")
    shape = x.shape[:-1]
  return ShapedArray(shape, new_dtype, False)


def _bitcast_convert_type_impl(x, *, new_dtype):
  x = np.array(x, copy=True, order="C")  # the result must not alias the operand's memory
  old_size, new_size = x.dtype.itemsize, new_dtype.itemsize
  if old_size == new_size:
    return x.view(new_dtype)
  if old_size > new_size:  # little-endian: the low-order part comes first, as on XLA's CPU
    return x.reshape(x.shape + (1,)).view(new_dtype)
  return x.view(new_dtype).reshape(x.shape[:-1])


bitcast_convert_type_p = core.Primitive("bitcast_convert_type")
bitcast_convert_type_p.def_abstract_eval(_bitcast_convert_type_rule)
bitcast_convert_type_p.def_impl(_bitcast_convert_type_impl)
# A narrower new_dtype adds a trailing dimension, a wider one removes it: the result aval says which.
mlir.register(bitcast_convert_type_p, lambda ctx, x, *, new_dtype: mlir.op(
    ctx, "stablehlo.bitcast_convert", [x], ctx.avals_out[0]))
ad.defjvp_zero(bitcast_convert_type_p)  # as in JAX: reinterpreted bits have no derivative


def _bitcast_convert_type_batcher(values, dims, *, new_dtype):
  (x,), (d,) = values, dims
  aval = core.get_aval(x)
  if dtypes.itemsize_bits(new_dtype) > dtypes.itemsize_bits(aval.dtype) and d == aval.ndim - 1:
    # A wider dtype consumes the last axis: the batch axis must not be it.
    x, d = batching.moveaxis(x, d, 0), 0
  return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


batching.primitive_batchers[bitcast_convert_type_p] = _bitcast_convert_type_batcher


def bitcast_convert_type(operand, new_dtype):
  """Reinterprets the bits of ``operand`` as ``new_dtype`` (``lax.bitcast_convert_type``).

  With a narrower ``new_dtype`` the result gains a trailing dimension of size
  ``old_itemsize // new_itemsize``; with a wider one the operand's last dimension must have
  exactly ``new_itemsize // old_itemsize`` elements and is removed.
  """
  new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "bitcast_convert_type")
  return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


# ---------------------------------------------------------------------------
# reduce_precision

# (exponent bits, mantissa bits) of each floating dtype's own format
_float_formats = {np.dtype(np.float16): (5, 10), np.dtype(dtypes.bfloat16): (8, 7),
                  np.dtype(np.float32): (8, 23), np.dtype(np.float64): (11, 52)}


def _reduce_precision_rule(x: ShapedArray, *, exponent_bits, mantissa_bits) -> ShapedArray:
  if not utils.dtype_in(x.dtype, (np.floating,)):
    raise TypeError(f"reduce_precision does not accept dtype {x.dtype.name}. Accepted dtypes are "
                    "subtypes of floating.")
  if exponent_bits < 1:
    raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
  if mantissa_bits < 0:
    raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
  return x


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
  # XLA's algorithm on the bit pattern: round the mantissa to nearest even, then overflow to
  # infinity / underflow to (signed) zero outside the reduced exponent range; NaNs stay NaN.
  source_exponent, source_mantissa = _float_formats[x.dtype]
  uint = np.dtype(f"u{x.dtype.itemsize}")
  nbits = 8 * x.dtype.itemsize
  original = x
  bits = np.array(x, copy=True, order="C").view(uint)
  one = uint.type(1)
  with _ignore_fp():
    if mantissa_bits < source_mantissa:
      drop = source_mantissa - mantissa_bits
      last_kept = uint.type(1 << drop)
      half_minus_one = uint.type((1 << (drop - 1)) - 1)
      bias = ((bits & last_kept) >> uint.type(drop)) + half_minus_one
      bits = (bits + bias) & ~(last_kept - one)
    if exponent_bits < source_exponent:
      sign_mask = uint.type(1 << (nbits - 1))
      exponent_mask = uint.type(((1 << source_exponent) - 1) << source_mantissa)
      bias = (1 << (source_exponent - 1)) - 1
      reduced_bias = (1 << (exponent_bits - 1)) - 1
      max_exponent = uint.type((bias + reduced_bias) << source_mantissa)
      min_exponent = uint.type((bias - reduced_bias) << source_mantissa)
      exponent = bits & exponent_mask
      signed_zero = bits & sign_mask
      bits = np.where(exponent > max_exponent, signed_zero | exponent_mask,
                      np.where(exponent <= min_exponent, signed_zero, bits))
    out = np.asarray(bits, uint).view(x.dtype)
    nan = np.isnan(original.astype(np.float32) if x.dtype.itemsize < 4 else original)
  return np.where(nan, original, out)


reduce_precision_p = core.Primitive("reduce_precision")
reduce_precision_p.def_abstract_eval(_reduce_precision_rule)
reduce_precision_p.def_impl(_reduce_precision_impl)


def _reduce_precision_lowering(ctx, x, *, exponent_bits, mantissa_bits):
  return mlir.op(ctx, "stablehlo.reduce_precision", [x], ctx.avals_out[0],
                 {"exponent_bits": f"{int(exponent_bits)} : i32",
                  "mantissa_bits": f"{int(mantissa_bits)} : i32"})


mlir.register(reduce_precision_p, _reduce_precision_lowering)
ad.deflinear(reduce_precision_p, lambda ct, **params: [reduce_precision_p.bind(ct, **params)])
batching.defvectorized(reduce_precision_p)
checkpoint.reduce_precision_primitive[0] = reduce_precision_p  # rounds remat's saved values


def reduce_precision(operand, exponent_bits, mantissa_bits):
  """Rounds ``operand`` to a float format with ``exponent_bits`` exponent bits and
  ``mantissa_bits`` mantissa bits, keeping its dtype (``lax.reduce_precision``): values beyond
  the format's range become infinities, values below its smallest normal become zero."""
  exponent_bits = core.concrete_or_error(operator.index, exponent_bits,
                                         "exponent_bits argument of lax.reduce_precision")
  mantissa_bits = core.concrete_or_error(operator.index, mantissa_bits,
                                         "mantissa_bits argument of lax.reduce_precision")
  return reduce_precision_p.bind(operand, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)


# ---------------------------------------------------------------------------
# copy


def _copy_rule(x: ShapedArray) -> ShapedArray:
  return x


def _copy_impl(x):
  return np.array(x, copy=True)


copy_p = core.Primitive("copy")
copy_p.def_abstract_eval(_copy_rule)
copy_p.def_impl(_copy_impl)
# A copy is the identity in XLA (every result gets its own buffer); JAX emits no operation.
mlir.register(copy_p, lambda ctx, x: x)
ad.deflinear(copy_p, lambda ct: [copy_p.bind(ct)])
batching.defvectorized(copy_p)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

eval_interpreter.exact_kernels(bitcast_convert_type_p, copy_p)
_LARGE_NARROW_CONVERSION = 4096  # elements
_NARROW = eval_interpreter.NARROW_FLOATS


def _numpy_converts_quickly(avals, params) -> bool:
  """NumPy's float16 and bfloat16 conversions are exact but slow (a scalar loop: 25 us for
  10,000 float32 elements, XLA's 5; float32 to bfloat16 864 us for 2**20, XLA's 232): large
  ones run on XLA (from either side, so the target dtype counts too)."""
  operand = avals[0]
  if operand.dtype not in _NARROW and params.get("new_dtype") not in _NARROW:
    return True
  return operand.size <= _LARGE_NARROW_CONVERSION


eval_interpreter.exact_kernels(convert_element_type_p, when=_numpy_converts_quickly,
                               subnormals=True, max_size=eval_interpreter.HOST_KERNEL_LIMIT)
eval_interpreter.exact_kernels(reduce_precision_p, subnormals=True,
                               max_size=eval_interpreter.HOST_KERNEL_LIMIT)
