"""Gaussian kernel density estimation (``scipy.stats.gaussian_kde``)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from axle._src import dtypes
from axle._src import numpy as jnp
from axle._src.api import jit
from axle._src.numpy import util
from axle._src.random import distributions
from axle._src.random import keys
from axle._src.scipy import linalg
from axle._src.scipy import special
from axle._src.tree_util import register_pytree_node_class
from axle._src.vmap import vmap


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
  """A Gaussian kernel density estimate of ``dataset`` (shape (d, n): n points in d
  dimensions), with bandwidth from ``bw_method`` ('scott' (default), 'silverman', a scalar
  factor or a callable of the kde) and optional per-point ``weights``. A pytree: it can be
  passed through ``jit`` and ``vmap``."""
  neff: Any
  dataset: Any
  weights: Any
  covariance: Any
  inv_cov: Any

  def __init__(self, dataset, bw_method=None, weights=None):
    util.check_arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if dtypes.issubdtype(dataset.dtype, np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
      raise ValueError("`dataset` input should have multiple elements.")
    d, n = dataset.shape
    if weights is not None:
      util.check_arraylike("gaussian_kde", weights)
      dataset, weights = util.promote_dtypes_inexact(dataset, weights)
      weights = jnp.atleast_1d(weights)
      weights = weights / jnp.sum(weights)
      if weights.ndim != 1:
        raise ValueError("`weights` input should be one-dimensional.")
      if len(weights) != n:
        raise ValueError("`weights` input should be of length n")
    else:
      dataset, = util.promote_dtypes_inexact(dataset)
      weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
    self._set("dataset", dataset)
    self._set("weights", weights)
    neff = self._set("neff", 1 / jnp.sum(weights ** 2))

    bw_method = "scott" if bw_method is None else bw_method
    if isinstance(bw_method, str) and bw_method == "scott":
      factor = jnp.power(neff, -1. / (d + 4))
    elif isinstance(bw_method, str) and bw_method == "silverman":
      factor = jnp.power(neff * (d + 2) / 4.0, -1. / (d + 4))
    elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
      factor = bw_method
    elif callable(bw_method):
      factor = bw_method(self)
    else:
      raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
    data_inv_cov = jnp.linalg.inv(data_covariance)
    self._set("covariance", data_covariance * factor ** 2)
    self._set("inv_cov", data_inv_cov / factor ** 2)

  def _set(self, name, value):
    object.__setattr__(self, name, value)
    return value

  def tree_flatten(self):
    return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    kde = cls.__new__(cls)
    for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children):
      kde._set(name, value)
    return kde

  @property
  def d(self):
    """Number of dimensions."""
    return self.dataset.shape[0]

  @property
  def n(self):
    """Number of data points."""
    return self.dataset.shape[1]

  def evaluate(self, points):
    """The estimated density at ``points`` (shape (d, m), or (m,) when d == 1)."""
    util.check_arraylike("evaluate", points)
    points = self._reshape_points(points)
    return _gaussian_kernel_eval(False, self.dataset.T, self.weights[:, None], points.T,
                                 self.inv_cov)[:, 0]

  def __call__(self, points):
    return self.evaluate(points)

  def pdf(self, x):
    """The estimated density at ``x`` (same as ``evaluate``)."""
    return self.evaluate(x)

  def logpdf(self, x):
    """Log of the estimated density at ``x``, computed with logsumexp."""
    util.check_arraylike("logpdf", x)
    x = self._reshape_points(x)
    return _gaussian_kernel_eval(True, self.dataset.T, self.weights[:, None], x.T,
                                 self.inv_cov)[:, 0]

  def integrate_gaussian(self, mean, cov):
    """Integral of the estimate times a Gaussian with ``mean`` and ``cov``."""
    mean = jnp.atleast_1d(jnp.squeeze(mean))
    cov = jnp.atleast_2d(cov)
    if mean.shape != (self.d,):
      raise ValueError(f"mean does not have dimension {self.d}")
    if cov.shape != (self.d, self.d):
      raise ValueError(f"covariance does not have dimension {self.d}")
    chol = linalg.cho_factor(self.covariance + cov)
    norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
    return _gaussian_kernel_convolve(chol, norm, self.dataset, self.weights, mean)

  def integrate_box_1d(self, low, high):
    """Integral of a one-dimensional estimate between the scalars ``low`` and ``high``."""
    if self.d != 1:
      raise ValueError("integrate_box_1d() only handles 1D pdfs")
    if np.ndim(low) != 0 or np.ndim(high) != 0:
      raise ValueError("the limits of integration in integrate_box_1d must be scalars")
    return _integrate_box_1d(self, low, high)

  def integrate_kde(self, other):
    """Integral of the product of this estimate and ``other``."""
    if other.d != self.d:
      raise ValueError("KDEs are not the same dimensionality")
    chol = linalg.cho_factor(self.covariance + other.covariance)
    norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
    small, large = (self, other) if self.n < other.n else (other, self)
    result = vmap(functools.partial(_gaussian_kernel_convolve, chol, norm, large.dataset,
                                    large.weights), in_axes=1)(small.dataset)
    return jnp.sum(result * small.weights)

  def resample(self, key, shape=()):
    """Draws ``shape`` samples from the estimate with PRNG ``key``; shape (d, *shape)."""
    return _resample(self, key, shape=shape)

  def integrate_box(self, low_bounds, high_bounds, maxpts=None):
    """Not supported: only one-dimensional boxes (``integrate_box_1d``)."""
    del low_bounds, high_bounds, maxpts
    raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

  def set_bandwidth(self, bw_method=None):
    """Not supported: the bandwidth is fixed at construction."""
    del bw_method
    raise NotImplementedError("dynamically changing the bandwidth method is not supported")

  def _reshape_points(self, points):
    if dtypes.issubdtype(jnp.result_type(points), np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    d, m = points.shape
    if d != self.d:
      if d == 1 and m == self.d:
        points = jnp.reshape(points, (self.d, 1))
      else:
        raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
    return points


@jit
def _integrate_box_1d(kde, low, high):
  sigma = jnp.squeeze(jnp.sqrt(kde.covariance))
  low = jnp.squeeze((low - kde.dataset) / sigma)
  high = jnp.squeeze((high - kde.dataset) / sigma)
  return jnp.sum(kde.weights * (special.ndtr(high) - special.ndtr(low)))


def _resample_impl(kde, key, shape=()):
  index_key, noise_key = keys.split(key)
  index = distributions.choice(index_key, kde.n, shape=shape, p=kde.weights)
  noise = distributions.multivariate_normal(noise_key, jnp.zeros(kde.d, kde.covariance.dtype),
                                     kde.covariance, shape=shape, dtype=kde.dataset.dtype).T
  return kde.dataset[:, index] + noise


_resample = jit(_resample_impl, static_argnames=("shape",))


def _gaussian_kernel_convolve(chol, norm, target, weights, mean):
  diff = target - mean[:, None]
  alpha = linalg.cho_solve(chol, diff)
  arg = 0.5 * jnp.sum(diff * alpha, axis=0)
  return norm * jnp.sum(jnp.exp(-arg) * weights)


def _kernel_eval_impl(in_log, points, values, xi, precision):
  points, values, xi, precision = util.promote_dtypes_inexact(points, values, xi, precision)
  d = points.shape[1]
  if xi.shape[1] != d:
    raise ValueError("points and xi must have same trailing dim")
  if precision.shape != (d, d):
    raise ValueError("precision matrix must match data dims")
  whitening = linalg.cholesky(precision, lower=True)
  points = jnp.dot(points, whitening)
  xi = jnp.dot(xi, whitening)
  log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

  def kernel(x_test, x_train, y_train):
    arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
    return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

  reduce = special.logsumexp if in_log else jnp.sum

  def reduced_kernel(x):
    return reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0)

  return vmap(reduced_kernel)(xi)


_gaussian_kernel_eval = jit(_kernel_eval_impl, static_argnums=0)
