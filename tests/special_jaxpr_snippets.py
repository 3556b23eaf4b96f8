"""Programs of jax.scipy.special and of the machinery they exercise whose jaxprs, grad jaxprs and
vmap jaxprs must print as JAX's: fresnel (polyval on coefficient arrays, a named
sincospisquaredhalf), owens_t and sici under grad, dawsn, erfcx, wofz, zeta, polyfit's lstsq,
roots (jnp.roll by a traced shift); the constants a custom_jvp or custom_vjp function closes
over (operands of the call, ``num_consts``); the jits split inside another split and the jaxprs
batched inside a batched jaxpr (memoised apart from the top-level ones, as in JAX); the known
jits a custom_jvp rule calls under grad (traced anew). Recorded under real JAX by
tools/record_special_jaxpr_reference.py, compared by tests/test_special_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr).
"""

_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: sum(jnp.sum(o) for o in jax.tree.leaves(f(*b)))))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_X = "v = jnp.arange(5.0) / 3 - 0.4\np = jnp.arange(1.0, 6.0) / 2\ns = jnp.sort(jnp.arange(8.0) * 0.7 % 3)\n"
_P = _X + _J + _G + _V

SNIPPETS = {}
for _name, _fn, _args, _kinds in [
    ("fresnel", "jax.scipy.special.fresnel", "v", "JGV"),
    ("owens_t", "jax.scipy.special.owens_t", "v, p", "JGV"),
    ("sici", "jax.scipy.special.sici", "p", "JGV"),
    ("polyfit", "lambda a, b: jnp.polyfit(a, b, 2)", "s, s * s - 1", "JGV"),
    ("dawsn", "jax.scipy.special.dawsn", "v * 5", "JGV"),
    ("erfcx", "jax.scipy.special.erfcx", "v * 5", "JGV"),
    ("wofz", "jax.scipy.special.wofz", "v + 0.5j * p", "JV"),
    ("zeta", "jax.scipy.special.zeta", "p + 1, p", "JGV"),
    ("roots", "lambda a: jnp.roots(a, strip_zeros=False)", "p[:4]", "JV"),
    ("roll_traced_shift", "lambda a, k: jnp.roll(a, k.astype(jnp.int32))", "v, p[0]", "JGV"),
]:
  for _kind in _kinds:
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_kind}({_fn}, {_args})"

# The constants a custom_jvp / custom_vjp function closes over are operands of the call.
_CONSTS = _P + """
C = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
@jax.custom_jvp
def f(x):
  return x * jnp.asarray(C, dtype=jnp.float32) + jnp.sin(x)
@f.defjvp
def f_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  return f(x), t * 2.0
@jax.custom_vjp
def g(x):
  return x * jnp.asarray(C, dtype=jnp.float32)
g.defvjp(lambda x: (g(x), x), lambda r, ct: (ct * r,))
"""
for _name, _expr in [
    ("custom_jvp_consts", "J(f, v)"),
    ("custom_jvp_consts_vmap", "V(f, v)"),
    ("custom_jvp_consts_grad", "G(f, v)"),
    ("custom_jvp_consts_jit", "J(jax.jit(f), v)"),
    ("custom_vjp_consts", "J(g, v)"),
    ("custom_vjp_consts_vmap", "V(g, v)"),
    ("custom_vjp_consts_grad", "G(g, v)"),
]:
  SNIPPETS[_name] = _CONSTS + f"out = {_expr}"

# A jit split inside the split of another jit, and one split at the top of grad: separate
# known jaxprs; a known jit inside a split jit: the jaxpr it was given.
_SPLITS = _P + """
@jax.jit
def w(c, a, b):
  return lax.select(c, a, b) * 2.0
@jax.jit
def h_known(x):
  s = lax.stop_gradient(x)
  return x * w(s > 1, s, s + 1)
@jax.jit
def h_split(x):
  return w(x > 1, x, x + 1)
"""
SNIPPETS["split_known_inner_jit"] = _SPLITS + (
    "out = G(lambda x: h_known(x) + w(lax.stop_gradient(x) > 2, lax.stop_gradient(x), "
    "lax.stop_gradient(x) * 3), v)")
SNIPPETS["split_inner_and_top_jit"] = _SPLITS + "out = G(lambda x: h_split(x) + w(x > 2, x, x * 3), v)"
SNIPPETS["split_sinc_and_where"] = _P + "out = G(lambda x: jnp.sinc(x) + jnp.where(x > 0, x, x * 2), v)"

# Jaxprs batched inside a batched jit and at the top of vmap: separate, each shared on its level.
SNIPPETS["batch_inner_and_top_jit"] = _P + """
@jax.jit
def inner(x):
  return jnp.where(x > 1, 0.0, x) + jnp.where(x > 2, 0.0, x)
@jax.jit
def inner2(x):
  return jnp.where(x > 3, 0.0, x)
out = V(lambda x: jnp.where(x > 0, 0.0, x) + jnp.where(x > 5, 0.0, x) + inner(x) + inner2(x), v)
"""

# A custom_jvp rule that takes a jvp itself: under grad the zero tangents it instantiates are
# literals of the linear jaxpr, not residuals (JAX partially evaluates the rule).
SNIPPETS["rule_with_inner_jvp"] = _P + """
@jax.custom_jvp
def f(a):
  return jnp.sin(a)
f.defjvp(lambda p, t: jax.jvp(lambda u: jnp.cumprod(u, axis=-1), p, t))
out = G(f, v.reshape(5, 1) * jnp.ones(4))
"""
