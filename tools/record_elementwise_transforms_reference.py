"""Records what real JAX prints and returns for transformations of the elementwise primitives
(JVP, grad, vjp, vmap jaxprs and a few known derivative values), into
tests/data/elementwise_transforms_reference.json for tests/test_elementwise_transforms.py.

Run under JAX's environment: $JAX_PYTHON tools/record_elementwise_transforms_reference.py

Each case is Python source evaluated with ``jax``, ``lax``, ``jnp`` and ``np`` bound, so that the
test evaluates exactly the same source with axle in their place.
"""
import json
import os

import numpy as np

# (name, function source, arguments source); functions return a scalar for grad cases.
GRAD_JAXPR_CASES = [
    ("add", "lambda x, y: lax.add(x, y)", "(f32(0.5), f32(1.5))"),
    ("sub_y", "jax.grad(lambda x, y: lax.sub(x, y), argnums=1)", None),
    ("mul", "lambda x, y: lax.mul(x, y)", "(f32(0.5), f32(1.5))"),
    ("div", "lambda x, y: lax.div(x, y)", "(f32(0.5), f32(1.5))"),
    ("neg", "lambda x: lax.neg(x)", "(f32(0.5),)"),
    ("max", "lambda x, y: lax.max(x, y)", "(f32(0.5), f32(1.5))"),
    ("min", "lambda x, y: lax.min(x, y)", "(f32(0.5), f32(1.5))"),
    ("pow", "lambda x, y: lax.pow(x, y)", "(f32(0.5), f32(1.5))"),
    ("integer_pow2", "lambda x: lax.integer_pow(x, 2)", "(f32(0.5),)"),
    ("integer_pow3", "lambda x: lax.integer_pow(x, 3)", "(f32(0.5),)"),
    ("integer_pow_neg2", "lambda x: lax.integer_pow(x, -2)", "(f32(0.5),)"),
    ("square", "lambda x: lax.square(x)", "(f32(0.5),)"),
    ("abs", "lambda x: lax.abs(x)", "(f32(0.5),)"),
    ("sign", "lambda x: lax.sign(x) * x", "(f32(0.5),)"),
    ("exp", "lambda x: lax.exp(x)", "(f32(0.5),)"),
    ("exp2", "lambda x: lax.exp2(x)", "(f32(0.5),)"),
    ("log", "lambda x: lax.log(x)", "(f32(0.5),)"),
    ("log1p", "lambda x: lax.log1p(x)", "(f32(0.5),)"),
    ("expm1", "lambda x: lax.expm1(x)", "(f32(0.5),)"),
    ("tanh", "lambda x: lax.tanh(x)", "(f32(0.5),)"),
    ("logistic", "lambda x: lax.logistic(x)", "(f32(0.5),)"),
    ("sin", "lambda x: lax.sin(x)", "(f32(0.5),)"),
    ("cos", "lambda x: lax.cos(x)", "(f32(0.5),)"),
    ("tan", "lambda x: lax.tan(x)", "(f32(0.5),)"),
    ("asin", "lambda x: lax.asin(x)", "(f32(0.5),)"),
    ("acos", "lambda x: lax.acos(x)", "(f32(0.5),)"),
    ("atan", "lambda x: lax.atan(x)", "(f32(0.5),)"),
    ("atan2", "lambda x, y: lax.atan2(x, y)", "(f32(0.5), f32(1.5))"),
    ("sinh", "lambda x: lax.sinh(x)", "(f32(0.5),)"),
    ("cosh", "lambda x: lax.cosh(x)", "(f32(0.5),)"),
    ("asinh", "lambda x: lax.asinh(x)", "(f32(0.5),)"),
    ("acosh", "lambda x: lax.acosh(x)", "(f32(1.5),)"),
    ("atanh", "lambda x: lax.atanh(x)", "(f32(0.5),)"),
    ("sqrt", "lambda x: lax.sqrt(x)", "(f32(0.5),)"),
    ("rsqrt", "lambda x: lax.rsqrt(x)", "(f32(0.5),)"),
    ("cbrt", "lambda x: lax.cbrt(x)", "(f32(0.5),)"),
    ("erf", "lambda x: lax.erf(x)", "(f32(0.5),)"),
    ("erfc", "lambda x: lax.erfc(x)", "(f32(0.5),)"),
    ("erf_inv", "lambda x: lax.erf_inv(x)", "(f32(0.5),)"),
    ("lgamma", "lambda x: lax.lgamma(x)", "(f32(0.5),)"),
    ("digamma", "lambda x: lax.digamma(x)", "(f32(0.5),)"),
    ("bessel_i0e", "lambda x: lax.bessel_i0e(x)", "(f32(0.5),)"),
    ("bessel_i1e", "lambda x: lax.bessel_i1e(x)", "(f32(0.5),)"),
    ("igamma", "lambda a, x: lax.igamma(a, x)", "(f32(0.5), f32(1.5))"),
    ("igamma_x", "jax.grad(lambda a, x: lax.igamma(a, x), argnums=1)", None),
    ("igammac_x", "jax.grad(lambda a, x: lax.igammac(a, x), argnums=1)", None),
    ("betainc_x", "jax.grad(lambda a, b, x: lax.betainc(a, b, x), argnums=2)", None),
    ("polygamma_x", "jax.grad(lambda m, x: lax.polygamma(m, x), argnums=1)", None),
    ("select", "lambda x, y: lax.select(lax.gt(x, y), x, y)", "(f32(0.5), f32(1.5))"),
    ("select_n_int", "lambda x, y: lax.select_n(np.int32(1), x, y)", "(f32(0.5), f32(1.5))"),
    ("clamp", "lambda x: lax.clamp(f32(0.), x, f32(1.))", "(f32(0.5),)"),
    ("clamp_bounds", "jax.grad(lambda lo, x, hi: lax.clamp(lo, x, hi), argnums=(0, 2))", None),
    ("rem", "lambda x, y: lax.rem(x, y)", "(f32(2.5), f32(1.5))"),
    ("convert_to_f16", "lambda x: lax.convert_element_type(x, jnp.float16).astype(jnp.float32)",
     "(f32(0.5),)"),
    ("round", "lambda x: lax.round(x) + x", "(f32(0.5),)"),
    ("real_of_mul", "lambda z: lax.real(lax.mul(z, z))", "(c64(1 + 2j),)"),
    ("abs_complex", "lambda z: lax.abs(z)", "(c64(3 + 4j),)"),
    ("imag_of_conj", "lambda z: lax.imag(lax.conj(z))", "(c64(1 + 2j),)"),
    ("complex_parts", "lambda x, y: lax.real(lax.complex(x, y)) + lax.imag(lax.complex(x, y))",
     "(f32(0.5), f32(1.5))"),
    ("mlp_layer", "lambda w, x: lax.tanh(lax.add(lax.mul(w, x), f32(0.1)))",
     "(f32(0.5), f32(1.5))"),
]
# Argument lists for cases whose function source is already a grad (source ``None`` above).
GRAD_ARGS = {
    "sub_y": "(f32(0.5), f32(1.5))", "igamma_x": "(f32(0.5), f32(1.5))",
    "igammac_x": "(f32(0.5), f32(1.5))", "betainc_x": "(f32(2.), f32(3.), f32(0.5))",
    "polygamma_x": "(f32(1.), f32(1.5))", "clamp_bounds": "(f32(0.), f32(1.5), f32(1.))",
}

