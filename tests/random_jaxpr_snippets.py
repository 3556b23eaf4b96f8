"""Random samplers whose jaxprs, vmap jaxprs and grad jaxprs must print as JAX's (randint's clip
bounds and conversions, choice with ``p`` through ``searchsorted``, the ``random_gamma``
primitive behind gamma, beta and dirichlet, multinomial's scan) and whose values must be JAX's.
Recorded under real JAX by tools/record_random_jaxpr_reference.py, compared by
tests/test_random_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr or array).
"""

_K = "k = jax.random.key(0)\nks = jax.random.split(k, 3)\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*a)\n"
_P = _K + _J + _V
_A = "a = jnp.array([0.5, 1.0, 2.0, 3.0])\n"
_G = "gamma_p = jax.random.random_gamma_p\n"

SNIPPETS = {}
for _name, _fn in [
    ("randint", "lambda k: jax.random.randint(k, (6,), 0, 10)"),
    ("randint_int8", "lambda k: jax.random.randint(k, (3,), -5, 100, jnp.int8)"),
    ("choice", "lambda k: jax.random.choice(k, 10, (4,))"),
    ("choice_p", "lambda k: jax.random.choice(k, 4, (5,), p=jnp.array([0.1, 0.2, 0.3, 0.4]))"),
    ("gamma", "lambda k: jax.random.gamma(k, 2.0, (4,))"),
    ("loggamma", "lambda k: jax.random.loggamma(k, 0.5, (2, 3))"),
    ("beta", "lambda k: jax.random.beta(k, 2.0, 3.0, (4,))"),
    ("dirichlet", "lambda k: jax.random.dirichlet(k, jnp.array([1.0, 2.0, 3.0]))"),
    ("multinomial", "lambda k: jax.random.multinomial(k, 5.0, jnp.array([0.2, 0.3, 0.5]))"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, k)"
  SNIPPETS[f"{_name}_vmap"] = _P + f"out = V({_fn}, ks)"

SNIPPETS["gamma_a_array_jaxpr"] = _P + _A + "out = J(jax.random.gamma, k, a)"
SNIPPETS["gamma_a_array_vmap"] = _P + _A + (
    "out = V(jax.random.gamma, ks, jnp.stack([a, a + 1, a * 2]))")
# the primitive itself: its shape rule and batching (batch dims moved to the front, an unbatched
# operand broadcast)
SNIPPETS["random_gamma_bind"] = _P + _A + _G + (
    "out = J(lambda k, a: gamma_p.bind(k, a, log_space=False), k, a)")
SNIPPETS["random_gamma_bind_weak"] = _P + _G + (
    "out = J(lambda k: gamma_p.bind(k, 2.0, log_space=True), k).jaxpr.outvars[0].aval")
for _name, _axes, _args in [
    ("keys", "(0, None)", "ks, a"),
    ("alphas", "(None, 0)", "k, jnp.stack([a, a, a])"),
    ("both", "(0, 0)", "ks, jnp.stack([a, a, a])"),
    ("alphas_axis1", "(0, 1)", "ks, jnp.stack([a, a, a], axis=1)"),
]:
  SNIPPETS[f"random_gamma_vmap_{_name}"] = _P + _A + _G + (
      f"out = jax.make_jaxpr(jax.vmap(lambda k, a: gamma_p.bind(k, a, log_space=False), "
      f"in_axes={_axes}))({_args})")
for _space in ("False", "True"):
  SNIPPETS[f"random_gamma_jvp_log_space_{_space}"] = _P + _A + _G + (
      f"out = J(lambda k, a, t: jax.jvp(lambda a: gamma_p.bind(k, a, log_space={_space}), "
      f"(a,), (t,)), k, a, a)")

# values: eagerly, under jit, vmapped and differentiated
SNIPPETS["values_gamma"] = _P + _A + "out = jax.random.gamma(k, a)"
SNIPPETS["values_gamma_jit"] = _P + _A + "out = jax.jit(jax.random.gamma)(k, a)"
SNIPPETS["values_gamma_2d"] = _P + "out = jax.random.gamma(k, jnp.ones((2, 3)) * 1.5)"
SNIPPETS["values_gamma_empty"] = _P + "out = jax.random.gamma(k, jnp.ones((0,)))"
SNIPPETS["values_loggamma"] = _P + _A + "out = jax.random.loggamma(k, a)"
SNIPPETS["values_beta"] = _P + "out = jax.random.beta(k, 2.0, 3.0, (3,))"
SNIPPETS["values_dirichlet"] = _P + "out = jax.random.dirichlet(k, jnp.array([0.5, 1.0, 2.0]))"
SNIPPETS["values_gamma_vmap"] = _P + (
    "out = jax.vmap(lambda k: jax.random.gamma(k, 2.0, (2,)))(ks)")
SNIPPETS["values_gamma_grad"] = _P + _A + (
    "out = jax.grad(lambda a: jax.random.gamma(k, a).sum())(a)")
SNIPPETS["values_loggamma_grad"] = _P + _A + (
    "out = jax.grad(lambda a: jax.random.loggamma(k, a).sum())(a)")
SNIPPETS["values_random_gamma_eager"] = _P + _A + _G + (
    "out = gamma_p.bind(ks, jnp.stack([a, a, a]), log_space=False)")

# weakly typed booleans (a comparison of weak floats) are converted by jnp's promotion
SNIPPETS["weak_bool_or"] = _J + (
    "def f(x):\n"
    "  q = jnp.full((4,), 0.3) < 0.5\n"
    "  return q | jnp.isnan(q.astype(float)), q | (x < 0)\n"
    "out = J(f, jnp.ones(4))")

# StableHLO (without the module and main header lines): the random_gamma lowering (the
# one-element sampler vmapped), splits and bits of key batches in JAX's vmapped form
_S = "S = lambda f, *a: '\\n'.join(jax.jit(f).lower(*a).as_text().strip().splitlines()[2:])\n"
_R = "r = jax.random.PRNGKey(0)\nrs = jax.random.split(r, 3)\n"
for _name, _fn, _args in [
    ("randint", "lambda k: jax.random.randint(k, (6,), 0, 10)", "r"),
    ("gamma", "lambda k: jax.random.gamma(k, 2.0, (4,))", "r"),
    ("loggamma_2d", "lambda k: jax.random.loggamma(k, jnp.array([[0.5], [3.0]]), (2, 3))", "r"),
    ("split_batch", "jax.vmap(lambda k: jax.random.split(k, 4))", "rs"),
    ("bits_batch", "jax.vmap(lambda k: jax.random.bits(k, (5,)))", "rs"),
    ("uniform_batch_scalar", "jax.vmap(lambda k: jax.random.uniform(k))", "rs"),
    ("fold_in_batch", "jax.vmap(lambda k: jax.random.fold_in(k, 7))", "rs"),
    ("split_batch_2d", "jax.vmap(lambda k: jax.random.split(k, (2, 3)))", "rs"),
    ("split_nested_batch", "jax.vmap(jax.vmap(jax.random.split))", "jax.random.split(r, (2, 3))"),
    ("bits_nested_batch", "jax.vmap(jax.vmap(lambda k: jax.random.bits(k, (2,))))",
     "jax.random.split(r, (2, 3))"),
]:
  SNIPPETS[f"stablehlo_{_name}"] = _S + _R + f"out = S({_fn}, {_args})"
SNIPPETS["stablehlo_weak_bool_or"] = _S + (
    "def f(x):\n"
    "  q = (jnp.full((4,), 0.3) * x.shape[0]) < 0.5\n"
    "  return q | (x < 0), jnp.logical_not(q)\n"
    "out = S(f, jnp.ones(4))")

# grad: JAX's linearization of random_gamma's JVP rule (a primitive without a linearize rule)
# partially evaluates the rule's lax.map scan, hoisting its loop-invariant work and dropping
# unused while outputs; axle binds the all-known scan as it is (see test_random_jaxprs.py)
SNIPPETS["gamma_a_array_grad"] = _P + _A + (
    "out = jax.make_jaxpr(jax.grad(lambda k, a: jax.random.gamma(k, a).sum(), argnums=1))(k, a)")

# samplers JAX stages as named jits (_t, _chisquare, _f, _generalized_normal, _ball), whose
# eager values are then one compiled program's (f's differ from op-by-op evaluation)
for _name, _fn in [
    ("t", "lambda k: jax.random.t(k, 3.0, (2,))"),
    ("chisquare", "lambda k: jax.random.chisquare(k, 3.0, (2,))"),
    ("f", "lambda k: jax.random.f(k, 3.0, 4.0, (2,))"),
    ("generalized_normal", "lambda k: jax.random.generalized_normal(k, 1.5, (2,))"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, k)"
  SNIPPETS[f"values_{_name}"] = _P + f"out = ({_fn})(k)"
  SNIPPETS[f"values_{_name}_jit"] = _P + f"out = jax.jit({_fn})(k)"
SNIPPETS["values_ball"] = _P + "out = jax.random.ball(k, 3, shape=(2,))"
