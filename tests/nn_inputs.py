"""Inputs and case sources shared by tools/record_nn_reference.py (run under real JAX) and
tests/test_nn.py / tests/test_scipy_special.py (run under axle). NumPy only: no jax/axle here."""
import ml_dtypes
import numpy as np


def inputs() -> dict:
  rng = np.random.default_rng(1234)
  edge = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 5.9, 6.0, 6.1, 1e-3,
                   -1e-3, 10.0, -10.0, 30.0, -30.0, 100.0, -100.0, 1e30, -1e30, np.inf, -np.inf,
                   np.nan], np.float32)
  x = np.concatenate([edge, (rng.normal(size=38) * 4).astype(np.float32)])
  pos = np.concatenate([np.array([1e-6, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 7.5, 8.0, 10.0, 33.0,
                                  100.0, 1e4, 1e6, 0.0, np.inf, np.nan], np.float32),
                        rng.uniform(0.01, 20.0, size=30).astype(np.float32)])
  unit = np.concatenate([np.array([0.0, 1.0, 0.5, 1e-7, 1 - 1e-7, 1e-30, 0.025, 0.975, 0.1353,
                                   0.8647, -0.1, 1.1, np.nan], np.float32),
                         rng.uniform(0.0, 1.0, size=27).astype(np.float32)])
  tail = np.array([-40.0, -20.0, -10.5, -10.0, -9.9, -5.0, -1.0, 0.0, 1.0, 4.9, 5.0, 5.1, 8.0,
                   9.0, 40.0, np.inf, -np.inf, np.nan], np.float32)
  with np.errstate(over="ignore"):
    x16 = x.astype(np.float16)
  return {
      "x": x,
      "x16": x16,
      "xbf": x.astype(ml_dtypes.bfloat16),
      "xi": np.array([-3, -1, 0, 1, 2, 7], np.int32),
      "xb": np.array([True, False, True]),
      "pos": pos, "unit": unit, "tail": tail,
      "m2": (rng.normal(size=(3, 5)) * 3).astype(np.float32),
      "m3": (rng.normal(size=(2, 3, 4)) * 3).astype(np.float32),
      "mask2": rng.uniform(size=(3, 5)) > 0.4,
      "b2": rng.normal(size=(3, 5)).astype(np.float32),
      "c2": (rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))).astype(np.complex64),
      "labels": np.array([0, 3, 1, -1, 4, 2], np.int32),
      "q": rng.normal(size=(2, 5, 4, 8)).astype(np.float32),
      "k": rng.normal(size=(2, 6, 2, 8)).astype(np.float32),
      "v": rng.normal(size=(2, 6, 2, 8)).astype(np.float32),
      "kf": rng.normal(size=(2, 6, 4, 8)).astype(np.float32),
      "vf": rng.normal(size=(2, 6, 4, 8)).astype(np.float32),
      "abias": rng.normal(size=(2, 4, 5, 6)).astype(np.float32),
      "amask": rng.uniform(size=(2, 1, 5, 6)) > 0.3,
      "qlen": np.array([3, 5], np.int32),
      "kvlen": np.array([6, 2], np.int32),
      "qbf": rng.normal(size=(1, 3, 2, 4)).astype(ml_dtypes.bfloat16),
      "kbf": rng.normal(size=(1, 4, 2, 4)).astype(ml_dtypes.bfloat16),
      "n_int": np.array([0, 1, 2, 3, 4, 5], np.int32),
  }


_UNARY_NN = ["relu", "relu6", "sigmoid", "softplus", "sparse_plus", "soft_sign", "sparse_sigmoid",
             "silu", "swish", "mish", "log_sigmoid", "elu", "leaky_relu", "hard_tanh", "celu",
             "selu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "identity", "squareplus",
             "tanh"]