# Other printed jaxprs: jvp, vjp with broadcasting, vmap.
JAXPR_CASES = [
    ("jvp_sin", "lambda x, t: jax.jvp(lax.sin, (x,), (t,))", "(f32(0.5), f32(1.))"),
    ("jvp_mul", "lambda x, y, tx, ty: jax.jvp(lax.mul, (x, y), (tx, ty))",
     "(f32(0.5), f32(1.5), f32(1.), f32(2.))"),
    ("jvp_add_one_tangent", "lambda x, y, t: jax.jvp(lambda x: lax.add(x, y), (x,), (t,))",
     "(np.ones((1, 3), np.float32), np.ones((2, 3), np.float32), np.ones((1, 3), np.float32))"),
    ("vjp_add_broadcast", "lambda x, y, ct: jax.vjp(lax.add, x, y)[1](ct)",
     "(np.ones((1, 3), np.float32), np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))"),
    ("vjp_mul_scalar", "lambda x, y, ct: jax.vjp(lax.mul, x, y)[1](ct)",
     "(np.float32(2.), np.ones((3,), np.float32), np.ones((3,), np.float32))"),
    ("vjp_sub_broadcast", "lambda x, y, ct: jax.vjp(lax.sub, x, y)[1](ct)",
     "(np.ones((2, 3), np.float32), np.ones((2, 1), np.float32), np.ones((2, 3), np.float32))"),
    ("vjp_div", "lambda x, y, ct: jax.vjp(lax.div, x, y)[1](ct)",
     "(np.ones((2, 3), np.float32), np.full((2, 3), 2., np.float32), np.ones((2, 3), np.float32))"),
    ("vjp_select", "lambda p, x, y, ct: jax.vjp(lambda x, y: lax.select(p, x, y), x, y)[1](ct)",
     "(np.array([True, False, True]), np.ones(3, np.float32), np.zeros(3, np.float32), np.ones(3, np.float32))"),
    ("vjp_convert", "lambda x, ct: jax.vjp(lambda x: lax.convert_element_type(x, jnp.float16), x)[1](ct)",
     "(np.ones(3, np.float32), np.ones(3, np.float16))"),
    ("vjp_real", "lambda z, ct: jax.vjp(lax.real, z)[1](ct)",
     "(np.ones(3, np.complex64), np.ones(3, np.float32))"),
    ("vjp_imag", "lambda z, ct: jax.vjp(lax.imag, z)[1](ct)",
     "(np.ones(3, np.complex64), np.ones(3, np.float32))"),
    ("vjp_complex", "lambda x, y, ct: jax.vjp(lax.complex, x, y)[1](ct)",
     "(np.ones(3, np.float32), np.ones(3, np.float32), np.ones(3, np.complex64))"),
    ("vjp_conj", "lambda z, ct: jax.vjp(lax.conj, z)[1](ct)",
     "(np.ones(3, np.complex64), np.ones(3, np.complex64))"),
    ("vmap_add_same_axis", "jax.vmap(lax.add)",
     "(np.ones((4, 3), np.float32), np.ones((4, 3), np.float32))"),
    ("vmap_add_unbatched_scalar", "jax.vmap(lax.add, in_axes=(0, None))",
     "(np.ones((4, 3), np.float32), np.float32(1.))"),
    ("vmap_sin_axis1", "jax.vmap(lax.sin, in_axes=1)", "(np.ones((4, 3), np.float32),)"),
    ("vmap_select_scalar_pred", "jax.vmap(lax.select)",
     "(np.array([True, False]), np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32))"),
    ("vmap_clamp", "jax.vmap(lax.clamp, in_axes=(None, 0, None))",
     "(np.float32(0.), np.ones((4, 3), np.float32), np.float32(1.))"),
    ("vmap_convert", "jax.vmap(lambda x: lax.convert_element_type(x, jnp.int32), in_axes=1)",
     "(np.ones((4, 3), np.float32),)"),
    ("vmap_clamp_batched_bound", "jax.vmap(lax.clamp, in_axes=(0, 1, None))",
     "(np.ones(2, np.float32), np.ones((3, 2), np.float32), np.float32(1))"),
    ("vmap_select_n_mixed_axes", "jax.vmap(lax.select_n, in_axes=(0, None, 1))",
     "(np.array([True, False]), np.ones(3, np.float32), np.ones((3, 2), np.float32))"),
    ("vmap_pow_int_exponent", "jax.vmap(lax.pow, in_axes=(1, 0))",
     "(np.ones((3, 2), np.float32), np.ones((2, 3), np.int32))"),
    ("vmap_grad_tanh", "jax.vmap(jax.grad(lax.tanh))", "(np.ones(3, np.float32),)"),
]

