"""Code snippets whose printed output must be identical under JAX and axle.

Each snippet runs with ``jax``, ``jnp``, ``lax`` and ``np`` in scope and assigns ``out``
(anything; its ``str`` is compared) or raises (the exception type and message are compared).
``tools/record_core_reference.py`` runs them under real JAX and writes
``tests/data/core_reference.json``; ``tests/test_core_reference.py`` runs them under axle.
"""

SNIPPETS = {
    # --- jaxpr printing -------------------------------------------------------
    "selu": """
def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
out = jax.make_jaxpr(selu)(jnp.arange(5.0))
""",
    "literals_and_consts": """
out = jax.make_jaxpr(lambda x: (x + np.float32(2), x * True, x > 2, x + jnp.float32(3),
                                 x + jnp.ones(3), x + np.ones(3, np.float32), jnp.sin(x).sum()))(jnp.ones(3))
""",
    "int_literals": "out = jax.make_jaxpr(lambda x: jnp.int32(1) + 2)(1.)",
    "lax_add_weak": "out = jax.make_jaxpr(lambda x: lax.add(x, 2))(1)",
    "reshape_transpose_astype": "out = jax.make_jaxpr(lambda x: x.reshape(1, 3).T.astype(jnp.int32))(jnp.ones(3))",
    "empty_body": "out = jax.make_jaxpr(lambda x: 1.)(1.)",
    "output_twice": "out = jax.make_jaxpr(lambda x: (x, x))(1.)",
    "nested_jit_identity": "out = jax.make_jaxpr(jax.jit(lambda x: x))(1.)",
    "jit_closure_over_tracer": "out = jax.make_jaxpr(lambda x: jax.jit(lambda y: y + x)(x))(1.)",
    "jit_closure_over_const": "out = jax.make_jaxpr(lambda x: jax.jit(lambda y: y + np.ones(3, np.float32))(x))(1.)",
    "jit_names": """
@jax.jit
def g(a, b):
  c = a * 2
  return c + b, c, 1.0
def f(x, y):
  z = jnp.sin(x)
  u, v, w = g(z, 3.0)
  return u + v + g(y, y)[0]
out = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""",
    "nested_make_jaxpr": """
inner = []
def f(x):
  inner.append(str(x))
  inner.append(str(jax.make_jaxpr(lambda z: z * x + 1.0)(2.)))
  return x
outer = jax.make_jaxpr(f)(1.)
out = "\\n".join(inner) + "\\n" + str(outer)
""",
    "return_shape": "out = jax.make_jaxpr(lambda x: x, return_shape=True)(1.)",
    "eval_shape": "out = (jax.eval_shape(lambda x: x * 2, jnp.ones(3)), jax.eval_shape(lambda x: x * 2, 1.0), jax.ShapeDtypeStruct((3,), jnp.float32))",
    "static_argnums": """
def create_filled(val, length):
  return jnp.full((length,), val)
out = (jax.make_jaxpr(create_filled, static_argnums=(1,))(2, 5),
       jax.make_jaxpr(create_filled, static_argnums=(1,))(1.6, 10))
""",
    "matmul_jaxpr": """
def fn(W, x):
  return x @ W
out = jax.make_jaxpr(fn)(jnp.ones((2, 2)), jnp.ones((2,)))
""",
    "reductions_jaxpr": "out = jax.make_jaxpr(lambda x: (x.sum(), x.mean(0), x.max(), x.argmax(), jnp.sum(x > 0)))(jnp.ones((2, 3)))",
    "long_eqn_breaks": "out = jax.make_jaxpr(lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10) * lax.convert_element_type(x, jnp.int32).astype(jnp.float32))(jnp.ones((2, 3)))",
    "many_vars": "out = jax.make_jaxpr(lambda x: [x := x * 2 for _ in range(30)][-1])(1.)",
    "tracer_repr": """
seen = []
def f(x, y, z):
  seen.extend([repr(x), repr(y), repr(z), str(x)])
  return x
jax.make_jaxpr(f)(1., jnp.arange(3), jnp.ones((2, 2), jnp.float16))
out = seen
""",
    "jit_print_tracer": """
seen = []
@jax.jit
def f(x):
  seen.append(str(x))
  return x + 1
r = f(jnp.arange(5))
out = (seen, r)
""",
    "shared_jaxprs": """
inner = jax.jit(lambda x: x * 2)
@jax.jit
def outer(x):
  return inner(x) + 1
@jax.jit
def deep(x):
  return outer(x) - 1
out = "\\n".join(str(jax.make_jaxpr(f)(1.)) for f in [
    lambda x: outer(x) + outer(x), deep, lambda x: inner(x) + inner(x)])
""",
    "large_jaxpr_shared_once": """
@jax.jit
def big(x):
  for _ in range(11):
    x = x * 2
  return x
out = jax.make_jaxpr(lambda x: big(x) + 1)(1.)
""",
    "long_binders_wrap": """
def many(*args):
  return sum(args[1:], args[0])
out = jax.make_jaxpr(many)(*[jnp.ones((100, 100))] * 12)
""",
    "dropped_outputs_in_jit": """
@jax.jit
def g(a):
  return a, a * 2, jnp.sin(a)
out = jax.make_jaxpr(lambda x: g(x)[0] + g(x)[1])(jnp.ones(3))
""",
    "division_by_zero_values": """
x = jnp.array([-3, -1, 0, 2, 5])
d = jnp.array([0, 2, 0, -2, 3])
out = [x % 0, x // 0, jnp.remainder(x, d), jnp.floor_divide(x, d), jnp.arange(3.) % 0,
       jnp.arange(3.) // 0, jnp.uint8(5) % 0, jnp.uint8(5) // 0, jnp.array([-7.5, 7.5]) // 2,
       jnp.array([-7.5, 7.5]) % -2]
""",
    "jnp_jit_wrapped_jaxprs": """
out = "\\n".join(str(jax.make_jaxpr(f)(*a)) for f, a in [
    (lambda x, y: x // y, (jnp.ones(3), jnp.ones(3))), (lambda x: x % 2, (jnp.arange(3),)),
    (lambda x, y: x % y, (jnp.arange(3), jnp.arange(3))), (lambda x: x // 2, (jnp.arange(3),)),
    (lambda x: jnp.clip(x, 0., 1.), (jnp.ones(3),)), (lambda x: jnp.clip(x, max=1), (jnp.ones(3),)),
    (lambda x: jnp.round(x, 2), (jnp.ones(3),)), (lambda x: jnp.round(x), (jnp.arange(3),))])
""",
    # --- errors ----------------------------------------------------------------
    "err_bool": """
@jax.jit
def bad(x):
  if x > 0:
    return x
  return -x
bad(1.0)
""",
    "err_bool_two_args": """
def f1(x, y):
  if x + y > 0: return 1
jax.jit(f1)(1., 2.)
""",
    "err_int": "jax.make_jaxpr(lambda x, y: int(x))(1., 2.)",
    "err_float": "jax.jit(lambda x: float(x * 2))(1.)",
    "err_array": "jax.jit(lambda x: np.asarray(x))(1.)",
    "err_index": "jax.jit(lambda x: range(x))(3)",
    "err_item": "jax.jit(lambda x: x.item())(3)",
    "err_shape": "jax.jit(lambda x: jnp.ones(x))(3)",
    "err_full_static": """
def create_filled(val, length):
  return jnp.full((length,), val)
jax.jit(create_filled)(2, 5)
""",
    "err_bool_index": "jax.jit(lambda x: x[x > 0])(jnp.ones(3))",
    "err_setitem": "x = jnp.ones(3); x[0] = 1",
    "err_hash": "hash(jnp.ones(3))",
    "err_lax_add": "lax.add(1, 1.0)",
    "err_lax_add_dtypes": "lax.add(jnp.ones(3), jnp.ones(3, jnp.float16))",
    "err_lax_ranks": "lax.add(jnp.ones(3), jnp.ones((2, 3)))",
    "err_lax_shapes": "lax.add(jnp.ones(3), jnp.ones(4))",
    "err_lax_sin_int": "lax.sin(jnp.arange(3))",
    "err_leak": """
leaked = []
def f7(x):
  leaked.append(x)
  return x
jax.jit(f7)(1.)
leaked[0] + 1
""",
    # --- eager values and reprs ----------------------------------------------------
    "jnp_add_weak": "out = repr(jnp.add(1, 1.0))",
    "lax_add_strong": "out = repr(lax.add(jnp.float32(1), 1.0))",
    "reprs": """
out = "\\n".join(repr(v) for v in [
    jnp.ones((3, 3)), jnp.arange(100), jnp.array([1.5, -2, 1e10]), jnp.array([True, False]),
    jnp.array(3 + 4j), jnp.ones((2, 0)), jnp.zeros((0,)), jnp.array([1, 2], jnp.bfloat16),
    jnp.array([1, 2], jnp.float16), jnp.arange(12).reshape(2, 3, 2),
    jnp.array([np.nan, np.inf, -np.inf, 1e-10]), jnp.float32(2.5), jnp.array(7), jnp.array(2.0),
    jnp.arange(30.).reshape(3, 10) * 1.1, jnp.arange(60.).reshape(6, 10) / 8 + 0.1, jnp.array([1, 2], jnp.uint8),
    jnp.array([[1 + 2j, 3 - 1j]]), jnp.array(True), jnp.arange(1000), jnp.array([0.1, 0.2, 0.3]) * 1e-8])
""",
    "strs": "out = [str(jnp.arange(5)), str(jnp.float32(1.05)), str(jnp.ones((2, 2))), str(jnp.array(True))]",
    "seeds_values": """
x_np = np.array([0, 1, 2, 3], dtype=np.int32)
x_jnp = jnp.array([0, 1, 2, 3], dtype=jnp.int32)
x1 = x_jnp * 2
x2 = x_jnp + 1
out = (x_np, x_jnp, x1 + x2, jnp.dot(x1, x2), jnp.outer(x1, x2), x1.at[0].add(999), x1[0], x1[-1],
       x1[10000], x1.at[10000].set(999))
""",
    "convolve": """
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
out = (jnp.convolve(x, y), lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10),
       window_strides=(1,), padding=[(len(y) - 1, len(y) - 1)])[0, 0])
""",
    "tree_reprs": """
params = [1, 2, (jnp.arange(3), jnp.ones(2))]
p2 = {'n': 5, 'W': jnp.ones((2, 2)), 'b': jnp.zeros(2)}
out = (jax.tree.structure(params), jax.tree.leaves(params), jax.tree.structure(p2), jax.tree.leaves(p2))
""",
    "scalar_ops": "out = [repr(v) for v in (jnp.float32(1) + 1, 2 * jnp.int8(3), jnp.arange(3) / 2, jnp.arange(3) // 2, -jnp.arange(3) % 2, jnp.arange(3) ** 2, 2 ** jnp.arange(3), jnp.arange(3.) ** 0.5, ~jnp.array([True, False]), jnp.uint8(250) + 10)]",
    "methods": """
x = jnp.arange(6.).reshape(2, 3)
out = [repr(v) for v in (x.sum(), x.sum(0), x.mean(1), x.max(), x.min(0), x.prod(), x.any(), x.all(),
       x.argmax(), x.argmin(1), x.cumsum(), x.T, x.mT, x.astype(jnp.int32), x.reshape(3, 2),
       x.reshape((6,)), x.flatten(), x.ravel(), x.clip(1, 4), (x / 4 + 0.001).round(2), x.dot(x.T), x.conj(),
       x.real, x.imag, x.copy(), x.squeeze(), x[:, None].squeeze(1), x.transpose(1, 0))] + [
       x.shape, x.dtype, x.ndim, x.size, x.nbytes, x.weak_type, x.item(0), x.tolist(), len(x),
       [repr(r) for r in x], bool(x[0, 1]), int(x[1, 1]), float(x[1, 2])]
""",
}
