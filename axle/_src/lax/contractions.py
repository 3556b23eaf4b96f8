"""Dot products: the ``dot_general`` primitive and its lax wrappers.

``dot_general`` contracts pairs of lhs/rhs dimensions and treats other pairs as
batch dimensions. Its output dimensions are ordered batch, lhs free, rhs free.
The operands may have different dtypes (XLA's rule: the "wider" one wins); the
``preferred_element_type`` param sets the output dtype and the accumulation type.

Eager kernel: the operands are transposed to ``(batch, free, contract)`` /
``(batch, contract, free)`` and multiplied with ``np.matmul`` in the
accumulation dtype (float16/bfloat16 accumulate in float32 and round once at the
end, as XLA on CPU; integers wrap modulo 2**bits).

Lowering: one ``stablehlo.dot_general``. Operands of different dtypes are first
converted to the result dtype; an algorithm preset adds its ``algorithm``
attribute and converts operands (and the product) to the types it supports,
exactly as JAX emits.

This module also defines ``Precision``, ``DotAlgorithmPreset`` and
``canonicalize_precision``, shared with ``conv.py``.
"""
from __future__ import annotations

import enum
import functools
import math
import operator
from typing import Any

import ml_dtypes
import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import ir
from axle._src.config import config
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise_convert
from axle._src.lax import structural
from axle._src.xla import spmd_jit

__all__ = ["dot", "dot_general", "batch_matmul", "Precision", "DotAlgorithmPreset",
           "DotDimensionNumbers", "PrecisionLike", "dot_general_p"]


# ---------------------------------------------------------------------------
# Precision


class Precision(enum.Enum):
  """Precision of matrix-multiply-like operations (``lax.Precision``).

  On accelerators it trades speed for accuracy of float32 products; on CPU it
  has no effect. ``DEFAULT`` (aliases ``'default'``, ``'fastest'``,
  ``'bfloat16'``), ``HIGH`` (``'high'``, ``'bfloat16_3x'``, ``'tensorfloat32'``)
  and ``HIGHEST`` (``'highest'``, ``'float32'``). ``Precision('highest')`` looks
  an alias up.
  """
  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value):
    return _precision_strings.get(value)

  def __repr__(self) -> str:
    return f"{type(self).__name__}.{self.name}"

  def __str__(self) -> str:
    return self.name


_precision_strings: dict[Any, Precision] = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}


class DotAlgorithmPreset(enum.Enum):
  """Named dot-product algorithms (``lax.DotAlgorithmPreset``): the storage types of the
  operands, the accumulation type and the number of passes. Pass one as ``precision``.
  On CPU only DEFAULT, F16_F16_F16, F32_F32_F32, F64_F64_F64, BF16_BF16_F32,
  BF16_BF16_F32_X3 and BF16_BF16_F32_X6 are supported."""
  DEFAULT = enum.auto()
  ANY_F8_ANY_F8_F32 = enum.auto()
  ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
  ANY_F8_ANY_F8_ANY = enum.auto()
  ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
  F16_F16_F16 = enum.auto()
  F16_F16_F32 = enum.auto()
  BF16_BF16_BF16 = enum.auto()
  BF16_BF16_F32 = enum.auto()
  BF16_BF16_F32_X3 = enum.auto()
  BF16_BF16_F32_X6 = enum.auto()
  BF16_BF16_F32_X9 = enum.auto()
  TF32_TF32_F32 = enum.auto()
  TF32_TF32_F32_X3 = enum.auto()
  F32_F32_F32 = enum.auto()
  F64_F64_F64 = enum.auto()

  def __repr__(self) -> str:
    return f"{type(self).__name__}.{self.name}"

  def __str__(self) -> str:
    return self.name


_CPU_PRESETS = frozenset({
    DotAlgorithmPreset.DEFAULT, DotAlgorithmPreset.F16_F16_F16, DotAlgorithmPreset.F32_F32_F32,
    DotAlgorithmPreset.F64_F64_F64, DotAlgorithmPreset.BF16_BF16_F32,
    DotAlgorithmPreset.BF16_BF16_F32_X3, DotAlgorithmPreset.BF16_BF16_F32_X6})

