"""axle's dtypes: the dtype set, x64 canonicalisation, weak types and the promotion lattice.

JAX computes with NumPy dtypes plus the ml_dtypes extensions (bfloat16, the
narrow floats and the 1/2/4-bit integers). With ``jax_enable_x64`` off (the
default), 64-bit dtypes *canonicalise* to their 32-bit counterparts.

Python scalars (``int``, ``float``, ``complex``) are *weakly typed*: they take
the dtype of the array they meet instead of widening it, so ``x_f16 * 2.0``
stays float16. Binary operations promote operands with the least upper bound
on JAX's type promotion lattice (see the "Type promotion semantics" page of
the JAX documentation); ``result_type`` is that join, cached because it runs
on every ``jax.numpy`` operation.
"""
from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np

from axle._src.config import config

# The flag dict that ``config.update`` mutates in place; reading it directly
# keeps the hot paths (canonicalize_dtype, result_type) to a dict lookup.
_flags = config._values


# ---------------------------------------------------------------------------
# The dtype set

bfloat16: type[np.generic] = ml_dtypes.bfloat16
float4_e2m1fn: type[np.generic] = ml_dtypes.float4_e2m1fn
float6_e2m3fn: type[np.generic] = ml_dtypes.float6_e2m3fn
float6_e3m2fn: type[np.generic] = ml_dtypes.float6_e3m2fn
float8_e3m4: type[np.generic] = ml_dtypes.float8_e3m4
float8_e4m3: type[np.generic] = ml_dtypes.float8_e4m3
float8_e8m0fnu: type[np.generic] = ml_dtypes.float8_e8m0fnu
float8_e4m3b11fnuz: type[np.generic] = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn: type[np.generic] = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz: type[np.generic] = ml_dtypes.float8_e4m3fnuz
float8_e5m2: type[np.generic] = ml_dtypes.float8_e5m2
float8_e5m2fnuz: type[np.generic] = ml_dtypes.float8_e5m2fnuz
int1: type[np.generic] | None = getattr(ml_dtypes, "int1", None)
uint1: type[np.generic] | None = getattr(ml_dtypes, "uint1", None)
int2: type[np.generic] = ml_dtypes.int2
uint2: type[np.generic] = ml_dtypes.uint2
int4: type[np.generic] = ml_dtypes.int4
uint4: type[np.generic] = ml_dtypes.uint4

# JAX's names for the 64-bit default scalar types.
bool_ = np.bool_
int_: type[np.generic] = np.int64
uint: type[np.generic] = np.uint64
float_: type[np.generic] = np.float64
complex_: type[np.generic] = np.complex128

# The dtype of the tangent of an integer or boolean primal: a zero-sized "trivial
# vector space" (it prints as float0).
float0: np.dtype = np.dtype([("float0", np.void, 0)])

_bfloat16_dtype = np.dtype(bfloat16)
_float8_dtypes = [np.dtype(t) for t in (float8_e3m4, float8_e4m3, float8_e8m0fnu,
                                       float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
                                       float8_e5m2, float8_e5m2fnuz)]
_float6_dtypes = [np.dtype(float6_e2m3fn), np.dtype(float6_e3m2fn)]
_float4_dtypes = [np.dtype(float4_e2m1fn)]
# Floats that are not part of NumPy's scalar hierarchy; the narrow ones (all but
# bfloat16) promote with nothing but themselves.
_narrow_float_dtypes = _float4_dtypes + _float6_dtypes + _float8_dtypes
_custom_float_dtypes = _narrow_float_dtypes + [_bfloat16_dtype]
_custom_float_scalar_types = frozenset(d.type for d in _custom_float_dtypes)

_signed_intn_types = tuple(t for t in (int1, int2, int4) if t is not None)
_unsigned_intn_types = tuple(t for t in (uint1, uint2, uint4) if t is not None)
_intn_dtypes = [np.dtype(t) for t in _signed_intn_types + _unsigned_intn_types]

_bool_dtypes = [np.dtype(bool)]
_signed_dtypes = ([np.dtype(t) for t in _signed_intn_types]
                  + [np.dtype(n) for n in ("int8", "int16", "int32", "int64")])
_unsigned_dtypes = ([np.dtype(t) for t in _unsigned_intn_types]
                    + [np.dtype(n) for n in ("uint8", "uint16", "uint32", "uint64")])
_float_dtypes = _custom_float_dtypes + [np.dtype(n) for n in ("float16", "float32", "float64")]
_complex_dtypes = [np.dtype("complex64"), np.dtype("complex128")]

