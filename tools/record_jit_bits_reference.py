"""Records the exact bytes real JAX's ``jax.jit(f)`` returns for a set of small functions
(run under JAX 0.10.2).

    $JAX_PYTHON tools/record_jit_bits_reference.py

Writes tests/data/jit_bits_reference.json: for every case its source (defining ``f``), its inputs
(dtype, shape and raw bytes, so the test needs no matching random generator) and, per output
leaf, JAX's dtype, shape and raw bytes (key arrays through ``key_data``). tests/test_jit_bits.py
runs the same source under axle's jit and compares the bytes exactly: these cases differed by an
ulp or more before axle computed them in JAX's order of operations.
"""
import json
import os
import zlib

import jax  # noqa: E402  (this script runs under real JAX, never under pytest)
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "..", "tests", "data", "jit_bits_reference.json")

# name -> (source defining f, input specs). A spec is "dtype[shape]" with an optional ":kind":
# "pos" (positive), "unit" (in (0, 1)), "spd" (symmetric positive definite), "int:lo,hi".
CASES = {
    "log10_f32": ("def f(x):\n  return jnp.log10(x)", ["float32[3,4]:pos"]),
    "log10_bf16": ("def f(x):\n  return jnp.log10(x)", ["bfloat16[7]:pos"]),
    "log10_c64": ("def f(x):\n  return jnp.log10(x)", ["complex64[5]"]),
    "log2_c64": ("def f(x):\n  return jnp.log2(x)", ["complex64[5]"]),
    "matrix_power_3": ("def f(x):\n  return jnp.linalg.matrix_power(x, 3)", ["float32[3,3]"]),
    "matrix_power_7": ("def f(x):\n  return jnp.linalg.matrix_power(x, 7)", ["float32[4,4]"]),
    "multi_dot": ("def f(x, y, z):\n  return jnp.linalg.multi_dot([x, y, z])",
                  ["float32[3,4]", "float32[4,5]", "float32[5,2]"]),
    "multi_dot_vectors": ("def f(x, y, z):\n  return jnp.linalg.multi_dot([x, y, z])",
                          ["float32[6]", "float32[6,5]", "float32[5]"]),
    "pinv_wide": ("def f(x):\n  return jnp.linalg.pinv(x)", ["float32[3,4]"]),
    "pinv_tall_batched_c64": ("def f(x):\n  return jnp.linalg.pinv(x)", ["complex64[2,5,3]"]),
    "pinv_rtol": ("def f(x):\n  return jnp.linalg.pinv(x, rtol=0.1)", ["float32[4,4]"]),
    "pinv_jvp_wide": ("def f(x, t):\n  return jax.jvp(jnp.linalg.pinv, (x,), (t,))",
                      ["float32[3,4]", "float32[3,4]"]),
    "pinv_jvp_tall": ("def f(x, t):\n  return jax.jvp(jnp.linalg.pinv, (x,), (t,))",
                      ["float32[5,3]", "float32[5,3]"]),
    "attention": ("def f(q, k, v):\n  return jax.nn.dot_product_attention(q, k, v)",
                  ["float32[1,4,2,8]", "float32[1,4,2,8]", "float32[1,4,2,8]"]),
    "attention_grouped_causal": (
        "def f(q, k, v):\n  return jax.nn.dot_product_attention(q, k, v, is_causal=True)",
        ["float32[2,5,4,8]", "float32[2,5,2,8]", "float32[2,5,2,8]"]),
    "attention_bias_scale": (
        "def f(q, k, v, b):\n  return jax.nn.dot_product_attention(q, k, v, bias=b, scale=0.5)",
        ["float32[1,4,2,8]", "float32[1,4,2,8]", "float32[1,4,2,8]", "float32[1,2,4,4]"]),
    "attention_seqlen_window_residual": (
        "def f(q, k, v):\n  return jax.nn.dot_product_attention(\n"
        "      q, k, v, query_seq_lengths=jnp.array([3, 5], jnp.int32),\n"
        "      key_value_seq_lengths=jnp.array([4, 2], jnp.int32), local_window_size=(1, 2),\n"
        "      return_residual=True)",
        ["float32[2,5,4,8]", "float32[2,6,2,8]", "float32[2,6,2,8]"]),
    "attention_bf16": ("def f(q, k, v):\n  return jax.nn.dot_product_attention(q, k, v)",
                       ["bfloat16[1,4,2,8]", "bfloat16[1,4,2,8]", "bfloat16[1,4,2,8]"]),
    "arange_float_step": ("def f(x):\n  return x * jnp.arange(0.0, 2.0, 0.5) + jnp.arange(0, 1, 0.1)[:4]",
                          ["float32[3,4]"]),
    "arange_uint8_negative_start": ("def f(x):\n  return x + jnp.arange(-3, 3, 2, dtype=jnp.uint8)",
                                    ["uint8[3]:int:0,9"]),
    "owens_t": ("def f(h, a):\n  return jax.scipy.special.owens_t(h, a)",
                ["float32[7]", "float32[7]:pos"]),
    "owens_t_grad": ("def f(h, a):\n  return jax.grad(lambda h, a: jax.scipy.special.owens_t(h, a).sum(),"
                     " argnums=(0, 1))(h, a)", ["float32[7]", "float32[7]:pos"]),
    "bernoulli": ("def f(x):\n  return jax.scipy.special.bernoulli(24) * x[0]", ["float32[3]"]),
    "rfft_n_ortho": ("def f(x):\n  return jnp.fft.rfft(x, n=6, norm='ortho')", ["float32[8]"]),
    "fft2_ortho": ("def f(x):\n  return jnp.fft.fft2(x, norm='ortho')", ["complex64[3,5]"]),
    "irfft_ortho": ("def f(x):\n  return jnp.fft.irfft(x, norm='ortho')", ["complex64[5]"]),
    "hfft_ortho": ("def f(x):\n  return jnp.fft.hfft(x, norm='ortho')", ["complex64[5]"]),
    "ihfft_forward": ("def f(x):\n  return jnp.fft.ihfft(x, norm='forward')", ["float32[7]"]),
    "compress_size": ("def f(x, y):\n  return jnp.compress(x > 0, y, size=3, fill_value=0.0)",
                      ["float32[6]", "float32[6]"]),
    "random_gamma": ("def f(x):\n  return jax.random.gamma(jax.random.key(0), 2.0, (4,)) * x",
                     ["float32[4]"]),
    "random_beta": ("def f(x):\n  return jax.random.beta(jax.random.key(0), 2.0, 3.0, (4,)) + x",
                    ["float32[4]"]),
    "einsum_3ops": ("def f(x, y, z):\n  return jnp.einsum('ij,jk,k->i', x, y, z)",
                    ["float32[3,4]", "float32[4,2]", "float32[2]"]),
    "einsum_mixed_dtypes": ("def f(x, y):\n  return jnp.einsum('ij,jk->ik', x, y)",
                            ["int8[3,4]:int:-5,5", "float32[4,2]"]),
    "einsum_trace_sum": ("def f(x, y):\n  return jnp.einsum('ii,ij->j', x, y)",
                         ["float32[5,5]", "float32[5,3]"]),
}


