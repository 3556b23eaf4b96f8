"""Cases for jax.scipy.optimize.minimize, shared by tools/record_scipy_optimize_reference.py
(run under real JAX) and tests/test_scipy_optimize.py (run under axle). Each case is
(id, source of a zero-argument function returning a pytree or raising). ``jax``, ``jnp`` and
``minimize`` are in scope."""

PRELUDE = """
def rosen(x):
  return jnp.sum(100. * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

def quadratic(x, a, b):
  return 0.5 * x @ (a @ x) - b @ x

A = jnp.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])
B = jnp.array([1., -2., 0.5])
"""

CASES = [
    ("rosen_jit", "jax.jit(lambda x0: minimize(rosen, x0, method='BFGS'))(jnp.zeros(4))"),
    ("rosen_2d_line_search_fails", "jax.jit(lambda x0: minimize(rosen, x0, method='BFGS'))"
                                   "(jnp.zeros(2))"),
    ("rosen_maxiter", "jax.jit(lambda x0: minimize(rosen, x0, method='bfgs', "
                      "options=dict(maxiter=5)))(jnp.array([-1.2, 1.]))"),
    ("quadratic_args", "jax.jit(lambda x0: minimize(quadratic, x0, (A, B), method='BFGS'))"
                       "(jnp.ones(3))"),
    ("quadratic_gtol", "jax.jit(lambda x0: minimize(quadratic, x0, (A, B), method='BFGS', "
                       "options=dict(gtol=1e-2, norm=2)))(jnp.ones(3))"),
    ("vmap", "jax.jit(jax.vmap(lambda x0: minimize(quadratic, x0, (A, B), method='BFGS').x))"
             "(jnp.stack([jnp.ones(3), -jnp.ones(3)]))"),
    ("args_not_tuple", "minimize(quadratic, jnp.ones(3), [A, B], method='BFGS')"),
    ("unknown_method", "minimize(rosen, jnp.ones(3), method='Nelder-Mead')"),
]
