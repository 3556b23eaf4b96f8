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

# Everyday expressions: values, reprs, jaxprs and errors (each entry's repr, or its error).
EVERYDAY = [
    'jnp.array([jnp.array(1.), 2.])',
    'jnp.zeros((2,3), dtype=int)',
    'jnp.ones(3).astype(float)',
    'jnp.ones(3).at[1:].set(0)',
    'float(jnp.sum(jnp.arange(4.)))',
    'jnp.asarray([1,2,3])',
    'jnp.arange(10).reshape(2,-1)',
    'jnp.arange(6.).reshape(2,3).T @ jnp.ones(2)',
    'jnp.array(np.float64(2.5))',
    'jnp.array([[1, 2], [3, 4]])[:, ::-1]',
    'jnp.arange(5)[jnp.array([0, 2])]',
    'jnp.arange(12).reshape(3,4)[1:, [0, 2]]',
    'jnp.linspace(0, 1, 5)',
    'jnp.eye(2)',
    'jnp.ones((2, 3)).sum(axis=1, keepdims=True)',
    'jnp.arange(4) % 3 - 1',
    'jnp.maximum(jnp.arange(3), 1.5)',
    'jnp.array(True) & False',
    'jnp.float32(2) ** 3',
    'jnp.abs(jnp.array([-1, 2]))',
    'jnp.array([1, 2]) == jnp.array([1, 3])',
    'jnp.stack([jnp.ones(2), jnp.zeros(2)])',
    'jnp.concatenate([jnp.ones(2), jnp.zeros(3)])',
    'jnp.where(jnp.arange(4) > 1)',
    'jnp.arange(3.)[None, :, None].shape',
    'jnp.ones((2,2))[..., 0]',
    "jax.tree.map(lambda x: x * 2, {'a': jnp.ones(2), 'b': [1., 2.]})",
    'jnp.mean(jnp.arange(5))',
    'jnp.argmax(jnp.array([1, 3, 2]))',
    'jnp.cumsum(jnp.arange(5))',
    'jnp.clip(jnp.arange(5), 1, 3)',
    'jnp.round(jnp.array([0.5, 1.5, 2.5]))',
    'jnp.arange(5) // 2',
    '-jnp.arange(3) // 2',
    'jnp.int8(100) + jnp.int8(100)',
    'jnp.uint8(3) - 5',
    'jnp.array([1, 2], dtype=jnp.float16) * 2.5',
    'jnp.ones(3, jnp.bfloat16) / 3',
    'jnp.arange(3) / 2',
    '1 / jnp.arange(3.)',
    'jnp.sqrt(jnp.array([4., -1.]))',
    'jnp.log(0.)',
    'jnp.exp(1.)',
    'jnp.sin(jnp.pi)',
    'jnp.tanh(jnp.arange(3.))',
    'jax.jit(lambda x, y: x @ y)(jnp.ones((2,3)), jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x[0])(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x[1:, 0])(jnp.ones((3, 3)))',
    'jax.make_jaxpr(lambda x: jnp.mean(x, 0))(jnp.ones((3, 3)))',
    'jax.make_jaxpr(lambda x: x.at[0].add(1.))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x, i: x[i])(jnp.ones(3), 1)',
    'jax.make_jaxpr(lambda x: jnp.dot(x, x))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x ** 2 + jnp.exp(-x))(1.)',
    'jax.make_jaxpr(lambda x: jnp.maximum(x, 0.))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x.astype(jnp.int32) // 2)(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: jnp.concatenate([x, x]))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x.reshape(-1, 1) * x)(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: jnp.where(x > 0, x, 0.))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: jnp.sum(x ** 2) / 2)(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: jnp.abs(x).max())(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x % 2)(jnp.arange(3))',
    'jax.make_jaxpr(lambda x: x // 2)(jnp.arange(3))',
    'jax.make_jaxpr(lambda x: -x ** 3)(jnp.arange(3))',
    'jax.make_jaxpr(lambda x: x / 2)(jnp.arange(3))',
    'jax.make_jaxpr(lambda x: jnp.zeros_like(x) + jnp.ones_like(x))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x.T.sum(0))(jnp.ones((2,3)))',
    'jax.make_jaxpr(lambda x: jnp.clip(x, 0, 1))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: jnp.round(x))(jnp.ones(3))',
    'jax.make_jaxpr(lambda x: x[::2])(jnp.ones(5))',
    'jax.make_jaxpr(lambda x: x[jnp.array([0, 1])])(jnp.ones(5))',
    'jnp.int8(1) + 1.5',
    'jnp.uint32(1) + jnp.int32(1)',
    'jnp.bfloat16(1) + jnp.float16(1)',
    'jnp.ones(2, jnp.int16) * jnp.uint8(2)',
    'jnp.array([1, 2], dtype=jnp.uint8) + 300',
    'jnp.float16(1) + 1e5',
    'jnp.array(1) + jnp.array(2.0)',
    '(jnp.array([1, 2]) > 1).sum()',
    'jnp.array([True, False]).astype(jnp.float32) * 2',
    'jnp.arange(6).reshape(2, 3).sum(0, keepdims=True)',
    'jnp.arange(6.).reshape(2, 3).mean(axis=(0, 1))',
    'jnp.arange(6).reshape(2, 3).max(axis=1)',
    'jnp.arange(6).reshape(2, 3).argmin(axis=0)',
    'jnp.array([[1, 5], [3, 2]]).argmax(axis=1)',
    'jnp.arange(24).reshape(2, 3, 4)[:, 1]',
    'jnp.arange(24).reshape(2, 3, 4)[..., ::2, 1:3]',
    'jnp.arange(24).reshape(2, 3, 4)[[0, 1], :, [1, 2]]',
    'jnp.arange(24).reshape(2, 3, 4)[1, [0, 2]]',
    'jnp.arange(10)[-3:]',
    'jnp.arange(10)[::-3]',
    'jnp.arange(10)[jnp.array([-1, 20])]',
    'jnp.arange(10).at[jnp.array([1, 1, 2])].add(5)',
    'jnp.arange(10).at[::2].set(-1)',
    'jnp.arange(10).at[3].get()',
    "jnp.arange(10).at[20].get(mode='fill', fill_value=-7)",
    'jnp.arange(5.).at[1].mul(3.)',
    'jnp.arange(5).at[2].min(-1)',
    'jnp.arange(5).at[jnp.array([0, 4])].max(3)',
    'jnp.zeros((2, 2)).at[0, :].set(jnp.array([1., 2.]))',
    'jnp.ones((2, 3)) @ jnp.ones((3,))',
    'jnp.ones((4, 2, 3)) @ jnp.ones((3, 5))',
    'jnp.dot(jnp.ones((2, 3)), jnp.ones((3, 2)))',
    'jnp.outer(jnp.arange(3), jnp.arange(2.))',
    'jnp.array([1.5, 2.5, -0.5]).round()',
    'jnp.array([3, -3]) // jnp.array([2, 2])',
    'jnp.array([3., -3.]) % 2',
    'jnp.array(2) ** jnp.array(10)',
    'jnp.array(2.) ** -1',
    'jnp.array([-1., 4.]) ** 0.5',
    'jnp.array([1, 2, 3]) << 2',
    'jnp.array([-8, 8]) >> 1',
    'jnp.uint8(200) >> 3',
    'jnp.array([5, 3]) & 6',
    'jnp.array([True, False]) | jnp.array([False, False])',
    '~jnp.array([0, 1, -1])',
    '-jnp.array([1, -2])',
    'abs(jnp.array([-1.5, 2]))',
    'jnp.array([[1, 2], [3, 4]]).T.tolist()',
    'list(jnp.arange(3))',
    'jnp.arange(3).item(1)',
    'int(jnp.array([7]))',
    'jnp.array(3.7).astype(jnp.int32)',
    'jnp.array([np.nan, 1.]).max()',
    'jnp.array([np.nan, 1.]).argmax()',
    'jnp.array([-0., 0.]).min()',
    'jnp.sign(jnp.array([-2., 0., 3.]))',
    'jnp.array([1e30], jnp.float32) * 1e10',
    'jnp.array([200], jnp.uint8) * 2',
    'jnp.array([1, 2, 3]).astype(jnp.bool_)',
    'jnp.float32(np.inf).astype(jnp.int32)',
    'jnp.array([2.5, 3.5]).astype(jnp.int8)',
    'jnp.complex64(1+2j) * 2',
    'jnp.array([1+1j]).real',
    'jnp.array([1+1j]).conj()',
    'jnp.array([1, 2]).imag',
    'jnp.ones(3)[None].shape',
    'jnp.ones((2, 3)).ravel().shape',
    'jnp.ones((1, 3, 1)).squeeze().shape',
    'jnp.expand_dims(jnp.ones(3), (0, 2)).shape',
    'jnp.broadcast_to(jnp.arange(3), (2, 3))',
    'jnp.concatenate([jnp.ones((1, 2)), jnp.zeros((2, 2))], axis=0)',
    'jnp.stack([jnp.arange(2), jnp.arange(2)], axis=-1)',
    'jnp.where(jnp.array([True, False]), 1, 2.5)',
    'jnp.where(jnp.arange(3) > 0, jnp.arange(3), -1)',
    'jnp.cumsum(jnp.ones((2, 2)), axis=1)',
    'jnp.cumprod(jnp.arange(1, 5))',
    'jnp.prod(jnp.array([], jnp.float32))',
    'jnp.sum(jnp.array([], jnp.int32))',
    'jnp.any(jnp.array([0, 0, 1]))',
    'jnp.all(jnp.ones((2, 2)) > 0, axis=0)',
    'lax.add(jnp.ones(3), 1.)',
    'lax.convert_element_type(jnp.arange(3), jnp.float32)',
    'lax.reshape(jnp.arange(6), (2, 3))',
    'lax.dynamic_slice(jnp.arange(10), (8,), (4,))',
    'lax.dynamic_update_slice(jnp.zeros(5), jnp.ones(2), (4,))',
    'lax.pad(jnp.arange(3), 0, [(1, 2, 1)])',
    'lax.sort(jnp.array([3, 1, 2]))',
    'lax.top_k(jnp.array([1, 5, 3]), 2)',
    "lax.reduce_window(jnp.arange(6.), -jnp.inf, lax.max, (2,), (1,), 'VALID')",
    'lax.iota(jnp.int32, 4)',
    'lax.rev(jnp.arange(3), (0,))',
    'lax.clamp(0, jnp.array([-1, 5, 2]), 3)',
    'lax.select(jnp.array([True, False]), jnp.ones(2), jnp.zeros(2))',
    'lax.integer_pow(jnp.arange(4.), 3)',
    'lax.erf(jnp.array([0.5]))',
    'lax.shift_left(jnp.int32(1), 33)',
    'lax.div(jnp.int32(-7), jnp.int32(2))',
    'lax.rem(jnp.int32(-7), jnp.int32(2))',
    'lax.population_count(jnp.uint8(255))',
    'jnp.ones((2, 3)).reshape(3, -1).shape',
    'jnp.asarray(np.arange(3, dtype=np.int64))',
    'jnp.asarray(np.float64(1.5))',
    'jnp.array([[1, 2], [3]]) if False else 0',
    'jnp.ones(3).at[1].set(jnp.nan)',
    'jnp.ones((2,)).dtype == jnp.float32',
    'jnp.float32(1).dtype',
    'jnp.promote_types(jnp.int8, jnp.uint8)',
    'jnp.result_type(1, jnp.float16)',
    'jnp.finfo(jnp.bfloat16).eps',
    'jnp.iinfo(jnp.int8).min',
    'jnp.issubdtype(jnp.float32, jnp.floating)',
    'jnp.ones(3).block_until_ready()',
    'jax.device_get(jnp.ones(2))',
    "jax.tree_util.tree_leaves({'a': [jnp.ones(1), None, 2]})",
    'jax.eval_shape(jnp.sum, jnp.ones((3, 4)))',
    'jnp.ones((3,)) + jnp.ones((4,))',
    'jnp.ones((3,)).reshape(4)',
    'jnp.arange(3)[3.0]',
    'jnp.arange(3)[None, None, None, None, 0, 0]',
    'lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 3)), (((1,), (0,)), ((), ())))',
    "jnp.arange(3).astype('int4') if False else 1",
    'jnp.sum(jnp.ones(3), axis=1)',
    "jnp.array('abc')",
    'jnp.zeros(-1)',
]

