"""Records what real JAX prints for the transformation rules (JVP, transpose, batching) of the
structural and indexing primitives (structural.py and slicing.py).

    $JAX_PYTHON tools/record_structural_transforms_reference.py

Writes tests/data/structural_transforms_reference.json: for each snippet below, its source and
the ``str`` of ``out`` (or the exception type and message). tests/test_structural_transforms.py
runs the same sources under axle (``jax`` = axle, ``jnp`` = axle.numpy, ``lax`` = axle.lax,
``np`` = NumPy) and compares. Snippets print jaxprs of ``grad``/``vjp``/``jvp``/``vmap`` and
values computed by them.
"""
import json
import os

PRELUDE = '''
x23 = np.arange(6, dtype=np.float32).reshape(2, 3)
x34 = np.arange(12, dtype=np.float32).reshape(3, 4)
x3 = np.array([1., 2., 3.], np.float32)
j34 = jnp.asarray(x34)
j3 = jnp.asarray(x3)
def vjp_jaxpr(f, *args):
  return jax.make_jaxpr(lambda *a: jax.vjp(f, *a[:-1])[1](a[-1]))(*args, f(*args))
def jvp_jaxpr(f, *args):
  return jax.make_jaxpr(lambda *a: jax.jvp(f, a[:len(a) // 2], a[len(a) // 2:]))(*args, *args)
'''