NN_CASES = (
    [f"nn.{f}({x})" for f in _UNARY_NN for x in ("x", "x16", "xbf", "xi", "m2")]
    + [f"nn.{f}(2)" for f in _UNARY_NN] + [f"nn.{f}(-1.5)" for f in _UNARY_NN]
    + [f"nn.{f}([1.0, 2.0])" for f in ("relu", "silu", "elu", "soft_sign")]
    + ["nn.log1mexp(pos)", "nn.log1mexp(x)",
       "nn.gelu(x, approximate=False)", "nn.gelu(xbf, approximate=False)",
       "nn.gelu(xi, approximate=False)", "nn.gelu(m2, approximate=False)",
       "nn.elu(x, alpha=0.5)", "nn.celu(x, alpha=2.0)", "nn.leaky_relu(x, negative_slope=0.2)",
       "nn.leaky_relu(x16, 0.1)", "nn.squareplus(x, b=2)",
       "nn.glu(m2.T)", "nn.glu(m3, axis=1)", "nn.glu(m3)", "nn.glu(m2)",
       "nn.softmax(m2)", "nn.softmax(m2, axis=0)", "nn.softmax(m3, axis=(0, 2))",
       "nn.softmax(m2, where=mask2)", "nn.softmax(m2, axis=None)", "nn.softmax(x)",
       "nn.softmax(xi)", "nn.softmax(xbf)", "nn.softmax(m2.astype(np.float16))",
       "nn.log_softmax(m2)", "nn.log_softmax(m2, axis=0)", "nn.log_softmax(m3, axis=(1, 2))",
       "nn.log_softmax(m2, where=mask2)", "nn.log_softmax(x)", "nn.log_softmax(xi)",
       "nn.log_softmax(xbf)",
       "nn.logsumexp(m2)", "nn.logsumexp(m2, axis=1)", "nn.logsumexp(m2, axis=0, keepdims=True)",
       "nn.logsumexp(m2, b=b2)", "nn.logsumexp(m2, axis=1, b=b2)",
       "nn.logsumexp(m2, axis=1, b=b2, return_sign=True)", "nn.logsumexp(m2, where=mask2)",
       "nn.logsumexp(m2, axis=1, where=mask2, keepdims=True)", "nn.logsumexp(x)",
       "nn.logsumexp(xi)", "nn.logsumexp(c2)", "nn.logsumexp(c2, axis=0, return_sign=True)",
       "nn.logsumexp(np.full((3,), -np.inf, np.float32))", "nn.logsumexp(m3, axis=(0, 2))",
       "nn.logsumexp(xbf)",
       "nn.logmeanexp(m2)", "nn.logmeanexp(m2, axis=1)", "nn.logmeanexp(m2, axis=0, where=mask2)",
       "nn.logmeanexp(m3, axis=(0, 1), keepdims=True)",
       "nn.one_hot(labels, 5)", "nn.one_hot(labels, 3)", "nn.one_hot(labels, 5, axis=0)",
       "nn.one_hot(labels.reshape(2, 3), 4, axis=1)", "nn.one_hot(labels, 5, dtype=jnp.int8)",
       "nn.one_hot(labels, 5, dtype=jnp.bfloat16)", "nn.one_hot(2, 4)",
       "nn.one_hot(labels, 5, axis=2)",
       "nn.standardize(m2)", "nn.standardize(m2, axis=0)", "nn.standardize(m3, axis=(0, 2))",
       "nn.standardize(m2, algorithm='stable')", "nn.standardize(m2, where=mask2)",
       "nn.standardize(m2, mean=0.5, variance=2.0)", "nn.standardize(m2, epsilon=1.0)",
       "nn.standardize(xi)", "nn.standardize(m2, algorithm='bogus')",
       "nn.dot_product_attention(q, k, v)",
       "nn.dot_product_attention(q, kf, vf)",
       "nn.dot_product_attention(q, k, v, bias=abias)",
       "nn.dot_product_attention(q, k, v, mask=amask)",
       "nn.dot_product_attention(q, k, v, is_causal=True)",
       "nn.dot_product_attention(q, k, v, scale=0.5, is_causal=True, bias=abias, mask=amask)",
       "nn.dot_product_attention(q, k, v, query_seq_lengths=qlen, key_value_seq_lengths=kvlen)",
       "nn.dot_product_attention(q, k, v, local_window_size=1)",
       "nn.dot_product_attention(q, k, v, local_window_size=(2, 0))",
       "nn.dot_product_attention(q, k, v, return_residual=True)",
       "nn.dot_product_attention(q, k, v, is_causal=True, return_residual=True)",
       "nn.dot_product_attention(q[0], k[0], v[0])",
       "nn.dot_product_attention(qbf, kbf, kbf)",
       "nn.dot_product_attention(q, k, v, implementation='xla')",
       "nn.dot_product_attention(q, k[:, :, :1], v)",
       "nn.dot_product_attention(q[:, :, :3], k, v)",
       "nn.dot_product_attention(q, k, v[:, :5])",
       "nn.dot_product_attention(q, k, v, mask=amask.astype(np.float32))",
       "nn.dot_product_attention(q, k, v, implementation='bogus')",
       ])

