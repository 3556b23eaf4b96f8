"""``axle.nn``: activation functions, softmax and friends, one_hot, standardize and the
reference dot-product attention (JAX's ``jax.nn``).

Each is a short composition of jax.numpy and lax operations with JAX's formulas, so results
(and their dtypes, weak types included) agree with JAX's. Functions JAX jits appear as their own
``jit`` equation when traced (``util.jit_when_tracing``). Where JAX gives a function a custom
derivative (relu'(0) = 0, relu6, softmax, log1mexp, ...) the rule is attached with
``custom_jvp``.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings

import numpy as np

from axle._src import api
from axle._src import core
from axle._src import dtypes
from axle._src import lax
from axle._src.array import Array
from axle._src import numpy as jnp
from axle._src.custom_derivatives import custom_jvp
from axle._src.interpreters.eval import eager_unary
from axle._src.numpy import util

__all__ = [
    "celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu",
    "hard_swish", "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax",
    "logmeanexp", "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
    "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus",
    "standardize", "swish",
]

def _as_jit_argument(x):
  # jit turns NumPy inputs into arrays before the function runs; the eager path must too, or
  # NumPy would do the arithmetic (bfloat16 + 1.0 is float32 in NumPy).
  return jnp.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _jit(fun=None, **jit_kwargs):
  """``util.jit_when_tracing`` (a jit equation when traced, as JAX's jitted nn functions), with
  NumPy arguments converted to arrays as jit converts them."""
  def wrap(fun):
    # Only a call of ``fun`` itself (op by op: ``axle_fast_eager``, ``disable_jit``) needs the
    # conversion: jit converts the arguments it is given (no wrapper layer on each eager call).
    @functools.wraps(fun)
    def converting(*args, **kwargs):
      args = [_as_jit_argument(a) for a in args]
      kwargs = {k: _as_jit_argument(v) for k, v in kwargs.items()}
      return fun(*args, **kwargs)
    return util.jit_when_tracing(converting, **jit_kwargs)
  return wrap if fun is None else wrap(fun)


def _ensure_arraylike(name: str, *args):
  """The arguments as operands (arrays, tracers or scalars); TypeError for lists and other
  non-array values, as JAX's ``ensure_arraylike``."""
  util.check_arraylike(name, *args)
  out = [jnp.asarray(a) for a in args]
  return out[0] if len(out) == 1 else out


def _const(x, value):
  return np.array(value, dtype=x.dtype)


# ---------------------------------------------------------------------------
# Activations


@_jit
def identity(x):
  """The identity activation: returns ``x`` (as an array)."""
  return _ensure_arraylike("identity", x)


@_jit
def relu(x):
  """Rectified linear unit ``max(x, 0)``; its derivative at 0 is 0 (as in JAX)."""
  return jnp.maximum(x, 0)


@_jit
def relu6(x):
  """Rectified linear unit capped at 6: ``min(max(x, 0), 6)``; its derivative is 0 at 0 and 6."""
  return jnp.minimum(jnp.maximum(x, 0), 6.)


# custom_jvp around the jitted function, as in JAX's jaxprs
relu = custom_jvp(relu)
relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))
relu6 = custom_jvp(relu6)
relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@_jit
def squareplus(x, b=4):
  """Squareplus ``(x + sqrt(x**2 + b)) / 2``, a smooth relu."""
  util.check_arraylike("squareplus", b)
  x = _ensure_arraylike("squareplus", x)
  # a Python scalar b stays weakly typed (a literal, as JAX's jaxpr shows)
  return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@_jit
def softplus(x):
  """Softplus ``log(1 + exp(x))``, computed stably (``jnp.logaddexp(x, 0)``)."""
  return jnp.logaddexp(x, 0)