PrecisionLike = Any  # None | str | Precision | (Precision, Precision) | (str, str) | DotAlgorithmPreset
DotDimensionNumbers = tuple  # ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))


def canonicalize_precision(precision):
  """Turns a ``precision`` argument into None, a pair of ``Precision`` values or a
  ``DotAlgorithmPreset`` (the form the ``precision`` param of dot/conv primitives takes)."""
  if precision is None:
    default = config.jax_default_matmul_precision
    if default is None:
      return None
    try:
      return canonicalize_precision(default)
    except ValueError:
      raise ValueError(
          "jax_default_matmul_precision flag must be set to None, a value in "
          f"{list(_precision_strings)}, or the name of a lax.DotAlgorithmPreset, "
          f"but got {default}") from None
  if isinstance(precision, str):
    if precision in _precision_strings:
      p = _precision_strings[precision]
      return p, p
    if precision in DotAlgorithmPreset.__members__:
      return DotAlgorithmPreset[precision]
  elif isinstance(precision, Precision):
    return precision, precision
  elif isinstance(precision, DotAlgorithmPreset):
    return precision
  elif isinstance(precision, (list, tuple)) and len(precision) == 2:
    if all(isinstance(p, Precision) for p in precision):
      return tuple(precision)
    if all(isinstance(p, str) for p in precision):
      pair = [canonicalize_precision(p) for p in precision]
      if all(isinstance(p, tuple) for p in pair):
        return pair[0][0], pair[1][0]
  raise ValueError(
      "Precision argument must be one of:\n"
      "- None,\n"
      f"- a string in {list(_precision_strings)},\n"
      "- a lax.Precision value,\n"
      "- a tuple of two lax.Precision values or strings,\n"
      "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
      "- a lax.DotAlgorithm value;\n"
      f"but got {precision}.")


def canonicalize_preferred_element_type(dtype, name: str):
  """The canonical np.dtype for a ``preferred_element_type`` argument (None stays None);
  warns like JAX when a 64-bit type is requested with x64 off."""
  if dtype is None:
    return None
  dtypes.check_user_dtype_supported(dtype, name)
  return np.dtype(dtypes.canonicalize_dtype(dtype))


def check_no_out_sharding(out_sharding, name: str) -> None:
  """Raises NotImplementedError for a sharding request (single device only)."""
  if out_sharding is not None:
    raise NotImplementedError(
        f"{name}: out_sharding={out_sharding!r} is not supported; axle runs on a single device, "
        "so pass out_sharding=None.")


# ---------------------------------------------------------------------------
# dtype helpers shared with conv.py


def _bit_width(dtype: np.dtype) -> int:
  if dtype == np.bool_:
    return 1
  return np.dtype(dtype).itemsize * 8


_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _issubdtype(dtype, kind) -> bool:
  """``dtypes.issubdtype`` that also places bfloat16 under np.floating / np.inexact / np.number."""
  if np.dtype(dtype) == _BFLOAT16:
    if kind in (np.floating, np.inexact, np.number, np.generic):
      return True
    if kind in (np.integer, np.signedinteger, np.unsignedinteger, np.complexfloating, np.bool_):
      return False
    return np.dtype(kind) == _BFLOAT16
  return dtypes.issubdtype(dtype, kind)


def _is_float(dtype) -> bool:
  return _issubdtype(dtype, np.floating)


def _type_properties(dtype: np.dtype):
  """XLA's ordering of operand types for mixed-type dots (higher tuple wins)."""
  is_complex = dtypes.issubdtype(dtype, np.complexfloating)
  component = np.dtype(np.float32 if dtype == np.complex64 else np.float64) if is_complex else dtype
  if _is_float(component):
    info = ml_dtypes.finfo(component)
    maxexp, nmant = int(info.maxexp), int(info.nmant)
  else:
    maxexp = nmant = -1
  return (is_complex, maxexp, nmant, _bit_width(component),
          not dtypes.issubdtype(component, np.unsignedinteger))


