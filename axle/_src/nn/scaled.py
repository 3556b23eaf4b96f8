"""Block-scaled matrix multiplication (``jax.nn.scaled_matmul``, ``jax.nn.scaled_dot_general``,
``jax.nn.get_scaled_dot_general_config``).

In JAX these run as a fused cuDNN kernel on NVIDIA GPUs (Blackwell) and have no CPU lowering
(``scaled_matmul`` raises ``NotImplementedError`` on the CPU). axle implements the reference
semantics JAX documents, in ordinary lax operations, on every backend: ``scaled_matmul``
dequantises each operand (every block of ``K // K_scales`` contracted elements multiplied by its
scale) and contracts in float32; ``scaled_dot_general`` quantises its high-precision operands to
the configured narrow formats (MXFP8: float8_e4m3fn data with power-of-two float8_e8m0fnu
scales per 32 elements; NVFP4: float4_e2m1fn data with float8_e4m3fn scales per 16 elements and
a float32 global scale), multiplies them with ``scaled_matmul`` and differentiates with JAX's
rule (the cotangent quantised the same way, a straight-through estimator for clipped NVFP4
inputs).
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from axle._src import dtypes
from axle._src import lax
from axle._src import numpy as jnp
from axle._src.custom_derivatives import custom_vjp

__all__ = ["get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
  """How ``scaled_dot_general`` quantises one operand: the ``mode`` ('mxfp8' or 'nvfp4'),
  the number of contracted elements sharing a scale (``block_size``), the element and scale
  dtypes, the NVFP4 ``global_scale`` (a float32 array; None for MXFP8) and ``infer_only``."""
  mode: str
  block_size: int
  data_type: object
  scale_type: object
  global_scale: object
  infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
  """The quantisation config for ``scaled_dot_general``: ``'mxfp8'`` (float8_e4m3fn values,
  float8_e8m0fnu scales, blocks of 32) or ``'nvfp4'`` (float4_e2m1fn values, float8_e4m3fn
  scales, blocks of 16, ``global_scale`` defaulting to ``[1.]``)."""
  if mode == "nvfp4":
    return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
                            scale_type=dtypes.float8_e4m3fn,
                            global_scale=(jnp.ones((1,), dtype=np.float32) if global_scale is None
                                          else global_scale),
                            infer_only=False)
  if mode == "mxfp8":
    return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn,
                            scale_type=dtypes.float8_e8m0fnu, global_scale=None, infer_only=False)
  raise ValueError(f"Unsupported mode: {mode}")


def _reference_scaled_matmul(a, b, a_scales, b_scales, preferred_element_type):
  def dequantize(x, scales):
    block = x.shape[-1] // scales.shape[-1]
    scales = jnp.repeat(scales.astype(np.float32), block, axis=-1)
    return x.astype(np.float32) * scales

  out = lax.dot_general(dequantize(a, a_scales), dequantize(b, b_scales),
                        (((2,), (2,)), ((0,), (0,))), preferred_element_type=np.float32)
  return out.astype(preferred_element_type)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
  """Block-scaled batched matmul ``einsum('BMK,BNK->BMN', lhs * lhs_scales, rhs * rhs_scales)``,
  each scale applying to a block of ``K // K_scales`` consecutive contracted elements; the
  product is computed in float32 and returned as ``preferred_element_type``.

  ``lhs`` is (B, M, K), ``rhs`` (B, N, K), ``lhs_scales`` (B, M, K_a) and ``rhs_scales``
  (B, N, K_b). JAX runs this only as a cuDNN kernel on NVIDIA GPUs (on the CPU it raises
  ``NotImplementedError``); axle computes the reference result on every backend."""
  a, b, a_scales, b_scales = (jnp.asarray(v) for v in (lhs, rhs, lhs_scales, rhs_scales))
  if not all(v.ndim == 3 for v in (a, b, a_scales, b_scales)):
    raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
  if a.shape[2] != b.shape[2] or a.shape[0] != b.shape[0]:
    raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                     f"contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
  if a_scales.shape[2] != b_scales.shape[2] or a_scales.shape[0] != b_scales.shape[0]:
    raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract (K) "
                     f"dimensions, but got shapes {a_scales.shape} and {b_scales.shape}")
  if a_scales.shape[1] != a.shape[1] or b_scales.shape[1] != b.shape[1]:
    raise ValueError("scaled_matmul requires scales to match non-contract dimensions of inputs, "
                     f"but got shapes a: {a.shape}, b: {b.shape}, a_scales: {a_scales.shape}, "
                     f"b_scales: {b_scales.shape}")
  if a_scales.shape[2] == 0 or a.shape[2] % a_scales.shape[2]:
    raise ValueError(f"scaled_matmul requires the contract dimension K={a.shape[2]} to be a "
                     f"multiple of the scales' K={a_scales.shape[2]} (one scale per block).")
  preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                                    "scaled_matmul")
  return _reference_scaled_matmul(a, b, a_scales, b_scales, preferred_element_type)


# ---------------------------------------------------------------------------
# scaled_dot_general


def _to_bmk(x, contract, batch):
  """``x`` transposed to (batch, free, contract) dimension order and reshaped to 3-d."""
  free = [d for d in range(x.ndim) if d not in contract and d not in batch]
  batch, contract = sorted(batch), sorted(contract)
  size = lambda dims: int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
  return jnp.reshape(jnp.transpose(x, batch + free + contract),
                     (size(batch), size(free), size(contract)))


def _round_up_to_e8m0(scale):
  """float32 ``scale`` rounded up to a power of two, as float8_e8m0fnu's biased exponent
  (uint8)."""
  bits = lax.bitcast_convert_type(scale.astype(np.float32), np.uint32)
  exponent = lax.shift_right_logical(bits, np.uint32(23))
  mantissa = lax.bitwise_and(bits, np.uint32(0x7FFFFF))
  round_up = jnp.logical_and(
      jnp.logical_and(mantissa > 0, exponent != 0xFE),
      jnp.logical_not(jnp.logical_and(exponent == 0, mantissa <= 0x400000)))
  return jnp.where(round_up, exponent + np.uint32(1), exponent).astype(np.uint8)


def _e8m0_value(exponent, dtype):
  value = lax.bitcast_convert_type(lax.shift_left(exponent.astype(np.uint32), np.uint32(23)),
                                   np.float32)
  tiny = 2.0 ** -15 if np.dtype(dtype) == np.float16 else 2.0 ** -127
  return jnp.where(value == 0, np.float32(tiny), value).astype(dtype)


def _quantize(x, config):
  """(B, M, K) ``x`` as ``config.data_type`` values and per-block scales (B, M, K // block)."""
  shape = x.shape
  block = config.block_size
  if shape[-1] < block or shape[-1] % block:
    raise ValueError(f"scaled_dot_general ({config.mode}) needs the contracted size {shape[-1]} "
                     f"to be a positive multiple of the block size {block}.")
  x = jnp.reshape(x, shape[:-1] + (shape[-1] // block, block))
  data_max = np.array(float(dtypes.finfo(config.data_type).max), dtype=x.dtype)
  block_scale = lambda v: jnp.max(jnp.abs(v), axis=-1, keepdims=True) / data_max
  if config.mode == "mxfp8":
    scales_q = _round_up_to_e8m0(block_scale(x))
    scaled = x / _e8m0_value(scales_q, x.dtype)
    scales_out = lax.bitcast_convert_type(jnp.reshape(scales_q, scales_q.shape[:-1]),
                                          config.scale_type)
  elif config.mode == "nvfp4":
    scale_max = np.array(float(dtypes.finfo(config.scale_type).max), dtype=x.dtype)
    x = x / config.global_scale
    scales_q = jnp.clip(block_scale(x), 0, scale_max).astype(config.scale_type)
    scaled = x / scales_q.astype(np.float32)
    scales_out = jnp.reshape(scales_q, scales_q.shape[:-1])
  else:
    raise ValueError(f"Unrecognized mode: {config.mode}.")
  values = jnp.clip(scaled, -data_max, data_max).astype(config.data_type)
  return jnp.reshape(values, shape), scales_out


def _free_dims(ndim, contract, batch):
  return [d for d in range(ndim) if d not in contract and d not in batch]


def _scaled_dot_forward(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  lhs_q, lhs_scales = _quantize(_to_bmk(lhs, lhs_contract, lhs_batch), configs[0])
  rhs_q, rhs_scales = _quantize(_to_bmk(rhs, rhs_contract, rhs_batch), configs[1])
  nvfp4 = configs[0].mode == "nvfp4"
  out = _reference_scaled_matmul(lhs_q, rhs_q, lhs_scales, rhs_scales,
                                 np.float32 if nvfp4 else preferred_element_type)
  if nvfp4:
    out = (out * (configs[0].global_scale * configs[1].global_scale)).astype(preferred_element_type)
  out_shape = ([lhs.shape[d] for d in sorted(lhs_batch)]
               + [lhs.shape[d] for d in _free_dims(lhs.ndim, lhs_contract, lhs_batch)]
               + [rhs.shape[d] for d in _free_dims(rhs.ndim, rhs_contract, rhs_batch)])
  return jnp.reshape(out, tuple(out_shape))


def _operand_cotangent(g, x, y, dimension_numbers, preferred_element_type, configs, x_is_rhs):
  """Cotangent of operand ``x`` of ``dot(x, y)`` (``x_is_rhs``: ``x`` is the right operand, so
  its free dimensions come last in ``g``): ``g`` contracted with ``y`` over ``y``'s free
  dimensions, quantised with ``configs`` unless NVFP4."""
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  x_free = _free_dims(x.ndim, x_contract, x_batch)
  y_free = _free_dims(y.ndim, y_contract, y_batch)
  n_batch = len(x_batch)
  start = n_batch if x_is_rhs else n_batch + len(x_free)
  g_y_dims = list(range(start, start + len(y_free)))
  y_3d = _to_bmk(y, y_free, y_batch)
  g_3d = _to_bmk(g, g_y_dims, list(range(n_batch)))
  if configs[0].mode != "nvfp4":
    g_q, g_scales = _quantize(g_3d, configs[0])
    y_q, y_scales = _quantize(y_3d, configs[1])
    out = _reference_scaled_matmul(g_q, y_q, g_scales, y_scales, preferred_element_type)
  else:
    out = lax.dot_general(g_3d, y_3d, (((2,), (2,)), ((0,), (0,))),
                          preferred_element_type=preferred_element_type)
  y_rest = sorted(y_contract)
  out_shape = ([g.shape[d] for d in range(n_batch)] + [x.shape[d] for d in x_free]
               + [y.shape[d] for d in y_rest])
  x_contract_in_y_order = [x_contract[list(y_contract).index(d)] for d in y_rest]
  out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_free + x_contract_in_y_order))
  return lax.transpose(jnp.reshape(out, tuple(out_shape)), out_axes)


def _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  return _scaled_dot_forward(lhs, rhs, dimension_numbers, preferred_element_type, configs)


_scaled_dot = custom_vjp(_scaled_dot, nondiff_argnums=(2, 3, 4))


def _scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
  return (_scaled_dot_forward(lhs, rhs, dimension_numbers, preferred_element_type, configs),
          (lhs, rhs))


def _scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, residuals, g):
  lhs, rhs = residuals
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  grad_lhs = _operand_cotangent(g, lhs, rhs, dimension_numbers, preferred_element_type,
                                [configs[2], configs[1]], x_is_rhs=False)
  swapped = ((rhs_contract, lhs_contract), (rhs_batch, lhs_batch))
  grad_rhs = _operand_cotangent(g, rhs, lhs, swapped, preferred_element_type,
                                [configs[2], configs[0]], x_is_rhs=True)
  if configs[2].mode == "nvfp4":
    # straight-through estimator: no gradient for inputs clipped in the forward quantisation
    data_max = float(dtypes.finfo(configs[0].data_type).max)
    scale_max = float(dtypes.finfo(configs[0].scale_type).max)
    limit = data_max * scale_max
    grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * limit, grad_lhs, 0)
    grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * limit, grad_rhs, 0)
  return grad_lhs.astype(lhs.dtype), grad_rhs.astype(rhs.dtype)