_UNARY_SPECIAL = ["gammaln", "gamma", "gammasgn", "loggamma", "digamma", "erf", "erfc", "erfinv",
                  "expit", "logit", "i0", "i0e", "i1", "i1e", "entr", "factorial", "ndtr",
                  "ndtri", "log_ndtr", "erfcx", "dawsn"]
_BINARY_SPECIAL = ["betaln", "beta", "xlogy", "xlog1py", "gammainc", "gammaincc", "zeta",
                   "rel_entr", "kl_div", "boxcox", "boxcox1p", "poch", "comb"]

SPECIAL_CASES = (
    [f"sp.{f}({x})" for f in _UNARY_SPECIAL for x in ("x", "pos", "unit", "tail", "xi", "xbf",
                                                      "x16")]
    + [f"sp.{f}(3)" for f in _UNARY_SPECIAL] + [f"sp.{f}(0.25)" for f in _UNARY_SPECIAL]
    + [f"sp.{f}({a}, {b})" for f in _BINARY_SPECIAL
       for a, b in (("pos", "pos[::-1]"), ("unit", "pos[:40]"), ("x[:48]", "pos"),
                    ("xi", "xi[::-1]"), ("2", "pos"), ("pos", "0.5"), ("xbf[:48]", "pos"))]
    + ["sp.betainc(pos[:40], pos[::-1][:40], unit)", "sp.betainc(2, 3, 0.5)",
       "sp.polygamma(n_int, pos[:6])", "sp.polygamma(2, pos)", "sp.polygamma(1, x)",
       "sp.polygamma(0.5, pos)", "sp.polygamma(n_int, 2)",
       "sp.multigammaln(pos + 3, 3)", "sp.multigammaln(7.5, 1)", "sp.multigammaln(m2 + 10, 4)",
       "sp.multigammaln(xi + 10, 2)",
       "sp.log_ndtr(tail, series_order=0)", "sp.log_ndtr(tail, series_order=10)",
       "sp.log_ndtr(tail, series_order=-1)", "sp.log_ndtr(tail, series_order=31)",
       "sp.log_ndtr(tail, series_order=2.0)",
       "sp.zeta(2.0)", "sp.factorial(5, exact=True)", "sp.gamma(c2)",
       "sp.comb(pos, pos[::-1], repetition=True)", "sp.comb(10, 3)", "sp.comb(5, 3.5)",
       "sp.logsumexp(m2)", "sp.logsumexp(m2, axis=1, b=b2, return_sign=True)",
       "sp.logsumexp(m2, axis=0, where=mask2)", "sp.logsumexp(xi)",
       "sp.softmax(m2)", "sp.softmax(m2, axis=1)", "sp.log_softmax(m2)",
       "sp.log_softmax(m3, axis=(0, 1))", "sp.softmax(xi)",
       "sp.bernoulli(0)", "sp.bernoulli(1)", "sp.bernoulli(2)", "sp.bernoulli(10)",
       "sp.bernoulli(30)", "sp.bernoulli(-1)",
       "sp.xlogy(c2, c2)",
       ])

