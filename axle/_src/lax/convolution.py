"""Convolutions: the ``conv_general_dilated`` primitive and its lax wrappers.

Semantics (XLA's Conv): the lhs is dilated (``lhs_dilation - 1`` zeros between
elements; a transposed convolution), padded (negative padding crops), and a
window of the kernel, dilated by ``rhs_dilation`` (atrous), slides over it with
``window_strides``. It is a cross-correlation: the kernel is not flipped.
``feature_group_count`` splits the lhs features and rhs output features into
groups (grouped / depthwise convolution); ``batch_group_count`` splits the lhs
batch the same way. Layouts are given by ``ConvDimensionNumbers``.

Eager kernel: transpose the lhs to channels-last ``(N, spatial..., C)`` and the
rhs to ``(O, I, spatial...)``, dilate and pad the lhs into one zero buffer, view
every (strided, dilated) window with ``as_strided``, copy the windows once into
an im2col matrix and contract with one batched ``np.matmul`` over the groups.

Lowering: one ``stablehlo.convolution`` (precision presets lower as DEFAULT: XLA:CPU convolutions
take no algorithm). Complex convolutions become three real ones (Gauss's trick), as JAX emits on
CPU. Spatial dimensions with a negative pad get their dilation and padding from a
``stablehlo.pad`` first, because XLA:CPU's convolution reads out of bounds for some negative
paddings (e.g. ``(-2, 1)``, where JAX 0.10.2 itself returns garbage).
"""
from __future__ import annotations

import enum
import math
import operator
from typing import NamedTuple, Sequence, Union

import numpy as np

from axle._src import core
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import elementwise_convert
from axle._src.lax import reductions
from axle._src.lax import structural
from axle._src.lax.contractions import (Precision, PrecisionLike, accumulation_dtype,
                               canonicalize_precision,
                               canonicalize_preferred_element_type, cast_result,
                               check_no_out_sharding, precision_config,
                               prepare_operand, validate_preferred_element_type)

__all__ = ["conv", "conv_with_general_padding", "conv_general_dilated", "conv_dimension_numbers",
           "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "conv_transpose",
           "padtype_to_pads", "conv_general_permutations", "conv_shape_tuple",
           "conv_general_shape_tuple", "conv_transpose_shape_tuple", "conv_general_dilated_p",
           "conv_general_dilated_patches"]


class ConvDimensionNumbers(NamedTuple):
  """Where the batch, feature and spatial dimensions of a convolution's operands and output are.

  ``lhs_spec``: ``(batch dim, feature dim, spatial dims...)`` of the input;
  ``rhs_spec``: ``(out feature dim, in feature dim, spatial dims...)`` of the kernel;
  ``out_spec``: ``(batch dim, feature dim, spatial dims...)`` of the output.
  """
  lhs_spec: Sequence[int]
  rhs_spec: Sequence[int]
  out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple, ConvDimensionNumbers, None]


# ---------------------------------------------------------------------------
# Padding and dimension-number helpers