# Every dtype that takes part in promotion.
_jax_dtypes = _bool_dtypes + _unsigned_dtypes + _signed_dtypes + _float_dtypes + _complex_dtypes
# Every dtype an array may have (float0 for integer tangents, StringDType for strings).
_string_dtype = np.dtypes.StringDType()
_valid_dtypes = frozenset(_jax_dtypes) | {float0, _string_dtype}

# The Python scalar types, which are weakly typed, and their dtypes before canonicalisation.
_weak_scalar_types = (int, float, complex)
python_scalar_types = frozenset({bool, int, float, complex})
python_scalar_types_to_dtypes = {
    bool: np.dtype("bool"),
    int: np.dtype("int64"),
    float: np.dtype("float64"),
    complex: np.dtype("complex128"),
}

_dtype_to_32bit = {
    np.dtype("int64"): np.dtype("int32"),
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("float64"): np.dtype("float32"),
    np.dtype("complex128"): np.dtype("complex64"),
}


class extended(np.generic):
  """Scalar class of extended dtypes (such as PRNG key dtypes).

  Never instantiated: it exists so that ``issubdtype(dt, extended)`` can ask
  whether a dtype is an extended (non-NumPy) one.
  """


class prng_key(extended):
  """Scalar class of PRNG key dtypes: ``issubdtype(key.dtype, prng_key)``."""


extended.__module__ = prng_key.__module__ = "axle.dtypes"


class ExtendedDType:
  """Base class of extended dtypes (dtypes that are not NumPy dtypes, e.g. PRNG keys).

  A subclass provides ``type`` (a subclass of ``extended``), ``name`` and ``_rules``.
  """
  type: type = extended
  name: str = "extended"
  _rules: Any = None


class TypePromotionError(ValueError):
  """Raised when JAX type promotion fails: the dtypes have no implicit promotion path."""


TypePromotionError.__module__ = "axle.dtypes"


# ---------------------------------------------------------------------------
# Defaults and canonicalisation

_DEFAULTS = {
    False: {"b": np.dtype(bool), "i": np.dtype("int32"), "u": np.dtype("uint32"),
            "f": np.dtype("float32"), "c": np.dtype("complex64")},
    True: {"b": np.dtype(bool), "i": np.dtype("int64"), "u": np.dtype("uint64"),
           "f": np.dtype("float64"), "c": np.dtype("complex128")},
}


def default_int_dtype() -> np.dtype:
  """The default integer dtype: int64 with ``jax_enable_x64``, else int32."""
  return _DEFAULTS[_flags["jax_enable_x64"]]["i"]


def default_uint_dtype() -> np.dtype:
  """The default unsigned integer dtype: uint64 with ``jax_enable_x64``, else uint32."""
  return _DEFAULTS[_flags["jax_enable_x64"]]["u"]


def default_float_dtype() -> np.dtype:
  """The default floating dtype: float64 with ``jax_enable_x64``, else float32."""
  return _DEFAULTS[_flags["jax_enable_x64"]]["f"]


def default_complex_dtype() -> np.dtype:
  """The default complex dtype: complex128 with ``jax_enable_x64``, else complex64."""
  return _DEFAULTS[_flags["jax_enable_x64"]]["c"]


def _default_for_python_type(typ: type) -> np.dtype:
  return _DEFAULTS[_flags["jax_enable_x64"]][python_scalar_types_to_dtypes[typ].kind]


_canonical_cache: dict = {False: {}, True: {}}


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> np.dtype:
  """Converts a dtype-like (dtype, scalar type, string) to the dtype JAX computes with.

  With ``jax_enable_x64`` off, 64-bit dtypes become their 32-bit counterparts
  (int64 -> int32, uint64 -> uint32, float64 -> float32, complex128 -> complex64).
  """
  x64 = _flags["jax_enable_x64"]
  cache = _canonical_cache[x64]
  try:
    return cache[dtype]
  except (KeyError, TypeError):
    pass
  if isinstance(dtype, ExtendedDType) or (isinstance(dtype, type) and _issubclass(dtype, extended)):
    if not allow_extended_dtype:
      raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                       "with allow_extended_dtype=False")
    return dtype
  try:
    np_dtype = np.dtype(dtype)
  except TypeError as err:
    raise TypeError(f"dtype {dtype!r} not understood") from err
  result = np_dtype if x64 else _dtype_to_32bit.get(np_dtype, np_dtype)
  try:
    cache[dtype] = result
  except TypeError:  # unhashable dtype-like
    pass
  return result


