"""Records real JAX's outputs for the less common jax.scipy.special functions (exponential,
trigonometric and Fresnel integrals, spence, hypergeometric functions, Owen's T, wofz,
bessel_jn, sph_harm_y) and jax.nn's scaled-dot helpers.

    $JAX_PYTHON tools/record_special_extra_reference.py

Writes ``tests/data/special_extra_reference.json``, read by
``tests/test_scipy_special_extra.py``. The file holds the named input arrays (``inputs``) and,
per case, a source expression evaluated with ``jax``, ``jnp``, ``np``, ``sp``
(jax.scipy.special), ``nn`` and the inputs in scope; recorded per case are the output leaves
(dtype, weak type, shape, raw bytes as hex) or the exception's type and message. The test
evaluates the same sources with axle.
"""
import json
import os
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import nn
from jax.scipy import special as sp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "special_extra_reference.json")


def encode(x):
  x = np.asarray(x).copy(order="C")
  name = "bfloat16" if x.dtype == ml_dtypes.bfloat16 else x.dtype.name
  return {"dtype": name, "shape": list(x.shape), "hex": x.tobytes().hex()}


def make_inputs():
  rng = np.random.default_rng(11)
  f32 = np.float32
  x = np.concatenate([np.linspace(-9, 9, 37), rng.normal(size=12) * 4, [0.0, -0.0]]).astype(f32)
  pos = np.concatenate([np.geomspace(1e-3, 90, 30), rng.uniform(0.1, 10, 10)]).astype(f32)
  ei = np.concatenate([-np.geomspace(1e-3, 60, 15), np.geomspace(1e-3, 80, 25), [0.0]]).astype(f32)
  big = np.array([0.5, 3.0, 5.0, 10.0, 100.0, 1e3, 1e5, 3e4, 5e4, 1e9, 2e9, np.inf, -np.inf, -3.0,
                  -1e5, np.nan], f32)
  spence_x = np.concatenate([np.geomspace(1e-3, 50, 30), [0.0, 1.0, 0.5, 1.5, 2.0, 2.5, -1.0]]).astype(f32)
  n_grid, x_grid = np.meshgrid(np.arange(0, 6), np.array([0.0, 0.05, 0.5, 1.0, 1.5, 3.0, 8.0, 20.0]),
                               indexing="ij")
  hyp1f1_abx = rng.uniform(0.1, 4.0, size=(3, 24)).astype(f32)
  hyp1f1_abx[2] = np.concatenate([rng.uniform(0.0, 20.0, 20), [0.0, 120.0, 150.0, 30.0]])
  hyp2f1_abcx = rng.uniform(0.1, 3.0, size=(4, 24)).astype(f32)
  hyp2f1_abcx[3] = np.concatenate([rng.uniform(-0.9, 0.85, 20), [0.0, 0.95, 0.5, -0.5]])
  h = np.concatenate([np.linspace(-3, 3, 13), rng.normal(size=7) * 2, [0.0, 1.0, 0.5]]).astype(f32)
  a = np.concatenate([np.linspace(-3, 3, 13), rng.normal(size=7) * 2, [1.0, 0.0, 5.0]]).astype(f32)
  zr = np.concatenate([np.linspace(-4, 4, 9), rng.normal(size=6) * 3]).astype(f32)
  zi = np.concatenate([np.linspace(-3, 3, 9), rng.normal(size=6) * 3]).astype(f32)
  z = (zr + 1j * zi).astype(np.complex64)
  sph_n = np.array([0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 2, 4])
  sph_m = np.array([0, 0, 1, -1, 2, -3, 1, 0, 5, -2, 0, 4])
  sph_theta = np.linspace(0.1, 3.0, 12).astype(f32)
  sph_phi = np.linspace(0.0, 6.0, 12).astype(f32)
  return {
      "x": x, "pos": pos, "ei": ei, "big": big, "spence_x": spence_x,
      "n_grid": n_grid.astype(np.int32), "x_grid": x_grid.astype(f32),
      "hyp1f1_abx": hyp1f1_abx, "hyp2f1_abcx": hyp2f1_abcx, "h": h, "a": a, "z": z,
      "zr": zr, "zi": zi, "sph_n": sph_n.astype(np.int32), "sph_m": sph_m.astype(np.int32),
      "sph_theta": sph_theta, "sph_phi": sph_phi,
      "xi32": np.array([0, 1, 2, 3], np.int32), "x16": np.array([0.5, 1.0, 2.5], np.float16),
      "xb16": np.array([0.5, 1.0, 2.5], ml_dtypes.bfloat16),
      "jn_z": np.concatenate([np.linspace(0.1, 30, 15), [1e-3, 0.5]]).astype(f32),
      "lhs": rng.normal(size=(2, 4, 64)).astype(f32), "rhs": rng.normal(size=(2, 3, 64)).astype(f32),
      "lhs2": rng.normal(size=(5, 6)).astype(f32), "rhs2": rng.normal(size=(6, 3)).astype(f32),
      "q_lhs": (rng.normal(size=(2, 32, 64)) * np.exp(rng.normal(size=(2, 32, 1)))).astype(f32),
      "q_rhs": (rng.normal(size=(2, 32, 64)) * 3).astype(f32),
  }