@_jit
def sparse_plus(x):
  """Sparse plus: 0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
  x = _ensure_arraylike("sparse_plus", x)
  return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@_jit
def soft_sign(x):
  """Soft sign ``x / (|x| + 1)``."""
  x = _ensure_arraylike("soft_sign", x)
  return x / (jnp.abs(x) + 1)


# lax.logistic with the eager shortcut of jnp's unary functions (a seen Array signature goes
# straight to its executable)
_logistic = eager_unary(lax.logistic_p, lax.logistic, accuracy=None)


def sigmoid(x):  # JAX jits it with inline=True: its jaxpr shows no jit equation
  """Logistic sigmoid ``1 / (1 + exp(-x))`` (``lax.logistic``)."""
  return _logistic(x)


@_jit
def sparse_sigmoid(x):
  """Sparse sigmoid ``clip((x + 1) / 2, 0, 1)``."""
  return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@_jit
def silu(x):
  """SiLU (swish) ``x * sigmoid(x)``."""
  x = _ensure_arraylike("silu", x)
  return x * sigmoid(x)


swish = silu


@_jit
def mish(x):
  """Mish ``x * tanh(softplus(x))``."""
  x = _ensure_arraylike("mish", x)
  return x * jnp.tanh(softplus(x))


@_jit
def log_sigmoid(x):
  """Log of the sigmoid, ``-softplus(-x)``."""
  x = _ensure_arraylike("log_sigmoid", x)
  return -softplus(-x)


@_jit
def elu(x, alpha=1.0):
  """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
  x = _ensure_arraylike("elu", x)
  return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0., x)))


@_jit
def leaky_relu(x, negative_slope=1e-2):
  """Leaky relu: ``x`` for ``x >= 0``, ``negative_slope * x`` otherwise."""
  x = _ensure_arraylike("leaky_relu", x)
  return jnp.where(x >= 0, x, negative_slope * x)


@_jit
def hard_tanh(x):
  """Hard tanh: ``x`` clipped to [-1, 1]."""
  x = _ensure_arraylike("hard_tanh", x)
  return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@_jit
