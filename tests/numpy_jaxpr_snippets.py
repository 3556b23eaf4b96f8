"""jnp programs whose jaxpr, grad jaxpr and vmap jaxpr must print as JAX's (issue 14, "the same
program"): helpers JAX stages as named ``jit`` equations, ``split``, ``square``, ``.sum()`` of a
0-d array, unit dimensions made with ``broadcast_in_dim``. Recorded under real JAX by
tools/record_numpy_jaxpr_reference.py, compared by tests/test_numpy_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr).
"""

_X34 = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_P = _X34 + _J + _G + _V

SNIPPETS = {}
for _name, _fn, _args in [
    ("trunc", "jnp.trunc", "x"),
    ("rint", "jnp.rint", "x"),
    ("around", "jnp.around", "x"),
    ("signbit", "jnp.signbit", "x"),
    ("cumsum", "lambda a: jnp.cumsum(a, axis=1)", "x"),
    ("nancumsum", "lambda a: jnp.nancumsum(a, axis=1)", "x"),
    ("var", "jnp.var", "x"),
    ("std_ddof", "lambda a: jnp.std(a, axis=1, ddof=1)", "x"),
    ("ptp", "jnp.ptp", "x"),
    ("sort", "jnp.sort", "x"),
    ("argsort", "jnp.argsort", "x"),
    ("diff", "jnp.diff", "x"),
    ("flip", "jnp.flip", "x"),
    ("roll", "lambda a: jnp.roll(a, 1)", "x"),
    ("split", "lambda a: jnp.split(a, 2, axis=1)[1]", "x"),
    ("kron", "jnp.kron", "x[:2, :2], x[:2, :3]"),
    ("convolve", "jnp.convolve", "x[0] * 3, x[1, :3]"),
    ("modf", "lambda a: jnp.modf(a)[0]", "x"),
    ("divmod", "lambda a, b: jnp.divmod(a, b)[1]", "x, x[0] + 2"),
    ("isclose", "lambda a, b: jnp.isclose(a, b).astype(jnp.float32)", "x, x[0]"),
    ("fmod_int", "lambda a, b: jnp.fmod(a, b)", "jnp.arange(12).reshape(3, 4) - 5, jnp.arange(4) + 1"),
    ("sum_where", "lambda a: jnp.sum(a, where=a > 0)", "x"),
    ("scalar_sum", "lambda a: jnp.sum(a) * a.sum()", "x[0, 0]"),
]:
  _fns = {"jaxpr": "J", "grad": "G", "vmap": "V"}
  for _kind, _helper in _fns.items():
    if _kind == "grad" and _name in ("signbit", "argsort", "fmod_int"):
      continue  # not differentiable (integer or boolean results)
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"

# Programs whose helper staging (named jit equations, or none where JAX inlines) follows JAX's:
# jaxprs only.
for _name, _fn, _args in [
    ("nonzero_fill", "lambda a: jnp.nonzero(a > 0, size=5, fill_value=-1)", "x"),
    ("argwhere", "lambda a: jnp.argwhere(a > 0, size=4)", "x"),
    ("column_stack", "lambda a: jnp.column_stack((a[0], a[1]))", "x"),
    ("isin", "lambda a: jnp.isin(jnp.floor(a * 3), a[0])", "x"),
    ("block", "lambda a: jnp.block([[a, a], [a[:, :2], a[:, :2]]])", "x[:2]"),
    ("fftshift", "jnp.fft.fftshift", "x"),
    ("fftfreq", "lambda a: a[0] * jnp.fft.fftfreq(4, 0.3)", "x"),
    ("delete", "lambda a: jnp.delete(a, 1, axis=1)", "x"),
    ("select", "lambda a: jnp.select([a < -0.5, a > 0.5], [a * 2, -a], default=a + 1)", "x"),
    ("gammasgn", "jax.scipy.special.gammasgn", "x"),
    ("unravel_index", "lambda a: jnp.unravel_index(jnp.arange(5) * 3 - 2 + a.shape[0], (3, 4))", "x"),
    ("frompyfunc", "lambda a: jnp.frompyfunc(lambda u, v: u * v, 2, 1)(a, a + 1)", "x"),
    ("sort_complex", "lambda a: jnp.sort_complex(a[0] + 1j * a[1])", "x"),
    ("spacing", "jnp.spacing", "x"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"
