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

# Shape, join, padding, diagonal and creation functions: the lax primitives JAX binds (stack,
# unstack, tile), the helpers it stages (_linspace, _logspace, _geomspace, _pad's modes) and
# the steps of its programs (jaxpr, grad jaxpr and vmap jaxpr).
for _name, _fn, _args in [
    ("stack", "lambda a: jnp.stack([a, a * 2], axis=-1)", "x"),
    ("unstack", "lambda a: jnp.unstack(a, axis=1)[2]", "x"),
    ("tile", "lambda a: jnp.tile(a, (2, 1))", "x"),
    ("resize", "lambda a: jnp.resize(a, (5, 3))", "x"),
    ("linspace_traced", "lambda a: jnp.linspace(a[0], a[1], 5, axis=-1)", "x"),
    ("pad_reflect", "lambda a: jnp.pad(a, ((1, 2), (2, 1)), mode='reflect')", "x"),
    ("pad_symmetric_odd",
     "lambda a: jnp.pad(a, ((4, 5), (0, 1)), mode='symmetric', reflect_type='odd')", "x"),
    ("pad_wrap", "lambda a: jnp.pad(a, ((5, 7), (2, 1)), mode='wrap')", "x"),
    ("pad_edge", "lambda a: jnp.pad(a, ((0, 2), (2, 0)), mode='edge')", "x"),
    ("pad_linear_ramp",
     "lambda a: jnp.pad(a, ((1, 2), (0, 1)), mode='linear_ramp', end_values=(1.5, 2))", "x"),
    ("pad_mean", "lambda a: jnp.pad(a, ((1, 2), (2, 1)), mode='mean')", "x"),
    ("pad_maximum_stat", "lambda a: jnp.pad(a, ((1, 2), (2, 1)), mode='maximum', stat_length=2)",
     "x"),
    ("diagonal_offset", "lambda a: jnp.diagonal(a, offset=-1)", "x"),
    ("diag_k", "lambda a: jnp.diag(a, k=1)", "x"),
    ("diag_1d", "lambda a: jnp.diag(a[0])", "x"),
    ("tril", "lambda a: jnp.tril(a, 1)", "x"),
    ("diagflat", "lambda a: jnp.diagflat(a[0, :2], 1)", "x"),
    ("fill_diagonal", "lambda a: jnp.fill_diagonal(a, a[0, :2], inplace=False)", "x"),
    ("vander", "lambda a: jnp.vander(a[0], 3)", "x"),
    ("meshgrid", "lambda a: jnp.meshgrid(a[0], a[1, :2])[1]", "x"),
    ("fromfunction", "lambda a: a + jnp.fromfunction(lambda i, j: i * 2 + j, (3, 4))", "x"),
    ("vectorize", "lambda a: jnp.vectorize(lambda u, v: u * v + jnp.sin(u))(a, a[0])", "x"),
    ("vectorize_signature",
     "lambda a: jnp.vectorize(jnp.dot, signature='(n),(n)->()')(a, a[0])", "x"),
    ("insert", "lambda a: jnp.insert(a, 1, 9.0, axis=1)", "x"),
    ("repeat_total",
     "lambda a: jnp.repeat(a, np.array([1, 0, 2]), axis=0, total_repeat_length=4)", "x"),
    ("delete_unique",
     "lambda a: jnp.delete(a, np.array([0, 2]), axis=1, assume_unique_indices=True)", "x"),
    ("at_min", "lambda a: a.at[np.array([0, 2])].min(a[1:])", "x"),
    ("at_multiply", "lambda a: a.at[1].multiply(3.0)", "x"),
    ("piecewise", "lambda a: jnp.piecewise(a, [a < 0, a > 0.5], [lambda t: -t, 0.5, lambda t: t ** 2])",
     "x"),
    ("select_default_scalar", "lambda a: jnp.select([a < 0, a > 0.5], [a * 2, -a], 1.0)", "x"),
    ("piecewise_args",
     "lambda a: jnp.piecewise(a, [a < 0], [lambda t, k: t * k, lambda t, k: t + k], a[0, 0])", "x"),
]:
  for _kind, _helper in {"jaxpr": "J", "grad": "G", "vmap": "V"}.items():
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"