def celu(x, alpha=1.0):
  """Continuously differentiable ELU ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
  return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_jit
def selu(x):
  """Scaled ELU ``scale * elu(x, alpha)`` with the self-normalising constants
  ``alpha = 1.67326...`` and ``scale = 1.05070...``."""
  return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x, approximate: bool = True):
  """Gaussian error linear unit: ``x * Phi(x)``; with ``approximate=True`` (the default) the
  tanh approximation ``x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``."""
  x, = util.promote_args_inexact("gelu", x)
  if approximate:
    sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
    cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
    return x * cdf
  sqrt_half = np.sqrt(0.5).astype(x.dtype)
  # (JAX returns a jnp.array copy of the result: its jaxpr ends in a copy)
  return jnp.copy(jnp.asarray(0.5 * x * lax.erfc(-x * sqrt_half), dtype=x.dtype))


@_jit(static_argnames=("axis",))
def glu(x, axis: int = -1):
  """Gated linear unit: ``x`` split in two halves ``a, b`` along ``axis``; ``a * sigmoid(b)``."""
  x = _ensure_arraylike("glu", x)
  axis = util.canonicalize_axis(axis, x.ndim)
  size = x.shape[axis]
  if size % 2:
    raise AssertionError("axis size must be divisible by 2")
  x1, x2 = jnp.split(x, 2, axis)
  return x1 * sigmoid(x2)


@_jit
def hard_sigmoid(x):
  """Hard sigmoid ``relu6(x + 3) / 6``."""
  return relu6(x + 3.) / 6.


@_jit
def hard_silu(x):
  """Hard SiLU (hard swish) ``x * hard_sigmoid(x)``."""
  x = _ensure_arraylike("hard_silu", x)
  return x * hard_sigmoid(x)


hard_swish = hard_silu


@_jit
def log1mexp(x):
  """``log(1 - exp(-x))`` for ``x > 0``, computed stably on both sides of ``log 2``."""
  x = _ensure_arraylike("log1mexp", x)
  c = jnp.log(2.0)
  return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp = custom_jvp(log1mexp)
log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


# ---------------------------------------------------------------------------
# logsumexp and softmax


def _reduction_dims(ndim: int, axis):
  """(positions of the reduced axes in the input, the axes as given to the reduction)."""
  dims = util.canonicalize_axes(axis, ndim)
  return tuple(sorted(dims)), dims


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
  """``log(sum(b * exp(a), axis))`` computed stably (shifted by the maximum).

  ``b`` scales the exponentials (a zero ``b`` removes the element); ``where`` selects the
  elements that take part. With ``return_sign=True`` returns ``(log|s|, sign(s))`` of the sum
  ``s``; otherwise a negative real sum gives NaN.
  """
  if where is not None:
    a = jnp.where(where, a, 0)
  if b is not None:
    a, b = util.promote_args_inexact("logsumexp", a, b)
    a = jnp.where(b != 0, a, -np.inf)
  else:
    a, = util.promote_args_inexact("logsumexp", a)
  a = jnp.asarray(a)
  pos_dims, dims = _reduction_dims(a.ndim, axis)
  amax = jnp.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
  amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
  amax_with_dims = amax if keepdims else lax.expand_dims(amax, pos_dims)
  exp_a = lax.exp(lax.sub(a, amax_with_dims.astype(a.dtype)))
  if b is not None:
    exp_a = lax.mul(exp_a, b)
  sumexp = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
  sign = lax.sign(sumexp)
  complex_result = dtypes.issubdtype(a.dtype, np.complexfloating)
  if return_sign or not complex_result:
    sumexp = jnp.abs(sumexp)
  out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
  if return_sign:
    return out, sign
  if b is not None and not dtypes.issubdtype(out.dtype, np.complexfloating):
    out = jnp.where(sign < 0, np.array(np.nan, dtype=out.dtype), out)
  return out


def _count(x, axis, where, keepdims, dtype):
  x = jnp.asarray(x)
  if where is None:
    dims = util.canonicalize_axes(axis, x.ndim)
    # a scalar, as JAX's: its log is taken once and subtracted without broadcasting
    return jnp.asarray(math.prod(x.shape[d] for d in dims), dtype=dtype)
  return jnp.sum(jnp.broadcast_to(where, x.shape), axis=axis, keepdims=keepdims, dtype=dtype)


@_jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
  """``log(mean(exp(x), axis))`` computed stably: ``logsumexp`` minus the log of the number
  of elements (those selected by ``where``)."""
  lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
  count = _count(x, axis, where, keepdims, lse.dtype)
  return lse - jnp.log(count)


@_jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
  """``x - logsumexp(x, axis, keepdims=True)``, computed stably; elements outside ``where``
  are -inf."""
  x = _ensure_arraylike("log_softmax", x)
  x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
  x_safe = x if where is None else jnp.where(where, x, -np.inf)
  shifted = x_safe - lax.stop_gradient(x_max)
  shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
  result = shifted - shifted_logsumexp
  if where is not None:
    return jnp.where(where, result, -np.inf)
  return result


def softmax(x, axis=-1, where=None):
  """``exp(x) / sum(exp(x), axis, keepdims=True)``, computed stably (shifted by the maximum);
  elements outside ``where`` are 0."""
  x = _ensure_arraylike("softmax", x)
  # JAX's default formulation: the shift by the maximum is a constant for differentiation
  x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
  x_safe = x if where is None else jnp.where(where, x, -np.inf)
  unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
  result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
  if where is not None:
    result = jnp.where(where, result, 0)
  return result


# ---------------------------------------------------------------------------
# standardize, one_hot


@_jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
  """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``; the mean and variance are
  computed when not given (``algorithm="fast"``: ``E[x**2] - E[x]**2`` clipped at 0;
  ``"stable"``: ``E[(x - E[x])**2]``)."""
  util.check_arraylike("standardize", x)
  for name, value in (("mean", mean), ("variance", variance), ("where", where)):
    if value is not None:
      util.check_arraylike("standardize", value)
  if mean is None:
    mean = jnp.mean(x, axis, keepdims=True, where=where)
  if variance is None:
    if algorithm == "stable":
      variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
    elif algorithm == "fast":
      variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
      variance = jnp.clip(variance, 0)
    else:
      raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
  return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


@_jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes: int, *, dtype, axis: int):
  out_axis = util.canonicalize_axis(axis, x.ndim + 1)
  lhs = lax.expand_dims(x, (out_axis,))
  rhs_shape = [1] * x.ndim
  rhs_shape.insert(out_axis, num_classes)
  rhs = lax.broadcasted_iota(x.dtype, rhs_shape, out_axis)
  return (lhs == rhs).astype(dtype)


# (x's aval, num_classes, dtype, axis, default float dtype) -> (the result's aval, the iota to compare x with, the
# new axis), for the eager one_hot of integer host values
_host_one_hot: dict = {}


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
  """One-hot encoding of integer ``x`` into ``num_classes`` classes, the new axis at ``axis``;
  out-of-range values give all-zero rows. ``num_classes`` must be concrete."""
  if type(x) is Array and type(x._value) is np.ndarray and core._context.trace is core.eval_trace:
    try:
      entry = _host_one_hot.get((x._aval, num_classes, dtype, axis, dtypes.default_float_dtype()))
    except TypeError:
      entry = None
    if entry is not None:
      # Comparing integers with an iota and converting the booleans is exact: NumPy gives the
      # compiled program's array.
      out_aval, iota, out_axis = entry
      hot = np.expand_dims(x._value, out_axis) == iota
      return Array(hot.astype(out_aval.dtype), False, out_aval)
  given_dtype, given_axis = dtype, axis
  num_classes = core.concrete_or_error(
      operator.index, num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
  x = jnp.asarray(x)
  if not dtypes.isdtype(x.dtype, "integral"):
    warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                  DeprecationWarning, stacklevel=2)
  if not isinstance(axis, int):
    raise NotImplementedError("axle.nn.one_hot: named axes (axis=<name>) need pmap/shard_map, "
                              "which axle does not have yet.")
  dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
  out = _one_hot(x, num_classes, dtype=dtype, axis=axis)
  value = x._value if type(x) is Array else None
  if type(value) is np.ndarray and value.dtype.kind in "iu" and type(out) is Array \
      and core._context.trace is core.eval_trace and 0 <= num_classes <= np.iinfo(value.dtype).max + 1:
    # (an iota beyond the integer type's range would wrap: those stay compiled)
    out_axis = util.canonicalize_axis(axis, value.ndim + 1)
    shape = [1] * value.ndim
    shape.insert(out_axis, num_classes)
    iota = np.arange(num_classes, dtype=value.dtype).reshape(shape)
    if len(_host_one_hot) > 1024:
      _host_one_hot.clear()
    _host_one_hot[x._aval, num_classes, given_dtype, given_axis, dtypes.default_float_dtype()] = (
        out._aval, iota, out_axis)
  return out


# ---------------------------------------------------------------------------
# Attention


def _large_negative(dtype):
  return jnp.asarray(-0.7 * float(dtypes.finfo(dtype).max), dtype=dtype)


def _padding_mask_logits(T, S, q_seqlen, kv_seqlen):
  q_mask = True
  kv_mask = True
  if q_seqlen is not None:
    q_mask = jnp.arange(0, T, dtype=np.int32)[None, :, None] < q_seqlen[:, None, None]
  if kv_seqlen is not None:
    kv_mask = jnp.arange(0, S, dtype=np.int32)[None, None, :] < kv_seqlen[:, None, None]
  return jnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _window_mask(T, S, local_window_size):
  query_pos = jnp.array(np.arange(T, dtype=np.int32))
  key_pos = jnp.array(np.arange(S, dtype=np.int32))
  left, right = local_window_size
  left_mask = query_pos[..., None] <= key_pos[..., None, :] + left
  right_mask = query_pos[..., None] >= key_pos[..., None, :] - right
  return jnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _apply_attention_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
  """``logits`` (B, N, T, S) with masked positions set to a large negative number, the masks
  combined in JAX's order: explicit, causal, padding, local window."""
  if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None \
      and local_window_size is None:
    return logits
  combined = jnp.ones_like(logits, dtype=np.bool_)
  if mask is not None:
    combined = jnp.logical_and(combined, mask)
  T, S = logits.shape[2], logits.shape[3]
  if is_causal:
    combined = jnp.logical_and(combined, jnp.tril(jnp.ones((T, S), dtype=np.bool_))[None, None, :, :])
  if q_seqlen is not None or kv_seqlen is not None:
    combined = jnp.logical_and(combined, _padding_mask_logits(T, S, q_seqlen, kv_seqlen))
  if local_window_size is not None:
    combined = jnp.logical_and(combined, _window_mask(T, S, local_window_size))
  return jnp.where(combined, logits, _large_negative(logits.dtype))


