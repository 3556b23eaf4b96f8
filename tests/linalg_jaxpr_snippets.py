"""jnp.linalg, jnp products and jax.scipy.special programs whose jaxpr, grad jaxpr and vmap
jaxpr must print as JAX's ("the same program": the same algorithm steps, the same helpers staged
as named ``jit`` equations). Recorded under real JAX by tools/record_linalg_jaxpr_reference.py,
compared by tests/test_linalg_jaxprs.py.

Each snippet assigns ``out`` (the printed jaxpr).
"""

_X34 = "x = jnp.arange(12.0).reshape(3, 4) / 7 - 0.8\n"
_X234 = "x3 = jnp.sin(jnp.arange(24.0)).reshape(2, 3, 4)\n"
_SPD = "s = jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])\n"
_J = "J = lambda f, *a: jax.make_jaxpr(f)(*a)\n"
_G = "G = lambda f, *a: jax.make_jaxpr(jax.grad(lambda *b: f(*b).sum()))(*a)\n"
_V = "V = lambda f, *a: jax.make_jaxpr(jax.vmap(f))(*(jnp.stack([v, v + 1, v * 2]) for v in a))\n"
_P = _X34 + _X234 + _SPD + _J + _G + _V

SNIPPETS = {}


def _add(name, fn, args, kinds=("jaxpr", "grad", "vmap")):
  helpers = {"jaxpr": "J", "grad": "G", "vmap": "V"}
  for kind in kinds:
    SNIPPETS[f"{name}_{kind}"] = _P + f"out = {helpers[kind]}({fn}, {args})"


# norms: max with initial=0, no unused abs, vector_norm reducing over all its axes at once
for _name, _fn, _args in [
    ("norm_inf", "lambda a: jnp.linalg.norm(a, ord=jnp.inf)", "x[0]"),
    ("norm_fro_axes", "lambda a: jnp.linalg.norm(a, axis=(2, 0))", "x3"),
    ("norm_keepdims", "lambda a: jnp.linalg.norm(a, axis=0, keepdims=True)", "x"),
    ("matrix_norm_1", "lambda a: jnp.linalg.matrix_norm(a, ord=1)", "x3"),
    ("matrix_norm_neg1_keepdims", "lambda a: jnp.linalg.norm(a, ord=-1, axis=(2, 0), keepdims=True)", "x3"),
    ("matrix_norm_inf", "lambda a: jnp.linalg.norm(a, ord=jnp.inf, axis=(2, 0))", "x3"),
    ("vector_norm_0", "lambda a: jnp.linalg.vector_norm(a, ord=0, axis=-1)", "x"),
    ("vector_norm_3_axes", "lambda a: jnp.linalg.vector_norm(a, ord=3, axis=(0, 2))", "x3"),
    ("vector_norm_none_keepdims", "lambda a: jnp.linalg.vector_norm(a, keepdims=True)", "x3"),
    ("vector_norm_neginf", "lambda a: jnp.linalg.vector_norm(a, ord=-jnp.inf, axis=1)", "x3"),
]:
  _add(_name, _fn, _args)
for _name, _fn, _args in [
    ("matrix_norm_2", "lambda a: jnp.linalg.matrix_norm(a, ord=2)", "x3"),
    ("matrix_norm_nuc_keepdims", "lambda a: jnp.linalg.norm(a, ord='nuc', axis=(2, 0), keepdims=True)", "x3"),
]:
  _add(_name, _fn, _args)