def _explicit_x64_message(dtype: np.dtype, fun_name: str | None, canonical: np.dtype) -> str:
  where = f" requested in {fun_name}" if fun_name else ""
  return (f"Explicitly requested dtype {dtype}{where} is not available, and will be truncated "
          f"to dtype {canonical.name}. To enable more dtypes, set the jax_enable_x64 "
          "configuration option or the JAX_ENABLE_X64 shell environment variable. "
          "See https://github.com/jax-ml/jax#current-gotchas for more.")


def _canonicalize_explicit(dtype: np.dtype, fun_name: str | None, stacklevel: int) -> np.dtype:
  """Canonicalises a dtype the user asked for by name, warning when that narrows it."""
  if _flags["jax_enable_x64"]:
    return dtype
  canonical = _dtype_to_32bit.get(dtype, dtype)
  if canonical != dtype:
    warnings.warn(_explicit_x64_message(dtype, fun_name, canonical), stacklevel=stacklevel + 1)
  return canonical


def _is_array(x) -> bool:
  return getattr(x, "aval", None) is not None and hasattr(x, "dtype")


def check_and_canonicalize_user_dtype(dtype, fun_name: str | None = None) -> np.dtype:
  """Validates a user-supplied ``dtype=`` argument and returns its canonical dtype.

  Python scalar types give the default dtypes (``float`` -> float32 without x64),
  silently. An explicit 64-bit dtype with ``jax_enable_x64`` off warns (UserWarning)
  and is truncated to 32 bits. Non-numeric dtypes raise TypeError.
  """
  return _check_user_dtype(dtype, fun_name)


def check_user_dtype_supported(dtype, fun_name: str | None = None):
  """Checks a user-supplied ``dtype=`` argument as JAX does; returns its canonical dtype.

  ``None`` (no dtype requested) passes through as ``None``. Otherwise this is
  ``check_and_canonicalize_user_dtype``: the explicit-64-bit warning, TypeError for
  non-numeric dtypes, ValueError for an array passed as a dtype.
  """
  if dtype is None:
    return None
  return _check_user_dtype(dtype, fun_name)


def _check_user_dtype(dtype, fun_name):
  # The warning is raised from here so that stacklevel 4 names the code that called
  # the jnp function (user -> jnp.zeros -> check_user_dtype_supported -> here).
  if dtype is None:
    raise ValueError("dtype must be specified.")
  if _is_array(dtype):
    raise ValueError("Passing an array as a dtype argument is no longer supported; "
                     "instead of dtype=arr use dtype=arr.dtype.")
  if isinstance(dtype, ExtendedDType) or (isinstance(dtype, type) and _issubclass(dtype, extended)):
    return dtype
  if dtype is bool or dtype is int or dtype is float or dtype is complex:
    return _default_for_python_type(dtype)
  np_dtype = np.dtype(dtype)
  if np_dtype not in _valid_dtypes:
    where = f" in {fun_name}" if fun_name else ""
    raise TypeError(f"JAX only supports number, bool, and string dtypes, got dtype {dtype}{where}")
  if _flags["jax_enable_x64"]:
    return np_dtype
  canonical = _dtype_to_32bit.get(np_dtype, np_dtype)
  if canonical != np_dtype:
    warnings.warn(_explicit_x64_message(np_dtype, fun_name, canonical), stacklevel=4)
  return canonical


def check_valid_dtype(dtype: np.dtype) -> None:
  """Raises TypeError unless ``dtype`` is one an array may have."""
  if dtype not in _valid_dtypes:
    raise TypeError(f"Dtype {dtype} is not a valid JAX array type. Only arrays of numeric "
                    "types are supported by JAX.")


# ---------------------------------------------------------------------------
# Type predicates

def _issubclass(a, b) -> bool:
  try:
    return issubclass(a, b)
  except TypeError:
    return False


_issubdtype_cache: dict = {}


def issubdtype(a, b) -> bool:
  """Whether dtype-like ``a`` is below ``b`` in the scalar type hierarchy (``np.issubdtype``).

  Unlike NumPy, knows that bfloat16 and the narrow floats are ``np.floating``, that
  int4 etc. are ``np.signedinteger``/``np.unsignedinteger``, and about ``extended``.
  """
  try:
    return _issubdtype_cache[a, b]
  except KeyError:
    pass
  except TypeError:  # unhashable (e.g. an object with a .dtype): no caching
    return _issubdtype_uncached(a, b)
  result = _issubdtype_cache[a, b] = _issubdtype_uncached(a, b)
  return result