_scaled_dot.defvjp(_scaled_dot_fwd, _scaled_dot_bwd)


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
  """``lax.dot_general`` with block-scaled quantisation of both operands.

  ``configs`` (from ``get_scaled_dot_general_config``) gives the formats for lhs, rhs and the
  cotangent; the operands are quantised along their contracting dimensions, multiplied with
  ``scaled_matmul`` and the result has ``lax.dot_general``'s layout (batch, lhs free, rhs free)
  and ``preferred_element_type`` (float32, bfloat16 or float16). With ``configs=None`` this is
  ``lax.dot_general``. The backward pass quantises the cotangent as JAX's does. JAX's fused
  kernel is GPU-only; axle computes the reference result on every backend. ``implementation``
  is deprecated and ignored."""
  if implementation is not None:
    warnings.warn("Backend selector, now ignored. The system chooses the backend automatically.",
                  DeprecationWarning, stacklevel=2)
  if configs is None:
    return lax.dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)
  lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
  dtype = np.dtype(preferred_element_type)
  if dtype not in (np.dtype(np.float32), np.dtype(dtypes.bfloat16), np.dtype(np.float16)):
    raise TypeError("scaled_dot_general supports preferred_element_type float32, bfloat16 or "
                    f"float16 only, but got {dtype}.")
  if len(configs) != 3:
    raise ValueError("scaled_dot_general needs three configs (lhs, rhs, cotangent); got "
                     f"{len(configs)}.")
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  as_tuple = lambda dims: tuple(int(d) for d in dims)
  lhs_contract, rhs_contract = as_tuple(lhs_contract), as_tuple(rhs_contract)
  lhs_batch, rhs_batch = as_tuple(lhs_batch), as_tuple(rhs_batch)
  # The kernel needs a batch dimension: add a size-1 one (squeezed from the result) if none.
  added_batch = not lhs_batch
  if added_batch:
    lhs, rhs = jnp.expand_dims(lhs, lhs.ndim), jnp.expand_dims(rhs, rhs.ndim)
    lhs_batch, rhs_batch = (lhs.ndim - 1,), (rhs.ndim - 1,)
  out = _scaled_dot(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)), dtype,
                    tuple(configs))
  return jnp.squeeze(out, axis=0) if added_batch else out
