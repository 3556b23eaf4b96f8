"""Programs whose grad jaxprs (and the jaxprs and vmap jaxprs of what they differentiate) must
print as JAX's: window functions in JAX's order, lax.empty's dtype parameter, iteration over a
traced array, jit's keyword-argument order, checkpoint's saved-value rounding and policies,
add_any's JVP, residuals kept through nested jits, jnp.matmul's batch handling, lax.index_take,
and the generic reduce_window's JVP (reverse mode raises, as in JAX). Recorded under real JAX
by tools/record_grad_jaxpr_reference.py, compared by tests/test_grad_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr) or raises.
"""

_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_X = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\nv = jnp.arange(5.0) / 3 - 0.4\n"
_P = _X + _J + _G + _V

SNIPPETS = {}
for _name, _fn, _args in [
    ("hanning", "lambda a: a * jnp.hanning(5)", "v"),
    ("bartlett", "lambda a: a * jnp.bartlett(5)", "v"),
    ("kaiser", "lambda a: a * jnp.kaiser(5, 3.0)", "v"),
    ("empty", "lambda a: lax.empty((3,), jnp.float32) * 0 + a", "v[:3]"),
    ("iterate_rows", "lambda a: sum(a) * a[0]", "x"),
    ("split_keys_inside", "lambda a: a + jax.random.normal(jax.random.split(jax.random.key(1))[1], a.shape)", "x"),
    ("clip_method", "lambda a: a.clip(-1, 1)", "x"),
    ("matmul_batch_free", "lambda a: jnp.matmul(a.reshape(3, 1, 4), a.T)", "x"),
    ("matmul_size1", "lambda a: jnp.matmul(a[:1].reshape(1, 1, 4), a.T.reshape(1, 4, 3))", "x"),
    ("matmul_vec", "lambda a: jnp.matmul(a[0], jnp.stack([a.T, a.T]))", "x"),
    ("index_take", "lambda a: lax.index_take(a, (jnp.array([0, -1, 4]),), (1,))", "x"),
    ("piecewise", "lambda a: jnp.piecewise(a, [a < 0, a >= 0], [lambda t: -t, lambda t: t ** 2])",
     "x"),
    ("piecewise_default_const", "lambda a: jnp.piecewise(a, [a < -0.5, a > 0.2], "
     "[lambda t: t * 3, 7, lambda t: t - 1])", "x"),
    ("array_copies_tracer", "lambda a: jnp.array(a) + jnp.array(a > 0, dtype=jnp.float32)", "x"),
    ("diagonal_square", "lambda a: jnp.diagonal(a[:, :3]) + jnp.diagonal(a[:, :3], axis1=1, axis2=0)",
     "x"),
    ("corrcoef", "jnp.corrcoef", "x"),
    ("platform_dependent", "lambda a: lax.platform_dependent(a, cpu=jnp.sin, default=jnp.cos)", "x"),
    ("platform_dependent_default", "lambda a: lax.platform_dependent(a, tpu=jnp.sin, cuda=jnp.exp, "
     "default=jnp.cos)", "x"),
    ("trace_offset",
     "lambda a: jnp.trace(a, offset=1) + a.trace(-1) + jnp.trace(a) + a.trace()", "x"),
    ("stop_gradient_int", "lambda a: a * lax.stop_gradient(jnp.argmax(a, 0))", "x"),
    ("std", "jnp.std", "x"),
    ("hessian", "lambda a: jax.hessian(lambda b: jnp.sum(b ** 3) + b[0] * b[1])(a)", "v[:3]"),
    ("checkpoint_dots", "lambda a: jax.checkpoint(lambda b: jnp.tanh(b @ a.T) @ a, "
     "policy=jax.checkpoint_policies.dots_saveable)(a)", "x"),
    ("checkpoint_names", "lambda a: jax.checkpoint(lambda b: jnp.sin(__import__("
     "jax.__name__ + '.ad_checkpoint', fromlist=['_']).checkpoint_name(jnp.sin(b), 'n')) * 2, "
     "policy=jax.checkpoint_policies.save_only_these_names('n'))(a)", "x"),
]:
  for _kind, _helper in {"jaxpr": "J", "grad": "G", "vmap": "V"}.items():
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"