_EVERYDAY_RUNNER = """
results = []
for case in EVERYDAY[{start}:{stop}]:
  try:
    results.append(repr(eval(case)))
  except Exception as e:
    results.append(f"!{{type(e).__name__}}: {{str(e)[:200]}}")
out = "\\n".join(f"### {{c}}\\n{{r}}" for c, r in zip(EVERYDAY[{start}:{stop}], results))
"""
for _start in range(0, len(EVERYDAY), 40):
  SNIPPETS[f"everyday_{_start:03d}"] = (
      f"EVERYDAY = {EVERYDAY!r}\n" + _EVERYDAY_RUNNER.format(start=_start, stop=_start + 40))

# Mistakes users make under jit and with lax: the error type and message must be JAX's.
MISTAKES_PRELUDE = 'def f_if(x):\n  if x.sum() > 0: return x\n  return -x\ndef f_while(x):\n  while x > 0: x = x - 1\n  return x\ndef f_shape(x, n): return jnp.zeros(n)\ndef f_np(x): return np.sin(x)\ndef f_index(x, i): return [1, 2, 3][i]\ndef f_len(x): return len(x)\ndef f_item(x): return x.item()\ndef f_reshape(x, n): return x.reshape(n, -1)\ndef f_mask(x): return x[x > 0]\ndef f_iter(x): return [v for v in x]\ndef f_tuple(x): return tuple(x)\ndef f_print(x): return str(x)\n'
MISTAKES = [
    'jax.jit(f_if)(jnp.ones(3))',
    'jax.jit(f_while)(3.)',
    'jax.jit(f_shape)(1., 3)',
    'jax.jit(f_np)(jnp.ones(2))',
    'jax.jit(f_index)(1., 1)',
    'jax.jit(f_len)(jnp.ones(4))',
    'jax.jit(f_item)(jnp.ones(()))',
    'jax.jit(f_reshape)(jnp.ones(6), 2)',
    'jax.jit(f_mask)(jnp.ones(3))',
    'jax.jit(f_iter)(jnp.ones(2))',
    'jax.jit(f_tuple)(jnp.ones(2))',
    'jax.jit(f_print)(jnp.ones(2))',
    'jax.jit(f_shape, static_argnums=1)(1., 3)',
    'jax.jit(f_reshape, static_argnums=1)(jnp.ones(6), 2)',
    'jax.jit(lambda x: x)([1, 2])',
    'jax.jit(lambda x: x)(None)',
    "jax.jit(lambda x: (x, {'a': x}))(1)",
    'jax.make_jaxpr(f_mask)(jnp.ones(3))',
    'jax.jit(lambda x: jnp.arange(x))(3)',
    'jax.jit(lambda x: x.astype(int))(1.5)',
    'jax.jit(lambda x: float(x))(1.5)',
    'jax.jit(lambda x: bool(x))(1.5)',
    'jax.jit(lambda x: hash(x))(1.)',
    'jax.jit(lambda x: x[0])(jnp.ones((2, 2)))',
    'jax.jit(lambda x, i: x[i])(jnp.ones(3), 5)',
    'jax.jit(lambda x, i: x.at[i].set(0.))(jnp.ones(3), 1)',
    'jax.jit(lambda *a: sum(a))(1., 2., 3.)',
    "jax.jit(lambda x, **kw: x + kw['y'])(1., y=2.)",
    'jax.jit(lambda x: x, static_argnums=0)([1])',
    'jax.eval_shape(lambda x: x.reshape(2, -1), jnp.ones(6))',
    'jax.eval_shape(lambda x: x[x > 0], jnp.ones(3))',
    'jnp.ones(3)[jnp.array([True, False, True])]',
    'jnp.ones(3)[1.5]',
    'jnp.ones(3)[[0, 1], [0]]',
    'jnp.ones((2, 2))[0, 0, 0]',
    'jnp.ones(3).at[1.5].set(0)',
    'jnp.ones((2, 3)) + jnp.ones((3, 2))',
    'jnp.matmul(jnp.ones((2, 3)), jnp.ones((2, 3)))',
    'jnp.ones(3).reshape(2, 2)',
    'jnp.concatenate([jnp.ones(2), jnp.ones((2, 2))])',
    'jnp.ones(3).sum(axis=2)',
    'lax.add(jnp.ones(2), jnp.ones(2, jnp.int32))',
    'lax.transpose(jnp.ones((2, 3)), (0, 0))',
    'lax.broadcast_in_dim(jnp.ones(3), (2, 4), (1,))',
    'lax.dot_general(jnp.ones((2, 3)), jnp.ones((2, 3)), (((1,), (0,)), ((), ())))',
    "lax.conv_general_dilated(jnp.ones((1, 1, 5)), jnp.ones((1, 2, 3)), (1,), 'VALID')",
    'lax.sort(jnp.ones((2, 2)), dimension=2)',
    'lax.top_k(jnp.ones(3), 5)',
    'lax.reduce_sum(jnp.ones(3), (1,))',
    'lax.argmax(jnp.ones(3), 0, jnp.float32)',
    'lax.concatenate([jnp.ones(2), jnp.ones(2, jnp.int32)], 0)',
    'lax.gather(jnp.ones(3), jnp.array([[0]]), lax.GatherDimensionNumbers((), (0,), (0,)), (2, 2))',
    'lax.full((2,), jnp.ones(2))',
    'jax.tree.map(lambda x, y: x + y, [1, 2], [1])',
    "jax.tree.map(lambda x, y: x + y, {'a': 1}, {'b': 1})",
    'jax.tree_util.tree_unflatten(jax.tree.structure([1, 2]), [1])',
]