# eigh's and svd's JVP rules: JAX's steps (eigh re-symmetrizes its primal, F as integer_pow of
# eye + w_j - w_i, the diagonal read by a gather; svd's products as jnp.matmul, diag(1/s) as a
# scatter, the constant 0.5 a residual), batched, complex, tall and wide
_C = "(1 + 0.5j)"
for _name, _fn, _args in [
    ("eigh_vectors", "lambda a: jnp.linalg.eigh(a)[1]", "s"),
    ("eigh_upper_values", "lambda a: jnp.linalg.eigh(a, UPLO='U')[0]", "s"),
    ("eigh_batched", "lambda a: jnp.linalg.eigh(a)[1]", "jnp.stack([s, s * 2])"),
    ("eigh_complex", f"lambda a: jnp.abs(jnp.linalg.eigh(a * {_C})[1])", "s"),
    ("eigvalsh_complex", f"lambda a: jnp.linalg.eigvalsh(a * {_C})", "s"),
    ("lax_eigh_unsymmetrized", "lambda a: lax.linalg.eigh(a, symmetrize_input=False)[0]", "s"),
    ("svd_u_wide", "lambda a: jnp.linalg.svd(a, full_matrices=False)[0]", "x"),
    ("svd_vh_tall", "lambda a: jnp.linalg.svd(a, full_matrices=False)[2]", "x.T"),
    ("svd_square_full", "lambda a: jnp.linalg.svd(a)[2]", "s"),
    ("svd_batched", "lambda a: jnp.linalg.svd(a, full_matrices=False)[2]", "x3"),
    ("svd_complex", f"lambda a: jnp.abs(jnp.linalg.svd(a * {_C}, full_matrices=False)[0])", "x"),
    ("svdvals", "jnp.linalg.svdvals", "x.T"),
    ("svdvals_complex", f"lambda a: jnp.linalg.svdvals(a * {_C})", "x3"),
    ("lax_svd", "lambda a: lax.linalg.svd(a, full_matrices=False)[2]", "x.T"),
]:
  _add(_name, _fn, _args, kinds=("grad",))