def _scalar_type(x):
  if isinstance(x, type) and _issubclass(x, np.generic):
    return x
  if isinstance(x, ExtendedDType):
    return x.type
  return np.dtype(x).type


def _issubdtype_uncached(a, b) -> bool:
  if isinstance(b, ExtendedDType):
    return isinstance(a, ExtendedDType) and a == b
  b_type = _scalar_type(b)
  a_type = _scalar_type(a)
  if _issubclass(b_type, extended):
    return _issubclass(a_type, b_type)
  if a_type in _custom_float_scalar_types:
    return b_type in (a_type, np.floating, np.inexact, np.number, np.generic)
  if a_type in _signed_intn_types:
    return b_type in (a_type, np.signedinteger, np.integer, np.number, np.generic)
  if a_type in _unsigned_intn_types:
    return b_type in (a_type, np.unsignedinteger, np.integer, np.number, np.generic)
  return bool(np.issubdtype(a_type, b_type))


_dtype_kinds = {
    "bool": set(_bool_dtypes),
    "signed integer": set(_signed_dtypes),
    "unsigned integer": set(_unsigned_dtypes),
    "integral": set(_signed_dtypes) | set(_unsigned_dtypes),
    "real floating": set(_float_dtypes),
    "complex floating": set(_complex_dtypes),
    "numeric": set(_signed_dtypes) | set(_unsigned_dtypes) | set(_float_dtypes)
               | set(_complex_dtypes),
}


def isdtype(dtype, kind) -> bool:
  """Whether ``dtype`` is of the given kind (array API ``isdtype``).

  ``kind`` is a dtype-like, one of 'bool', 'signed integer', 'unsigned integer',
  'integral', 'real floating', 'complex floating', 'numeric', or a tuple of these.
  """
  the_dtype = np.dtype(dtype)
  options = set()
  for k in (kind if isinstance(kind, tuple) else (kind,)):
    if isinstance(k, str) and k in _dtype_kinds:
      options |= _dtype_kinds[k]
      continue
    try:
      options.add(np.dtype(k))
    except TypeError as err:
      if isinstance(k, str):
        raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_dtype_kinds)}, "
                         "or a compatible input for jnp.dtype()") from None
      raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from err
  return the_dtype in options


def supports_inf(dtype) -> bool:
  """Whether ``dtype`` can represent infinity."""
  if np.dtype(dtype).type in (float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2fnuz):
    return False
  return issubdtype(dtype, np.inexact)


finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo
can_cast = np.can_cast


def itemsize_bits(dtype) -> int:
  """The number of bits per element of ``dtype`` (4 for int4; 8 for bool)."""
  if dtype is None:
    raise ValueError("dtype cannot be None.")
  if np.dtype(dtype) == np.dtype(bool):
    return 8
  if issubdtype(dtype, np.integer):
    return iinfo(dtype).bits
  if issubdtype(dtype, np.floating):
    return finfo(dtype).bits
  if issubdtype(dtype, np.complexfloating):
    return 2 * finfo(dtype).bits
  raise ValueError(f"unexpected input: dtype={dtype!r}")


# ---------------------------------------------------------------------------
# Dtype conversions used by jax.numpy

_to_inexact = {np.dtype(k): np.dtype(v) for k, v in [
    ("bool", "float32"), ("uint4", "float32"), ("int4", "float32"),
    ("uint8", "float32"), ("int8", "float32"), ("uint16", "float32"), ("int16", "float32"),
    ("uint32", "float32"), ("int32", "float32"), ("uint64", "float64"), ("int64", "float64")]}


def to_numeric_dtype(dtype) -> np.dtype:
  """``dtype`` itself, except bool becomes int32."""
  dtype = np.dtype(dtype)
  return np.dtype("int32") if dtype == np.dtype(bool) else dtype


def to_inexact_dtype(dtype) -> np.dtype:
  """The inexact dtype integer/bool ``dtype`` promotes to (int64 -> float64, others ->
  float32); inexact dtypes are returned unchanged. Not x64-aware: canonicalise after."""
  dtype = np.dtype(dtype)
  return _to_inexact.get(dtype, dtype)


def to_floating_dtype(dtype) -> np.dtype:
  """Like ``to_inexact_dtype`` but complex dtypes give their real component dtype."""
  return finfo(to_inexact_dtype(dtype)).dtype


def to_complex_dtype(dtype) -> np.dtype:
  """complex128 for (u)int64/float64/complex128, else complex64."""
  inexact = to_inexact_dtype(dtype)
  if inexact in (np.dtype("float64"), np.dtype("complex128")):
    return np.dtype("complex128")
  return np.dtype("complex64")