@functools.lru_cache(maxsize=1024)
def accumulation_dtype(out_dtype: np.dtype, *in_dtypes: np.dtype) -> np.dtype:
  """The dtype a NumPy kernel multiplies and sums in: the output dtype, except that
  half-precision floats accumulate in float32 (float64 when an operand is float64)."""
  out_dtype = np.dtype(out_dtype)
  if _is_float(out_dtype) and out_dtype.itemsize < 4:
    if any(np.dtype(d) == np.float64 for d in in_dtypes):
      return np.dtype(np.float64)
    return np.dtype(np.float32)
  return out_dtype


def validate_preferred_element_type(input_dtype, preferred) -> None:
  """JAX's compatibility rule for ``preferred_element_type`` (used by conv_general_dilated)."""
  if _issubdtype(input_dtype, np.integer) and _issubdtype(preferred, np.floating):
    pass  # integer -> float products are allowed, signedness may differ
  else:
    for kind in (np.integer, np.floating, np.complexfloating):
      if _issubdtype(input_dtype, kind) and not _issubdtype(preferred, kind):
        raise TypeError("Input type is incompatible with `preferred_element_type`. The compatible "
                        "combinations of (input_type, preferred_element_type) are (integral, "
                        "integral), (integral, floating), (floating, floating), (complex, complex.")
    if (_issubdtype(input_dtype, np.signedinteger)
        and not _issubdtype(preferred, np.signedinteger)):
      raise TypeError("`preferred_element_type` must have the same signedness as the original type.")
  if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
    raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def check_cpu_precision(precision, name: str = "dot_general") -> None:
  """Raises JAX's ValueError for a dot algorithm the CPU does not support."""
  if isinstance(precision, DotAlgorithmPreset) and precision not in _CPU_PRESETS:
    raise ValueError(f"The precision '{precision}' is not supported by {name} on CPU")


def prepare_operand(x: np.ndarray, acc: np.dtype, precision) -> np.ndarray:
  """``x`` converted to the accumulation dtype. XLA on CPU computes in full precision whatever
  ``precision`` says (BF16_BF16_F32 on float32 operands does not round them); the only effect of
  an algorithm preset is the operand/result type conversions ``_preset_types`` describes."""
  del precision
  if x.dtype != acc:
    with np.errstate(all="ignore"):
      x = x.astype(acc)
  return x