# Derivative values at special points: (name, expression source) evaluated to an array.
VALUE_CASES = [
    ("grad_max_tie", "jax.grad(lax.max, argnums=(0, 1))(f32(1.), f32(1.))"),
    ("grad_min_tie", "jax.grad(lax.min, argnums=(0, 1))(f32(1.), f32(1.))"),
    ("grad_max_distinct", "jax.grad(lax.max, argnums=(0, 1))(f32(2.), f32(1.))"),
    ("grad_abs_at_zero", "jax.grad(lax.abs)(f32(0.))"),
    ("grad_abs_at_neg_zero", "jax.grad(lax.abs)(f32(-0.))"),
    ("grad_abs_negative", "jax.grad(lax.abs)(f32(-2.))"),
    ("grad_sqrt_at_zero", "jax.grad(lax.sqrt)(f32(0.))"),
    ("grad_rsqrt_at_one", "jax.grad(lax.rsqrt)(f32(1.))"),
    ("grad_cbrt_at_eight", "jax.grad(lax.cbrt)(f32(8.))"),
    ("grad_sign", "jax.grad(lax.sign)(f32(3.))"),
    ("grad_round", "jax.grad(lax.round)(f32(2.5))"),
    ("grad_floor", "jax.grad(lax.floor)(f32(2.5))"),
    ("grad_pow_zero_base", "jax.grad(lax.pow, argnums=(0, 1))(f32(0.), f32(2.))"),
    ("grad_pow_zero_base_zero_exponent", "jax.grad(lax.pow, argnums=(0, 1))(f32(0.), f32(0.))"),
    ("grad_pow_int_exponent_zero", "jax.grad(lambda x: lax.pow(x, np.int32(0)))(f32(0.))"),
    ("grad_pow_int_exponent", "jax.grad(lambda x: lax.pow(x, np.int32(3)))(f32(2.))"),
    ("grad_integer_pow_zero", "jax.grad(lambda x: lax.integer_pow(x, 0))(f32(2.))"),
    ("grad_integer_pow_at_zero", "jax.grad(lambda x: lax.integer_pow(x, 3))(f32(0.))"),
    ("grad_integer_pow_neg", "jax.grad(lambda x: lax.integer_pow(x, -2))(f32(2.))"),
    ("hessian_integer_pow", "jax.grad(jax.grad(lambda x: lax.integer_pow(x, 4)))(f32(2.))"),
    ("grad_clamp_inside", "jax.grad(lax.clamp, argnums=(0, 1, 2))(f32(0.), f32(0.5), f32(1.))"),
    ("grad_clamp_below", "jax.grad(lax.clamp, argnums=(0, 1, 2))(f32(0.), f32(-0.5), f32(1.))"),
    ("grad_clamp_above", "jax.grad(lax.clamp, argnums=(0, 1, 2))(f32(0.), f32(1.5), f32(1.))"),
    ("grad_clamp_at_lower", "jax.grad(lax.clamp, argnums=(0, 1, 2))(f32(0.), f32(0.), f32(1.))"),
    ("grad_clamp_at_upper", "jax.grad(lax.clamp, argnums=(0, 1, 2))(f32(0.), f32(1.), f32(1.))"),
    ("grad_rem", "jax.grad(lax.rem, argnums=(0, 1))(f32(5.5), f32(2.))"),
    ("grad_rem_negative", "jax.grad(lax.rem, argnums=(0, 1))(f32(-5.5), f32(2.))"),
    ("grad_logistic_large", "jax.grad(lax.logistic)(f32(30.))"),
    ("grad_tanh_large", "jax.grad(lax.tanh)(f32(30.))"),
    ("grad_atan2", "jax.grad(lax.atan2, argnums=(0, 1))(f32(1.), f32(2.))"),
    ("grad_erf_inv_zero", "jax.grad(lax.erf_inv)(f32(0.))"),
    ("grad_bessel_i1e_zero", "jax.grad(lax.bessel_i1e)(f32(0.))"),
    ("grad_bessel_i0e_zero", "jax.grad(lax.bessel_i0e)(f32(0.))"),
    ("grad_lgamma", "jax.grad(lax.lgamma)(f32(3.))"),
    ("grad_digamma", "jax.grad(lax.digamma)(f32(3.))"),
    ("grad_igamma", "jax.grad(lax.igamma, argnums=(0, 1))(f32(2.), f32(1.5))"),
    ("grad_igammac", "jax.grad(lax.igammac, argnums=(0, 1))(f32(2.), f32(1.5))"),
    ("grad_betainc_x", "jax.grad(lax.betainc, argnums=2)(f32(2.), f32(3.), f32(0.4))"),
    ("grad_polygamma_x", "jax.grad(lax.polygamma, argnums=1)(f32(1.), f32(2.))"),
    ("grad_select_n_int", "jax.grad(lambda x, y, z: lax.select_n(np.int32(1), x, y, z), argnums=(0, 1, 2))(f32(1.), f32(2.), f32(3.))"),
    ("grad_convert_f32_to_c64_real", "jax.grad(lambda x: lax.real(lax.convert_element_type(x, jnp.complex64) * c64(2 + 3j)))(f32(1.))"),
    ("grad_abs_complex", "jax.grad(lax.abs)(c64(3 + 4j))"),
    ("grad_real_of_square", "jax.grad(lambda z: lax.real(lax.mul(z, z)))(c64(1 + 2j))"),
    ("grad_imag_of_square", "jax.grad(lambda z: lax.imag(lax.mul(z, z)))(c64(1 + 2j))"),
    ("grad_holomorphic_exp", "jax.grad(lax.exp, holomorphic=True)(c64(1 + 2j))"),
    ("grad_holomorphic_mul", "jax.grad(lambda z: lax.mul(z, c64(2 - 1j)), holomorphic=True)(c64(1 + 2j))"),
    ("grad_holomorphic_sqrt", "jax.grad(lax.sqrt, holomorphic=True)(c64(1 + 2j))"),
    ("vjp_complex_mul", "jax.vjp(lambda z: lax.mul(z, c64(2 - 1j)), c64(1 + 2j))[1](c64(1 + 1j))[0]"),
    ("vjp_conj", "jax.vjp(lax.conj, c64(1 + 2j))[1](c64(1 + 1j))[0]"),
    ("vjp_real", "jax.vjp(lax.real, c64(1 + 2j))[1](f32(1.))[0]"),
    ("vjp_imag", "jax.vjp(lax.imag, c64(1 + 2j))[1](f32(1.))[0]"),
    ("vjp_complex", "jax.vjp(lax.complex, f32(1.), f32(2.))[1](c64(1 + 1j))"),
    ("jvp_sign_complex", "jax.jvp(lax.sign, (c64(1 + 2j),), (c64(1 + 1j),))[1]"),
    ("jvp_abs_complex", "jax.jvp(lax.abs, (c64(3 + 4j),), (c64(1 + 2j),))[1]"),
    ("jvp_abs_complex_zero", "jax.jvp(lax.abs, (c64(0),), (c64(1 + 2j),))[1]"),
    ("per_example_grads", "jax.vmap(jax.grad(lambda w, x: lax.tanh(lax.mul(w, x))), in_axes=(None, 0))(f32(0.5), np.array([1., 2., 3.], np.float32))"),
    ("grad_of_vmap", "jax.grad(lambda w: lax.reduce_sum(jax.vmap(lambda x: lax.sin(lax.mul(w, x)))(np.array([1., 2., 3.], np.float32)), (0,)))(f32(0.5))"),
]