SNIPPETS = {
    # --- grad / vjp jaxprs ------------------------------------------------------------------------
    "vjp_broadcast_in_dim": "out = vjp_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)), x23)",
    "vjp_broadcast_in_dim_unit": "out = vjp_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), np.ones((2, 1), np.float32))",
    "vjp_broadcast_in_dim_scalar": "out = vjp_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3), ()), np.float32(2))",
    "vjp_expand_dims": "out = vjp_jaxpr(lambda x: lax.expand_dims(x, (0, 2)), x23)",
    "vjp_reshape": "out = vjp_jaxpr(lambda x: lax.reshape(x, (3, 2)), x23)",
    "vjp_reshape_dims": "out = vjp_jaxpr(lambda x: lax.reshape(x, (6,), (1, 0)), x23)",
    "vjp_squeeze": "out = vjp_jaxpr(lambda x: lax.squeeze(x, (0, 2)), np.ones((1, 3, 1), np.float32))",
    "vjp_transpose": "out = vjp_jaxpr(lambda x: lax.transpose(x, (2, 0, 1)), np.ones((2, 3, 4), np.float32))",
    "vjp_rev": "out = vjp_jaxpr(lambda x: lax.rev(x, (1,)), x23)",
    "vjp_concatenate": "out = vjp_jaxpr(lambda x, y: lax.concatenate([x, y, x], 1), x23, np.ones((2, 1), np.float32))",
    "vjp_concatenate_const": "out = vjp_jaxpr(lambda x: lax.concatenate([x, np.zeros(3, np.float32)], 0), x3)",
    "vjp_split": "out = vjp_jaxpr(lambda x: tuple(lax.split(x, (1, 2), 1)), x23)",
    "vjp_pad": "out = vjp_jaxpr(lambda x, v: lax.pad(x, v, [(1, -1, 1), (0, 2, 0)]), x23, np.float32(0))",
    "vjp_pad_edge": "out = vjp_jaxpr(lambda x: lax.pad(x, np.float32(0), [(1, 2, 0), (0, 0, 0)]), x23)",
    "vjp_slice": "out = vjp_jaxpr(lambda x: lax.slice(x, (0, 1), (2, 3)), x23)",
    "vjp_slice_strided": "out = vjp_jaxpr(lambda x: lax.slice(x, (0, 0), (3, 4), (2, 3)), x34)",
    "vjp_dynamic_slice": "out = vjp_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2)), x23, np.int32(1))",
    "vjp_dynamic_update_slice": "out = vjp_jaxpr(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)), x23, np.ones((1, 2), np.float32), np.int32(1))",
    "vjp_gather_index": "out = vjp_jaxpr(lambda x, i: x[i], x34, np.array([2, 0, 2], np.int32))",
    "vjp_gather_scalar": "out = vjp_jaxpr(lambda x, i: x[i], x34, np.int32(1))",
    "vjp_gather_lax": "out = vjp_jaxpr(lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 4), mode='clip'), x34, np.array([[2], [0]], np.int32))",
    "vjp_scatter_add": "out = vjp_jaxpr(lambda x, u: jnp.asarray(x).at[np.array([0, 2, 0])].add(u), x34, np.ones((3, 4), np.float32))",
    "vjp_scatter": "out = vjp_jaxpr(lambda x, u: jnp.asarray(x).at[np.array([0, 2, 0])].set(u), x34, np.ones((3, 4), np.float32))",
    "vjp_scatter_unique": "out = vjp_jaxpr(lambda x, u: jnp.asarray(x).at[np.array([0, 2])].set(u, unique_indices=True), x34, np.ones((2, 4), np.float32))",
    "grad_iota_float": "out = jax.make_jaxpr(jax.grad(lambda x: (x * lax.iota(np.float32, 3)).sum()))(x3)",
    # --- jvp jaxprs -------------------------------------------------------------------------------
    "jvp_gather": "out = jvp_jaxpr(lambda x: x[np.array([2, 0])], x34)",
    "jvp_dynamic_slice": "out = jax.make_jaxpr(lambda x, t, i: jax.jvp(lambda x: lax.dynamic_slice(x, (i, 0), (1, 3)), (x,), (t,)))(x23, x23, np.int32(1))",
    "jvp_pad": "out = jvp_jaxpr(lambda x, v: lax.pad(x, v, [(1, 0, 1)]), x3, np.float32(0))",
    "jvp_concatenate_partial": "out = jax.make_jaxpr(lambda x, t, y: jax.jvp(lambda x: lax.concatenate([x, y], 0), (x,), (t,)))(x3, x3, x3)",
    "jvp_scatter_mul": "out = jvp_jaxpr(lambda x: x.at[np.array([0, 2])].multiply(np.float32(3)), x3)",
    "jvp_scatter_max": "out = jvp_jaxpr(lambda x, u: x.at[np.array([0, 2, 0])].max(u), x3, x3)",
    # --- values -----------------------------------------------------------------------------------
    "grad_scatter_set_dup": "out = jax.grad(lambda x, u: (x.at[np.array([0, 2, 0])].set(u) * np.arange(1., 4., dtype=np.float32)).sum(), (0, 1))(x3, np.array([5., 6., 7.], np.float32))",
    "grad_scatter_max_ties": "out = jax.grad(lambda x, u: x.at[np.array([0, 0, 1])].max(u).sum(), (0, 1))(np.array([1., 2., 3.], np.float32), np.array([1., 1., 0.], np.float32))",
    "grad_scatter_min_ties": "out = jax.grad(lambda x, u: x.at[np.array([0, 0, 1, 2])].min(u).sum(), (0, 1))(np.array([1., 2., 3.], np.float32), np.array([1., 0.5, 2., 3.], np.float32))",
    "grad_scatter_mul": "out = jax.grad(lambda x, u: x.at[np.array([0, 2])].multiply(u, unique_indices=True).sum(), (0, 1))(x3, np.array([5., 6.], np.float32))",
    "grad_gather_dup": "out = jax.grad(lambda x: x[np.array([0, 0, 2, -1])].sum())(x3)",
    "grad_gather_oob_fill": "out = jax.grad(lambda x: x.at[np.array([0, 5, 2])].get(mode='fill', fill_value=0).sum())(x3)",
    "grad_gather_oob_clip": "out = jax.grad(lambda x: x.at[np.array([0, 5, 2])].get(mode='clip').sum())(x3)",
    "grad_dynamic_slice_clamped": "out = jax.grad(lambda x: lax.dynamic_slice(x, (2,), (2,)).sum())(x3)",
    "grad_dus_clamped": "out = jax.grad(lambda x, u: (lax.dynamic_update_slice(x, u, (5,)) * x).sum(), (0, 1))(x3, np.array([7., 8.], np.float32))",
    # --- vmap jaxprs ------------------------------------------------------------------------------
    "vmap_broadcast_in_dim": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), in_axes=1))(x34)",
    "vmap_reshape": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.reshape(x, (3, 1)), in_axes=1))(x34)",
    "vmap_squeeze": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.squeeze(x, (0,)), in_axes=2))(np.ones((1, 3, 4), np.float32))",
    "vmap_transpose": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.transpose(x, (1, 0)), in_axes=1))(np.ones((2, 3, 4), np.float32))",
    "vmap_rev": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.rev(x, (0,)), in_axes=0))(x34)",
    "vmap_concatenate": "out = jax.make_jaxpr(jax.vmap(lambda x, y: lax.concatenate([x, y], 0), in_axes=(1, None)))(x34, x3)",
    "vmap_pad": "out = jax.make_jaxpr(jax.vmap(lambda x, v: lax.pad(x, v, [(1, 1, 1)])))(x34, x3)",
    "vmap_pad_unbatched_value": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.pad(x, np.float32(0), [(1, 1, 1)]), in_axes=1))(x34)",
    "vmap_slice": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.slice(x, (1,), (3,)), in_axes=1))(x34)",
    "vmap_dynamic_slice_index": "out = jax.make_jaxpr(jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), in_axes=(None, 0)))(x3, np.array([0, 1], np.int32))",
    "vmap_dynamic_slice_operand": "out = jax.make_jaxpr(jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), in_axes=(0, None)))(x34, np.int32(1))",
    "vmap_dynamic_slice_both": "out = jax.make_jaxpr(jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,))))(x34, np.array([0, 1, 2], np.int32))",
    "vmap_dus_both": "out = jax.make_jaxpr(jax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))))(x34, np.ones((3, 2), np.float32), np.array([0, 1, 2], np.int32))",
    "vmap_dus_operand": "out = jax.make_jaxpr(jax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)), in_axes=(0, None, None)))(x34, np.ones(2, np.float32), np.int32(1))",
    "vmap_index_batched_i": "out = jax.make_jaxpr(jax.vmap(lambda i: j34[i]))(np.array([2, 0], np.int32))",
    "vmap_index_both": "out = jax.make_jaxpr(jax.vmap(lambda x, i: x[i]))(x34, np.array([2, 0, 1], np.int32))",
    "vmap_index_array_operand": "out = jax.make_jaxpr(jax.vmap(lambda x: x[np.array([2, 0])], in_axes=1))(x34)",
    "vmap_gather_both": "out = jax.make_jaxpr(jax.vmap(lambda x, i: x[i]))(x34, np.array([[2, 0], [1, 1], [0, 3]], np.int32))",
    "vmap_scatter_add_both": "out = jax.make_jaxpr(jax.vmap(lambda x, i, u: x.at[i].add(u)))(x34, np.array([[2, 0], [1, 1], [0, 3]], np.int32), x23.T)",
    "vmap_scatter_add_updates": "out = jax.make_jaxpr(jax.vmap(lambda x, i, u: x.at[i].add(u), in_axes=(None, None, 0)))(x3, np.array([0, 2], np.int32), np.ones((5, 2), np.float32))",
    "vmap_split": "out = jax.make_jaxpr(jax.vmap(lambda x: lax.split(x, (1, 2), 0), in_axes=1))(x34)",
    # --- vmap values ------------------------------------------------------------------------------
    "vmap_gather_values": "out = jax.vmap(lambda x, i: x[i])(x34, np.array([[2, 0], [1, 1], [0, 3]], np.int32))",
    "vmap_index_values": "out = jax.vmap(lambda i: j34[i, 1:])(np.array([2, 0, -1], np.int32))",
    "vmap_scatter_values": "out = jax.vmap(lambda x, i, u: x.at[i].set(u))(x34, np.array([[2, 0], [1, 1], [0, 3]], np.int32), x23.T)",
    "vmap_grad_gather": "out = jax.vmap(jax.grad(lambda x, i: (x[i] ** 2).sum()), in_axes=(None, 0))(x3, np.array([[0, 1], [2, 2]], np.int32))",
    "grad_vmap_gather": "out = jax.grad(lambda x: jax.vmap(lambda i: x[i] * x[i])(np.array([0, 2, 2], np.int32)).sum())(x3)",
}


def main():
  import sys
  sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
  import jax
  from snippet_recorder import run_snippet
  results = {}
  for name, source in SNIPPETS.items():
    results[name] = dict(source=source, **run_snippet(PRELUDE + "\n" + source))
  here = os.path.dirname(os.path.abspath(__file__))
  path = os.path.join(here, "..", "tests", "data", "structural_transforms_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "prelude": PRELUDE, "results": results}, f,
              indent=1, sort_keys=True)
  print(f"wrote {len(results)} results to {path}")


if __name__ == "__main__":
  main()
