"""jnp ufuncs and reductions, jax.nn functions and lax windowed/cumulative derivatives whose
jaxprs, grad jaxprs and vmap jaxprs must print as JAX's: the literals JAX prints as the Python
floats given, JAX's own steps (gcd's while loop, hypot, frexp/ldexp, fmax/fmin), the cumulative
reductions' associative-scan JVPs and reduce_window's select_and_scatter_add VJP. Recorded under
real JAX by tools/record_ufunc_parity_reference.py, compared by tests/test_ufunc_parity_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr or the value).
"""

_X34 = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\ny = jnp.arange(4.0) / 3 - 0.5\n"
_I34 = "i = jnp.arange(12).reshape(3, 4) * 7 - 20\nk = jnp.arange(4) * 3 - 4\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_P = _X34 + _I34 + _J + _G + _V

SNIPPETS = {}
for _name, _fn, _args, _kinds in [
    ("clip_max", "lambda a: jnp.clip(a, max=0.3)", "x", "JGV"),
    ("max_initial_where", "lambda a: jnp.max(a, axis=0, initial=-1.0, where=a < 0.5)", "x", "JGV"),
    ("mean_where", "lambda a: jnp.mean(a, axis=1, where=a > 0)", "x", "JGV"),
    ("sum_bool_dtype", "lambda a: jnp.sum(a > 0, axis=1, dtype=jnp.float32)", "x", "J"),
    ("max_bool", "lambda a: jnp.max(a > 0, axis=1)", "x", "J"),
    ("sum_keepdims_bf16", "lambda a: jnp.sum(a.astype(jnp.bfloat16), axis=1, keepdims=True)", "x",
     "J"),
    ("logaddexp", "jnp.logaddexp", "x, y", "G"),
    ("logaddexp2", "jnp.logaddexp2", "x, y", "JG"),
    ("cumprod", "lambda a: jnp.cumprod(a, axis=1)", "x", "G"),
    ("cummax_reverse", "lambda a: lax.cummax(a, axis=0, reverse=True)", "x", "G"),
    ("cumlogsumexp", "lambda a: lax.cumlogsumexp(a, axis=1)", "x", "G"),
    ("gelu_exact", "lambda a: jax.nn.gelu(a, approximate=False)", "x", "J"),
    ("glu", "jax.nn.glu", "x", "J"),
    ("logmeanexp", "lambda a: jax.nn.logmeanexp(a, axis=0)", "x", "J"),
    ("softmax_bf16", "lambda a: jax.nn.softmax(a.astype(jnp.bfloat16))", "x", "J"),
    ("selu", "jax.nn.selu", "x", "GV"),
    ("leaky_relu", "lambda a: jax.nn.leaky_relu(a, 0.2)", "x", "J"),
    ("softplus", "jax.nn.softplus", "x", "G"),
    ("standardize", "lambda a: jax.nn.standardize(a, axis=0, epsilon=1e-3)", "x", "J"),
    ("angle", "jnp.angle", "x", "JG"),
    ("fmax", "jnp.fmax", "x, y", "JGV"),
    ("fmin", "jnp.fmin", "y, x", "J"),
    ("hypot", "jnp.hypot", "x, y", "JG"),
    ("gcd", "jnp.gcd", "i, k", "JV"),
    ("lcm", "jnp.lcm", "i, k", "J"),
    ("frexp", "lambda a: jnp.frexp(a)[0]", "x", "J"),
    ("ldexp", "jnp.ldexp", "x, k", "JG"),
    ("i0", "jnp.i0", "x", "G"),
    ("allclose", "lambda a, b: jnp.allclose(a, b, atol=0.5)", "x, y", "JV"),
    ("reduce_window_max",
     "lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (1, 1), 'VALID')", "x", "GV"),
    ("reduce_window_min_padded",
     "lambda a: lax.reduce_window(a, jnp.inf, lax.min, (2, 2), (2, 1), ((1, 0), (0, 1)))", "x",
     "G"),
    ("reduce_window_min_dilated",
     "lambda a: lax.reduce_window(a, jnp.inf, lax.min, (2, 2), (1, 1), 'VALID', "
     "window_dilation=(1, 2))", "x", "G"),
    ("conv_patches", "lambda a: lax.conv_general_dilated_patches(a, (2, 2), (1, 1), 'VALID')",
     "x.reshape(1, 1, 3, 4)", "JV"),
    ("conv_patches_nhwc",
     "lambda a: lax.conv_general_dilated_patches(a, (2, 1), (1, 1), 'SAME', "
     "dimension_numbers=('NHWC', 'HWIO', 'NHWC'))", "x.reshape(1, 3, 2, 2)", "J"),
    ("attention_causal",
     "lambda a: jax.nn.dot_product_attention(a, a, a, is_causal=True)",
     "x.reshape(1, 3, 2, 2)", "JG"),
]:
  for _kind in _kinds:
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_kind}({_fn}, {_args})"

# Values: the new rules compute JAX's numbers.
SNIPPETS["reduce_window_max_grad_values"] = _P + (
    "f = lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (1, 1), 'VALID')\n"
    "z = x.at[1, 2].set(3.0)\n"
    "out = (jax.grad(lambda a: f(a).sum())(z), jax.jvp(f, (z,), (z * 2,))[1],\n"
    "       jax.jit(jax.grad(lambda a: f(a).sum()))(z))")
SNIPPETS["gcd_lcm_values"] = _P + "out = (jnp.gcd(i, k), jnp.lcm(i, k), jnp.gcd(0, 0))"
SNIPPETS["frexp_ldexp_values"] = _P + (
    "s = jnp.array([0.0, -0.0, 1e-40, -3.5, jnp.inf, jnp.nan, 1e38, 6.0])\n"
    "out = (jnp.frexp(s), jnp.ldexp(s, jnp.array([1, 2, 130, -3, 1, 1, 5, -200])))")
SNIPPETS["hypot_fmax_values"] = _P + (
    "s = jnp.array([0.0, jnp.inf, jnp.nan, 3.0, -4.0, 1e30])\n"
    "t = jnp.array([0.0, jnp.nan, 2.0, jnp.nan, 3.0, 1e30])\n"
    "out = (jnp.hypot(s, t), jnp.fmax(s, t), jnp.fmin(s, t))")
# A large custom_vjp function's jaxpr is shared by ``let`` under the name ``jaxpr``.
SNIPPETS["custom_vjp_shared_jaxpr"] = _P + (
    "@jax.custom_vjp\n"
    "def h(a):\n"
    "  for _ in range(6):\n"
    "    a = jnp.sin(a) * 2.0\n"
    "  return a\n"
    "h.defvjp(lambda a: (h(a), a), lambda r, g: (g,))\n"
    "out = J(h, 1.0)")
# A Python float given to a jitted function prints as written, also under grad and vmap.
SNIPPETS["jit_python_float"] = _P + (
    "g = jax.jit(lambda a, b: a * b)\n"
    "out = (J(lambda a: g(a, 0.3), x), J(lambda a: lax.mul(a, 0.3), x),\n"
    "       G(lambda a: g(a, 0.3), x), V(lambda a: g(a, 0.3), x))")