def _encode(value):
  value = np.asarray(value)
  if value.dtype.kind == "c":
    wide = value.astype(np.complex128)
  elif value.dtype.kind in "fV" or value.dtype.name == "bfloat16":
    wide = value.astype(np.float64)
  else:
    wide = value.astype(np.float64)
  return {"dtype": str(value.dtype), "shape": list(value.shape),
          "hex": np.ascontiguousarray(wide).tobytes().hex(), "kind": wide.dtype.name}


def main():
  import jax
  import jax.numpy as jnp
  from jax import lax
  env = {"jax": jax, "lax": lax, "jnp": jnp, "np": np, "f32": np.float32, "c64": np.complex64}
  out = {"jax_version": jax.__version__, "grad_jaxprs": [], "jaxprs": [], "values": []}
  for name, fun_src, args_src in GRAD_JAXPR_CASES:
    args_src = args_src or GRAD_ARGS[name]
    fun = eval(fun_src, env)
    if not fun_src.startswith("jax.grad"):
      fun = jax.grad(fun)
    args = eval(args_src, env)
    text = str(jax.make_jaxpr(fun)(*args))
    out["grad_jaxprs"].append({"name": name, "fun": fun_src, "args": args_src, "text": text})
  for name, fun_src, args_src in JAXPR_CASES:
    fun = eval(fun_src, env)
    args = eval(args_src, env)
    out["jaxprs"].append({"name": name, "fun": fun_src, "args": args_src,
                          "text": str(jax.make_jaxpr(fun)(*args))})
  for name, src in VALUE_CASES:
    value = eval(src, env)
    leaves = jax.tree_util.tree_leaves(value)
    out["values"].append({"name": name, "expr": src, "out": [_encode(v) for v in leaves]})
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                      "elementwise_transforms_reference.json")
  with open(path, "w") as f:
    json.dump(out, f, indent=1)
  print(f"wrote {path}")


if __name__ == "__main__":
  main()