CASES = [
    # values
    "sp.expi(ei)", "sp.exp1(pos)", "sp.exp1(ei)", "sp.expn(n_grid, x_grid)", "sp.expn(3, pos)",
    "sp.expn(0, pos)", "sp.expn(-1, pos)", "sp.expn(6000, jnp.array([1.0, 10.0]))",
    "sp.sici(x)", "sp.sici(big)", "sp.fresnel(x)", "sp.fresnel(big)",
    "sp.spence(spence_x)", "sp.hyp1f1(*hyp1f1_abx)",
    "sp.hyp1f1(0.0, 0.0, 2.0)", "sp.hyp1f1(1.5, 1.5, 2.0)", "sp.hyp1f1(1.0, 0.0, 2.0)",
    "sp.hyp2f1(*hyp2f1_abcx)", "sp.hyp2f1(1.0, 2.0, 3.0, 0.0)", "sp.hyp2f1(1.0, 2.0, 0.0, 0.5)",
    "sp.hyp2f1(1.0, 2.0, 4.5, 1.0)", "sp.hyp2f1(1.0, 2.0, 3.0, 1.5)",
    "sp.hyp2f1(-3.0, 2.0, 3.0, 0.7)", "sp.hyp2f1(1.5, 2.0, 2.0, 0.5)", "sp.hyp2f1(1.5, 2.5, 1.5, 0.5)",
    "sp.hyp2f1(1.5, 2.5, 1.0, 0.5)", "sp.hyp2f1(0.5, 0.7, 2.3, 0.97)", "sp.hyp2f1(0.5, 0.5, 2.0, 0.95)",
    "sp.hyp2f1(0.5, 0.5, 3.0, 0.95)",
    "sp.owens_t(h, a)", "sp.owens_t(1.0, jnp.nan)",
    "sp.wofz(z)", "sp.wofz(zr)", "sp.wofz(1.0)",
    "sp.bessel_jn(jn_z, v=4)", "sp.bessel_jn(jn_z.reshape(1, 17), v=0)", "sp.bessel_jn(2.0, v=2)",
    "sp.bessel_jn(jn_z, v=3, n_iter=80)",
    "sp.sph_harm_y(sph_n, sph_m, sph_theta, sph_phi)",
    "sp.sph_harm_y(sph_n, sph_m, sph_theta, sph_phi, n_max=5)",
    "sp.sph_harm_y(jnp.array([3]), jnp.array([1]), 0.4, 0.2)",
    "sp.sph_harm_y(jnp.array([6]), jnp.array([2]), jnp.array([0.4]), jnp.array([0.2]), n_max=4)",
    # dtypes and weak types
    "sp.expi(2.0)", "sp.expi(xi32)", "sp.expi(x16)", "sp.exp1(2.0)", "sp.expn(2, 2.0)",
    "sp.expn(2, x16)", "sp.sici(2.0)", "sp.sici(xi32)", "sp.fresnel(2.0)", "sp.fresnel(x16)",
    "sp.fresnel(xb16)", "sp.fresnel(xi32)", "sp.spence(jnp.float32(2.0))", "sp.hyp1f1(1, 2, 3)",
    "sp.hyp1f1(x16, x16, x16)", "sp.hyp2f1(1, 2, 3, 0.5)", "sp.owens_t(1.0, 0.5)",
    "sp.owens_t(xi32, xi32)", "sp.owens_t(x16, x16)", "sp.wofz(x16)", "sp.wofz(xi32)",
    "sp.bessel_jn(xi32, v=1)", "sp.bessel_jn(x16, v=1)",
    # errors
    "sp.spence(2.0)", "sp.spence(xi32)", "sp.spence(x16)", "sp.expi(z)", "sp.exp1(z)",
    "sp.expn(1, z)", "sp.sici(z)", "sp.fresnel(z)", "sp.hyp1f1(z, z, z)", "sp.bessel_jn(z, v=1)",
    "sp.bessel_jn(x, v=1.5)",
    "sp.sph_harm_y(sph_n, sph_m, sph_theta, sph_phi, diff_n=1)",
    # derivatives (JAX's custom_jvp rules)
    "jax.vmap(jax.grad(sp.expi))(pos)", "jax.vmap(jax.grad(sp.exp1))(pos)",
    "jax.vmap(jax.grad(lambda x: sp.expn(3, x)))(pos)",
    "jax.vmap(jax.grad(lambda x: sp.sici(x)[0]))(pos)",
    "jax.vmap(jax.grad(lambda x: sp.sici(x)[1]))(pos)",
    "jax.vmap(jax.grad(lambda x: sp.fresnel(x)[0]))(x)",
    "jax.vmap(jax.grad(lambda x: sp.fresnel(x)[1]))(x)",
    "jax.vmap(jax.grad(sp.hyp1f1, argnums=(0, 1, 2)))(*hyp1f1_abx[:, :8])",
    "jax.vmap(jax.grad(sp.hyp2f1, argnums=(0, 1, 2, 3)))(*hyp2f1_abcx[:, :8])",
    "jax.vmap(jax.grad(sp.owens_t, argnums=(0, 1)))(h, a)",
    "jax.jvp(sp.wofz, (z,), (jnp.ones_like(z),))",
    "jax.vmap(jax.grad(sp.spence))(spence_x[:30])",
    # jax.nn scaled dot
    "nn.scaled_dot_general(lhs2, rhs2, (((1,), (0,)), ((), ())))",
    "nn.scaled_dot_general(lhs, rhs, (((2,), (2,)), ((0,), (0,))), preferred_element_type=jnp.bfloat16)",
    "nn.get_scaled_dot_general_config('nvfp4').global_scale",
    "nn.get_scaled_dot_general_config('mxfp8', None).block_size",
    "nn.get_scaled_dot_general_config('fp4')",
    "nn.scaled_matmul(lhs, rhs[:, :, :32], lhs[:, :, :2], rhs[:, :, :2])",
    "nn.scaled_matmul(lhs[0], rhs[0], lhs[0], rhs[0])",
    "nn.scaled_matmul(lhs, rhs[:1], lhs[:, :, :2], rhs[:1, :, :2])",
    "nn.scaled_matmul(lhs, rhs, lhs[:, :, :2], rhs[:, :2, :2])",
    # JAX's algorithm with the GPU kernel replaced by its reference (see install_reference_kernel)
    "nn.scaled_matmul(lhs, rhs, jnp.abs(lhs[:, :, :2]), jnp.abs(rhs[:, :, :2]))",
    "nn.scaled_dot_general(q_lhs, q_rhs, (((2,), (2,)), ((0,), (0,))), configs=[mx] * 3)",
    "nn.scaled_dot_general(q_lhs, q_rhs, (((2,), (2,)), ((0,), (0,))), configs=[nv] * 3)",
    "nn.scaled_dot_general(jnp.asarray(q_lhs[0]), jnp.asarray(q_rhs[0].T), (((1,), (0,)), ((), ())), configs=[mx] * 3)",
    "jax.grad(lambda l, r: (nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[mx] * 3) ** 2).sum(), argnums=(0, 1))(q_lhs, q_rhs)",
    "jax.grad(lambda l, r: (nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[nv] * 3) ** 2).sum(), argnums=(0, 1))(q_lhs, q_rhs)",
]