for _start in range(0, len(MISTAKES), 30):
  SNIPPETS[f"mistakes_{_start:03d}"] = (
      MISTAKES_PRELUDE + f"EVERYDAY = {MISTAKES!r}\n"
      + _EVERYDAY_RUNNER.format(start=_start, stop=_start + 30))

# --- vmap / grad machinery: jaxprs of the batching and partial-evaluation rules ----------
SNIPPETS.update({
    "vmap_broadcast_unbatched_operand": (
        "out = jax.make_jaxpr(jax.vmap(lambda x, y: x * y, in_axes=(0, None)))"
        "(jnp.ones((3, 4)), jnp.ones(4))"),
    "vmap_broadcast_batched_scalar": (
        "out = jax.make_jaxpr(jax.vmap(lambda x, y: x * y))(jnp.ones((3, 2, 4)), jnp.ones(3))"),
    "vmap_nested_jit_shared": (
        "g = jax.jit(lambda a: jnp.sin(a) * 2.0)\n"
        "out = jax.make_jaxpr(jax.vmap(lambda x: g(x) + g(x * 2.0)))(jnp.ones((3, 4)))"),
    "vmap_jit_keeps_batch_axis": (
        "g = jax.jit(lambda a, b: a * b)\n"
        "out = jax.make_jaxpr(jax.vmap(g, in_axes=(1, None)))(jnp.ones((4, 3)), jnp.ones(4))"),
    "grad_jit_forwarded_residuals": (
        "h = jax.jit(lambda a, b: (jnp.sin(a) * b, a))\n"
        "out = jax.make_jaxpr(jax.grad(lambda x, y: sum(v.sum() for v in h(x, y)), argnums=(0, 1)))"
        "(jnp.ones(3), jnp.ones(3))"),
    "grad_jit_unused_inner_residual": (
        "out = jax.make_jaxpr(jax.grad(lambda x, y: jnp.floor_divide(x, y).sum(), argnums=(0, 1)))"
        "(jnp.ones((3, 4)), jnp.ones(4))"),
    "grad_jit_no_outputs_printed": (
        "out = jax.make_jaxpr(jax.grad(lambda x: jax.nn.identity(x).sum()))(jnp.ones((3, 4)))"),
    "grad_jit_symbolic_zero_cotangents": (
        "out = jax.make_jaxpr(jax.grad(lambda x, y: jnp.copysign(x, y).sum(), argnums=(0, 1)))"
        "(jnp.ones((3, 4)), jnp.ones(4))"),
    "grad_jit_instantiated_zero_residual": (
        "inner = jax.jit(lambda m, l, o: lax.select_n(m, lax.convert_element_type(o, jnp.float32), l))\n"
        "out = jax.make_jaxpr(jax.grad(jax.jit(lambda l, m: inner(m, l * 2.0, jnp.nan))))(1.0, True)"),
    "grad_jit_pad_zero_residual": (
        "out = jax.make_jaxpr(jax.grad(jax.jit(lambda a: lax.pad(a, 0.0, [(1, 1, 0)]).sum())))"
        "(jnp.ones(3))"),
    # a tangent a rule builds from no input tangent (zeros) is a symbolic zero under linearize:
    # not an output of a known jit; a unused output of a jit drops the residuals only it read
    "grad_jit_custom_jvp_zero_tangent": (
        "@jax.custom_jvp\n"
        "def h(x):\n"
        "  return jnp.round(x), jnp.sin(x)\n"
        "@h.defjvp\n"
        "def hj(p, t):\n"
        "  (x,), (tx,) = p, t\n"
        "  return h(x), (jnp.zeros_like(x), jnp.cos(x) * tx)\n"
        "g = jax.jit(lambda x: h(x))\n"
        "out = [jax.make_jaxpr(jax.grad(lambda x: sum(o.sum() for o in g(x))))(jnp.ones(3)), "
        "jax.make_jaxpr(jax.grad(lambda x: sum(o.sum() for o in h(x))))(jnp.ones(3)), "
        "jax.make_jaxpr(lambda x, t: jax.linearize(g, x)[1](t))(jnp.ones(3), jnp.ones(3))]"),
    "grad_jit_unused_output_residuals": (
        "f = jax.jit(lambda x: (jnp.cos(x)[jnp.arange(3)], jnp.sin(x) * 2))\n"
        "out = [jax.make_jaxpr(jax.grad(lambda x: f(x)[1].sum()))(jnp.ones(4)), "
        "jax.make_jaxpr(jax.grad(lambda x: f(x)[0].sum()))(jnp.ones(4))]"),
    # a scalar constant a JVP rule applies to a tangent is a residual (svd's 0.5)
    "grad_lax_svd_constant_residual": (
        "out = jax.make_jaxpr(jax.grad(lambda a: sum(o.sum() for o in "
        "lax.linalg.svd(a, full_matrices=False))))(jnp.arange(12.0).reshape(4, 3) / 5)"),
    "jacfwd_jaxpr_basis": "out = jax.make_jaxpr(jax.jacfwd(lambda a: jnp.sin(a) * a.sum()))(jnp.ones(3))",
    "jacrev_jaxpr_basis": "out = jax.make_jaxpr(jax.jacrev(lambda a: jnp.cos(a) * a[0]))(jnp.ones(3))",
    "hessian_jaxpr": "out = jax.make_jaxpr(jax.hessian(lambda a: (a ** 3).sum()))(jnp.ones(3))",
    "jacrev_pytree_values": (
        "f = lambda p: {'a': jnp.sin(p['x']) * p['y'][0], 'b': p['y'] ** 2}\n"
        "out = jax.jacrev(f)({'x': jnp.arange(3.), 'y': jnp.ones(2)})"),
    "vmap_broadcast_moved_axis": (
        "out = jax.make_jaxpr(jax.vmap(lambda x, y: x + y, in_axes=(1, 0)))"
        "(jnp.ones((4, 3)), jnp.ones((3, 4)))"),
})