_short_names: dict = {}


def short_dtype_name(dtype) -> str:
  """The dtype name jaxprs print: bool, i8..i64, u8..u64, bf16, f16..f64, c64, c128, float0."""
  try:
    return _short_names[dtype]
  except KeyError:
    pass
  if isinstance(dtype, ExtendedDType):
    name = str(dtype)
  elif np.dtype(dtype) == float0:
    name = "float0"
  else:
    name = (np.dtype(dtype).name.replace("float", "f").replace("uint", "u")
            .replace("int", "i").replace("complex", "c"))
  _short_names[dtype] = name
  return name


# ---------------------------------------------------------------------------
# Dtypes of values

def is_python_scalar(x) -> bool:
  """Whether ``x`` is a Python bool, int, float or complex (not a NumPy scalar)."""
  return type(x) in python_scalar_types


def python_scalar_dtype(x) -> np.dtype:
  """The canonical dtype of Python scalar ``x`` (or Python scalar type): bool, or the
  default int/float/complex dtype. Raises OverflowError for an int that does not fit."""
  if isinstance(x, type):
    typ = x
  else:
    typ = type(x)
    if typ not in python_scalar_types_to_dtypes:
      typ = next((t for t in (bool, int, float, complex) if isinstance(x, t)), None)
      if typ is None:
        raise TypeError(f"python_scalar_dtype expects a Python bool, int, float or complex, "
                        f"got {x!r} of type {type(x).__name__}.")
  result = _default_for_python_type(typ)
  if typ is int and not isinstance(x, type):
    info = _int_bounds[result]
    if not info[0] <= x <= info[1]:
      raise OverflowError(f"Python int {x} too large to convert to {result.name}")
  return result


_int_bounds = {np.dtype(n): (int(np.iinfo(n).min), int(np.iinfo(n).max))
               for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}


def check_python_scalar(x, dtype=None, explicit: bool = False) -> None:
  """The range check every Python scalar passes on its way into an array.

  Implicitly converted (operators, jnp functions, lax operands, jaxpr literals, jit
  arguments), a Python int must fit the default int dtype, whatever dtype it is then cast
  to (``jnp.arange(3) + 2**32`` raises OverflowError, as in JAX, instead of wrapping).
  Converted to an ``explicit`` integer dtype (``jnp.uint32(x)``, ``jnp.asarray(x, dtype)``,
  ``lax.convert_element_type``) it must fit that dtype instead."""
  if type(x) is not int:
    if isinstance(x, int) and not isinstance(x, bool):
      x = int(x)
    else:
      return
  if explicit and dtype is not None:
    target = np.dtype(dtype)
    bounds = _int_bounds.get(target)
    if bounds is not None and not bounds[0] <= x <= bounds[1]:
      raise OverflowError(f"Python integer {x} out of bounds for {target.name}")
    return
  python_scalar_dtype(x)


def scalar_to_array(x, dtype=None, explicit: bool = False) -> np.ndarray:
  """The one checked conversion of a Python scalar to a 0-d NumPy array: of ``dtype`` when
  given, else of the scalar's default dtype. See ``check_python_scalar`` for the range rule;
  an in-range int implicitly cast to a narrower integer dtype wraps, as in JAX."""
  check_python_scalar(x, dtype, explicit)
  base = next((t for t in (bool, int, float, complex) if isinstance(x, t)), None)
  if base is None:
    raise TypeError(f"scalar_to_array expects a Python bool, int, float or complex, got {x!r} "
                    f"of type {type(x).__name__}.")
  default = _default_for_python_type(base)
  if dtype is None:
    return np.array(x, default)
  target = np.dtype(dtype)
  if type(x) is int and target.kind in "iu" and not explicit:
    return np.array(x, default).astype(target)
  return np.array(x, target)


def is_weakly_typed(x) -> bool:
  """Whether ``x`` is weakly typed: a Python int/float/complex (not bool), or an array
  or tracer whose aval has ``weak_type=True``."""
  if type(x) in _weak_scalar_types:
    return True
  aval = getattr(x, "aval", None)
  if aval is not None:
    return bool(getattr(aval, "weak_type", False))
  return bool(getattr(x, "weak_type", False))