def cast_result(out: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
  """The accumulated result rounded to the output dtype."""
  if out.dtype != out_dtype:
    with np.errstate(all="ignore"):
      out = out.astype(out_dtype)
  return out


# ---------------------------------------------------------------------------
# dot_general

dot_general_p = core.Primitive("dot_general")


def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding) -> ShapedArray:
  (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
  for side, aval, contracting, batch in (("lhs", lhs, lhs_contracting, lhs_batch),
                                         ("rhs", rhs, rhs_contracting, rhs_batch)):
    if not all(0 <= d < aval.ndim for d in tuple(contracting) + tuple(batch)):
      raise TypeError(f"dot_general requires {side} dimension numbers to be nonnegative and less "
                      f"than the number of axes of the {side} value, got {side}_batch of {batch} "
                      f"and {side}_contracting of {contracting} for {side} of rank {aval.ndim}")
  if len(lhs_batch) != len(rhs_batch):
    raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, "
                    f"got lhs_batch {lhs_batch} and rhs_batch {rhs_batch}.")
  for side, batch, contracting in (("lhs", lhs_batch, lhs_contracting),
                                   ("rhs", rhs_batch, rhs_contracting)):
    if len(set(batch)) != len(batch):
      raise TypeError(f"dot_general requires {side} batch dimensions to be distinct, got "
                      f"{side}_batch {batch}.")
  for side, batch, contracting in (("lhs", lhs_batch, lhs_contracting),
                                   ("rhs", rhs_batch, rhs_contracting)):
    if len(set(contracting)) != len(contracting):
      raise TypeError(f"dot_general requires {side} contracting dimensions to be distinct, got "
                      f"{side}_contracting {contracting}.")
  for side, batch, contracting in (("lhs", lhs_batch, lhs_contracting),
                                   ("rhs", rhs_batch, rhs_contracting)):
    if set(batch) & set(contracting):
      raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint from "
                      f"contracting dimensions, got {side}_batch {batch} and "
                      f"{side}_contracting {contracting}.")
  lhs_batch_shape = tuple(lhs.shape[d] for d in lhs_batch)
  rhs_batch_shape = tuple(rhs.shape[d] for d in rhs_batch)
  if lhs_batch_shape != rhs_batch_shape:
    raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                    f"the same shape, got {lhs_batch_shape} and {rhs_batch_shape}.")
  lhs_contracting_shape = tuple(lhs.shape[d] for d in lhs_contracting)
  rhs_contracting_shape = tuple(rhs.shape[d] for d in rhs_contracting)
  if lhs_contracting_shape != rhs_contracting_shape:
    raise TypeError("dot_general requires contracting dimensions to have the same shape, got "
                    f"{lhs_contracting_shape} and {rhs_contracting_shape}.")
  lhs_skip = set(lhs_contracting) | set(lhs_batch)
  rhs_skip = set(rhs_contracting) | set(rhs_batch)
  shape = (lhs_batch_shape + tuple(d for i, d in enumerate(lhs.shape) if i not in lhs_skip)
           + tuple(d for i, d in enumerate(rhs.shape) if i not in rhs_skip))
  dtype = _dot_general_result_dtype(lhs.dtype, rhs.dtype, precision, preferred_element_type)
  return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


@functools.lru_cache(maxsize=1024)  # errors are not cached: lru_cache stores only returns
def _dot_general_result_dtype(lhs_dtype, rhs_dtype, precision, preferred) -> np.dtype:
  lhs_props, rhs_props = _type_properties(lhs_dtype), _type_properties(rhs_dtype)
  if lhs_props > rhs_props:
    result = lhs_dtype
  elif rhs_props > lhs_props:
    result = rhs_dtype
  else:
    if lhs_dtype != rhs_dtype:
      raise TypeError(f"lax.dot_general argument type error: {lhs_dtype}, {rhs_dtype}")
    result = lhs_dtype
  if preferred is None or result == preferred:
    return np.dtype(result)
  check_width = not isinstance(precision, DotAlgorithmPreset)
  if check_width and not _is_float(result) and _bit_width(preferred) < _bit_width(result):
    raise TypeError("`preferred_element_type` must not be narrower than the original type, got "
                    f"preferred_element_type of {np.dtype(preferred).name} for result type of "
                    f"{np.dtype(result).name}.")
  return np.dtype(preferred)


dot_general_p.def_abstract_eval(_dot_general_abstract_eval)


