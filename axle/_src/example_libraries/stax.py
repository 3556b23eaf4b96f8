"""Neural-network layers as (init_fun, apply_fun) pairs (JAX's ``jax.example_libraries.stax``).

``init_fun(rng, input_shape) -> (output_shape, params)`` and
``apply_fun(params, inputs, **kwargs) -> outputs``. Combinators (``serial``, ``parallel``,
``FanOut``, ...) build networks from layers; the initialisers are ``axle.nn.initializers``, so
the same key gives the same parameters as JAX's stax.
"""
from __future__ import annotations

import functools
import operator

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.nn import functions as nn_functions
from axle._src.nn import initializers
from axle._src.random import distributions
from axle._src.random import keys


def glorot_normal(*args, **kwargs):
  return initializers.glorot_normal(*args, **kwargs)


def normal(*args, **kwargs):
  return initializers.normal(*args, **kwargs)


def ones(key, shape, dtype=None):
  return initializers.ones(key, shape, *([dtype] if dtype is not None else []))


def zeros(key, shape, dtype=None):
  return initializers.zeros(key, shape, *([dtype] if dtype is not None else []))


glorot = glorot_normal
randn = normal

# JAX's stax module also exposes these axle.nn functions under its own name.
_NN_ALIASES = {"relu": "relu", "log_softmax": "log_softmax", "logsoftmax": "log_softmax",
               "softmax": "softmax", "softplus": "softplus", "sigmoid": "sigmoid", "elu": "elu",
               "leaky_relu": "leaky_relu", "selu": "selu", "gelu": "gelu",
               "standardize": "standardize"}


def __getattr__(name):
  if name in _NN_ALIASES:
    return getattr(nn_functions, _NN_ALIASES[name])
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------
# Layers


def Dense(out_dim, W_init=None, b_init=None):
  """A fully connected layer: ``inputs @ W + b`` with ``W`` of shape (in, out_dim)."""
  W_init = glorot_normal() if W_init is None else W_init
  b_init = normal() if b_init is None else b_init

  def init_fun(rng, input_shape):
    output_shape = input_shape[:-1] + (out_dim,)
    k1, k2 = keys.split(rng)
    W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return output_shape, (W, b)

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b

  return init_fun, apply_fun


def _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
                transpose: bool):
  """A (transposed) convolution layer: kernel of ``filter_shape`` with ``out_chan`` outputs."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))
  b_init = b_init or normal(1e-6)

  def init_fun(rng, input_shape):
    filter_shape_iter = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else
                    input_shape[lhs_spec.index("C")] if c == "I" else
                    next(filter_shape_iter) for c in rhs_spec]
    shape_rule = lax.conv_transpose_shape_tuple if transpose else lax.conv_general_shape_tuple
    output_shape = shape_rule(input_shape, kernel_shape, strides, padding, dimension_numbers)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = keys.split(rng)
    W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
    return output_shape, (W, b)

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    if transpose:
      return lax.conv_transpose(inputs, W, strides, padding,
                                dimension_numbers=dimension_numbers) + b
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers) + b

  return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=None):
  """A convolution layer with the given (lhs, rhs, out) layout strings, e.g.
  ``('NHWC', 'HWIO', 'NHWC')``."""
  return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                     b_init, transpose=False)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=None):
  """A transposed-convolution layer with the given (lhs, rhs, out) layout strings."""
  return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                     b_init, transpose=True)


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=None,
              gamma_init=None):
  """Batch normalisation over ``axis`` (statistics of the current batch), with learned
  ``beta`` (center) and ``gamma`` (scale)."""
  beta_init = zeros if beta_init is None else beta_init
  gamma_init = ones if gamma_init is None else gamma_init
  axis = (axis,) if isinstance(axis, int) else tuple(axis)

  def init_fun(rng, input_shape):
    shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k1, k2 = keys.split(rng)
    beta = beta_init(k1, shape) if center else ()
    gamma = gamma_init(k2, shape) if scale else ()
    return input_shape, (beta, gamma)

  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
    z = nn_functions.standardize(x, axis, epsilon=epsilon)
    if center and scale:
      return gamma[expand] * z + beta[expand]
    if center:
      return z + beta[expand]
    if scale:
      return gamma[expand] * z
    return z

  return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
  """A parameterless layer applying ``fun`` elementwise."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return fun(inputs, **fun_kwargs)

  return init_fun, apply_fun


def _nn(name):
  def fun(x, **kwargs):
    return getattr(nn_functions, name)(x, **kwargs)
  return fun


def _jnp_fun(name):
  def fun(x, **kwargs):
    return getattr(jnp, name)(x, **kwargs)
  return fun


Tanh = elementwise(_jnp_fun("tanh"))
Relu = elementwise(_nn("relu"))
Exp = elementwise(_jnp_fun("exp"))
LogSoftmax = elementwise(_nn("log_softmax"), axis=-1)
Softmax = elementwise(_nn("softmax"), axis=-1)
Softplus = elementwise(_nn("softplus"))
Sigmoid = elementwise(_nn("sigmoid"))
Elu = elementwise(_nn("elu"))
LeakyRelu = elementwise(_nn("leaky_relu"))
Selu = elementwise(_nn("selu"))
Gelu = elementwise(_nn("gelu"))


