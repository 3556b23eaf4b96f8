"""Sorting, searching, set, statistics and polynomial programs whose jaxpr, grad jaxpr and vmap
jaxpr must print as JAX's (issue 14, "the same program"): the helpers JAX stages as named ``jit``
equations, the JVP of ``sort``, the steps of quantiles, searchsorted, unique and histograms.
Recorded under real JAX by tools/record_selection_jaxpr_reference.py, compared by
tests/test_selection_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr).
"""

_X34 = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\n"
_S = "s = jnp.array([-1.5, -0.25, 0.0, 0.5, 2.0, 3.5])\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_P = _X34 + _S + _J + _G + _V

# (name, function, arguments, which of jaxpr/grad/vmap)
_ALL, _NO_GRAD = "jgv", "jv"
_CASES = [
    ("lax_sort_dim0", "lambda a: lax.sort(a, dimension=0)", "x", _ALL),
    ("lax_sort_multi", "lambda a: lax.sort((a, a * 2), num_keys=1)[1]", "x", _ALL),
    ("lax_sort_3d", "lambda a: lax.sort(a.reshape(2, 3, 2), dimension=1)", "x", _ALL),
    ("lax_top_k", "lambda a: lax.top_k(a, 2)[0]", "x", _ALL),
    ("sort_descending", "lambda a: jnp.sort(a, axis=0, descending=True)", "x", _ALL),
    ("partition", "lambda a: jnp.partition(a, 2)", "x", _ALL),
]

SNIPPETS = {}
for _name, _fn, _args, _kinds in _CASES:
  for _letter, _helper, _kind in (("j", "J", "jaxpr"), ("g", "G", "grad"), ("v", "V", "vmap")):
    if _letter in _kinds:
      SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"
