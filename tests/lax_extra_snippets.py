"""Snippets for lax.platform_dependent, lax.composite and the programs built on them (recorded
under real JAX by tools/record_lax_extra_reference.py, compared by tests/test_lax_extra.py).

Each snippet assigns ``out``; its ``str`` (or the exception type and message) is compared.
"""

_PD = "pd = lambda **kw: (lambda x: lax.platform_dependent(x, **kw))\nx = jnp.arange(12.).reshape(3, 4)\n"
_COMPOSITE = ("double = lax.composite(lambda a, scale=2.0: a * scale + 1, name='my.double')\n"
              "two = lax.composite(lambda a, b: (a * b, a + b), name='my.two', version=2)\n"
              "x = jnp.arange(3.)\n")

_RAGGED = ("x = jnp.arange(24.).reshape(6, 4) / 7\ny = jnp.arange(24.).reshape(2, 4, 3) / 5\n"
           "g = jnp.array([2, 3], jnp.int32)\n")

SNIPPETS = {
    "platform_dependent_cpu_jaxpr": _PD + "out = jax.make_jaxpr(pd(cpu=jnp.sin, default=jnp.cos))(x)",
    "platform_dependent_values": _PD + (
        "out = (pd(cpu=jnp.sin, default=jnp.cos)(x), jax.jit(pd(cuda=jnp.sin, default=jnp.cos))(x),"
        " pd(tpu=jnp.tan, cpu=jnp.sin)(x), jax.jit(pd(cpu=jnp.sin, cuda=jnp.tan, default=jnp.cos))(x))"),
    "platform_dependent_default_jaxpr": _PD + "out = jax.make_jaxpr(pd(cuda=jnp.sin, default=jnp.cos))(x)",
    "platform_dependent_grad_jaxpr": _PD + (
        "out = jax.make_jaxpr(jax.grad(lambda x: pd(cpu=jnp.sin, default=jnp.cos)(x).sum()))(x)"),
    "platform_dependent_vmap_jaxpr": _PD + (
        "out = jax.make_jaxpr(jax.vmap(pd(cpu=jnp.sin, default=jnp.cos)))(x)"),
    "platform_dependent_grad_values": _PD + (
        "out = jax.jit(jax.grad(lambda x: pd(cuda=jnp.sin, default=jnp.cos)(x).sum()))(x)"),
    "platform_dependent_no_branch": _PD + "out = jax.jit(pd(cuda=jnp.sin))(x)",
    "composite_jaxpr": _COMPOSITE + "out = jax.make_jaxpr(lambda x: double(x, scale=3.0))(x)",
    "composite_two_outputs_jaxpr": _COMPOSITE + "out = jax.make_jaxpr(lambda x: two(x, x))(x)",
    "composite_values": _COMPOSITE + (
        "out = (double(x), jax.jit(lambda x: double(x, scale=3.0))(x), two(x, x), jax.jit(two)(x, x))"),
    "composite_grad_raises": _COMPOSITE + "out = jax.grad(lambda x: double(x).sum())(x)",
    "composite_vmap_raises": _COMPOSITE + "out = jax.vmap(double)(jnp.ones((2, 3)))",
    "diagonal_square_jaxpr": "out = jax.make_jaxpr(jnp.diagonal)(jnp.ones((3, 3)))",
    "diagonal_square_int_jaxpr": "out = jax.make_jaxpr(jnp.diagonal)(jnp.ones((3, 3), jnp.int32))",
    "diagonal_other_shapes_jaxpr": (
        "out = (jax.make_jaxpr(jnp.diagonal)(jnp.ones((3, 3), bool)),"
        " jax.make_jaxpr(lambda x: jnp.diagonal(x, 1))(jnp.ones((3, 3))),"
        " jax.make_jaxpr(jnp.diagonal)(jnp.ones((3, 4))), jax.make_jaxpr(jnp.diagonal)(jnp.ones((2, 3, 3))))"),
    "diagonal_square_values": (
        "x = jnp.arange(16.).reshape(4, 4)\n"
        "out = (jnp.diagonal(x), jax.jit(jnp.diagonal)(x), jax.grad(lambda x: (jnp.diagonal(x) ** 2).sum())(x),"
        " jnp.diagonal(x.astype(jnp.int32)), jax.vmap(jnp.diagonal)(jnp.stack([x, -x])))"),
    "ragged_dot_jaxpr": _RAGGED + "out = jax.make_jaxpr(lax.ragged_dot)(x, y, g)",
    "ragged_dot_grad_jaxpr": _RAGGED + (
        "out = jax.make_jaxpr(jax.grad(lambda a, b, c: lax.ragged_dot(a, b, c).sum(), argnums=(0, 1)))(x, y, g)"),
    "ragged_dot_vmap_jaxpr": _RAGGED + (
        "out = jax.make_jaxpr(jax.vmap(lax.ragged_dot))(jnp.stack([x, x]), jnp.stack([y, y]), jnp.stack([g, g]))"),
    "ragged_dot_values": _RAGGED + (
        "out = (lax.ragged_dot(x, y, g), jax.jit(lax.ragged_dot)(x, y, jnp.array([1, 4], jnp.int32)),"
        " jax.vmap(lax.ragged_dot)(jnp.stack([x, x]), jnp.stack([y, y]), jnp.array([[2, 3], [6, 0]], jnp.int32)))"),
    "ragged_dot_grad_values": _RAGGED + (
        "out = jax.grad(lambda a, b: (lax.ragged_dot(a, b, g) ** 2).sum(), argnums=(0, 1))(x, y)"),
    "ragged_dot_general_contracting": _RAGGED + (
        "numbers = lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(((0,), (0,)), ((), ())),"
        " lhs_ragged_dimensions=(0,), rhs_group_dimensions=())\n"
        "out = (lax.ragged_dot_general(x, jnp.arange(18.).reshape(6, 3), g, numbers),"
        " jax.make_jaxpr(lambda a, b, c: lax.ragged_dot_general(a, b, c, numbers))(x, jnp.ones((6, 3)), g))"),
    "ragged_dot_int8": _RAGGED + (
        "out = jax.make_jaxpr(lax.ragged_dot)(x.astype(jnp.int8), y.astype(jnp.int8), g)"),
}
