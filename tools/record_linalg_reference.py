"""Records JAX 0.10.2's printed jaxprs and error messages for the linalg and fft primitives.

Run under real JAX: $JAX_PYTHON tools/record_linalg_reference.py
Writes tests/data/linalg_reference.json (read by tests/test_linalg.py and tests/test_fft.py).
"""
import json
import pathlib

import jax
import jax.numpy as jnp
from jax import lax

x = jnp.ones((3, 3))
xb = jnp.ones((2, 4, 3))
c = jnp.ones((3, 4), jnp.complex64)

JAXPRS = {
    "cholesky": (lambda a: lax.linalg.cholesky_p.bind(a), (x,)),
    "triangular_solve": (lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                                  transpose_a=True), (x, x[:, :2])),
    "lu": (lax.linalg.lu, (x,)),
    "lu_pivots_to_permutation": (lambda p: lax.linalg.lu_pivots_to_permutation(p, 5),
                                 (jnp.zeros((3,), jnp.int32),)),
    "qr": (lambda a: lax.linalg.qr(a, full_matrices=False), (xb,)),
    "eigh": (lambda a: lax.linalg.eigh(a, symmetrize_input=False), (x,)),
    "svd": (lax.linalg.svd, (xb,)),
    "svd_novec": (lambda a: lax.linalg.svd(a, compute_uv=False), (xb,)),
    "eig": (lax.linalg.eig, (x,)),
    "householder_product": (lax.linalg.householder_product, (xb, xb[:, 0, :])),
    "fft": (lambda a: lax.fft(a, lax.FftType.FFT, (4,)), (c,)),
    "ifft": (lambda a: lax.fft(a, "ifft", (3, 4)), (c,)),
    "rfft": (lambda a: lax.fft(a, lax.FftType.RFFT, (4,)), (jnp.ones((3, 4)),)),
    "irfft": (lambda a: lax.fft(a, lax.FftType.IRFFT, (3, 6)), (c,)),
}

ERRORS = {
    "tri_incompatible": lambda: lax.linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((4, 2)), left_side=True),
    "tri_nonsquare": lambda: lax.linalg.triangular_solve(jnp.ones((3, 4)), jnp.ones((3, 2)), left_side=True),
    "tri_dtype": lambda: lax.linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((3, 3), jnp.float16), left_side=True),
    "lu_rank": lambda: lax.linalg.lu(jnp.ones((3,))),
    "lu_int": lambda: lax.linalg.lu(jnp.ones((3, 3), jnp.int32)),
    "qr_rank": lambda: lax.linalg.qr(jnp.ones((3,))),
    "svd_rank": lambda: lax.linalg.svd(jnp.ones((3,))),
    "eig_nonsquare": lambda: lax.linalg.eig(jnp.ones((2, 3))),
    "inv_nonsquare": lambda: jnp.linalg.inv(jnp.ones((2, 3))),
    "inv_list": lambda: jnp.linalg.inv([[1., 2.], [3., 4.]]),
    "det_rank": lambda: jnp.linalg.det(jnp.ones((3,))),
    "solve_rank": lambda: jnp.linalg.solve(jnp.ones((3,)), jnp.ones((3,))),
    "solve_mismatch": lambda: jnp.linalg.solve(jnp.ones((3, 3)), jnp.ones((4,))),
    "qr_mode": lambda: jnp.linalg.qr(jnp.ones((3, 3)), mode="foo"),
    "norm_ord": lambda: jnp.linalg.norm(jnp.ones((3, 3)), ord=3),
    "matrix_power_nonsquare": lambda: jnp.linalg.matrix_power(jnp.ones((2, 3)), 2),
    "fft_lengths": lambda: lax.fft(jnp.ones((3,), jnp.complex64), lax.FftType.FFT, (4,)),
    "fft_rank": lambda: lax.fft(jnp.ones((3,), jnp.complex64), lax.FftType.FFT, (1, 1, 3)),
    "rfft_complex": lambda: jnp.fft.rfft(jnp.ones(4, jnp.complex64)),
    "fft_n0": lambda: jnp.fft.fft(jnp.ones(4), n=0),
    "fft_norm": lambda: jnp.fft.fft(jnp.ones(4), norm="bad"),
    "fftn_repeated": lambda: jnp.fft.fftn(jnp.ones((4, 4)), axes=(0, 0)),
}


def main():
  out = {"jaxprs": {}, "errors": {}}
  for name, (fun, args) in JAXPRS.items():
    out["jaxprs"][name] = str(jax.make_jaxpr(fun)(*args))
  for name, fun in ERRORS.items():
    try:
      fun()
      out["errors"][name] = None
    except Exception as e:  # noqa: BLE001
      out["errors"][name] = [type(e).__name__, str(e).split("\n--------")[0]]
  path = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "linalg_reference.json"
  path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
  print(f"wrote {path}")


if __name__ == "__main__":
  main()