def dtype(x, canonicalize: bool = False) -> np.dtype:
  """The dtype of a value or dtype-like.

  Python scalars and scalar types give bool/int64/float64/complex128 and NumPy
  values their own dtype; arrays and tracers their ``.dtype``. With
  ``canonicalize=True`` the result is canonicalised for the x64 mode, warning (as
  JAX does) when an explicitly named 64-bit dtype is truncated.
  """
  if x is None:
    raise ValueError(f"Invalid argument to dtype: {x}.")
  explicit = False
  if isinstance(x, type):
    result = python_scalar_types_to_dtypes.get(x)
    if result is None:
      if _issubclass(x, np.generic):
        result = np.dtype(x)
        explicit = True
      else:  # our scalar types and other classes with a dtype
        result = _dtype_of_value(x)
    elif canonicalize:
      return _default_for_python_type(x)
  elif type(x) in python_scalar_types_to_dtypes:
    if canonicalize:
      return _default_for_python_type(type(x))
    return python_scalar_types_to_dtypes[type(x)]
  elif isinstance(x, (str, np.dtype)):
    result = np.dtype(x)
    if result not in _valid_dtypes:
      raise TypeError(f"Value '{x}' with dtype {result} is not a valid JAX array type. "
                      "Only arrays of numeric types are supported by JAX.")
    explicit = True
  elif isinstance(x, ExtendedDType):
    return x
  else:
    result = _dtype_of_value(x)
  if not canonicalize:
    return result
  if _is_array(x):  # an array keeps its dtype, whatever the x64 mode
    return result
  if explicit:
    return _canonicalize_explicit(result, "dtype", stacklevel=2)
  return canonicalize_dtype(result, allow_extended_dtype=True)


def _dtype_of_value(x) -> np.dtype:
  dt = getattr(x, "dtype", None)
  if not isinstance(dt, (np.dtype, ExtendedDType)):
    try:
      dt = np.result_type(x)
    except TypeError as err:
      raise TypeError(f"Cannot determine dtype of {x}") from err
  if dt not in _valid_dtypes and not isinstance(dt, ExtendedDType):
    raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array type. "
                    "Only arrays of numeric types are supported by JAX.")
  return dt


def scalar_type_of(x) -> type:
  """The Python scalar type (bool, int, float or complex) matching the dtype of ``x``."""
  dt = dtype(x, canonicalize=True)
  if dt in _custom_float_dtypes:
    return float
  if dt in _intn_dtypes:
    return int
  if np.issubdtype(dt, np.bool_):
    return bool
  if np.issubdtype(dt, np.integer):
    return int
  if np.issubdtype(dt, np.floating):
    return float
  if np.issubdtype(dt, np.complexfloating):
    return complex
  raise TypeError(f"Invalid scalar value {x}")


# ---------------------------------------------------------------------------
# The type promotion lattice
#
# Nodes are dtypes (strongly typed) and the Python types int, float and complex
# (weakly typed values of each kind). An edge a -> b means a promotes to b. The
# join of a set of nodes is their least upper bound.

