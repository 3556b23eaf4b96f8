"""axle.nn and axle.nn.initializers against JAX's recorded outputs (values, dtypes, weak types,
errors), eagerly and under jit; plus properties that need no reference."""
import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import nn
from tests import nn_inputs
from tests.nn_reference_check import REFERENCE, check_case

# Formulas with a transcendental step: XLA's and NumPy's kernels may differ by a few ulps.
_RTOL = 5e-6


def _atol(source):
  # Values of order 1-10 agree with XLA's to a float32 ulp or two (gelu's 1 + tanh(...) cancels
  # for negative x; logsumexp/log_softmax round sums of exponentials differently).
  return 1e-6


@pytest.mark.parametrize("source", nn_inputs.NN_CASES)
def test_nn_eager(source):
  check_case(source, jit=False, rtol=_RTOL, atol=_atol(source))


@pytest.mark.parametrize("source", [s for s in nn_inputs.NN_CASES
                                    if "error" not in REFERENCE["cases"][s]][::3])
def test_nn_jit(source):
  check_case(source, jit=True, rtol=_RTOL, atol=_atol(source))


@pytest.mark.parametrize("source", nn_inputs.INIT_CASES)
def test_initializers(source):
  # orthogonal initialisers go through QR: LAPACK and XLA round the last ulp differently
  check_case(source, jit=False, rtol=1e-6, atol=1e-6, check_message=False)


def test_public_names_present():
  expected = set(nn.__all__ if hasattr(nn, "__all__") else [])
  for name in ["relu", "relu6", "gelu", "sigmoid", "silu", "swish", "softplus", "soft_sign", "elu",
               "celu", "selu", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish",
               "log_sigmoid", "glu", "softmax", "log_softmax", "logsumexp", "logmeanexp", "one_hot",
               "standardize", "dot_product_attention", "identity", "mish", "squareplus",
               "sparse_plus", "sparse_sigmoid", "log1mexp", "tanh", "initializers"]:
    assert hasattr(nn, name), name
  del expected


def test_softmax_is_stable_for_large_logits():
  x = jnp.array([1000.0, 1001.0, 1002.0])
  out = np.asarray(nn.softmax(x))
  np.testing.assert_allclose(out, np.exp([-2.0, -1.0, 0.0]) / np.exp([-2.0, -1.0, 0.0]).sum(),
                             rtol=1e-6)
  np.testing.assert_allclose(np.asarray(nn.log_softmax(x)), np.log(out), rtol=1e-5)
  assert np.isfinite(np.asarray(nn.logsumexp(jnp.array([1e30, 1e30])))).all()


def test_softmax_where_masks_to_zero_and_rows_sum_to_one():
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  where = np.array([[True, False, True, True]] * 3)
  out = np.asarray(nn.softmax(x, where=where))
  assert (out[:, 1] == 0).all()
  np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-6)
  assert np.isneginf(np.asarray(nn.log_softmax(x, where=where))[:, 1]).all()


def test_one_hot_traced_num_classes_raises():
  with pytest.raises(axle.errors.ConcretizationTypeError):
    axle.jit(lambda n: nn.one_hot(jnp.array([0, 1]), n))(3)


def test_list_arguments_raise_type_error():
  with pytest.raises(TypeError, match="relu|maximum"):
    nn.relu([1.0, -1.0])


def test_relu_grad():
  g = axle.grad(lambda x: nn.relu(x))
  assert float(g(2.0)) == 1.0
  assert float(g(-2.0)) == 0.0
  assert float(g(0.0)) == 0.0  # JAX's convention (custom_jvp); maximum's own rule may differ


def test_attention_matches_numpy_reference():
  env = nn_inputs.inputs()
  q, k, v = env["q"], env["k"], env["v"]
  out = np.asarray(nn.dot_product_attention(q, k, v, is_causal=True))
  B, T, N, H = q.shape
  K = k.shape[2]
  kk = np.repeat(k, N // K, axis=2)
  vv = np.repeat(v, N // K, axis=2)
  logits = np.einsum("btnh,bsnh->bnts", q, kk) / np.sqrt(H)
  logits = np.where(np.tril(np.ones((T, k.shape[1]), bool)), logits, -np.inf)
  p = np.exp(logits - logits.max(-1, keepdims=True))
  p /= p.sum(-1, keepdims=True)
  want = np.einsum("bnts,bsnh->btnh", p, vv)
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("source", nn_inputs.JAXPR_CASES)
def test_printed_jaxprs(source):
  from axle.scipy import special as sp
  from tests.nn_reference_check import namespace
  env = namespace()
  assert str(eval(source, env)) == REFERENCE["jaxprs"][source]


def test_squareplus_uses_the_square_primitive_as_jax():
  # Expected text recorded from JAX 0.10.2: jnp.square is lax.square (not integer_pow).
  import axle
  import axle.numpy as jnp
  text = str(axle.make_jaxpr(axle.nn.squareplus)(jnp.ones(3)))
  assert text == """{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=squareplus
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[3] = square a
          d:f32[3] = add c 4.0:f32[]
          e:f32[3] = sqrt d
          f:f32[3] = add a e
          b:f32[3] = div f 2.0:f32[]
        in (b,) }
    ] a
  in (b,) }"""
