"""Op records for dot_general and conv_general_dilated.

The references are written independently of axle's kernels: ``reference_dot_general`` is an
``np.einsum`` in the accumulation dtype, ``reference_conv`` computes every output element straight
from XLA's definition (input position = out * stride + tap * rhs_dilation - pad_low, valid only on
the lhs_dilation grid), looping over output positions and kernel taps.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

from axle import lax
from tests.op_record import OpRecord, edge_values, random_array

bfloat16 = np.dtype(ml_dtypes.bfloat16)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _acc_dtype(out_dtype) -> np.dtype:
  out_dtype = np.dtype(out_dtype)
  if out_dtype in (np.dtype(np.float16), bfloat16):
    return np.dtype(np.float32)
  if out_dtype.kind in "iu":
    return np.dtype(np.uint64 if out_dtype.kind == "u" else np.int64)
  return out_dtype


def reference_dot_general(lhs, rhs, dimension_numbers, out_dtype):
  """``dot_general`` by ``np.einsum``: operands converted to the accumulation dtype, summed, then
  converted (wrapping for integers) to ``out_dtype``."""
  (lc, rc), (lb, rb) = dimension_numbers
  acc = _acc_dtype(out_dtype)
  lhs_sub = list(_LETTERS[:lhs.ndim])
  rhs_sub = list(_LETTERS[lhs.ndim:lhs.ndim + rhs.ndim])
  for l, r in zip(lc, rc):
    rhs_sub[r] = lhs_sub[l]
  for l, r in zip(lb, rb):
    rhs_sub[r] = lhs_sub[l]
  out_sub = ([lhs_sub[d] for d in lb] + [lhs_sub[d] for d in range(lhs.ndim) if d not in lc and d not in lb]
             + [rhs_sub[d] for d in range(rhs.ndim) if d not in rc and d not in rb])
  spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out_sub)}"
  if np.dtype(out_dtype) == np.bool_:
    counts = np.einsum(spec, lhs.astype(np.int64), rhs.astype(np.int64))
    return counts > 0
  with np.errstate(all="ignore"):
    out = np.einsum(spec, lhs.astype(acc), rhs.astype(acc))
    return np.asarray(out).astype(out_dtype)


def reference_conv(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                   dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                   out_dtype=None):
  """XLA's convolution straight from its definition (explicit padding pairs only)."""
  n_sp = lhs.ndim - 2
  lhs_dilation = lhs_dilation or (1,) * n_sp
  rhs_dilation = rhs_dilation or (1,) * n_sp
  if dimension_numbers is None:
    lhs_spec = rhs_spec = out_spec = tuple(range(lhs.ndim))
  else:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
  out_dtype = np.dtype(out_dtype or lhs.dtype)
  acc = _acc_dtype(out_dtype) if out_dtype != np.bool_ else np.dtype(np.int64)
  x = np.transpose(lhs, lhs_spec).astype(acc)
  w = np.transpose(rhs, rhs_spec).astype(acc)
  n, c = x.shape[:2]
  o, i = w.shape[:2]
  sizes, kernel = x.shape[2:], w.shape[2:]
  dilated = [0 if s == 0 else (s - 1) * d + 1 for s, d in zip(sizes, lhs_dilation)]
  window = [0 if k == 0 else (k - 1) * r + 1 for k, r in zip(kernel, rhs_dilation)]
  out_sizes = [max(0, (dz + lo + hi - wz) // st + 1)
               for dz, (lo, hi), wz, st in zip(dilated, padding, window, window_strides)]
  out_batch = n // batch_group_count
  groups = feature_group_count * batch_group_count
  out = np.zeros((out_batch, o, *out_sizes), acc)
  per_group = o // groups
  for pos in itertools.product(*[range(s) for s in out_sizes]):
    for tap in itertools.product(*[range(k) for k in kernel]):
      src = []
      for y, k, st, r, (lo, _), d, size in zip(pos, tap, window_strides, rhs_dilation, padding,
                                               lhs_dilation, sizes):
        p = y * st + k * r - lo
        if p < 0 or p % d or p // d >= size:
          break
        src.append(p // d)
      else:
        for g in range(groups):
          outs = slice(g * per_group, (g + 1) * per_group)
          if batch_group_count > 1:
            xs = x[(slice(g * out_batch, (g + 1) * out_batch), slice(None), *src)]     # (N', C)
          else:
            xs = x[(slice(None), slice(g * i, (g + 1) * i), *src)]                     # (N, I)
          ws = w[(outs, slice(None), *tap)]                                             # (O/g, I)
          with np.errstate(all="ignore"):
            out[(slice(None), outs, *pos)] += xs @ ws.T
  out = np.transpose(out, np.argsort(out_spec))
  if out_dtype == np.bool_:
    return out > 0
  with np.errstate(all="ignore"):
    return out.astype(out_dtype)


# ---------------------------------------------------------------------------
# Records

DOT_DTYPES = [np.float32, np.float16, bfloat16, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
              np.bool_, np.complex64]
DOT_SHAPES = [
    ("vv", (5,), (5,), (((0,), (0,)), ((), ()))),
    ("mv", (3, 4), (4,), (((1,), (0,)), ((), ()))),
    ("mm", (3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ("mtm", (4, 3), (4, 5), (((0,), (0,)), ((), ()))),
    ("batch", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ("batch_mid", (3, 2, 4), (4, 2, 5), (((2,), (0,)), ((1,), (1,)))),
    ("multi", (3, 2, 4, 5), (2, 4, 3, 6), (((0, 2), (2, 1)), ((1,), (0,)))),
    ("outer", (3,), (4,), (((), ()), ((), ()))),
    ("empty", (2, 0), (0, 3), (((1,), (0,)), ((), ()))),
]


def _dot_record(name, lhs_shape, rhs_shape, dims, dtype, preferred=None, values=None, precision=None,
                storage=None):
  """A dot_general record. ``storage``: (operand dtype, product dtype) an algorithm preset rounds
  to before the result is converted to the output dtype (XLA converts exactly these)."""
  out_dtype = np.dtype(preferred or dtype)

  def make_args(rng):
    if values is not None:
      pool = values(dtype)
      return [rng.choice(pool, lhs_shape), rng.choice(pool, rhs_shape)]
    return [random_array(rng, lhs_shape, dtype, -4, 4), random_array(rng, rhs_shape, dtype, -4, 4)]

  def reference(a, b):
    if storage is None:
      return reference_dot_general(a, b, dims, out_dtype)
    operand_dtype, product_dtype = storage
    product = reference_dot_general(a.astype(operand_dtype), b.astype(operand_dtype), dims,
                                    product_dtype)
    return product.astype(out_dtype)

  inexact = out_dtype.kind in "fc" or out_dtype == bfloat16
  return OpRecord(
      name=name, primitive="dot_general",
      fun=lambda a, b: lax.dot_general(a, b, dims, precision=precision,
                                       preferred_element_type=preferred),
      reference=reference,
      make_args=make_args,
      rtol=2e-2 if out_dtype in (np.dtype(np.float16), bfloat16) else 1e-5,
      atol=0 if not inexact else 1e-5)


RECORDS: list[OpRecord] = []
for _dtype in DOT_DTYPES:
  for _shape_name, _lhs, _rhs, _dims in DOT_SHAPES:
    RECORDS.append(_dot_record(f"dot_general_{_shape_name}_{np.dtype(_dtype).name}", _lhs, _rhs, _dims,
                               _dtype))
RECORDS += [
    _dot_record("dot_general_int8_pref_int32", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.int8, np.int32,
                values=edge_values),
    _dot_record("dot_general_int8_wraps", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.int8,
                values=edge_values),
    _dot_record("dot_general_int32_wraps", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.int32,
                values=edge_values),
    _dot_record("dot_general_uint8_pref_float32", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.uint8,
                np.float32, values=edge_values),
    _dot_record("dot_general_f16_pref_f32", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.float16,
                np.float32),
    _dot_record("dot_general_bool_pref_int32", (3, 6), (6, 2), (((1,), (0,)), ((), ())), np.bool_,
                np.int32),
    _dot_record("dot_general_f32_edge_values", (2, 1), (1, 3), (((1,), (0,)), ((), ())), np.float32,
                values=edge_values),
    # Algorithm presets: XLA stores the operands in the preset's type (F16_F16_F16 rounds float32
    # operands and the product to float16; BF16_BF16_F32 stores float16 operands as bfloat16).
    _dot_record("dot_general_preset_f16_f16_f16_on_float32", (3, 6), (6, 2), (((1,), (0,)), ((), ())),
                np.float32, precision="F16_F16_F16", storage=(np.float16, np.float16)),
    _dot_record("dot_general_preset_bf16_bf16_f32_on_float16", (3, 6), (6, 2), (((1,), (0,)), ((), ())),
                np.float16, precision="BF16_BF16_F32", storage=(bfloat16, np.float32)),
    _dot_record("dot_general_preset_f32_f32_f32_on_bfloat16", (3, 6), (6, 2), (((1,), (0,)), ((), ())),
                bfloat16, precision=lax.DotAlgorithmPreset.F32_F32_F32, storage=(np.float32, np.float32)),
]

# (name, lhs shape, rhs shape, kwargs) in the default NC.../OI... layout unless dimension_numbers says.
CONV_CONFIGS = [
    ("1d_valid", (2, 3, 9), (4, 3, 3), dict(window_strides=(1,), padding=((0, 0),))),
    ("1d_stride_pad", (2, 3, 9), (4, 3, 3), dict(window_strides=(2,), padding=((2, 1),))),
    # (-2, 1): XLA:CPU's convolution reads out of bounds here (JAX 0.10.2 returns garbage); axle's
    # lowering applies negative padding with a stablehlo.pad first.
    ("1d_negative_pad", (2, 3, 9), (4, 3, 3), dict(window_strides=(1,), padding=((-2, 1),))),
    ("1d_lhs_dilation", (1, 2, 5), (3, 2, 3), dict(window_strides=(1,), padding=((2, 2),), lhs_dilation=(2,))),
    ("1d_rhs_dilation", (1, 2, 9), (3, 2, 3), dict(window_strides=(1,), padding=((1, 1),), rhs_dilation=(3,))),
    ("1d_groups", (2, 6, 7), (9, 2, 3), dict(window_strides=(1,), padding=((1, 1),), feature_group_count=3)),
    ("1d_depthwise", (2, 4, 7), (4, 1, 3), dict(window_strides=(1,), padding=((1, 1),), feature_group_count=4)),
    ("1d_batch_groups", (4, 2, 7), (6, 2, 3), dict(window_strides=(1,), padding=((0, 0),), batch_group_count=2)),
    ("2d_nchw", (2, 3, 6, 5), (4, 3, 3, 2), dict(window_strides=(1, 2), padding=((1, 1), (0, 1)))),
    ("2d_nhwc", (2, 6, 5, 3), (3, 2, 3, 4), dict(window_strides=(2, 1), padding=((1, 0), (1, 1)),
                                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ("2d_all", (1, 4, 5, 6), (2, 2, 2, 3), dict(window_strides=(2, 1), padding=((2, 1), (-1, 2)),
                                                lhs_dilation=(2, 1), rhs_dilation=(1, 2), feature_group_count=2)),
    ("3d", (1, 2, 4, 3, 5), (2, 2, 2, 2, 3), dict(window_strides=(1, 1, 2), padding=((1, 0), (0, 0), (1, 1)))),
    ("0d", (3, 4), (5, 4), dict(window_strides=(), padding=())),
    ("1d_dilated_negative_pad", (1, 2, 5), (3, 2, 3), dict(window_strides=(1,), padding=((-3, 1),),
                                                             lhs_dilation=(2,))),
]
CONV_DTYPES = [np.float32, np.float16, bfloat16, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
               np.bool_, np.complex64]


def _canonical_dnums(kwargs, ndim):
  layout = kwargs.get("dimension_numbers")
  if layout is None:
    return None
  return tuple(lax.conv_dimension_numbers((1,) * ndim, (1,) * ndim, layout))


def _conv_record(name, lhs_shape, rhs_shape, kwargs, dtype, preferred=None):
  out_dtype = np.dtype(preferred or dtype)
  ref_kwargs = dict(kwargs)
  ref_kwargs["dimension_numbers"] = _canonical_dnums(kwargs, len(lhs_shape))

  def make_args(rng):
    return [random_array(rng, lhs_shape, dtype, -3, 3), random_array(rng, rhs_shape, dtype, -3, 3)]

  inexact = out_dtype.kind in "fc" or out_dtype == bfloat16
  return OpRecord(
      name=name, primitive="conv_general_dilated",
      fun=lambda a, b: lax.conv_general_dilated(a, b, preferred_element_type=preferred, **kwargs),
      reference=lambda a, b: reference_conv(a, b, out_dtype=out_dtype, **ref_kwargs),
      make_args=make_args, trials=2,
      rtol=2e-2 if out_dtype in (np.dtype(np.float16), bfloat16) else 1e-5,
      atol=0 if not inexact else 1e-4)


for _name, _lhs, _rhs, _kwargs in CONV_CONFIGS:
  RECORDS.append(_conv_record(f"conv_{_name}_float32", _lhs, _rhs, _kwargs, np.float32))
for _dtype in CONV_DTYPES[1:]:
  for _name, _lhs, _rhs, _kwargs in CONV_CONFIGS[:1] + CONV_CONFIGS[5:6] + CONV_CONFIGS[8:11]:
    RECORDS.append(_conv_record(f"conv_{_name}_{np.dtype(_dtype).name}", _lhs, _rhs, _kwargs, _dtype))
for _dtype in (np.int32, np.complex64):
  RECORDS.append(_conv_record(f"conv_1d_negative_pad_{np.dtype(_dtype).name}", *CONV_CONFIGS[2][1:], _dtype))
RECORDS += [
    _conv_record("conv_int8_pref_int32", (2, 3, 9), (4, 3, 3), CONV_CONFIGS[1][3], np.int8, np.int32),
    _conv_record("conv_int8_pref_float32", (2, 3, 9), (4, 3, 3), CONV_CONFIGS[1][3], np.int8, np.float32),
    _conv_record("conv_f16_pref_f32", (2, 3, 9), (4, 3, 3), CONV_CONFIGS[1][3], np.float16, np.float32),
]


# ---------------------------------------------------------------------------
# Transformations: vmap-vs-loop for the float32 and int32 records, check_grads (order 2, forward
# and reverse) for the float32 ones at random normal points (both operands differentiated).


def _first_dtype(record: OpRecord) -> np.dtype:
  return np.asarray(record.make_args(np.random.default_rng(0))[0]).dtype


def _normal_args(make_args):
  def make(rng):
    return [rng.normal(size=np.shape(a)).astype(np.float32) if np.asarray(a).dtype == np.float32
            else a for a in make_args(rng)]
  return make


for _record in RECORDS:
  _dtypes = {np.asarray(a).dtype for a in _record.make_args(np.random.default_rng(0))}
  if _dtypes <= {np.dtype(np.float32), np.dtype(np.int32)}:
    _record.transforms = _record.transforms | {"vmap"}
  # (Algorithm presets round the operands to 16 bits: finite differences are meaningless there.)
  if _dtypes == {np.dtype(np.float32)} and "preset" not in _record.name:
    _record.transforms = _record.transforms | {"grad"}
    _record.grad_make_args = _normal_args(_record.make_args)
    _record.grad_tol = 5e-2