SNIPPETS.update({
    "jit_keywords_sorted": _X + """
def body(x, b=None, a=None):
  return x + b * 2 + a * 3
out = jax.make_jaxpr(lambda u: (jax.jit(body)(u, b=u * 5, a=u * 7),
                                jax.jit(body)(x=u, b=u * 5, a=u * 7)))(1.)
""",
    "jit_static_argnum_by_keyword": """
def body(x, n=1):
  return x * n
out = jax.make_jaxpr(lambda u: jax.jit(body, static_argnums=1)(u, n=3))(1.)
""",
    "empty_dtypes": """
out = jax.make_jaxpr(lambda: (lax.empty((2,), np.int32), lax.empty((2,), 'float32'),
                              lax.empty((2,), jnp.bfloat16)))()
""",
    "empty_vmap_sum": "out = jax.make_jaxpr(jax.vmap(lambda a: lax.empty((3,), jnp.float32).sum() + a))(jnp.ones(2))",
    "checkpoint_policies_repr": """
cp = jax.checkpoint_policies
out = (cp.dots_saveable, cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names('a'),
       cp.save_any_names_but_these('b'), cp.checkpoint_dots is cp.dots_saveable)
""",
    "checkpoint_function_policy": _X + """
def only_sin(prim, *_, **__):
  return prim.name == 'sin'
out = jax.make_jaxpr(jax.grad(lambda a: jax.checkpoint(lambda b: jnp.sin(jnp.sin(b)) * 2,
                                                       policy=only_sin)(a).sum()))(x)
""",
    "checkpoint_everything_saveable": _X + """
out = jax.make_jaxpr(jax.grad(lambda a: jax.checkpoint(
    lambda b: a * 3 + jnp.cos(b), policy=jax.checkpoint_policies.everything_saveable)(a).sum()))(x)
""",
    "checkpoint_unused_operands": _X + """
f = jax.checkpoint(lambda a, b: jnp.sin(a))
out = (jax.make_jaxpr(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(x, x),
       jax.make_jaxpr(lambda a, b: jax.linearize(f, a, b)[1](a, b))(x, x),
       jax.make_jaxpr(lambda a, b: jax.jvp(f, (a, b), (a, b)))(x, x))
""",
    "checkpoint_closed_over_array": _X + """
w = jnp.ones((4, 4))
out = jax.make_jaxpr(jax.grad(lambda a: jax.checkpoint(
    lambda b: jnp.tanh(b @ w), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)(a).sum()))(x)
""",
    "nested_jit_keeps_zero_residual": """
inner = jax.jit(lambda s: jnp.where(s > 0, s, jnp.nan))
out = jax.make_jaxpr(jax.grad(lambda a: jax.jit(lambda b: inner(b.sum()) * 2)(a)))(jnp.arange(3.))
""",
    "jvp_of_grad_add_any": """
g = lambda a: a[0] * a[1] + a[1]
out = jax.make_jaxpr(lambda a: jax.jvp(jax.grad(g), (a,), (a,)))(jnp.arange(3.))
""",
    "jit_scan_zero_tangent_carry": """
x = jnp.arange(4.)
out = (jax.make_jaxpr(jax.grad(lambda a, b: jnp.polyval(a, b).sum(), argnums=(0, 1)))(x, x + 1),
       jax.make_jaxpr(jax.grad(lambda a: jax.jit(lambda c: lax.scan(
           lambda s, e: (s * e + 1., s), jnp.zeros(()), c))(a)[1].sum()))(x))
""",
    "scan_hoists_invariant_known_work": """
c = jnp.arange(3.) + 1
h = jax.jit(lambda a, b: jnp.sin(a) * b)
bodies = [
    lambda s, _: (jnp.sin(s) * jnp.exp(c) + jnp.cos(c) * s + jnp.log(c), None),
    lambda s, _: (jnp.log(c) + jnp.sin(s) + jnp.exp(c) * jnp.sin(s) + c * s, None),
    lambda s, _: (jnp.sin(s * c) * jnp.exp(c) + jnp.sin(s), None),
    lambda s, _: (h(c, s) + s, None),
    lambda s, _: (h(s, c) + s, None),
    lambda s, _: (h(s, s * c) + jnp.where(s > 0, s, c), None),
]
out = [jax.make_jaxpr(jax.grad(lambda x: lax.scan(b, x, length=3)[0].sum()))(jnp.ones(3))
       for b in bodies]
""",
    "fori_loop_where": """
f = lambda a: lax.fori_loop(0, 3, lambda i, b: jnp.where(b > 0, b - 1.0, b + 1.0), a)
out = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(jnp.arange(12.0).reshape(3, 4) - 5)
""",
    "interp_grad": """
xp = jnp.array([0.1, 0.5, 0.9, 1.4, 2.0, 2.2])
out = (jax.make_jaxpr(jax.grad(lambda a, b, c: jnp.interp(a, b, c).sum(), argnums=(0, 1, 2)))(
           jnp.arange(5.) / 2, xp, xp * 3),
       jax.make_jaxpr(jax.grad(lambda a, b, c: jnp.interp(a, b, c, period=3.0).sum(),
                               argnums=(0, 1, 2)))(jnp.arange(5.) / 2, xp, xp * 3))
""",
    "platform_dependent_lowering": """
f = lambda a: lax.platform_dependent(a, cuda=jnp.sin, cpu=jnp.exp, default=jnp.cos)
text = jax.jit(f).lower(jnp.ones(3)).as_text()
out = [line for line in text.splitlines() if "stablehlo" in line]
""",
    "reduce_window_generic_jvp": """
f = lambda a: lax.reduce_window(a, 1.0, lax.mul, (2,), (1,), 'VALID')
out = jax.make_jaxpr(lambda a: jax.jvp(f, (a,), (a,)))(jnp.arange(1., 7.))
""",
    "reduce_window_generic_grad_raises": """
f = lambda a: lax.reduce_window(a, 1.0, lax.mul, (2,), (1,), 'VALID')
out = jax.grad(lambda a: f(a).sum())(jnp.arange(1., 7.))
""",
    "index_take_unsorted_axes_raises": """
out = lax.index_take(jnp.ones((3, 4, 5)), (jnp.array([0, 1]), jnp.array([1, 2])), (2, 0))
""",
})