def _standard_lattice(x64: bool) -> dict:
  b1, = _bool_dtypes
  u8, u16, u32, u64 = (np.dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
  i8, i16, i32, i64 = (np.dtype(n) for n in ("int8", "int16", "int32", "int64"))
  bf16, f16, f32, f64 = _bfloat16_dtype, np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
  c64, c128 = _complex_dtypes
  intn = [np.dtype(t) for t in _unsigned_intn_types + _signed_intn_types]
  edges = {
      b1: [int],
      int: [u8, i8] + intn,
      u8: [i16, u16], u16: [i32, u32],
      # Without x64, uint32 joins int32 at int32 rather than forming int64.
      u32: [i64, u64] if x64 else [i32, u64],
      u64: [float],
      i8: [i16], i16: [i32], i32: [i64], i64: [float],
      float: _narrow_float_dtypes + [bf16, f16, complex],
      bf16: [f32], f16: [f32], f32: [f64, c64], f64: [c128],
      complex: [c64], c64: [c128], c128: [],
  }
  for t in intn + _narrow_float_dtypes:
    edges[t] = []
  return edges


def _strict_lattice() -> dict:
  edges = {t: [] for t in _jax_dtypes}
  edges[int] = [float] + _unsigned_dtypes + _signed_dtypes
  edges[float] = [complex] + _float_dtypes
  edges[complex] = list(_complex_dtypes)
  return edges


def _upper_bounds(edges: dict) -> dict:
  """Each node's set of upper bounds (itself and everything reachable from it)."""
  bounds = {}

  def visit(node):
    if node not in bounds:
      reach = {node}
      for parent in edges[node]:
        reach |= visit(parent)
      bounds[node] = frozenset(reach)
    return bounds[node]

  for node in edges:
    visit(node)
  return bounds


_UPPER_BOUNDS = {
    ("standard", False): _upper_bounds(_standard_lattice(x64=False)),
    ("standard", True): _upper_bounds(_standard_lattice(x64=True)),
    ("strict", False): _upper_bounds(_strict_lattice()),
    ("strict", True): _upper_bounds(_strict_lattice()),
}


def _no_path_message(nodes, strict: bool) -> str:
  names = tuple(str(n) for n in nodes)
  head = f"Input dtypes {names} have no available implicit dtype promotion path"
  if strict:
    return (f"{head} when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
            "the desired output type, or set jax_numpy_dtype_promotion=standard.")
  for family, bits in ((_float8_dtypes, "8-bit"), (_float6_dtypes, "6-bit"), (_float4_dtypes, "4-bit")):
    if any(n in family for n in nodes):
      return (f"{head}. To avoid unintended promotion, {bits} floats do not support implicit "
              "promotion. If you'd like your inputs to be promoted to another type, you can do "
              "so explicitly using e.g. x.astype('float32')")
  if any(n in _intn_dtypes for n in nodes):
    return (f"{head}. To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not "
            "support implicit promotion. If you'd like your inputs to be promoted to another "
            "type, you can do so explicitly using e.g. x.astype('int32')")
  return f"{head}. Try explicitly casting inputs to the desired output type."


def _promotion_mode() -> str:
  mode = _flags["jax_numpy_dtype_promotion"]
  if mode not in ("standard", "strict"):
    raise ValueError(f"Unexpected value of jax_numpy_dtype_promotion={mode!r}")
  return mode


def _least_upper_bound(mode: str, x64: bool, nodes):
  """The join of lattice ``nodes`` (dtypes or the weak types int/float/complex)."""
  bounds_of = _UPPER_BOUNDS[mode, x64]
  node_set = set(nodes)
  try:
    bounds = [bounds_of[n] for n in node_set]
  except KeyError:
    bad = next(n for n in node_set if n not in bounds_of)
    raise ValueError(f"dtype={bad!r} is not a valid dtype for JAX type promotion.") from None
  common = frozenset.intersection(*bounds)
  least = (common & node_set) or {c for c in common if common <= bounds_of[c]}
  if len(least) == 1:
    return next(iter(least))
  if not least:
    raise TypePromotionError(_no_path_message(nodes, mode == "strict"))
  raise TypePromotionError(f"Internal type promotion error: {nodes} have no unique least upper "
                           f"bound; candidates are {least}.")


def promote_types(a, b) -> np.dtype:
  """The dtype a binary operation casts dtype-likes ``a`` and ``b`` to (``jnp.promote_types``).

  The Python types ``int``, ``float`` and ``complex`` count as weak types, so
  ``promote_types('float16', float)`` is float16. The result is not canonicalised.
  """
  a_node = a if (a is int or a is float or a is complex) else np.dtype(a)
  b_node = b if (b is int or b is float or b is complex) else np.dtype(b)
  return np.dtype(_least_upper_bound(_promotion_mode(), _flags["jax_enable_x64"],
                                     (a_node, b_node)))


def _weak_node(dt: np.dtype):
  """The lattice node of a weakly typed value of dtype ``dt``."""
  if dt == np.dtype(bool):
    return dt
  if dt in _custom_float_dtypes:
    return float
  if dt in _intn_dtypes:
    return int
  return {"i": int, "u": int, "f": float, "c": complex}.get(dt.kind, dt)


def _canonical_output(dt):
  # The join of 32-bit inputs stays 32-bit; only 64-bit inputs (from arrays made with
  # x64 on) reach a 64-bit join without x64, and JAX canonicalises those.
  if _flags["jax_enable_x64"] or isinstance(dt, ExtendedDType):
    return dt
  return _dtype_to_32bit.get(dt, dt)


def _join(key: tuple):
  """``(dtype, weak_type)`` for the flat key ``(dtype0, weak0, dtype1, weak1, ...)``.

  A weak Python scalar appears as its type (int/float/complex) in a dtype slot.
  """
  x64 = _flags["jax_enable_x64"]
  dts = [(_DEFAULTS[x64][python_scalar_types_to_dtypes[d].kind] if isinstance(d, type) else d)
         for d in key[0::2]]
  weaks = key[1::2]
  mode = _promotion_mode()
  if len(dts) == 1:
    out, weak = dts[0], weaks[0]
  elif len(set(dts)) == 1 and not all(weaks):
    out, weak = dts[0], False
  elif all(weaks) and mode != "strict":
    # All weak: join the strong counterparts, then mark the result weak.
    out = _canonical_output(np.dtype(_least_upper_bound(mode, x64, dts)))
    weak = True
  else:
    nodes = [_weak_node(d) if w else d for d, w in zip(dts, weaks)]
    node = _least_upper_bound(mode, x64, nodes)
    weak = node is int or node is float or node is complex
    out = _DEFAULTS[x64][python_scalar_types_to_dtypes[node].kind] if weak else _canonical_output(node)
  weak = weak and out != np.dtype(bool)
  if weak:
    # A weakly typed result takes the default dtype of its kind.
    out = _DEFAULTS[x64]["f" if out in _custom_float_dtypes else out.kind]
  return out, weak


def _operand_key(x):
  """``(dtype, weak)`` of one ``result_type`` operand (a weak Python scalar gives its type)."""
  typ = type(x)
  if typ is int or typ is float or typ is complex:
    return typ, True
  if typ is np.ndarray:
    dt = x.dtype
    if dt in _valid_dtypes:
      return canonicalize_dtype(dt), False
  aval = getattr(x, "aval", None)
  if aval is not None:
    if hasattr(aval, "dtype"):
      _aval_types.add(typ)  # later operands of this type take result_type's fast path
    return aval.dtype, aval.weak_type
  if typ is bool:
    return _bool_dtypes[0], False
  if x is int or x is float or x is complex:
    return x, True
  if x is None:
    return default_float_dtype(), False
  if typ is np.ndarray or isinstance(x, np.generic):
    dt = x.dtype
    if dt in _valid_dtypes:
      return canonicalize_dtype(dt), False
  return dtype(x, canonicalize=True), is_weakly_typed(x)


# Types whose instances carry an ``aval`` with dtype and weak_type (Array, the tracers);
# learnt from the operands seen, since this module sits below the array layer.
_aval_types: set = set()

# result_type's memo for the current (jax_enable_x64, jax_numpy_dtype_promotion), from
# flat operand keys (dtype0, weak0, dtype1, weak1, ...) to (dtype, weak_type).
_join_caches: dict = {}
_join_cache: dict = {}


def _select_join_cache(name=None, value=None) -> None:
  global _join_cache
  state = (_flags["jax_enable_x64"], _flags["jax_numpy_dtype_promotion"])
  _join_cache = _join_caches.setdefault(state, {})


_select_join_cache()
config.add_listener(_select_join_cache)


def result_type(*args, return_weak_type_flag: bool = False):
  """The dtype JAX promotes ``args`` (arrays, Python scalars, dtype-likes) to.

  Follows JAX's promotion lattice with weak types: Python scalars and weakly typed
  arrays adopt the other operands' dtype. The result is canonical for the x64 mode.
  With ``return_weak_type_flag=True`` returns ``(dtype, weak_type)``.
  """
  if len(args) == 2:
    # The eager path of every binary jnp op: arrays and Python scalars, unrolled.
    a, b = args
    typ = type(a)
    if typ in _aval_types:
      aval = a.aval
      d0 = aval.dtype
      w0 = aval.weak_type
    elif typ is float or typ is int or typ is complex:
      d0 = typ
      w0 = True
    else:
      d0, w0 = _operand_key(a)
    typ = type(b)
    if typ in _aval_types:
      aval = b.aval
      d1 = aval.dtype
      w1 = aval.weak_type
    elif typ is float or typ is int or typ is complex:
      d1 = typ
      w1 = True
    else:
      d1, w1 = _operand_key(b)
    key = (d0, w0, d1, w1)
  elif not args:
    raise ValueError("at least one array or dtype is required")
  else:
    parts = []
    for arg in args:
      typ = type(arg)
      if typ in _aval_types:
        aval = arg.aval
        parts.append(aval.dtype)
        parts.append(aval.weak_type)
      else:
        parts.extend(_operand_key(arg))
    key = tuple(parts)
  try:
    out = _join_cache[key]
  except KeyError:
    out = _join_cache[key] = _join(key)
  except TypeError:  # an unhashable extended dtype
    out = _join(key)
  return out if return_weak_type_flag else out[0]


def safe_to_cast(input_dtype_or_value, output_dtype_or_value) -> bool:
  """Whether promotion of the input with the output dtype gives the output dtype."""
  input_dtype = dtype(input_dtype_or_value, canonicalize=True)
  output_dtype = dtype(output_dtype_or_value, canonicalize=True)
  if input_dtype == output_dtype:
    return True
  return result_type(input_dtype_or_value, output_dtype) == output_dtype

# The type of a dtype object, as JAX code annotates it (``jax._src.dtypes.DType``).
DType = np.dtype