@functools.lru_cache(maxsize=4096)
def _dot_plan(lhs_shape, rhs_shape, dimension_numbers):
  """Transpositions and 3-D shapes turning a dot_general into one batched ``np.matmul``."""
  (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
  lhs_skip = set(lhs_contracting) | set(lhs_batch)
  rhs_skip = set(rhs_contracting) | set(rhs_batch)
  lhs_free = [i for i in range(len(lhs_shape)) if i not in lhs_skip]
  rhs_free = [i for i in range(len(rhs_shape)) if i not in rhs_skip]
  batch_shape = tuple(lhs_shape[d] for d in lhs_batch)
  lhs_free_shape = tuple(lhs_shape[d] for d in lhs_free)
  rhs_free_shape = tuple(rhs_shape[d] for d in rhs_free)
  b, m, n = math.prod(batch_shape), math.prod(lhs_free_shape), math.prod(rhs_free_shape)
  k = math.prod(lhs_shape[d] for d in lhs_contracting)
  lhs_perm = (*lhs_batch, *lhs_free, *lhs_contracting)
  rhs_perm = (*rhs_batch, *rhs_contracting, *rhs_free)
  identity = lambda perm: perm == tuple(range(len(perm)))
  return ((None if identity(lhs_perm) else lhs_perm), (b, m, k),
          (None if identity(rhs_perm) else rhs_perm), (b, k, n),
          batch_shape + lhs_free_shape + rhs_free_shape)


# An algorithm preset fixes the operand storage types XLA multiplies in (operands of
# another type are converted to the first), the types the dot may produce directly (otherwise it
# produces the accumulation type and the result is converted), the accumulation type and the
# number of primitive operations.
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_PRESET_TYPES = {
    # preset: (operand types, direct output types, storage type, accumulation type, operations)
    DotAlgorithmPreset.F16_F16_F16: ((_F16,), (_F16,), _F16, _F16, 1),
    DotAlgorithmPreset.F32_F32_F32: ((_F32,), (_F32,), _F32, _F32, 1),
    DotAlgorithmPreset.F64_F64_F64: ((_F64,), (_F64,), _F64, _F64, 1),
    DotAlgorithmPreset.BF16_BF16_F32: ((_BFLOAT16, _F32), (_BFLOAT16, _F32), _BFLOAT16, _F32, 1),
    DotAlgorithmPreset.BF16_BF16_F32_X3: ((_F32,), (_F32,), _BFLOAT16, _F32, 3),
    DotAlgorithmPreset.BF16_BF16_F32_X6: ((_F32,), (_F32,), _BFLOAT16, _F32, 6),
}


def _preset_types(preset: DotAlgorithmPreset, lhs_dtype, rhs_dtype, out_dtype):
  """(lhs storage type, rhs storage type, type the dot produces) under an algorithm preset."""
  operand_types, output_types, _, accumulation, _ = _PRESET_TYPES[preset]
  lhs_type, rhs_type = (np.dtype(d) if np.dtype(d) in operand_types else operand_types[0]
                        for d in (lhs_dtype, rhs_dtype))
  return lhs_type, rhs_type, (np.dtype(out_dtype) if np.dtype(out_dtype) in output_types
                              else accumulation)


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
  if precision is not None:
    check_cpu_precision(precision)
  lhs = np.asarray(lhs)
  rhs = np.asarray(rhs)
  out_dtype = _dot_general_result_dtype(lhs.dtype, rhs.dtype, precision, preferred_element_type)
  dot_dtype = out_dtype
  if isinstance(precision, DotAlgorithmPreset) and precision in _PRESET_TYPES:
    # The operands are stored in the preset's type and the product rounded to a type it can
    # produce, as XLA does (see _dot_general_lowering).
    lhs_type, rhs_type, dot_dtype = _preset_types(precision, lhs.dtype, rhs.dtype, out_dtype)
    lhs = elementwise_convert.convert_value(lhs, lhs_type)
    rhs = elementwise_convert.convert_value(rhs, rhs_type)
  acc = accumulation_dtype(dot_dtype, lhs.dtype, rhs.dtype)
  lhs_perm, lhs_3d, rhs_perm, rhs_3d, out_shape = _dot_plan(lhs.shape, rhs.shape, dimension_numbers)
  if lhs_perm is not None:
    lhs = lhs.transpose(lhs_perm)
  if rhs_perm is not None:
    rhs = rhs.transpose(rhs_perm)
  lhs3 = prepare_operand(lhs, acc, precision).reshape(lhs_3d)
  rhs3 = prepare_operand(rhs, acc, precision).reshape(rhs_3d)
  with np.errstate(all="ignore"):
    out = np.matmul(lhs3, rhs3)
  out = cast_result(out.reshape(out_shape), dot_dtype)
  return elementwise_convert.convert_value(out, out_dtype) if dot_dtype != out_dtype else out


dot_general_p.def_impl(_dot_general_impl)


def precision_config(precision) -> str:
  """``[#stablehlo<precision P>, #stablehlo<precision Q>]`` for a canonical ``precision`` param
  (None and algorithm presets: DEFAULT)."""
  if isinstance(precision, tuple):
    lhs, rhs = (p.name for p in precision)
  else:
    lhs = rhs = "DEFAULT"
  return f"[#stablehlo<precision {lhs}>, #stablehlo<precision {rhs}>]"


def _algorithm_attribute(preset: DotAlgorithmPreset) -> str:
  _, _, storage, accumulation, operations = _PRESET_TYPES[preset]
  storage, accumulation = mlir.element_type(storage), mlir.element_type(accumulation)
  return (f"#stablehlo.dot_algorithm<lhs_precision_type = {storage}, rhs_precision_type = "
          f"{storage}, accumulation_type = {accumulation}, lhs_component_count = 1, "
          f"rhs_component_count = 1, num_primitive_operations = {operations}, "
          "allow_imprecise_accumulation = false>")


def _dot_dimension_numbers(dimension_numbers) -> str:
  (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
  fields = []
  for name, dims in (("lhs_batching_dimensions", lhs_batch),
                     ("rhs_batching_dimensions", rhs_batch),
                     ("lhs_contracting_dimensions", lhs_contracting),
                     ("rhs_contracting_dimensions", rhs_contracting)):
    if dims:
      fields.append(f"{name} = [{', '.join(str(int(d)) for d in dims)}]")
  return f"#stablehlo.dot<{', '.join(fields)}>"


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                          out_sharding):
  out_aval = ctx.avals_out[0]
  attributes = {"dot_dimension_numbers": _dot_dimension_numbers(dimension_numbers),
                "precision_config": precision_config(precision)}
  dot_dtype = out_aval.dtype
  if isinstance(precision, DotAlgorithmPreset) and precision != DotAlgorithmPreset.DEFAULT:
    check_cpu_precision(precision)
    lhs_type, rhs_type, dot_dtype = _preset_types(precision, lhs.aval.dtype, rhs.aval.dtype,
                                                  out_aval.dtype)
    lhs, rhs = mlir.convert(ctx, lhs, lhs_type), mlir.convert(ctx, rhs, rhs_type)
    attributes["algorithm"] = _algorithm_attribute(precision)
  elif lhs.aval.dtype != rhs.aval.dtype:
    # Operands of different types are both converted to the result type first.
    lhs, rhs = mlir.convert(ctx, lhs, out_aval.dtype), mlir.convert(ctx, rhs, out_aval.dtype)
  out = mlir.op(ctx, "stablehlo.dot_general", [lhs, rhs], ShapedArray(out_aval.shape, dot_dtype),
                attributes)
  return mlir.convert(ctx, out, out_aval.dtype)


mlir.register(dot_general_p, _dot_general_lowering)


# Differentiation: dot_general is bilinear. The cotangent of one operand is a dot_general of the
# output cotangent with the other operand, contracting the other operand's free dimensions and
# keeping the batch dimensions, followed by the transpose that puts the dimensions back in the
# operand's order (and a conversion back to the operand's dtype).


def _remaining(ndim: int, *removed) -> list[int]:
  drop = set(d for dims in removed for d in dims)
  return [i for i in range(ndim) if i not in drop]


def _dot_transpose_operand(ct, other, operand_aval, operand_dims, other_dims, *, precision,
                           preferred_element_type, operand_is_lhs: bool):
  """Cotangent of the operand with contracting/batch dims ``operand_dims``, the other operand
  being ``other`` with ``other_dims`` (each a (contracting, batch) pair)."""
  (x_contract, x_batch), (y_contract, y_batch) = operand_dims, other_dims
  x_ndim = operand_aval.ndim
  y_ndim = core.get_aval(other).ndim
  x_kept = _remaining(x_ndim, x_contract, x_batch)
  y_kept = _remaining(y_ndim, y_contract, y_batch)
  nb = len(x_batch)
  # Output dims of the forward dot: batch, lhs free, rhs free.
  if operand_is_lhs:
    ans_y = list(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
  else:
    ans_y = list(range(nb, nb + len(y_kept)))
  ans_batch = list(range(nb))
  dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
  # The result holds: batch, operand's kept dims, operand's contracting dims ordered as the
  # other operand's contracting dims are sorted.
  order = np.argsort(np.asarray(y_contract, dtype=np.int64), kind="stable")
  x_contract_sorted = [int(x_contract[i]) for i in order]
  out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_kept + x_contract_sorted))
  # The cotangent takes the operand's layout (JAX passes it as out_sharding), so a contraction
  # over dimensions split on both sides is not ambiguous here.
  with spmd_jit.out_sharding_given():
    out = dot_general_p.bind(ct, other, dimension_numbers=dims, precision=precision,
                             preferred_element_type=preferred_element_type, out_sharding=None)
  if out_axes != tuple(range(len(out_axes))):
    out = structural.transpose(out, out_axes)
  if core.get_aval(out).dtype != operand_aval.dtype:
    out = elementwise_convert._convert_element_type(out, operand_aval.dtype, operand_aval.weak_type)
  return out


