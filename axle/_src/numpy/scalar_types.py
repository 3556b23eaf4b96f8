"""JAX's scalar type objects: ``jnp.float32``, ``jnp.int8``, ``jnp.bfloat16``, ...

JAX has no scalar objects of its own: a scalar is a zero-dimensional Array. So
``jnp.float32(3)`` returns ``Array(3., dtype=float32)``, while ``jnp.float32``
itself also works wherever a dtype is expected (``np.dtype(jnp.float32)``,
``x.astype(jnp.float32)``, ``jnp.float32.dtype``) and compares equal to the
NumPy scalar type (``jnp.float32 == np.float32``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from axle._src import dtypes
from axle._src.numpy.creation import asarray

# The module the scalar types report in their repr: <class 'axle.numpy.float32'>.
_PUBLIC_MODULE_NAME = "axle.numpy"


class _ScalarMeta(type):
  """Metaclass of the scalar types: a class that builds Arrays and stands for a dtype."""
  dtype: np.dtype

  @property
  def __numpy_dtype__(cls) -> np.dtype:
    # NumPy >= 2.4 asks for this when a class is used as a dtype: np.dtype(jnp.float32).
    return cls.dtype

  def __hash__(cls) -> int:
    return hash(cls.dtype.type)

  def __eq__(cls, other: Any) -> bool:
    return cls is other or cls.dtype.type == other

  def __ne__(cls, other: Any) -> bool:
    return not cls == other

  def __call__(cls, x: Any):
    return asarray(x, dtype=cls.dtype)

  def __instancecheck__(cls, instance: Any) -> bool:
    return isinstance(instance, cls.dtype.type)


def _make_scalar_type(np_scalar_type: type) -> _ScalarMeta:
  name = np_scalar_type.__name__
  scalar_type = _ScalarMeta(name, (object,), {"dtype": np.dtype(np_scalar_type)})
  scalar_type.__module__ = _PUBLIC_MODULE_NAME
  scalar_type.__doc__ = (
      f"A JAX scalar constructor of type {name}.\n\n"
      "  Calling it returns a zero-dimensional Array of this dtype (JAX represents\n"
      "  scalars as zero-dimensional arrays); it also serves as the dtype itself.\n")
  return scalar_type


bool_ = _make_scalar_type(np.bool_)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
bfloat16 = _make_scalar_type(dtypes.bfloat16)
float16 = _make_scalar_type(np.float16)
float32 = single = _make_scalar_type(np.float32)
float64 = double = _make_scalar_type(np.float64)
complex64 = csingle = _make_scalar_type(np.complex64)
complex128 = cdouble = _make_scalar_type(np.complex128)

# The narrow ml_dtypes types (no implicit promotion; convert explicitly).
uint2 = _make_scalar_type(dtypes.uint2)
uint4 = _make_scalar_type(dtypes.uint4)
int2 = _make_scalar_type(dtypes.int2)
int4 = _make_scalar_type(dtypes.int4)
float4_e2m1fn = _make_scalar_type(dtypes.float4_e2m1fn)
float6_e2m3fn = _make_scalar_type(dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type(dtypes.float6_e3m2fn)
float8_e3m4 = _make_scalar_type(dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type(dtypes.float8_e4m3)
float8_e8m0fnu = _make_scalar_type(dtypes.float8_e8m0fnu)
float8_e4m3fn = _make_scalar_type(dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type(dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type(dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type(dtypes.float8_e5m2fnuz)
float8_e4m3b11fnuz = _make_scalar_type(dtypes.float8_e4m3b11fnuz)

# JAX's aliases for the 64-bit defaults.
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128

__all__ = [
    "bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
    "single", "double", "csingle", "cdouble", "int_", "uint", "float_", "complex_",
    "uint2", "uint4", "int2", "int4", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
]

if dtypes.int1 is not None:
  int1 = _make_scalar_type(dtypes.int1)
  __all__.append("int1")
if dtypes.uint1 is not None:
  uint1 = _make_scalar_type(dtypes.uint1)
  __all__.append("uint1")

# jnp.bool is jnp.bool_ (NumPy 2 names the type "bool"). Set through globals() so that
# the builtin ``bool`` stays usable above; exported for ``from ... import *``.
globals()["bool"] = bool_
__all__.append("bool")
