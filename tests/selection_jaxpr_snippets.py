"""Sorting, searching, set, statistics and polynomial programs whose jaxpr, grad jaxpr and vmap
jaxpr must print as JAX's (issue 14, "the same program"): the helpers JAX stages as named ``jit``
equations, the JVP of ``sort``, the steps of quantiles, searchsorted, unique and histograms.
Recorded under real JAX by tools/record_selection_jaxpr_reference.py, compared by
tests/test_selection_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr).
"""

_X34 = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\n"
_S = "s = jnp.array([-1.5, -0.25, 0.0, 0.5, 2.0, 3.5])\n"
_K = "k = jnp.array([3, 1, 4, 1, 5, 2, 3, 0])\nf = jnp.array([0.5, -1.0, 0.5, 2.0, -1.0, 0.0, 0.5, 3.0])\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_P = _X34 + _S + _K + _J + _G + _V

# (name, function, arguments, which of jaxpr/grad/vmap)
_ALL, _NO_GRAD = "jgv", "jv"
_CASES = [
    ("lax_sort_dim0", "lambda a: lax.sort(a, dimension=0)", "x", _ALL),
    ("lax_sort_multi", "lambda a: lax.sort((a, a * 2), num_keys=1)[1]", "x", _ALL),
    ("lax_sort_3d", "lambda a: lax.sort(a.reshape(2, 3, 2), dimension=1)", "x", _ALL),
    ("lax_top_k", "lambda a: lax.top_k(a, 2)[0]", "x", _ALL),
    ("sort_descending", "lambda a: jnp.sort(a, axis=0, descending=True)", "x", _ALL),
    ("partition", "lambda a: jnp.partition(a, 2)", "x", _ALL),
    ("argpartition", "lambda a: jnp.argpartition(a, 1)", "x", _NO_GRAD),
    ("argpartition_axis0", "lambda a: jnp.argpartition(a, 1, axis=0)", "x", "j"),
    ("searchsorted", "lambda q: jnp.searchsorted(s, q)", "x", _NO_GRAD),
    ("searchsorted_right_1d", "lambda q: jnp.searchsorted(s, q, side='right')", "x[0]", _NO_GRAD),
    ("searchsorted_scalar", "lambda q: jnp.searchsorted(s, q)", "x[0, 0]", "j"),
    ("searchsorted_int", "lambda q: jnp.searchsorted(jnp.arange(7), q)", "jnp.arange(4) * 2 - 1",
     _NO_GRAD),
    ("searchsorted_unrolled", "lambda q: jnp.searchsorted(s, q, method='scan_unrolled')", "x[0]",
     _NO_GRAD),
    ("searchsorted_sort", "lambda q: jnp.searchsorted(s, q, side='right', method='sort')", "x",
     _NO_GRAD),
    ("searchsorted_compare_all", "lambda q: jnp.searchsorted(s, q, method='compare_all')", "x",
     _NO_GRAD),
    ("searchsorted_complex", "lambda q: jnp.searchsorted(s + 0j, q, method='compare_all')",
     "x[0]", "j"),
    ("searchsorted_sorter",
     "lambda q: jnp.searchsorted(jnp.arange(6), q, sorter=jnp.array([0, 1, 2, 3, 5, 4]))", "x[0]",
     "j"),
    ("searchsorted_empty", "lambda q: jnp.searchsorted(s[:0], q)", "x[0]", "j"),
    ("digitize", "lambda q: jnp.digitize(q, s[:3])", "x", _NO_GRAD),
    ("median", "jnp.median", "x", _ALL),
    ("median_axis1", "lambda a: jnp.median(a, axis=1)", "x", _ALL),
    ("median_keepdims", "lambda a: jnp.median(a, axis=0, keepdims=True)", "x", "j"),
    ("quantile", "lambda a: jnp.quantile(a, 0.4)", "x", _ALL),
    ("quantile_array_axis0", "lambda a: jnp.quantile(a, jnp.array([0.25, 0.75]), axis=0)", "x",
     _ALL),
    ("quantile_keepdims", "lambda a: jnp.quantile(a, jnp.array([0.25, 0.75]), keepdims=True)",
     "x", "j"),
    ("quantile_axis1_keepdims", "lambda a: jnp.quantile(a, 0.3, axis=1, keepdims=True)", "x",
     "j"),
    ("quantile_axes", "lambda a: jnp.quantile(a.reshape(3, 2, 2), 0.3, axis=(0, 2))", "x", "j"),
    ("quantile_int", "lambda a: jnp.quantile(a, 0.3)", "jnp.arange(7)", "j"),
    ("quantile_lower", "lambda a: jnp.quantile(a, 0.4, method='lower')", "x[0]", _ALL),
    ("quantile_higher", "lambda a: jnp.quantile(a, 0.4, method='higher')", "x[0]", _ALL),
    ("quantile_nearest", "lambda a: jnp.quantile(a, 0.4, method='nearest')", "x[0]", _ALL),
    ("quantile_midpoint", "lambda a: jnp.quantile(a, 0.4, method='midpoint')", "x[0]", _ALL),
    ("percentile", "lambda a: jnp.percentile(a, 30.0)", "x", _ALL),
    ("percentile_array", "lambda a: jnp.percentile(a, jnp.array([10.0, 90.0]), axis=1)", "x",
     "j"),
    ("nanquantile", "lambda a: jnp.nanquantile(a, 0.5, axis=1)", "x", _ALL),
    ("nanquantile_array", "lambda a: jnp.nanquantile(a, jnp.array([0.2, 0.6]))", "x", "j"),
    ("nanmedian", "jnp.nanmedian", "x", _ALL),
    ("nanpercentile", "lambda a: jnp.nanpercentile(a, 40.0)", "x[0]", _ALL),
    ("interp", "lambda a: jnp.interp(a, s, s * 2)", "x[0]", _NO_GRAD),
    ("interp_period", "lambda a: jnp.interp(a, s, s * 2, period=3.0)", "x[0]", _NO_GRAD),
    ("take_along_axis", "lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1)", "x",
     _ALL),
    ("take_along_axis_squeezed",
     "lambda a: jnp.take_along_axis(a[:1], jnp.array([[0, 3], [1, 1], [-1, 2]]), axis=1)", "x",
     _ALL),
    ("put_along_axis",
     "lambda a: jnp.put_along_axis(a, jnp.array([[1], [0], [3]]), 0.0, axis=1, inplace=False)",
     "x", _ALL),
    ("put", "lambda a: jnp.put(a, jnp.array([0, 5, 13]), a[0, :2], inplace=False)", "x", _ALL),
    ("put_clip", "lambda a: jnp.put(a, jnp.array([0, 5, 13]), 1.0, mode='clip', inplace=False)",
     "x", "j"),
    ("place", "lambda a: jnp.place(a, a > 0, jnp.array([7.0, 8.0]), inplace=False)", "x", "jg"),
    ("average_weights", "lambda a: jnp.average(a, axis=1, weights=a[0] + 2)", "x", _ALL),
    ("polyder", "lambda a: jnp.polyder(a[0], m=2)", "x", _ALL),
    ("polyint", "lambda a: jnp.polyint(a[0], k=1.0)", "x", _ALL),
    ("polyint_m2", "lambda a: jnp.polyint(a[0], m=2)", "x", "j"),
    ("polyadd", "jnp.polyadd", "x[0], x[1, :2]", _ALL),
    ("polydiv", "lambda a, b: jnp.polydiv(a, b)[0]", "x[0], x[1, :2] + 2", _ALL),
    ("roots", "lambda a: jnp.roots(a, strip_zeros=False)", "x[0] + 1", "j"),
    ("polyadd_equal", "jnp.polyadd", "x[0], x[1]", "j"),
    ("polysub", "jnp.polysub", "x[1, :2], x[0]", _ALL),
    ("histogram_bin_edges_range", "lambda a: jnp.histogram_bin_edges(a, 4, range=(-1.0, 1.0))",
     "x[0]", "j"),
    ("unwrap", "lambda a: jnp.unwrap(a * 4)", "x[0]", _ALL),
    ("unwrap_axis0", "lambda a: jnp.unwrap(a, discont=1.0, axis=0, period=4)", "x", "j"),
    ("nanmean", "lambda a: jnp.nanmean(a, axis=0)", "x", _ALL),
    ("nanvar", "lambda a: jnp.nanvar(a, axis=1, ddof=1, keepdims=True)", "x", _ALL),
    ("nanstd", "jnp.nanstd", "x", _ALL),
    ("unique", "lambda a: jnp.unique(a, size=5, fill_value=0)", "k", _NO_GRAD),
    ("unique_counts_arg", "lambda a: jnp.unique(a, return_counts=True, size=4, fill_value=-1)",
     "k", "j"),
    ("unique_index", "lambda a: jnp.unique(a, return_index=True, size=4)", "k", "j"),
    ("unique_values", "lambda a: jnp.unique_values(a, size=4)", "f", _ALL),
    ("unique_counts", "lambda a: jnp.unique_counts(a, size=4)", "k", "j"),
    ("unique_inverse", "lambda a: jnp.unique_inverse(a, size=4)", "k", "j"),
    ("unique_all", "lambda a: jnp.unique_all(a, size=4)", "k", "j"),
    ("unique_2d", "lambda a: jnp.unique(a, size=6)", "k.reshape(2, 4)", "j"),
    ("unique_axis0", "lambda a: jnp.unique(a, axis=0, size=2)", "k.reshape(4, 2)", "j"),
    ("intersect1d", "lambda a, b: jnp.intersect1d(a, b, size=3)", "k[:6], k[2:]", "j"),
    ("union1d", "lambda a, b: jnp.union1d(a, b, size=6)", "k[:4], k[4:]", "j"),
    ("setdiff1d", "lambda a, b: jnp.setdiff1d(a, b, size=4)", "k[:6], k[5:]", "j"),
    ("setxor1d", "lambda a, b: jnp.setxor1d(a, b, size=4)", "k[:4], k[4:]", "j"),
]

SNIPPETS = {}
for _name, _fn, _args, _kinds in _CASES:
  for _letter, _helper, _kind in (("j", "J", "jaxpr"), ("g", "G", "grad"), ("v", "V", "vmap")):
    if _letter in _kinds:
      SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"
