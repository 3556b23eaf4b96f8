"""Regression snippets for the bugs listed in issue 14 (recorded under real JAX by
tools/record_issue14_reference.py, compared by tests/test_issue14_regressions.py).

Each snippet assigns ``out``; its ``str`` (or the exception type and message) is compared.
"""

_NAMES = ("import re\n"
          "names = lambda f, *a: re.findall(r'custom_jvp_call\\[\\s+name=(\\w+)',"
          " str(jax.make_jaxpr(f)(*a)))\n")
_SP = "sp = jax.scipy.special\n"

SNIPPETS = {
    # logaddexp / logaddexp2 / softplus: custom_jvp with derivative 0.5 at ties; bf16 works.
    "logaddexp_tie_grad": "out = jax.grad(jnp.logaddexp, argnums=(0, 1))(1.0, 1.0)",
    "logaddexp2_tie_grad": "out = jax.grad(jnp.logaddexp2, argnums=(0, 1))(1.0, 1.0)",
    "logaddexp_grad_inf": "out = jax.grad(jnp.logaddexp, argnums=(0, 1))(jnp.inf, 1.0)",
    "softplus_grad_zero": "out = jax.grad(jax.nn.softplus)(0.0)",
    "logaddexp_bf16": ("out = jnp.logaddexp(jnp.array([1.0, 2.0], jnp.bfloat16),"
                       " jnp.array([1.5, -1.0], jnp.bfloat16))"),
    "logaddexp2_bf16_grad": ("out = jax.grad(lambda x: jnp.logaddexp2(x, x).sum())"
                             "(jnp.array([1.0, 2.0], jnp.bfloat16))"),
    "logaddexp_jaxpr": "out = jax.make_jaxpr(jnp.logaddexp)(1.0, 2.0)",
    "softplus_jaxpr": "out = jax.make_jaxpr(jax.nn.softplus)(1.0)",
    # The custom_jvp functions print JAX's names.
    "custom_jvp_names_logaddexp2": _NAMES + "out = names(jnp.logaddexp2, 1.0, 2.0)",
    "custom_jvp_names_sinc": _NAMES + "out = names(jnp.sinc, 1.0)",
    "custom_jvp_names_i0": _NAMES + "out = names(jnp.i0, 1.0)",
    "custom_jvp_names_frexp": _NAMES + "out = names(jnp.frexp, 1.0)",
    "custom_jvp_names_pinv": _NAMES + "out = names(jnp.linalg.pinv, jnp.ones((2, 2)))",
    "custom_jvp_names_slogdet": _NAMES + "out = names(jnp.linalg.slogdet, jnp.ones((3, 3)))",
    "custom_jvp_names_det": _NAMES + "out = names(jnp.linalg.det, jnp.ones((3, 3)))",
    "custom_jvp_names_dawsn": _NAMES + _SP + "out = names(sp.dawsn, 1.0)",
    "custom_jvp_names_erfcx": _NAMES + _SP + "out = names(sp.erfcx, 1.0)",
    "custom_jvp_names_log_ndtr": _NAMES + _SP + "out = names(sp.log_ndtr, 1.0)",
    "custom_jvp_names_poch": _NAMES + _SP + "out = names(sp.poch, 1.0, 2.0)",
    "special_custom_jvp_grads": (
        _SP + "x = jnp.array([-12., -3., 0.5, 2., 7.])\n"
        "g = lambda f: ['%.4g' % v for v in np.asarray(jax.vmap(jax.grad(f))(x))]\n"
        "out = (g(sp.dawsn), g(sp.erfcx), g(sp.log_ndtr), g(lambda z: sp.poch(z, 1.5)),"
        " g(lambda m: sp.poch(2.5, m)))"),
    "pinv_grad": ("x = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
                  "out = ['%.4g' % v for v in np.asarray(jax.grad(lambda x: (jnp.linalg.pinv(x) ** 2).sum())(x)).ravel()]"),
    "sinc_grads_at_zero": "out = (jax.grad(jnp.sinc)(0.0), jax.grad(jax.grad(jnp.sinc))(0.0))",
    "i0_grad": "out = jax.grad(jnp.i0)(jnp.float32(0.5))",
    "frexp_grad": "out = jax.grad(lambda x: jnp.frexp(x)[0])(3.0)",
    # scipy.linalg.cholesky reads one triangle only (no symmetrization).
    "scipy_cholesky_nonsymmetric": ("x = jnp.array([[4., 1.], [3., 5.]])\n"
                                    "out = (jax.scipy.linalg.cholesky(x),"
                                    " jax.scipy.linalg.cholesky(x, lower=True))"),
    # det: JAX's algorithm and derivative.
    "det_jit_bits": ("x = jnp.array(np.random.default_rng(0).standard_normal((5, 5)), jnp.float32)\n"
                     "out = np.asarray(jax.jit(jnp.linalg.det)(x)).tobytes().hex()"),
    "det_3x3_jit_bits": ("x = jnp.array(np.random.default_rng(1).standard_normal((3, 3)), jnp.float32)\n"
                         "out = np.asarray(jax.jit(jnp.linalg.det)(x)).tobytes().hex()"),
    "det_grad_singular": "out = jax.grad(jnp.linalg.det)(jnp.array([[1., 2.], [2., 4.]]))",
    # Under jit.
    "delete_assume_unique_jit": ("out = jax.jit(lambda x, i: jnp.delete(x, i, assume_unique_indices=True))"
                                 "(jnp.arange(6.), jnp.array([1, 3]))"),
    "take_clip_negative": ("i = jnp.array([-1, -7, 2, 9])\n"
                           "out = (jax.jit(lambda x, i: jnp.take(x, i, mode='clip'))(jnp.arange(5.), i),"
                           " jnp.take(jnp.arange(5.), i, mode='clip'))"),
    "unique_counts_size_jit": ("out = (jax.jit(lambda x: jnp.unique_counts(x, size=5))"
                               "(jnp.array([3, 1, 3, 2])))"),
    "unique_counts_size_truncated": ("x = jnp.array([0, 1, 2, 3, 4, 4, 4, 4])\n"
                                     "out = (jnp.unique_counts(x, size=3),"
                                     " jax.jit(lambda x: jnp.unique_counts(x, size=4))(x))"),
    "unique_counts_size_fill_jit": ("out = (jax.jit(lambda x: jnp.unique_counts(x, size=5, fill_value=0))"
                                    "(jnp.array([3, 1, 3, 2])))"),
    "setdiff1d_size_jit": ("out = (jax.jit(lambda a, b: jnp.setdiff1d(a, b, size=4))"
                           "(jnp.array([1, 2, 3, 4]), jnp.array([2])),"
                           " jax.jit(lambda a, b: jnp.setdiff1d(a, b, size=5))"
                           "(jnp.array([5, 2, 3, 4]), jnp.array([2, 4])))"),
    "eye_k_mul_signs_jit": ("out = np.signbit(np.asarray(jax.jit(lambda x: x * jnp.eye(3, 4, k=1))"
                            "(-jnp.ones((3, 4)))))"),
    "var_method_tracer": "out = jax.jit(lambda x: x.var())(jnp.arange(4.))",
    "reshape_order_F": ("x = jnp.arange(6.).reshape(2, 3)\n"
                        "out = (jax.jit(lambda x: x.reshape((3, 2), order='F'))(x),"
                        " jnp.reshape(x, (3, 2), order='F'))"),
    "ravel_order_F": ("x = jnp.arange(6.).reshape(2, 3)\n"
                      "out = (jax.jit(lambda x: jnp.ravel(x, order='F'))(x), x.ravel(order='F'))"),
    "cumulative_sum_include_initial": (
        "out = (jnp.cumulative_sum(jnp.arange(1., 4.), include_initial=True),"
        " jax.jit(lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True))(jnp.ones((2, 3))))"),
    "checkpoint_dots_saveable_jit": (
        "f = jax.checkpoint(lambda x: jnp.sin(x @ x).sum(),"
        " policy=jax.checkpoint_policies.dots_saveable)\n"
        "out = jax.jit(jax.grad(f))(jnp.eye(2))"),
    "qr_complete_grad_r": ("x = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
                           "out = np.round(np.asarray(jax.grad(lambda x: jnp.linalg.qr(x, mode='complete')[1].sum())(x)), 4)"),
    "qr_complete_grad_q_wide": ("x = jnp.array([[1., 2., 0.5], [3., 4., 1.]])\n"
                                "out = np.round(np.asarray(jax.grad(lambda x: jnp.linalg.qr(x, mode='complete')[0].sum())(x)), 4) + 0.0"),
    "qr_complete_grad_q_tall": ("x = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
                                "out = np.round(np.asarray(jax.grad(lambda x: (jnp.linalg.qr(x, mode='complete')[0]"
                                " * jnp.arange(9.).reshape(3, 3)).sum())(x)), 4)"),
    "zeta_grad_q": _SP + "out = np.round(float(jax.grad(lambda q: sp.zeta(3.0, q))(2.0)), 5)",
    "gamma_grad_array_a": ("out = np.round(np.asarray(jax.grad(lambda a: jax.random.gamma(jax.random.key(0), a).sum())"
                           "(jnp.array([0.5, 2.0]))), 4)"),
    "var_ddof_too_large": ("out = (jnp.var(jnp.arange(3.), ddof=3), jnp.var(jnp.arange(3.), ddof=4),"
                           " jax.jit(lambda x: jnp.var(x, ddof=3))(jnp.arange(3.)))"),
    "var_ddof_too_large_derivatives": (
        "out = (jax.jacfwd(lambda x: jnp.var(x, ddof=3))(jnp.arange(3.)),"
        " jax.jacrev(lambda x: jnp.var(x, ddof=3))(jnp.arange(3.)),"
        " jax.jacfwd(lambda x: jnp.var(x, ddof=4))(jnp.arange(3.)))"),
    # Missing names.
    "array_view": ("x = jnp.arange(4, dtype=jnp.int32)\n"
                   "out = (x.view(jnp.float32), x.view(jnp.uint8), jnp.arange(4, dtype=jnp.int8).view(jnp.int16),"
                   " jnp.array([True, False]).view(jnp.uint8), jnp.array([1, 0], jnp.uint8).view(bool),"
                   " jax.jit(lambda x: x.view(jnp.uint16))(x), jax.make_jaxpr(lambda x: x.view(jnp.uint8))(x))"),
    "lax_random_gamma_grad": ("out = ['%.5g' % v for v in np.asarray(lax.random_gamma_grad("
                              "jnp.array([0.5, 2.0, 7.0]), jnp.array([0.8845648, 1.7599413, 5.5])))]"),
    "array_view_bad_size": "out = jnp.arange(3, dtype=jnp.int8).view(jnp.int16)",
}