for _name, _fn, _args in [
    ("linspace", "lambda a: a + jnp.linspace(0., 1., 4)", "x"),
    ("linspace_int_retstep", "lambda a: jnp.linspace(0, 10, 3, dtype=jnp.int32, retstep=True)",
     "x"),
    ("logspace", "lambda a: a * jnp.logspace(0., 2., 4)", "x"),
    ("geomspace", "lambda a: a * jnp.geomspace(a[0, :3], 8, 4, axis=-1)", "x"),
    ("indices", "lambda a: a + jnp.indices((3, 4)).sum(0)", "x"),
    ("indices_sparse", "lambda a: jnp.indices((3, 4), sparse=True)", "x"),
    ("meshgrid_ij_sparse", "lambda a: jnp.meshgrid(a[0], a[1, :2], indexing='ij', sparse=True)",
     "x"),
    ("ix", "lambda a: jnp.ix_(jnp.argmax(a, 0), jnp.argmax(a, 1))", "x"),
    ("stack_array", "lambda a: jnp.stack(a, axis=1)", "x"),
    ("concatenate_array", "lambda a: jnp.concatenate(a.reshape(3, 2, 2), axis=1)", "x"),
    ("concatenate_array_bad_axis", "lambda a: jnp.concatenate(a, axis=1)", "x"),
    ("packbits", "lambda a: jnp.packbits(a > 0, axis=1)", "x"),
    ("unpackbits", "lambda a: jnp.unpackbits(jnp.packbits(a > 0), count=20)", "x"),
    ("ravel_multi_index",
     "lambda a: jnp.ravel_multi_index((jnp.argmax(a, 0), jnp.argmin(a, 0)), (3, 4), mode='clip')",
     "x"),
    ("insert_slice", "lambda a: jnp.insert(a, slice(0, 2), a[0], axis=0)", "x"),
    # jax.scipy.special functions written with jnp.piecewise and lax loops
    ("special_expn", "lambda a: jax.scipy.special.expn(2, jnp.abs(a))", "x"),
    ("special_expn_grad", "jax.grad(lambda a: jax.scipy.special.expn(3, a).sum())", "x + 1"),
    ("special_exp1", "lambda a: jax.scipy.special.exp1(jnp.abs(a))", "x"),
    ("special_expi", "jax.scipy.special.expi", "x"),
    ("special_expi_grad", "jax.grad(lambda a: jax.scipy.special.expi(a).sum())", "x"),
    ("special_spence", "lambda a: jax.scipy.special.spence(jnp.abs(a))", "x"),
    ("stop_gradient_int", "lambda a: jax.lax.stop_gradient(jnp.argmax(a, 0))", "x"),
    ("lax_random_gamma_grad", "lambda a: jax.lax.random_gamma_grad(jnp.abs(a) + 0.5, a * a)", "x"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"

# jnp.trace takes a given offset as an operand of jit[name=trace] (converted to int32 where it is
# weakly typed; the default offset, not given, is a literal), as the method and jnp.linalg.trace
# do; jnp.eye adds a traced k as it is
for _name, _fn, _args in [
    ("trace_default", "lambda a: jnp.trace(a, axis1=1, axis2=0)", "x"),
    ("trace_offset", "lambda a: jnp.trace(a, offset=1)", "x"),
    ("trace_offset_positional", "lambda a: jnp.trace(a, -1, 1, 0)", "x"),
    ("trace_offset_int32", "lambda a: jnp.trace(a, offset=jnp.int32(2), dtype=jnp.int32)", "x"),
    ("trace_method", "lambda a: a.trace()", "x"),
    ("trace_method_offset", "lambda a: a.trace(1)", "x"),
    ("linalg_trace", "jnp.linalg.trace", "x.reshape(2, 2, 3)"),
]:
  for _kind, _helper in {"jaxpr": "J", "grad": "G", "vmap": "V"}.items():
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"
for _name, _fn, _args in [
    ("trace_traced_offset", "lambda a, k: jnp.trace(a, offset=k)", "x, 1"),
    ("eye_traced_k", "lambda k: jnp.eye(3, 4, k=k, dtype=bool)", "1"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"
SNIPPETS["trace_values"] = _P + (
    "out = [jnp.trace(x, offset=k).tolist() for k in (-3, -1, 0, 1, 3, 5)] + "
    "[x.trace(1, dtype=jnp.int32).tolist(), jax.jit(lambda a, k: jnp.trace(a, k))(x, 2).tolist()]")

# A square matrix's main diagonal is lax.platform_dependent (platform_index and a cond with
# branches_platforms; the masked-sum "mosaic" branch and the gather), as in JAX; other
# diagonals are the gather alone
_S3 = "x[:, :3]"
for _name, _fn, _args in [
    ("diagonal_square", "jnp.diagonal", _S3),
    ("diagonal_square_swapped", "lambda a: jnp.diagonal(a, 0, 1, 0)", _S3),
    ("diag_square", "jnp.diag", _S3),
    ("diagonal_square_batched", "lambda a: jnp.diagonal(a, axis1=1, axis2=2)", f"jnp.stack([{_S3}, {_S3}])"),
    ("platform_dependent", "lambda a: lax.platform_dependent(a, cpu=jnp.sin, default=jnp.cos)", "x"),
    ("platform_dependent_shared",
     "lambda a: lax.platform_dependent(a, tpu=jnp.sin, cuda=jnp.sin, default=jnp.cos)", "x"),
]:
  for _kind, _helper in {"jaxpr": "J", "grad": "G", "vmap": "V"}.items():
    SNIPPETS[f"{_name}_{_kind}"] = _P + f"out = {_helper}({_fn}, {_args})"
SNIPPETS["diagonal_int_jaxpr"] = _P + "out = J(jnp.diagonal, jnp.arange(9).reshape(3, 3))"
SNIPPETS["diagonal_bool_jaxpr"] = _P + f"out = J(lambda a: jnp.diagonal(a > 0), {_S3})"
SNIPPETS["platform_dependent_lowered"] = _P + (
    "text = jax.jit(lambda a: lax.platform_dependent(a, tpu=jnp.sin, default=jnp.cos)).lower(x).as_text()\n"
    "out = text[text.index('%c'):]")
SNIPPETS["diagonal_square_values"] = _P + (
    f"out = [jnp.diagonal({_S3}).tolist(), jax.jit(jnp.diagonal)({_S3}).tolist(), "
    "lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos).tolist()]")