for _name, _fn, _args in [
    ("svd_values_jvp", "lambda a: jax.jvp(lambda b: lax.linalg.svd(b, compute_uv=False), (a,), (a,))", "x"),
    ("svd_linearize", "lambda a: jax.linearize(lambda b: jnp.linalg.svd(b, full_matrices=False), a)[1](a)",
     "x.T"),
    ("eigh_linearize", "lambda a: jax.linearize(jnp.linalg.eigh, a)[1](a)", "s"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"

# jnp products: vectorized dots (vmap over the broadcast leading axes), tensordot's
# preferred_element_type, the trapezoid rule for even spacing, gradient's spacing, cov's count
for _name, _fn, _args in [
    ("vecdot", "jnp.vecdot", "x, x + 1"),
    ("vecdot_broadcast", "lambda a, b: jnp.vecdot(a, b)", "x3, x"),
    ("vecdot_axis", "lambda a, b: jnp.vecdot(a, b, axis=1)", "x3, x3 * 2"),
    ("vecdot_complex", "lambda a, b: jnp.vecdot(a * 1j, b)", "x, x + 1"),
    ("linalg_vecdot", "jnp.linalg.vecdot", "x, x + 1"),
    ("matvec", "jnp.matvec", "x3, x[0]"),
    ("vecmat", "jnp.vecmat", "x[:, 0], x3"),
    ("tensordot", "lambda a, b: jnp.tensordot(a, b, axes=1)", "x, x.T"),
    ("tensordot_axes", "lambda a, b: jnp.tensordot(a, b, axes=([0, 1], [1, 0]))", "x, x.T"),
    ("linalg_tensordot", "lambda a, b: jnp.linalg.tensordot(a, b, axes=2)", "x3, x3.transpose(1, 2, 0)"),
    ("trapezoid", "lambda a: jnp.trapezoid(a, dx=0.5)", "x"),
    ("trapezoid_axis0", "lambda a: jnp.trapezoid(a, axis=0)", "x"),
    ("trapezoid_x", "lambda a, b: jnp.trapezoid(a, b)", "x, x[0] * 3"),
    ("gradient", "jnp.gradient", "x[0]"),
    ("gradient_axis", "lambda a: jnp.gradient(a, 2.0, axis=1)", "x"),
    ("gradient_all_axes", "lambda a: jnp.gradient(a)[1]", "x"),
    ("gradient_coordinates", "lambda a, b: jnp.gradient(a, b, axis=1)", "x, x[0] ** 2"),
    ("gradient_coordinates_1d", "lambda a, b: jnp.gradient(a, b)", "x[0], x[1] ** 2"),
    ("cov", "jnp.cov", "x"),
    ("cov_columns", "lambda a: jnp.cov(a, rowvar=False, ddof=0)", "x"),
]:
  _add(_name, _fn, _args)

# custom_linear_solve is a primitive carrying the four jaxprs; jnp.linalg.solve/inv solve
# through it on the LU factorization (jit[name=_lu_solve]); triangular_solve batches an
# unbatched matrix by folding the batch into the right-hand side's columns
_CLS = ("lambda a, b: lax.custom_linear_solve(lambda v: a @ v, b, lambda mv, r: r / a[0, 0], "
        "lambda vm, r: r * a[1, 1])")
_CLS_SYM = ("lambda a, b: lax.custom_linear_solve(lambda v: a @ v, b, lambda mv, r: r / a[0, 0], "
            "symmetric=True)")
_CLS_TREE = ("lambda a, b: lax.custom_linear_solve(lambda v: (a @ v[0], 2.0 * v[1]), (b, b[:2]), "
             "lambda mv, r: (r[0] / a[1, 1], r[1] / 2.0), symmetric=True)[0]")
for _name, _fn, _args in [
    ("custom_linear_solve", _CLS, "s, s[0]"),
    ("custom_linear_solve_symmetric", _CLS_SYM, "s, s[0]"),
    ("solve", "jnp.linalg.solve", "s, s[0]"),
    ("solve_matrix", "jnp.linalg.solve", "s, s[:, :2]"),
    ("inv", "jnp.linalg.inv", "s"),
]:
  _add(_name, _fn, _args)
for _name, _fn, _args in [
    ("triangular_solve_batched_b", "lambda a, b: jax.vmap(lambda c: lax.linalg.triangular_solve("
     "a, c, left_side=True, lower=True))(b)", "s, jnp.stack([s, s * 2])"),
    ("triangular_solve_batched_b_right", "lambda a, b: jax.vmap(lambda c: lax.linalg.triangular_solve("
     "a, c, left_side=False, lower=False, transpose_a=True), in_axes=1)(b)", "s, jnp.stack([s, s * 2], 1)"),
    ("custom_linear_solve_tree", _CLS_TREE, "s, s[0]"),
    ("custom_linear_solve_jvp", f"lambda a, b: jax.jvp({_CLS}, (a, b), (a, b))", "s, s[0]"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"

# scipy.special: Python scalars handed to where (weak, converted inside _where), JAX's order of
# evaluation, jnp.polyval (jit[name=polyval]) in ndtri
_XP = "jnp.abs(x) + 0.5"
for _name, _fn, _args in [
    ("loggamma", "jax.scipy.special.loggamma", "x"),
    ("factorial", "jax.scipy.special.factorial", "jnp.round(x * 4)"),
    ("comb", "jax.scipy.special.comb", "jnp.round(x * 4) + 3.0, jnp.round(x * 2)"),
    ("kl_div", "jax.scipy.special.kl_div", f"{_XP}, {_XP} * 2"),
    ("rel_entr", "jax.scipy.special.rel_entr", f"{_XP}, {_XP} * 2"),
    ("boxcox", "lambda a: jax.scipy.special.boxcox(a, 0.5)", _XP),
    ("boxcox1p", "lambda a: jax.scipy.special.boxcox1p(a, 0.5)", _XP),
]:
  _add(_name, _fn, _args, kinds=("jaxpr", "grad", "vmap"))
_add("ndtri", "jax.scipy.special.ndtri", "jax.nn.sigmoid(x)", kinds=("jaxpr", "vmap"))

# matrix_rank: JAX's default threshold arithmetic, rtol as an absolute threshold, hermitian
# singular values from eigh; linalg.cross is jnp.cross (one jit)
for _name, _fn, _args in [
    ("matrix_rank", "jnp.linalg.matrix_rank", "x3"),
    ("matrix_rank_rtol", "lambda a: jnp.linalg.matrix_rank(a, rtol=jnp.float32(0.2))", "s"),
    ("matrix_rank_hermitian", "lambda a: jnp.linalg.matrix_rank(a, hermitian=True)", "s"),
    ("svd_hermitian_values", "lambda a: jnp.linalg.svd(a, compute_uv=False, hermitian=True)", "s"),
]:
  SNIPPETS[f"{_name}_jaxpr"] = _P + f"out = J({_fn}, {_args})"
SNIPPETS["matrix_rank_rtol_values"] = _P + (
    "m = jnp.diag(jnp.array([10.0, 1.0, 0.01]))\n"
    "out = [int(jnp.linalg.matrix_rank(m, rtol=0.2)), int(jnp.linalg.matrix_rank(m)), "
    "int(jnp.linalg.matrix_rank(m, tol=0.005))]")
_add("linalg_cross", "jnp.linalg.cross", "x[:, :3], x[:, 1:]")
for _name, _fn, _args in [
    ("betaln", "jax.scipy.special.betaln", f"{_XP}, {_XP} * 9"),
    ("beta", "jax.scipy.special.beta", f"{_XP}, {_XP} * 9"),
    ("multigammaln", "lambda a: jax.scipy.special.multigammaln(a + 1.0, 2)", _XP),
]:
  _add(_name, _fn, _args, kinds=("jaxpr", "grad"))
SNIPPETS["betaln_values"] = _P + (
    "a = jnp.array([0.5, 1.0, 3.0, 7.5, 20.0]); b = jnp.array([8.0, 9.5, 30.0, 100.0, 1e4])\n"
    "out = [jax.jit(jax.scipy.special.betaln)(a, b).tolist(), jax.scipy.special.betaln(b, a).tolist(), "
    "jax.scipy.special.log_ndtr(jnp.array([-30.0, -12.0, -3.0, 0.5, 9.0])).tolist()]")

# lstsq: jit[name=_lstsq] with JAX's mask, safe reciprocal and norm ** 2 residuals
_add("lstsq", "lambda a, b: jnp.linalg.lstsq(a, b)", "x.T, x[0]", kinds=("jaxpr", "vmap"))
_add("lstsq_matrix", "lambda a, b: jnp.linalg.lstsq(a, b)[0]", "x.T, x.T[:, :2]", kinds=("jaxpr",))
SNIPPETS["lstsq_values"] = _P + (
    "a = x3[0].T; b = x3[1].T\n"
    "out = [[o.tolist() for o in jnp.linalg.lstsq(a, b)], "
    "[o.tolist() for o in jnp.linalg.lstsq(a[:2], b[:2], numpy_resid=True)], "
    "[o.tolist() for o in jnp.linalg.lstsq(a, b[:, 0], rcond=0.5)]]")

# custom_root: f, solve and linearize-and-solve traced to jaxprs, solved by the custom_jvp
# function _custom_root (closed-over values as its arguments)
_ROOT = ("lambda a: lax.custom_root(lambda z: z ** 3 - a, jnp.ones_like(a), lambda g, y: "
         "lax.fori_loop(0, 5, lambda i, z: z - g(z) / (3 * z ** 2), y), lambda g, y: y / 3.0)")
_add("custom_root", _ROOT, "jnp.abs(x[0]) + 1.0")
SNIPPETS["custom_root_has_aux_values"] = _P + (
    "def solve(g, y):\n"
    "  r = lax.fori_loop(0, 8, lambda i, z: z - g(z) / (3 * z ** 2), y)\n"
    "  return r, r.sum()\n"
    "a = jnp.array([1.0, 2.0, 8.0])\n"
    "h = lambda a: lax.custom_root(lambda z: z ** 3 - a, jnp.ones_like(a), solve, "
    "lambda g, y: y / (3 * a ** (2 / 3)), has_aux=True)\n"
    "out = [[o.tolist() for o in h(a)], jax.grad(lambda a: h(a)[0].sum())(a).tolist(), "
    "jax.jvp(lambda a: h(a)[0], (a,), (a,))[1].tolist()]")

# cholesky's JVP: L = tril(cholesky(x)) as primal, phi dividing by 1 + I, no conjugation of a
# real matrix in triangular_solve
_add("cholesky", "jnp.linalg.cholesky", "s", kinds=("jaxpr", "grad"))
_add("cholesky_upper", "lambda a: jnp.linalg.cholesky(a, upper=True)", "s", kinds=("jaxpr", "grad"))
SNIPPETS["triangular_solve_real_conjugate_jaxpr"] = _P + (
    "out = J(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True, "
    "conjugate_a=True), s, s)")
# qr's JVP: jnp-style products and the diagonal correction applied to real inputs too
_add("qr", "lambda a: jnp.linalg.qr(a)[0]", "x.T", kinds=("grad",))
_add("qr_r", "lambda a: jnp.linalg.qr(a, mode='r')", "x.T", kinds=("grad",))
# the complete QR of a tall matrix: JAX's rule (the reduced rule on q's first columns, the other
# columns through an LU solve, jit[name=_lu_solve]); batched (jnp-style eye), complex
_add("qr_complete", "lambda a: sum(o.sum() for o in jnp.linalg.qr(a, mode='complete'))", "x.T",
     kinds=("grad",))
_add("qr_complete_batched", "lambda a: jnp.linalg.qr(a, mode='complete')[0]", "x3.transpose(0, 2, 1)",
     kinds=("grad",))
_add("qr_batched", "lambda a: jnp.linalg.qr(a)[0]", "x3.transpose(0, 2, 1)", kinds=("grad",))
_add("qr_complete_complex", f"lambda a: jnp.abs(jnp.linalg.qr(a * {_C}, mode='complete')[0])", "x.T",
     kinds=("grad",))
SNIPPETS["qr_complete_grad_values"] = _P + (
    "f = lambda a: sum((o * jnp.arange(o.size, dtype=o.dtype).reshape(o.shape)).sum() "
    "for o in jnp.linalg.qr(a, mode='complete'))\n"
    "out = [jax.grad(f)(x.T).tolist(), jax.jit(jax.grad(f))(x3.transpose(0, 2, 1)).tolist()]")
# slogdet: the diagonal (platform dependent), count_nonzero and remainder as JAX's jit helpers,
# the sign's flips copied (jnp.array) before the conversion
_add("slogdet", "lambda a: jnp.stack(jnp.linalg.slogdet(a))", "s", kinds=("jaxpr", "vmap"))
SNIPPETS["slogdet_complex_batched_jaxpr"] = _P + (
    "out = J(lambda a: jnp.linalg.slogdet(a)[0], jnp.stack([s, -s]).astype(jnp.complex64))")
SNIPPETS["slogdet_values"] = _P + (
    "m = [s, -s, s.at[0].set(0.0), s[::-1], jnp.eye(4)[::-1]]\n"
    "out = [[float(v) for v in jnp.linalg.slogdet(a)] for a in m] + "
    "[[float(v) for v in jax.jit(jnp.linalg.slogdet)(a)] for a in m]")
_add("slogdet_logdet", "lambda a: jnp.linalg.slogdet(a)[1]", "s", kinds=("grad",))
_add("slogdet_both", "lambda a: jnp.stack(jnp.linalg.slogdet(a))", "s", kinds=("grad",))
SNIPPETS["slogdet_complex_grad_values"] = _P + (
    "f = lambda a: jnp.abs(jnp.linalg.slogdet(a)[0] * 2 + jnp.linalg.slogdet(a)[1])\n"
    "c = s * (1 + 0.5j) + 0.25j\n"
    "g = jax.vjp(f, c)[1](jnp.float32(1))[0]\n"
    "out = [g.real.tolist(), g.imag.tolist(), jax.grad(lambda a: jnp.linalg.slogdet(a)[1])(s).tolist()]")