INIT_CASES = [
    "init.zeros(random.key(0), (2, 3))", "init.ones(random.key(0), (2, 3), jnp.bfloat16)",
    "init.constant(-7)(random.key(42), (2, 3), jnp.float32)",
    "init.constant(3, dtype=jnp.int32)(random.key(42), (4,))",
    "init.uniform()(random.key(42), (2, 3))", "init.uniform(10.0)(random.key(42), (2, 3), jnp.float32)",
    "init.normal(5.0)(random.key(42), (2, 3), jnp.float32)", "init.normal()(random.PRNGKey(1), (7,))",
    "init.truncated_normal(5.0)(random.key(42), (2, 3), jnp.float32)",
    "init.truncated_normal(1.0, lower=-1.0, upper=0.5)(random.key(3), (5, 4))",
    "init.glorot_uniform()(random.key(42), (2, 3), jnp.float32)",
    "init.glorot_normal()(random.key(42), (2, 3), jnp.float32)",
    "init.xavier_uniform()(random.key(1), (3, 3, 4, 5))",
    "init.xavier_normal()(random.key(1), (3, 3, 4, 5))",
    "init.lecun_uniform()(random.key(42), (2, 3), jnp.float32)",
    "init.lecun_normal()(random.key(42), (2, 3), jnp.float32)",
    "init.he_uniform()(random.key(42), (2, 3), jnp.float32)",
    "init.he_normal()(random.key(42), (2, 3), jnp.float32)",
    "init.kaiming_uniform()(random.key(5), (8, 16))", "init.kaiming_normal()(random.key(5), (8, 16))",
    "init.he_normal(dtype=jnp.bfloat16)(random.key(5), (8, 16))",
    "init.he_normal()(random.key(5), (8, 16), jnp.float16)",
    "init.variance_scaling(2.0, 'fan_out', 'normal')(random.key(7), (4, 6))",
    "init.variance_scaling(0.5, 'fan_geo_avg', 'uniform')(random.key(7), (4, 6))",
    "init.variance_scaling(1.0, 'fan_in', 'truncated_normal', in_axis=0, out_axis=1)"
    "(random.key(7), (4, 6, 3))",
    "init.variance_scaling(1.0, 'fan_avg', 'uniform', in_axis=(0, 1), out_axis=-1, batch_axis=2)"
    "(random.key(7), (2, 3, 4, 5))",
    "init.variance_scaling(1.0, 'fan_in', 'uniform')(random.key(7), (3, 4), jnp.complex64)",
    "init.variance_scaling(1.0, 'fan_in', 'truncated_normal')(random.key(7), (3, 4), jnp.complex64)",
    "init.variance_scaling(1.0, 'fan_in', 'normal')(random.key(7), (3, 4), jnp.complex64)",
    "init.variance_scaling(1.0, 'fan_bogus', 'normal')(random.key(7), (3, 4))",
    "init.variance_scaling(1.0, 'fan_in', 'bogus')(random.key(7), (3, 4))",
    "init.glorot_uniform()(random.key(0), (5,))",
    "init.lecun_normal(in_axis=0)(random.key(0), (5,))",
    "init.orthogonal()(random.key(42), (2, 3), jnp.float32)",
    "init.orthogonal()(random.key(42), (5, 3), jnp.float32)",
    "init.orthogonal(scale=2.0, column_axis=0)(random.key(1), (3, 2, 4))",
    "init.orthogonal()(random.key(1), (3,))", "init.orthogonal()(random.key(1), (0, 3))",
    "init.delta_orthogonal()(random.key(42), (3, 3, 3), jnp.float32)",
    "init.delta_orthogonal()(random.key(42), (3, 3, 2, 4))",
    "init.delta_orthogonal()(random.key(42), (2, 3, 3, 2, 2))",
    "init.delta_orthogonal()(random.key(42), (3, 3))",
    "init.delta_orthogonal()(random.key(42), (3, 4, 3))",
]

JAXPR_CASES = [
    "jax.make_jaxpr(nn.sigmoid)(x)",
    "jax.make_jaxpr(nn.elu)(x)",
    "jax.make_jaxpr(nn.silu)(x)",
    "jax.make_jaxpr(lambda a: nn.softmax(a))(m2)",
    "jax.make_jaxpr(lambda a: nn.logsumexp(a, axis=1))(m2)",
    "jax.make_jaxpr(sp.gammaln)(x)",
    "jax.make_jaxpr(sp.xlogy)(x, x)",
    "jax.make_jaxpr(lambda a: nn.one_hot(a, 3))(labels)",
]