def _attention_core(query, key, value, bias, mask, q_seqlen, kv_seqlen, *, is_causal, scale,
                    local_window_size, return_residual):
  """Attention of one query group: query (B, T, K, H), key/value (B, S, K, H)."""
  logits_dtype = jnp.promote_types(query.dtype, np.float32)
  # Half-precision inputs accumulate their logits in float32 through a dot algorithm, as in JAX.
  if query.dtype == dtypes.bfloat16:
    precision = lax.DotAlgorithmPreset.BF16_BF16_F32
  elif query.dtype == np.float16:
    precision = lax.DotAlgorithmPreset.F16_F16_F32
  else:
    precision = None
  logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, precision=precision,
                      preferred_element_type=logits_dtype)
  logits = logits * jnp.array(scale, dtype=logits.dtype)
  if bias is not None:
    logits = (logits + bias).astype(logits.dtype)
  padded = _apply_attention_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
  padded = padded.astype(np.float32)
  probs = softmax(padded, axis=-1).astype(key.dtype)
  encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
  if q_seqlen is not None:
    valid = jnp.arange(0, encoded.shape[1], dtype=np.int32)[None, :] < q_seqlen[:, None]
    encoded = encoded * valid[:, :, None, None].astype(encoded.dtype)
  if return_residual:
    lse = logsumexp(padded, axis=-1)
    return encoded, lax.stop_gradient(jnp.transpose(lse, (0, 2, 1)))
  return encoded