def _pooling_layer(reducer_name, init_value, rescaler=None):
  def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
    """A pooling layer over ``window_shape`` (spatial dims of ``spec``, default NHWC)."""
    strides = strides or (1,) * len(window_shape)
    rescale = rescaler(window_shape, strides, padding) if rescaler else None

    if spec is None:
      non_spatial_axes = 0, len(window_shape) + 1
    else:
      non_spatial_axes = spec.index("N"), spec.index("C")

    for i in sorted(non_spatial_axes):
      window_shape = window_shape[:i] + (1,) + window_shape[i:]
      strides = strides[:i] + (1,) + strides[i:]

    def init_fun(rng, input_shape):
      padding_vals = lax.padtype_to_pads(input_shape, window_shape, strides, padding)
      ones_ = (1,) * len(window_shape)
      out_shape = _reduce_window_shape(input_shape, window_shape, strides, padding_vals, ones_)
      return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
      reducer = getattr(lax, reducer_name)
      out = lax.reduce_window(inputs, init_value(jnp), reducer, window_shape, strides, padding)
      return rescale(out, inputs, spec) if rescale else out

    return init_fun, apply_fun
  return PoolingLayer


def _reduce_window_shape(input_shape, window_shape, strides, padding, dilation):
  out = []
  for size, window, stride, (lo, hi) in zip(input_shape, window_shape, strides, padding):
    padded = size + lo + hi
    out.append((padded - window) // stride + 1 if padded >= window else 0)
  return tuple(out)


MaxPool = _pooling_layer("max", lambda jnp: -jnp.inf)
SumPool = _pooling_layer("add", lambda jnp: 0.)


def _normalize_by_window_size(dims, strides, padding):
  def rescale(outputs, inputs, spec):
    if spec is None:
      non_spatial_axes = 0, inputs.ndim - 1
    else:
      non_spatial_axes = spec.index("N"), spec.index("C")

    spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim)
                          if i not in non_spatial_axes)
    one = jnp.ones(spatial_shape, dtype=inputs.dtype)
    window_sizes = lax.reduce_window(one, 0., lax.add, dims, strides, padding)
    for i in sorted(non_spatial_axes):
      window_sizes = jnp.expand_dims(window_sizes, i)
    return outputs / window_sizes
  return rescale


AvgPool = _pooling_layer("add", lambda jnp: 0., _normalize_by_window_size)


def Flatten():
  """Flattens every dimension but the leading (batch) one."""
  def init_fun(rng, input_shape):
    output_shape = input_shape[0], functools.reduce(operator.mul, input_shape[1:], 1)
    return output_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.reshape(inputs, (inputs.shape[0], -1))

  return init_fun, apply_fun


Flatten = Flatten()


def Identity():
  """The identity layer."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return inputs

  return init_fun, apply_fun


Identity = Identity()


def FanOut(num):
  """Copies the input ``num`` times (a list of outputs)."""
  def init_fun(rng, input_shape):
    return [input_shape] * num, ()

  def apply_fun(params, inputs, **kwargs):
    return [inputs] * num

  return init_fun, apply_fun


def FanInSum():
  """Sums a list of inputs."""
  def init_fun(rng, input_shape):
    return input_shape[0], ()

  def apply_fun(params, inputs, **kwargs):
    return sum(inputs)

  return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
  """Concatenates a list of inputs along ``axis``."""
  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    concat_size = sum(shape[ax] for shape in input_shape)
    out_shape = input_shape[0][:ax] + (concat_size,) + input_shape[0][ax + 1:]
    return out_shape, ()

  def apply_fun(params, inputs, **kwargs):
    return jnp.concatenate(inputs, axis)

  return init_fun, apply_fun


def Dropout(rate, mode="train"):
  """Dropout: in "train" mode keeps each input with probability ``rate`` (scaled by
  ``1/rate``); apply_fun needs ``rng=`` then. In any other mode it is the identity."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get("rng", None)
    if rng is None:
      raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                       "argument. That is, instead of `apply_fun(params, inputs)`, call it like "
                       "`apply_fun(params, inputs, rng)` where `rng` is a PRNG key (e.g. from "
                       "`jax.random.key`).")
    if mode == "train":
      keep = distributions.bernoulli(rng, rate, inputs.shape)
      return jnp.where(keep, inputs / rate, 0)
    return inputs

  return init_fun, apply_fun


# ---------------------------------------------------------------------------
# Combinators


def serial(*layers):
  """Composes layers in sequence."""
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    params = []
    for init in init_funs:
      rng, layer_rng = keys.split(rng)
      input_shape, param = init(layer_rng, input_shape)
      params.append(param)
    return input_shape, params

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = keys.split(rng, nlayers) if rng is not None else (None,) * nlayers
    for fun, param, rng in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=rng, **kwargs)
    return inputs

  return init_fun, apply_fun


def parallel(*layers):
  """Applies layers side by side to a list of inputs (one input per layer)."""
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers)

  def init_fun(rng, input_shape):
    rngs = keys.split(rng, nlayers)
    return zip(*[init(rng, shape) for init, rng, shape in zip(init_funs, rngs, input_shape)])

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = keys.split(rng, nlayers) if rng is not None else (None,) * nlayers
    return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

  return init_fun, apply_fun


def shape_dependent(make_layer):
  """A layer built from the input shape: ``make_layer(input_shape) -> (init_fun, apply_fun)``."""
  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)

  def apply_fun(params, inputs, **kwargs):
    return make_layer(inputs.shape)[1](params, inputs, **kwargs)

  return init_fun, apply_fun