def install_reference_kernel():
  """JAX runs scaled_matmul only as a cuDNN kernel (no CPU lowering). To record what JAX's
  quantisation and gradient code computes, replace that kernel by its documented reference:
  dequantise (each block times its scale) and contract in float32."""
  from jax._src.cudnn import scaled_matmul_stablehlo as sms
  from jax._src.nn import functions as nn_functions

  def reference(a, b, a_scales, b_scales, preferred_element_type=np.float32):
    def dequantize(x, s):
      block = x.shape[-1] // s.shape[-1]
      return x.astype(np.float32) * jnp.repeat(s.astype(np.float32), block, axis=-1)
    out = jnp.einsum("BMK,BNK->BMN", dequantize(a, a_scales), dequantize(b, b_scales),
                     preferred_element_type=np.float32)
    return out.astype(preferred_element_type)

  sms.scaled_matmul_wrapper = reference
  nn_functions.cudnn_scaled_matmul = reference


def record(source, namespace):
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      out = eval(source, dict(namespace))
  except Exception as e:  # the recorded error is part of the spec
    return {"error": type(e).__name__, "message": str(e)}
  leaves = jax.tree_util.tree_leaves(out)
  encoded = []
  for leaf in leaves:
    entry = encode(leaf)
    entry["weak_type"] = bool(getattr(leaf, "weak_type", False))
    encoded.append(entry)
  return {"leaves": encoded}


def main():
  install_reference_kernel()
  inputs = make_inputs()
  namespace = dict(inputs, jax=jax, jnp=jnp, np=np, sp=sp, nn=nn,
                   mx=nn.get_scaled_dot_general_config("mxfp8"),
                   nv=nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32)))
  cases = {source: record(source, namespace) for source in CASES}
  config = jax.nn.get_scaled_dot_general_config("nvfp4")
  data = {
      "jax_version": jax.__version__,
      "inputs": {name: encode(value) for name, value in inputs.items()},
      "cases": cases,
      "config_reprs": {"mxfp8": repr(jax.nn.get_scaled_dot_general_config("mxfp8")),
                       "nvfp4": repr(config)},
  }
  with open(OUT, "w") as f:
    json.dump(data, f, indent=1, sort_keys=True)
  for source, result in cases.items():
    print(source, "->", result.get("error", "") or [(l["dtype"], l["shape"], l["weak_type"])
                                                   for l in result["leaves"]],
          result.get("message", "")[:150])


if __name__ == "__main__":
  main()