class PaddingType(enum.Enum):
  """Padding modes understood by ``padtype_to_pads``."""
  VALID = 1
  SAME = 2
  SAME_LOWER = 3


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
  """Turns a padding mode into explicit ``(low, high)`` pads, one pair per spatial dimension.

  ``'VALID'``: no padding. ``'SAME'``: pad so the output size is ``ceil(in / stride)``, the odd
  element of padding going at the end; ``'SAME_LOWER'``: the same with the odd element at the start.
  """
  if isinstance(padding, str):
    try:
      padding = PaddingType[padding.upper()]
    except KeyError:
      raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                         f"got {padding}.") from None
  if padding in (PaddingType.SAME, PaddingType.SAME_LOWER):
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
      size, window, stride = int(size), int(window), int(stride)
      out = -(-size // stride)
      total = max((out - 1) * stride + window - size, 0)
      if padding == PaddingType.SAME:
        pads.append((total // 2, total - total // 2))
      else:
        pads.append((total - total // 2, total // 2))
    return pads
  if padding == PaddingType.VALID:
    return [(0, 0)] * len(in_shape)
  raise TypeError(f"Unknown padding type: {padding}.")


def conv_general_permutations(dimension_numbers):
  """The ``(lhs_spec, rhs_spec, out_spec)`` permutations for layout strings such as
  ``('NHWC', 'HWIO', 'NHWC')``; spatial dimensions are ordered as they appear in the rhs string."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
  for i, (a, b) in enumerate(charpairs):
    if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
      raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                      f"'{b}' exactly once, got {dimension_numbers[i]}.")
    if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
      raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got "
                      f"{dimension_numbers[i]}.")
  if not (set(lhs_spec) - set(charpairs[0]) == set(rhs_spec) - set(charpairs[1])
          == set(out_spec) - set(charpairs[2])):
    raise TypeError("convolution dimension_numbers elements must each have the same set of "
                    f"spatial characters, got {dimension_numbers}.")

  def perm(spec, pair):
    spatial = [i for i, c in enumerate(spec) if c not in pair]
    if spec is not rhs_spec:
      spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

  return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
  """Converts ``dimension_numbers`` (None, a 3-tuple of layout strings, or a
  ``ConvDimensionNumbers``) into a ``ConvDimensionNumbers``. None means ``('NC...', 'OI...', 'NC...')``."""
  if isinstance(dimension_numbers, ConvDimensionNumbers):
    return dimension_numbers
  if len(lhs_shape) != len(rhs_shape):
    raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and "
                    f"{len(rhs_shape)}.")
  if dimension_numbers is None:
    iota = tuple(range(len(lhs_shape)))
    return ConvDimensionNumbers(iota, iota, iota)
  if isinstance(dimension_numbers, (list, tuple)):
    if len(dimension_numbers) != 3:
      raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                      f"{len(dimension_numbers)}.")
    if not all(isinstance(spec, str) for spec in dimension_numbers):
      raise TypeError("convolution dimension_numbers elements must be strings, got "
                      f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
      if len(spec) != len(lhs_shape):
        raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                        f"and rhs, got {len(spec)} for lhs and rhs shapes {tuple(lhs_shape)} and "
                        f"{tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(tuple(dimension_numbers)))
  raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                  f"{type(dimension_numbers)}.")


def _dilate_dim(size: int, dilation: int) -> int:
  return size if dilation == 1 else max(0, 1 + dilation * (size - 1))


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1) -> tuple[int, ...]:
  """Output shape of a convolution with operands in canonical ``(N, C, ...)``/``(O, I, ...)`` order."""
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  if len(pads) != len(lhs_shape) - 2:
    raise TypeError(f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, "
                    f"got {len(pads)}.")
  padded = [size + lo + hi for size, (lo, hi) in zip(lhs_shape[2:], pads)]
  if any(p < 0 for p in padded):
    # JAX's message shows the sizes as NumPy scalars; keep the text identical.
    sizes = tuple(np.int64(d) for d in lhs_shape[2:])
    raise ValueError("Negative padding is larger than the size of the corresponding dimension: "
                     f"got padding={pads} for lhs_shape[2:]={sizes}")
  spatial = tuple(max((p - k) // s + 1, 0) for p, k, s in zip(padded, rhs_shape[2:], strides))
  batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
  return (batch, rhs_shape[0]) + spatial


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
  """Output shape of ``conv_general_dilated`` without dilation, for layout strings."""
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  out = conv_shape_tuple(tuple(lhs_shape[i] for i in lhs_perm), tuple(rhs_shape[i] for i in rhs_perm),
                         window_strides, padding)
  return tuple(out[i] for i in np.argsort(out_perm))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
  """Output shape of ``conv_transpose`` for layout strings."""
  lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
  lhs_trans = [lhs_shape[i] for i in lhs_perm]
  rhs_trans = [rhs_shape[i] for i in rhs_perm]
  if isinstance(padding, str):
    padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs_trans[2:], window_strides)]
  totals = [sum(p) for p in padding]
  spatial = [(i - 1) * s - k + 2 + p
             for i, k, s, p in zip(lhs_trans[2:], rhs_trans[2:], window_strides, totals)]
  out = (lhs_trans[0], rhs_trans[0], *spatial)
  return tuple(out[i] for i in np.argsort(out_perm))


# ---------------------------------------------------------------------------
# conv_general_dilated

conv_general_dilated_p = core.Primitive("conv_general_dilated")


def _check_positive(values, what: str) -> None:
  if all(v > 0 for v in values):
    return
  if what.endswith("dilation"):
    raise TypeError(f"All dilations must be positive, got {tuple(values)}.")
  raise ValueError(f"conv_general_dilated {what} must be positive integers, got {tuple(values)}.")


def _conv_general_dilated_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides,
                                        padding, lhs_dilation, rhs_dilation, dimension_numbers,
                                        feature_group_count, batch_group_count, precision,
                                        preferred_element_type, out_sharding) -> ShapedArray:
  if lhs.ndim != rhs.ndim:
    raise ValueError("conv_general_dilated lhs and rhs must have the same number of dimensions, "
                     f"but got {lhs.shape} and {rhs.shape}.")
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  for name, spec in (("lhs_spec", lhs_spec), ("rhs_spec", rhs_spec), ("out_spec", out_spec)):
    if sorted(spec) != list(range(lhs.ndim)):
      raise ValueError(f"conv_general_dilated dimension_numbers.{name} must be a permutation of "
                       f"range({lhs.ndim}) for operands of rank {lhs.ndim}, got {tuple(spec)}.")
  if not feature_group_count > 0:
    raise ValueError("conv_general_dilated feature_group_count must be a positive integer, got "
                     f"{feature_group_count}.")
  lhs_features = lhs.shape[lhs_spec[1]]
  quot, rem = divmod(lhs_features, feature_group_count)
  if rem:
    raise ValueError("conv_general_dilated feature_group_count must divide lhs feature dimension "
                     f"size, but {feature_group_count} does not divide {lhs_features}.")
  if quot != rhs.shape[rhs_spec[1]]:
    raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                     "feature_group_count must equal the rhs input feature dimension size, but "
                     f"{lhs_features} // {feature_group_count} != {rhs.shape[rhs_spec[1]]}.")
  if rhs.shape[rhs_spec[0]] % feature_group_count:
    raise ValueError("conv_general_dilated rhs output feature dimension size must be a multiple of "
                     f"feature_group_count, but {rhs.shape[rhs_spec[0]]} is not a multiple of "
                     f"{feature_group_count}.")
  if not batch_group_count > 0:
    raise ValueError("conv_general_dilated batch_group_count must be a positive integer, got "
                     f"{batch_group_count}.")
  lhs_batch = lhs.shape[lhs_spec[0]]
  if batch_group_count > 1 and lhs_batch % batch_group_count:
    raise ValueError("conv_general_dilated batch_group_count must divide lhs batch dimension size, "
                     f"but {batch_group_count} does not divide {lhs_batch}.")
  if rhs.shape[rhs_spec[0]] % batch_group_count:
    raise ValueError("conv_general_dilated rhs output feature dimension size must be a multiple of "
                     f"batch_group_count, but {rhs.shape[rhs_spec[0]]} is not a multiple of "
                     f"{batch_group_count}.")
  if batch_group_count > 1 and feature_group_count > 1:
    raise ValueError("At most one of batch_group_count and feature_group_count may be > 1, got "
                     f"batch_group_count={batch_group_count} and "
                     f"feature_group_count={feature_group_count}")
  n_spatial = lhs.ndim - 2
  if n_spatial != len(window_strides):
    raise ValueError("conv_general_dilated window and window_strides must have the same number of "
                     f"dimensions, but got {n_spatial} and {len(window_strides)}")
  for name, values in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
    if len(values) != n_spatial:
      raise ValueError(f"conv_general_dilated {name} must have one entry per spatial dimension "
                       f"({n_spatial}), got {tuple(values)}.")
  _check_positive(lhs_dilation, "lhs_dilation")
  _check_positive(rhs_dilation, "rhs_dilation")
  _check_positive(window_strides, "window_strides")
  lhs_trans = [lhs.shape[i] for i in lhs_spec]
  rhs_trans = [rhs.shape[i] for i in rhs_spec]
  lhs_trans = lhs_trans[:2] + [_dilate_dim(d, r) for d, r in zip(lhs_trans[2:], lhs_dilation)]
  rhs_trans = rhs_trans[:2] + [_dilate_dim(d, r) for d, r in zip(rhs_trans[2:], rhs_dilation)]
  out_trans = conv_shape_tuple(lhs_trans, rhs_trans, window_strides, padding, batch_group_count)
  shape = tuple(out_trans[i] for i in np.argsort(out_spec))
  dtype = _conv_result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
  return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _conv_result_dtype(lhs_dtype, rhs_dtype, preferred) -> np.dtype:
  if lhs_dtype != rhs_dtype:
    raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, got "
                    f"{np.dtype(lhs_dtype).name}, {np.dtype(rhs_dtype).name}.")
  if preferred is None:
    return np.dtype(lhs_dtype)
  validate_preferred_element_type(lhs_dtype, preferred)
  return np.dtype(preferred)


conv_general_dilated_p.def_abstract_eval(_conv_general_dilated_abstract_eval)


def _dilate_and_pad(x: np.ndarray, lhs_dilation, padding) -> np.ndarray:
  """``x`` (N, spatial..., C) with ``d - 1`` zeros between elements and (possibly negative) padding.

  Element ``i`` of a spatial dimension lands at ``i * d + low``; those outside ``[0, padded)`` are
  cropped away."""
  sizes = x.shape[1:-1]
  if all(d == 1 for d in lhs_dilation) and all(lo == 0 and hi == 0 for lo, hi in padding):
    return x
  padded_shape, src, dst = [], [], []
  for size, d, (lo, hi) in zip(sizes, lhs_dilation, padding):
    padded = _dilate_dim(size, d) + lo + hi
    first = -(-max(0, -lo) // d)               # first element index with i * d + lo >= 0
    last = min(size, -(-(padded - lo) // d))    # one past the last with i * d + lo < padded
    last = max(last, first)
    padded_shape.append(padded)
    src.append(slice(first, last))
    dst.append(slice(first * d + lo, first * d + lo + (last - first - 1) * d + 1, d) if last > first
               else slice(0, 0))
  out = np.zeros((x.shape[0], *padded_shape, x.shape[-1]), x.dtype)
  if all(sl.stop > sl.start for sl in src):
    out[(slice(None), *dst)] = x[(slice(None), *src)]
  return out


def _conv_general_dilated_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                               dimension_numbers, feature_group_count, batch_group_count, precision,
                               preferred_element_type, out_sharding):
  # XLA:CPU convolutions ignore ``precision`` (JAX accepts every algorithm preset here, unlike
  # for dot_general).
  lhs = np.asarray(lhs)
  rhs = np.asarray(rhs)
  out_dtype = _conv_result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
  acc = accumulation_dtype(out_dtype, lhs.dtype, rhs.dtype)
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  n_spatial = lhs.ndim - 2
  # Channels-last input (N, S..., C) so every im2col row copies contiguous runs of channels.
  x = prepare_operand(lhs.transpose((lhs_spec[0], *lhs_spec[2:], lhs_spec[1])), acc, precision)
  w = prepare_operand(rhs.transpose(rhs_spec), acc, precision)   # (O, I, K...)
  x = _dilate_and_pad(x, lhs_dilation, padding)
  kernel = w.shape[2:]
  window = tuple(_dilate_dim(k, r) for k, r in zip(kernel, rhs_dilation))
  out_spatial = tuple(max((p - k) // s + 1, 0)
                      for p, k, s in zip(x.shape[1:1 + n_spatial], window, window_strides))
  batch = x.shape[0]
  out_features, in_features = w.shape[:2]
  groups = feature_group_count * batch_group_count  # at most one of them exceeds 1
  out_batch = batch // batch_group_count
  per_group = out_features // groups
  k_size = math.prod(kernel)
  o_size = math.prod(out_spatial)
  if o_size == 0 or out_batch == 0 or out_features == 0 or k_size == 0:
    out = np.zeros((out_batch, out_features) + out_spatial, acc)
  else:
    # A read-only view of every window, (N, out..., C, K...): window starts step by the stride,
    # taps by rhs_dilation. out_spatial guarantees every view element lies inside x.
    spatial_axes = tuple(range(1, 1 + n_spatial))
    spatial_strides = x.strides[1:1 + n_spatial]
    patches = np.lib.stride_tricks.as_strided(
        x, shape=(batch, *out_spatial, x.shape[-1], *kernel),
        strides=(x.strides[0], *(b * s for b, s in zip(spatial_strides, window_strides)), x.strides[-1],
                 *(b * r for b, r in zip(spatial_strides, rhs_dilation))),
        writeable=False)
    # -> (B, N', out..., K..., G, I) -> (groups, N' * out, K * I): one copy, channels innermost.
    k_axes = tuple(range(2 + n_spatial, 2 + 2 * n_spatial))
    patches = patches.transpose((0, *spatial_axes, *k_axes, 1 + n_spatial))
    patches = patches.reshape((batch_group_count, out_batch, o_size, k_size,
                               feature_group_count, in_features))
    patches = patches.transpose(0, 4, 1, 2, 3, 5).reshape(groups, out_batch * o_size,
                                                         k_size * in_features)
    kernels = w.reshape(groups, per_group, in_features, k_size).transpose(0, 3, 2, 1)
    kernels = kernels.reshape(groups, k_size * in_features, per_group)
    with np.errstate(all="ignore"):
      out = np.matmul(patches, kernels)  # (groups, N' * out, O / groups)
    out = out.reshape((groups, out_batch, o_size, per_group)).transpose(1, 0, 3, 2)
    out = out.reshape((out_batch, out_features) + out_spatial)
  out = out.transpose(np.argsort(out_spec))
  return cast_result(np.ascontiguousarray(out), out_dtype)


conv_general_dilated_p.def_impl(_conv_general_dilated_impl)


def _conv_layout(spec, first: str, second: str) -> str:
  """``[b, 0, 1, f]``: the role of each dimension of an operand or the output."""
  roles = [""] * len(spec)
  roles[spec[0]], roles[spec[1]] = first, second
  for i, d in enumerate(spec[2:]):
    roles[d] = str(i)
  return "[" + ", ".join(roles) + "]"


def _convolution(ctx, lhs, rhs, out_aval: ShapedArray, params) -> "mlir.Value":
  lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
  n_spatial = len(lhs_spec) - 2
  layout = (f"#stablehlo.conv<{_conv_layout(lhs_spec, 'b', 'f')}x{_conv_layout(rhs_spec, 'o', 'i')}"
            f"->{_conv_layout(out_spec, 'b', 'f')}>")
  attributes = {
      "window_strides": mlir.dense_array(params["window_strides"]),
      "padding": reductions.padding_attribute(params["padding"]),
      "lhs_dilation": mlir.dense_array(params["lhs_dilation"]),
      "rhs_dilation": mlir.dense_array(params["rhs_dilation"]),
      "window_reversal": mlir.dense_array([False] * n_spatial, "i1"),
      "dimension_numbers": layout,
      "feature_group_count": f"{params['feature_group_count']} : i64",
      "batch_group_count": f"{params['batch_group_count']} : i64",
      # XLA:CPU convolutions take no algorithm: a preset lowers as DEFAULT precision.
      "precision_config": precision_config(params["precision"]),
  }
  return mlir.op(ctx, "stablehlo.convolution", [lhs, rhs], out_aval, attributes)


def _pad_negative_padding(ctx, lhs, params):
  """Applies the lhs dilation and padding of every spatial dimension with a negative pad as a
  ``stablehlo.pad`` of the lhs (XLA:CPU's convolution reads out of bounds for some negative
  paddings, e.g. (-2, 1)); the convolution then gets no padding or dilation there."""
  padding, lhs_dilation = list(params["padding"]), list(params["lhs_dilation"])
  if all(lo >= 0 and hi >= 0 for lo, hi in padding):
    return lhs, params
  lhs_spec = params["dimension_numbers"][0]
  ndim = lhs.aval.ndim
  low, high, interior = [0] * ndim, [0] * ndim, [0] * ndim
  shape = list(lhs.aval.shape)
  for i, (lo, hi) in enumerate(padding):
    if lo < 0 or hi < 0:
      d = lhs_spec[2 + i]
      low[d], high[d], interior[d] = lo, hi, lhs_dilation[i] - 1
      shape[d] = _dilate_dim(shape[d], lhs_dilation[i]) + lo + hi
      padding[i], lhs_dilation[i] = (0, 0), 1
  zero = mlir.constant(ctx, np.zeros((), lhs.aval.dtype))
  padded = mlir.op(ctx, "stablehlo.pad", [lhs, zero], ShapedArray(tuple(shape), lhs.aval.dtype),
                   {"edge_padding_low": mlir.dense_array(low),
                    "edge_padding_high": mlir.dense_array(high),
                    "interior_padding": mlir.dense_array(interior)})
  return padded, dict(params, padding=tuple(padding), lhs_dilation=tuple(lhs_dilation))


def _conv_general_dilated_lowering(ctx, lhs, rhs, **params):
  out_aval = ctx.avals_out[0]
  lhs, params = _pad_negative_padding(ctx, lhs, params)
  if out_aval.dtype.kind != "c":
    return _convolution(ctx, lhs, rhs, ShapedArray(out_aval.shape, out_aval.dtype), params)
  # As JAX does on CPU: a complex convolution as three real ones (Gauss's trick).
  part = np.dtype(np.float32 if out_aval.dtype == np.complex64 else np.float64)
  part_aval = ShapedArray(out_aval.shape, part)
  lhs_re, lhs_im = mlir.real_part(ctx, lhs), mlir.imag_part(ctx, lhs)
  rhs_re, rhs_im = mlir.real_part(ctx, rhs), mlir.imag_part(ctx, rhs)
  add = lambda a, b: mlir.op(ctx, "stablehlo.add", [a, b], a.aval)
  sub = lambda a, b: mlir.op(ctx, "stablehlo.subtract", [a, b], a.aval)
  k1 = _convolution(ctx, add(lhs_re, lhs_im), rhs_re, part_aval, params)
  k2 = _convolution(ctx, lhs_re, sub(rhs_im, rhs_re), part_aval, params)
  k3 = _convolution(ctx, lhs_im, add(rhs_re, rhs_im), part_aval, params)
  return mlir.op(ctx, "stablehlo.complex", [sub(k1, k3), add(k1, k2)], out_aval)


mlir.register(conv_general_dilated_p, _conv_general_dilated_lowering)


# ---------------------------------------------------------------------------
# conv_general_dilated: differentiation and batching
#
# The convolution is bilinear. The cotangent of the input is a convolution of the output
# cotangent with the spatially reversed kernel (its in/out feature roles swapped), with the
# forward strides becoming input dilation and vice versa; the cotangent of the kernel is a
# convolution of the input with the output cotangent, the forward strides becoming kernel
# dilation. Feature groups of one become batch groups of the other.


def _spec_transpose(spec) -> tuple[int, ...]:
  """A spec with its first two entries (batch/feature or out/in feature) swapped."""
  return (int(spec[1]), int(spec[0])) + tuple(int(d) for d in spec[2:])


def _reshape_axis_into(src: int, dst: int, x):
  """Merges axis ``src`` of ``x`` into axis ``dst`` (numbered with ``src`` removed), ``src``
  becoming the major part."""
  shape = core.get_aval(x).shape
  perm = [i for i in range(len(shape)) if i != src]
  perm.insert(dst, src)
  new_shape = [shape[i] for i in range(len(shape)) if i != src]
  new_shape[dst] *= shape[src]
  return structural.reshape(x, tuple(new_shape), tuple(perm))


def _reshape_axis_out_of(src: int, size1: int, x):
  """Splits axis ``src`` of ``x`` into ``(size1, rest)``."""
  shape = list(core.get_aval(x).shape)
  size2, ragged = divmod(shape[src], size1)
  assert not ragged, (shape, src, size1)
  shape[src:src + 1] = [size1, size2]
  return structural.reshape(x, tuple(shape))


def _dilated_shape(shape, dilation) -> list[int]:
  return [_dilate_dim(int(d), int(r)) for d, r in zip(shape, dilation)]


def _lhs_transpose_padding(in_shape, window_shape, window_strides, out_shape, padding,
                           lhs_dilation, rhs_dilation) -> tuple[tuple[int, int], ...]:
  """Padding of the convolution computing the input cotangent."""
  lhs_d = _dilated_shape(in_shape, lhs_dilation)
  rhs_d = _dilated_shape(window_shape, rhs_dilation)
  out_d = _dilated_shape(out_shape, window_strides)
  before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding)]
  after = [l + k - 1 - o - b for l, k, o, b in zip(lhs_d, rhs_d, out_d, before)]
  return tuple((int(b), int(a)) for b, a in zip(before, after))


def _rhs_transpose_padding(in_shape, window_shape, window_strides, out_shape, padding,
                           lhs_dilation, rhs_dilation) -> tuple[tuple[int, int], ...]:
  """Padding of the convolution computing the kernel cotangent."""
  if not in_shape:
    return ()
  lhs_d = _dilated_shape(in_shape, lhs_dilation)
  rhs_d = _dilated_shape(window_shape, rhs_dilation)
  out_d = _dilated_shape(out_shape, window_strides)
  return tuple((int(lo), int((o - l) + (k - lo - 1)))
               for (lo, _), l, k, o in zip(padding, lhs_d, rhs_d, out_d))


def _matching_dtypes(ct, other):
  """The cotangent and the other operand in one dtype (they differ under
  preferred_element_type): the narrower is converted to the wider."""
  ct_dtype, other_dtype = core.get_aval(ct).dtype, core.get_aval(other).dtype
  if ct_dtype == other_dtype:
    return ct, other, None
  if np.dtype(ct_dtype).itemsize >= np.dtype(other_dtype).itemsize:
    return ct, elementwise_convert._convert_element_type(other, ct_dtype), ct_dtype
  return elementwise_convert._convert_element_type(ct, other_dtype), other, other_dtype


def _to_operand_dtype(x, aval):
  if core.get_aval(x).dtype != aval.dtype:
    x = elementwise_convert._convert_element_type(x, aval.dtype, aval.weak_type)
  return x


def _conv_transpose_lhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
  lhs_aval = lhs.aval
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  g, rhs, preferred = _matching_dtypes(g, rhs)
  if feature_group_count > 1:
    # The group axis moves from the kernel's output features into its input features.
    rhs = _reshape_axis_out_of(rhs_spec[0], feature_group_count, rhs)
    rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
  elif batch_group_count > 1:
    rhs = _reshape_axis_out_of(rhs_spec[0], batch_group_count, rhs)
    rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    feature_group_count = batch_group_count
  rhs_shape = core.get_aval(rhs).shape
  trans_dnums = ConvDimensionNumbers(tuple(out_spec), _spec_transpose(rhs_spec), tuple(lhs_spec))
  pads = _lhs_transpose_padding(
      [lhs_aval.shape[i] for i in lhs_spec[2:]], [rhs_shape[i] for i in rhs_spec[2:]],
      window_strides, [core.get_aval(g).shape[i] for i in out_spec[2:]], padding, lhs_dilation,
      rhs_dilation)
  reversed_rhs = structural.rev(rhs, tuple(int(d) for d in rhs_spec[2:]))
  out = conv_general_dilated_p.bind(
      g, reversed_rhs, window_strides=tuple(lhs_dilation), padding=pads,
      lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
      dimension_numbers=trans_dnums, feature_group_count=int(feature_group_count),
      batch_group_count=1, precision=precision,
      preferred_element_type=preferred if preferred is not None else preferred_element_type,
      out_sharding=None)
  if batch_group_count > 1:
    out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
    out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
  return _to_operand_dtype(out, lhs_aval)


def _conv_transpose_rhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
  rhs_aval = rhs.aval
  if core.get_aval(g).size == 0:
    return ad.Zero(rhs_aval)
  g, lhs, preferred = _matching_dtypes(g, lhs)
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  lhs_shape = core.get_aval(lhs).shape
  if batch_group_count > 1:
    feature_group_count, batch_group_count = batch_group_count, 1
  elif feature_group_count > 1:
    feature_group_count, batch_group_count = 1, feature_group_count
  trans_dnums = ConvDimensionNumbers(_spec_transpose(lhs_spec), _spec_transpose(out_spec),
                                     _spec_transpose(rhs_spec))
  pads = _rhs_transpose_padding(
      [lhs_shape[i] for i in lhs_spec[2:]], [rhs_aval.shape[i] for i in rhs_spec[2:]],
      window_strides, [core.get_aval(g).shape[i] for i in out_spec[2:]], padding, lhs_dilation,
      rhs_dilation)
  out = conv_general_dilated_p.bind(
      lhs, g, window_strides=tuple(rhs_dilation), padding=pads,
      lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
      dimension_numbers=trans_dnums, feature_group_count=int(feature_group_count),
      batch_group_count=int(batch_group_count), precision=precision,
      preferred_element_type=preferred if preferred is not None else preferred_element_type,
      out_sharding=None)
  return _to_operand_dtype(out, rhs_aval)


ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)


def _conv_general_dilated_batch_rule(values, batch_dims, **params):
  """The vmapped axis folds into the convolution: into feature groups when both operands are
  batched, into the batch dimension (input) or output features (kernel) when one is."""
  lhs, rhs = values
  lhs_bdim, rhs_bdim = batch_dims
  lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
  feature_group_count = params["feature_group_count"]
  batch_group_count = params["batch_group_count"]
  bind = lambda l, r, **changes: conv_general_dilated_p.bind(l, r, **{**params, **changes})
  if lhs_bdim is not None and rhs_bdim is not None:
    size = core.get_aval(lhs).shape[lhs_bdim]
    if batch_group_count > 1:
      new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
      batch_group_count *= size
    else:
      new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[1], lhs)
      feature_group_count *= size
    new_rhs = _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
    out = bind(new_lhs, new_rhs, feature_group_count=feature_group_count,
               batch_group_count=batch_group_count)
    return _reshape_axis_out_of(out_spec[1], size, out), int(out_spec[1])
  if lhs_bdim is not None:
    size = core.get_aval(lhs).shape[lhs_bdim]
    if batch_group_count == 1:
      new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
    else:
      # Batch groups must stay outermost in the batch dimension.
      new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(lhs_bdim <= lhs_spec[0]),
                                     batch_group_count, lhs)
      new_lhs = _reshape_axis_into(lhs_bdim + int(lhs_spec[0] < lhs_bdim), lhs_spec[0] + 1,
                                   new_lhs)
      new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
    out = bind(new_lhs, rhs)
    return _reshape_axis_out_of(out_spec[0], size, out), int(out_spec[0])
  size = core.get_aval(rhs).shape[rhs_bdim]
  if feature_group_count == 1 and batch_group_count == 1:
    new_rhs = _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
    out = bind(lhs, new_rhs)
    return _reshape_axis_out_of(out_spec[1], size, out), int(out_spec[1])
  # Groups must stay outermost in the kernel's output features: factor them out, fold the
  # batch into the rest, put them back; undo the same way on the output.
  groups = feature_group_count if feature_group_count > 1 else batch_group_count
  new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rhs_bdim <= rhs_spec[0]), groups, rhs)
  new_rhs = _reshape_axis_into(rhs_bdim + int(rhs_spec[0] < rhs_bdim), rhs_spec[0] + 1, new_rhs)
  new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
  out = bind(lhs, new_rhs)
  out = _reshape_axis_out_of(out_spec[1], groups, out)
  out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
  out = _reshape_axis_into(out_spec[1], out_spec[1] + 1, out)
  return out, int(out_spec[1])


batching.primitive_batchers[conv_general_dilated_p] = _conv_general_dilated_batch_rule


def _shape_of(x) -> tuple[int, ...]:
  shape = getattr(x, "shape", None)
  return tuple(shape) if shape is not None else np.shape(x)


def _int_tuple(values, what: str) -> tuple[int, ...]:
  try:
    return tuple(operator.index(v) for v in values)
  except TypeError:
    raise TypeError(f"conv_general_dilated {what} must be a sequence of integers, got {values!r}.") \
        from None


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision: PrecisionLike = None, preferred_element_type=None,
                         out_sharding=None):
  """General n-dimensional convolution with dilation (``lax.conv_general_dilated``, XLA's Conv).

  Args:
    lhs: input of rank ``n + 2``.
    rhs: kernel of rank ``n + 2``.
    window_strides: ``n`` strides.
    padding: ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'``, or ``n`` ``(low, high)`` pairs (negative
      values crop).
    lhs_dilation: ``n`` input dilation factors (transposed convolution); None means 1s.
    rhs_dilation: ``n`` kernel dilation factors (atrous convolution); None means 1s.
    dimension_numbers: None (``('NC...', 'OI...', 'NC...')``), a ``ConvDimensionNumbers``, or three
      layout strings such as ``('NHWC', 'HWIO', 'NHWC')``.
    feature_group_count: number of feature groups (grouped / depthwise convolution).
    batch_group_count: number of lhs batch groups.
    precision: as for ``lax.dot``.
    preferred_element_type: output and accumulation dtype; None means the operands' dtype.
    out_sharding: must be None (single device).

  Returns:
    The convolution, laid out as ``dimension_numbers``' output spec says.
  """
  lhs_shape, rhs_shape = _shape_of(lhs), _shape_of(rhs)
  dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  check_no_out_sharding(out_sharding, "conv_general_dilated")
  n_spatial = len(lhs_shape) - 2
  if lhs_dilation is None:
    lhs_dilation = (1,) * n_spatial
  elif isinstance(padding, str) and not all(d == 1 for d in lhs_dilation):
    raise ValueError("String padding is not implemented for transposed convolution using this op. "
                     "Please either exactly specify the required padding or use conv_transpose.")
  if rhs_dilation is None:
    rhs_dilation = (1,) * (len(rhs_shape) - 2)
  window_strides = _int_tuple(window_strides, "window_strides")
  lhs_dilation = _int_tuple(lhs_dilation, "lhs_dilation")
  rhs_dilation = _int_tuple(rhs_dilation, "rhs_dilation")
  if isinstance(padding, str):
    lhs_spatial = [lhs_shape[i] for i in dnums.lhs_spec[2:]]
    rhs_spatial = [rhs_shape[i] for i in dnums.rhs_spec[2:]]
    window = [_dilate_dim(k, r) for k, r in zip(rhs_spatial, rhs_dilation)]
    padding = padtype_to_pads(lhs_spatial, window, window_strides, padding)
  else:
    try:
      padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
      raise ValueError("padding argument to conv_general_dilated should be a string or a sequence "
                       f"of (low, high) pairs, got {padding}") from e
  dnums = ConvDimensionNumbers(*(tuple(operator.index(d) for d in spec) for spec in dnums))
  preferred = canonicalize_preferred_element_type(preferred_element_type, "conv_general_dilated")
  return conv_general_dilated_p.bind(
      lhs, rhs, window_strides=window_strides, padding=tuple(tuple(p) for p in padding),
      lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation, dimension_numbers=dnums,
      feature_group_count=operator.index(feature_group_count),
      batch_group_count=operator.index(batch_group_count),
      precision=canonicalize_precision(precision), preferred_element_type=preferred,
      out_sharding=None)


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision: PrecisionLike = None,
         preferred_element_type=None):
  """Convolution with ``NC...``/``OI...`` layouts and no dilation (``lax.conv``); ``padding`` is
  ``'SAME'`` or ``'VALID'`` (or explicit pairs)."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: PrecisionLike = None,
                              preferred_element_type=None):
  """Convolution with ``NC...``/``OI...`` layouts, explicit padding and dilations
  (``lax.conv_with_general_padding``)."""
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                              rhs_dilation=rhs_dilation, precision=precision,
                              preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
  """(low, high) padding of the dilated input for one dimension of a transposed convolution."""
  if padding == "SAME":
    pad_len = k + s - 2
    pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
  elif padding == "VALID":
    pad_len = k + s - 2 + max(k - s, 0)
    pad_a = k - 1
  elif isinstance(padding, tuple):
    pads = tuple(k - p - 1 for p in padding)
    pad_a = pads[0]
    pad_len = sum(pads)
  else:
    raise ValueError(f"Invalid padding mode: {padding}")
  return pad_a, pad_len - pad_a


def conv_transpose(lhs, rhs, strides: Sequence[int], padding, rhs_dilation=None,
                   dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                   transpose_kernel: bool = False, precision: PrecisionLike = None,
                   preferred_element_type=None, use_consistent_padding: bool = False):
  """Transposed ("fractionally strided") convolution (``lax.conv_transpose``), computed as a
  ``conv_general_dilated`` whose ``lhs_dilation`` is ``strides``.

  ``padding``: ``'SAME'``/``'VALID'`` name the padding of the forward convolution; explicit pairs
  are the padding of the transposed convolution itself unless ``use_consistent_padding=True``, in
  which case they too name the forward padding (PyTorch's convention). Default layouts are
  TensorFlow's (``'NHWC'``, ``'HWIO'``). ``transpose_kernel=True`` flips the kernel's spatial
  dimensions and swaps its I/O dimensions, giving the gradient of ``conv``.
  """
  lhs_shape, rhs_shape = _shape_of(lhs), _shape_of(rhs)
  if len(lhs_shape) != len(rhs_shape) or len(lhs_shape) < 2:
    raise ValueError("conv_transpose requires lhs and rhs of the same rank >= 2, got shapes "
                     f"{lhs_shape} and {rhs_shape}.")
  ndims = len(lhs_shape)
  one = (1,) * (ndims - 2)
  if dimension_numbers is None:
    defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                5: ("NHWDC", "HWDIO", "NHWDC")}
    if ndims not in defaults:
      raise ValueError("No 4+ dimensional dimension_number defaults.")
    dimension_numbers = defaults[ndims]
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  k_sdims = [rhs_shape[i] for i in dn.rhs_spec[2:]]
  if rhs_dilation is None:
    rhs_dilation = (1,) * (ndims - 2)
  if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
    effective = [_dilate_dim(k, r) for k, r in zip(k_sdims, rhs_dilation)]
    per_dim = [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
    pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(effective, strides, per_dim))
  else:
    pads = padding
  if transpose_kernel:
    rhs = structural.rev(rhs, tuple(dn.rhs_spec[2:]))
    perm = list(range(ndims))
    perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
    rhs = structural.transpose(rhs, tuple(perm))
  return conv_general_dilated(lhs, rhs, one, pads, strides, rhs_dilation, dn, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape: Sequence[int], window_strides: Sequence[int],
                                 padding, lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None,
                                 dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                                 precision=None, preferred_element_type=None):
  """The patches (receptive fields) a convolution of ``lhs`` with a kernel of spatial shape
  ``filter_shape`` would see (``lax.conv_general_dilated_patches``).

  The output has the layout of ``conv_general_dilated``'s output, with
  ``C * prod(filter_shape)`` features: for each input channel, the window's elements in
  row-major order. As in JAX, it is a depthwise convolution with a one-hot kernel.
  """
  lhs = structural._asarray(lhs)
  lhs_aval = core.get_aval(lhs)
  filter_shape = tuple(operator.index(d) for d in filter_shape)
  dimension_numbers = conv_dimension_numbers(lhs_aval.shape, (1, 1) + filter_shape,
                                             dimension_numbers)
  lhs_spec, rhs_spec, _ = dimension_numbers
  spatial_size = math.prod(filter_shape)
  n_channels = lhs_aval.shape[lhs_spec[1]]
  # One output channel per (input channel, window position): a one-hot kernel, built in the
  # program (an identity from two iotas, broadcast over the channels) as JAX builds it.
  square = (spatial_size, spatial_size)
  rows = elementwise.add(structural.broadcasted_iota(np.int32, square, 0), np.int32(0))
  eye = elementwise_convert.convert_element_type_p.bind(
      elementwise.eq(rows, structural.broadcasted_iota(np.int32, square, 1)),
      new_dtype=np.dtype(lhs_aval.dtype), weak_type=False, sharding=None)
  rhs = structural.broadcast_in_dim(eye, (n_channels,) + square, (1, 2))
  rhs = structural.reshape(rhs, (n_channels * spatial_size, 1) + filter_shape)
  order = [d for d in range(len(rhs_spec)) if d not in (0, 1)]
  for source, destination in sorted(((0, rhs_spec[0]), (1, rhs_spec[1])), key=lambda p: p[1]):
    order.insert(destination, source)
  if order != list(range(len(order))):
    rhs = structural.transpose(rhs, tuple(order))
  return conv_general_dilated(
      lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
      dimension_numbers=dimension_numbers,
      precision=None if precision is None else (precision, Precision.DEFAULT),
      feature_group_count=n_channels, preferred_element_type=preferred_element_type)