def _check_shape_and_dtype(t, shape, dtype, name: str) -> None:
  if t is None:
    return
  if t.ndim != len(shape):
    raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
  if dtype is not None and t.dtype != dtype:
    raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
  for i in range(t.ndim):
    if shape[i] != -1 and t.shape[i] != shape[i]:
      raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
  """Scaled dot-product attention ``softmax(q k^T * scale + bias, masked) v`` (the XLA reference
  implementation of ``jax.nn.dot_product_attention``).

  Shapes: ``query`` (B, T, N, H), ``key``/``value`` (B, S, K, H) with N a multiple of K
  (grouped-query attention); the batch axis may be omitted. ``bias`` and boolean ``mask``
  broadcast to (B, N, T, S); ``is_causal``, ``query_seq_lengths``/``key_value_seq_lengths``
  (int32, shape (B,)) and ``local_window_size`` add masks. Logits and softmax are computed in
  float32 (or wider). ``implementation`` may be None or 'xla' ('cudnn' is not available).
  With ``return_residual`` also returns the logsumexp of the logits, shape (B, T, N).
  """
  output_shape = jnp.asarray(query).shape
  residual_shape = output_shape[:-1]

  def ensure_4d(t):
    t = jnp.asarray(t)
    return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t

  q, k, v = ensure_4d(query), ensure_4d(key), ensure_4d(value)
  bias = ensure_4d(bias) if bias is not None else None
  mask = ensure_4d(mask) if mask is not None else None
  if query_seq_lengths is not None:
    query_seq_lengths = jnp.asarray(query_seq_lengths)
  if key_value_seq_lengths is not None:
    key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
  if isinstance(local_window_size, int):
    local_window_size = (local_window_size, local_window_size)
  B, S, K, H = k.shape
  _check_shape_and_dtype(v, [B, S, K, H], k.dtype, "value")
  _check_shape_and_dtype(q, [B, -1, -1, H], k.dtype, "query")
  _check_shape_and_dtype(mask, [-1] * 4, np.dtype(bool), "mask")
  _check_shape_and_dtype(bias, [-1] * 4, None, "bias")
  _check_shape_and_dtype(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
  _check_shape_and_dtype(key_value_seq_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
  if q.shape[-2] % K != 0:
    raise ValueError(f"The number of query heads must be a multiple of key/value heads, but got "
                     f"{q.shape[-2]} vs {K}")
  if implementation not in (None, "xla"):
    if implementation == "cudnn":
      raise NotImplementedError("axle.nn.dot_product_attention: implementation='cudnn' is not "
                                "available; use implementation=None or 'xla'.")
    raise ValueError(f"Unsupported implementation option: {implementation}")
  scale = 1.0 / np.sqrt(H) if scale is None else scale
  T, N = q.shape[1], q.shape[2]
  G = N // K

  # As JAX: the query heads are grouped (B, T, K, G, H) and the attention of one group is
  # vmapped over G, so the program (and XLA's summation order) is JAX's.
  q = jnp.reshape(q, (B, T, K, G, H))

  def grouped(t):
    if t is None:
      return None
    tB, tN, tT, tS = t.shape
    if tN == 1:
      return jnp.broadcast_to(jnp.expand_dims(t, 2), (tB, tN, G, tT, tS))
    return jnp.reshape(t, (tB, K, G, tT, tS))

  bias, mask = grouped(bias), grouped(mask)
  core = functools.partial(_attention_core, is_causal=is_causal, scale=scale,
                           local_window_size=local_window_size, return_residual=return_residual)
  out = api.vmap(core, in_axes=(3, None, None, 2, 2, None, None), out_axes=3)(
      q, k, v, bias, mask, query_seq_lengths, key_value_seq_lengths)
  if return_residual:
    encoded, lse = out
    encoded = jnp.reshape(encoded, (B, T, N, H))
    lse = jnp.reshape(lse, (B, T, N))
    return jnp.reshape(encoded, output_shape), jnp.reshape(lse, residual_shape)
  return jnp.reshape(jnp.reshape(out, (B, T, N, H)), output_shape)