def _dot_general_transpose_lhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                               out_sharding):
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  return _dot_transpose_operand(ct, y, x.aval, (x_contract, x_batch), (y_contract, y_batch),
                                precision=precision, preferred_element_type=preferred_element_type,
                                operand_is_lhs=True)


def _dot_general_transpose_rhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                               out_sharding):
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  return _dot_transpose_operand(ct, x, y.aval, (y_contract, y_batch), (x_contract, x_batch),
                                precision=precision, preferred_element_type=preferred_element_type,
                                operand_is_lhs=False)


ad.defbilinear(dot_general_p, _dot_general_transpose_lhs, _dot_general_transpose_rhs)


def _bump(dims, bdim: int) -> tuple[int, ...]:
  """Dimension indices of an unbatched operand, renumbered for a batch axis at ``bdim``."""
  return tuple(int(d) + (1 if d >= bdim else 0) for d in dims)


def _dot_general_batch_rule(values, batch_dims, *, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
  """The vmapped axis becomes a dot_general batch dimension (both operands batched) or a free
  dimension (one operand batched); no operand is moved."""
  lhs, rhs = values
  lbd, rbd = batch_dims
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  if lbd is not None and rbd is not None:
    lhs_batch = (lbd,) + _bump(lhs_batch, lbd)
    rhs_batch = (rbd,) + _bump(rhs_batch, rbd)
    lhs_contract, rhs_contract = _bump(lhs_contract, lbd), _bump(rhs_contract, rbd)
    out_dim = 0
  elif lbd is not None:
    lhs_free = _remaining(core.get_aval(lhs).ndim - 1, lhs_batch, lhs_contract)
    out_dim = len(lhs_batch) + sum(1 for d in lhs_free if d < lbd)
    lhs_batch, lhs_contract = _bump(lhs_batch, lbd), _bump(lhs_contract, lbd)
  else:
    lhs_ndim = core.get_aval(lhs).ndim
    rhs_free = _remaining(core.get_aval(rhs).ndim - 1, rhs_batch, rhs_contract)
    out_dim = lhs_ndim - len(lhs_contract) + sum(1 for d in rhs_free if d < rbd)
    rhs_batch, rhs_contract = _bump(rhs_batch, rbd), _bump(rhs_contract, rbd)
  dims = ((tuple(lhs_contract), tuple(rhs_contract)), (tuple(lhs_batch), tuple(rhs_batch)))
  out = dot_general_p.bind(lhs, rhs, dimension_numbers=dims, precision=precision,
                           preferred_element_type=preferred_element_type, out_sharding=out_sharding)
  return out, out_dim


batching.primitive_batchers[dot_general_p] = _dot_general_batch_rule


def _dot_general_pp_params(params: dict) -> dict:
  shown = {k: v for k, v in params.items() if v is not None and k != "out_sharding"}
  (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = params["dimension_numbers"]
  shown["dimension_numbers"] = repr(((list(lhs_contracting), list(rhs_contracting)),
                                     (list(lhs_batch), list(rhs_batch))))
  if isinstance(shown.get("precision"), DotAlgorithmPreset):
    shown["precision"] = str(shown["precision"])
  return shown


ir.pp_param_rules[dot_general_p] = _dot_general_pp_params


def _index_tuple(dims, what: str) -> tuple[int, ...]:
  """``dims`` (an int or a sequence of ints) as a tuple of Python ints."""
  try:
    if isinstance(dims, (int, np.integer)):
      return (operator.index(dims),)
    return tuple(operator.index(d) for d in dims)
  except TypeError:
    raise TypeError(f"dot_general {what} must be an int or a sequence of ints, got {dims!r}.") from None


def _shape_of(x) -> tuple[int, ...]:
  shape = getattr(x, "shape", None)
  return tuple(shape) if shape is not None else np.shape(x)


def dot(lhs, rhs, *, dimension_numbers=None, precision: PrecisionLike = None,
        preferred_element_type=None, out_sharding=None):
  """General dot product / contraction (``lax.dot``), lowering to ``dot_general``.

  Args:
    lhs, rhs: arrays.
    dimension_numbers: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``, tuples of
      dimension indices. May be omitted for a plain vector-vector, matrix-vector or matrix-matrix
      product (contracting the last dimension of ``lhs`` with the first of ``rhs``).
    precision: None, a ``Precision`` (or its string alias), a pair of them, or a
      ``DotAlgorithmPreset`` (or its name).
    preferred_element_type: the output dtype, also the accumulation type (e.g. int8 operands with
      ``preferred_element_type=jnp.int32`` accumulate without overflowing int8). None: the wider
      of the operand dtypes.
    out_sharding: must be None (single device).

  Returns:
    An array whose dimensions are the batch dimensions, then ``lhs``'s free dimensions, then
    ``rhs``'s free dimensions. Integer products wrap on overflow.
  """
  lhs_shape, rhs_shape = _shape_of(lhs), _shape_of(rhs)
  if dimension_numbers is None:
    if 1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2 and lhs_shape[-1] == rhs_shape[0]:
      dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
    else:
      raise ValueError(
          "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched "
          "matrix-matrix, matrix-vector, or vector-vector products; "
          f"got lhs_shape={lhs_shape} rhs_shape={rhs_shape}")
  check_no_out_sharding(out_sharding, "dot_general")
  (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
  dims = ((_index_tuple(lhs_contracting, "lhs_contracting"),
           _index_tuple(rhs_contracting, "rhs_contracting")),
          (_index_tuple(lhs_batch, "lhs_batch"), _index_tuple(rhs_batch, "rhs_batch")))
  preferred = canonicalize_preferred_element_type(preferred_element_type, "dot")
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dims,
                            precision=canonicalize_precision(precision),
                            preferred_element_type=preferred, out_sharding=None)


def dot_general(lhs, rhs, dimension_numbers, precision: PrecisionLike = None,
                preferred_element_type=None, *, out_sharding=None):
  """General contraction (``lax.dot_general``): ``lax.dot`` with ``dimension_numbers`` required.

  ``dimension_numbers`` is ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``;
  the output has the batch dimensions first, then lhs free dimensions, then rhs free dimensions.
  See ``lax.dot`` for ``precision`` and ``preferred_element_type``.
  """
  return dot(lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
             preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision: PrecisionLike = None):
  """Batched matrix product (``lax.batch_matmul``): operands of equal rank >= 2, every dimension
  but the last two is a batch dimension."""
  lhs_ndim, rhs_ndim = len(_shape_of(lhs)), len(_shape_of(rhs))
  if min(lhs_ndim, rhs_ndim) < 2:
    raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs_ndim}, {rhs_ndim}")
  if lhs_ndim != rhs_ndim:
    raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs_ndim}, {rhs_ndim}")
  batch = tuple(range(lhs_ndim - 2))
  return dot_general(lhs, rhs, (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch)),
                     precision=precision)