def make_input(spec, rng):
  """The numpy array a spec describes (the same in the recorder and in the test)."""
  head, _, kind = spec.partition(":")
  dtype_name, shape_text = head.rstrip("]").split("[")
  shape = tuple(int(d) for d in shape_text.split(",") if d)
  dtype = np.dtype(jnp.dtype(dtype_name))
  if kind.startswith("int"):
    lo, hi = (int(v) for v in kind[4:].split(","))
    return rng.integers(lo, hi, shape).astype(dtype)
  x = rng.standard_normal(shape)
  if dtype.kind == "c":
    x = x + 1j * rng.standard_normal(shape)
  if kind == "pos":
    x = np.abs(x) + 0.1
  elif kind == "unit":
    x = rng.uniform(0.05, 0.95, shape)
  elif kind == "spd":
    x = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
  return x.astype(dtype)


def _leaf_record(leaf):
  if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key):
    leaf = jax.random.key_data(leaf)
  a = np.asarray(leaf)
  return {"dtype": str(a.dtype), "shape": list(a.shape), "hex": a.tobytes().hex()}


def record_case(name, source, specs):
  rng = np.random.default_rng([0, zlib.crc32(name.encode())])
  inputs = [make_input(s, rng) for s in specs]
  scope = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
  exec(source, scope)
  out = jax.jit(scope["f"])(*inputs)
  return {
      "source": source,
      "inputs": [{"dtype": str(a.dtype), "shape": list(a.shape), "hex": a.tobytes().hex()} for a in inputs],
      "outputs": [_leaf_record(leaf) for leaf in jax.tree_util.tree_leaves(out)],
  }


def main():
  jax.config.update("jax_platforms", "cpu")
  records = {name: record_case(name, source, specs) for name, (source, specs) in CASES.items()}
  with open(OUT_PATH, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": records}, f, indent=1, sort_keys=True)
    f.write("\n")
  print(f"wrote {len(records)} cases to {os.path.normpath(OUT_PATH)}")


if __name__ == "__main__":
  main()
