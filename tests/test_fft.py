"""axle.numpy.fft and lax.fft against numpy.fft (eager and under jit), the printed fft equation and
error messages against JAX's (tests/data/linalg_reference.json), gradients (through real-valued
wrappers) against finite differences."""
import json
import pathlib

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle._src.interpreters import batching
from axle._src.lax.fourier import fft_p
from axle.test_util import check_grads

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "linalg_reference.json").read_text())
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 6)).astype(np.float32)
XC = (X + 1j * RNG.standard_normal((3, 4, 6))).astype(np.complex64)

CASES = [
    ("fft", jnp.fft.fft, np.fft.fft, XC),
    ("fft_real_input", jnp.fft.fft, np.fft.fft, X),
    ("fft_n_axis", lambda a: jnp.fft.fft(a, n=5, axis=1), lambda a: np.fft.fft(a, n=5, axis=1), XC),
    ("ifft", jnp.fft.ifft, np.fft.ifft, XC),
    ("rfft", jnp.fft.rfft, np.fft.rfft, X),
    ("rfft_n", lambda a: jnp.fft.rfft(a, n=9), lambda a: np.fft.rfft(a, n=9), X),
    ("irfft", jnp.fft.irfft, np.fft.irfft, XC),
    ("irfft_odd", lambda a: jnp.fft.irfft(a, n=7), lambda a: np.fft.irfft(a, n=7), XC),
    ("hfft", jnp.fft.hfft, np.fft.hfft, XC),
    ("ihfft", jnp.fft.ihfft, np.fft.ihfft, X),
    ("fft2", jnp.fft.fft2, np.fft.fft2, XC),
    ("ifft2", jnp.fft.ifft2, np.fft.ifft2, XC),
    ("rfft2", jnp.fft.rfft2, np.fft.rfft2, X),
    ("irfft2", jnp.fft.irfft2, np.fft.irfft2, XC),
    ("fftn", jnp.fft.fftn, np.fft.fftn, XC),
    ("fftn_s_axes", lambda a: jnp.fft.fftn(a, s=(3, 8), axes=(2, 0)), lambda a: np.fft.fftn(a, s=(3, 8), axes=(2, 0)), XC),
    ("ifftn", jnp.fft.ifftn, np.fft.ifftn, XC),
    ("rfftn", jnp.fft.rfftn, np.fft.rfftn, X),
    ("irfftn", jnp.fft.irfftn, np.fft.irfftn, XC),
    ("fftn_4d", jnp.fft.fftn, np.fft.fftn, XC.reshape(3, 2, 2, 6)),
    ("rfftn_4d", jnp.fft.rfftn, np.fft.rfftn, X.reshape(3, 2, 2, 6)),
    ("irfftn_4d", jnp.fft.irfftn, np.fft.irfftn, XC.reshape(3, 2, 2, 6)),
    ("fftshift", jnp.fft.fftshift, np.fft.fftshift, X),
    ("ifftshift_axis", lambda a: jnp.fft.ifftshift(a, axes=(0, 2)), lambda a: np.fft.ifftshift(a, axes=(0, 2)), X),
]


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("name,fun,reference,x", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, fun, reference, x, norm):
  if norm is not None and "shift" in name:
    pytest.skip("no norm argument")
  f = fun if norm is None else (lambda a: fun(a, norm=norm)) if name in ("fft", "ifft", "rfft", "irfft", "hfft",
                                                                         "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
                                                                         "fftn", "ifftn", "rfftn", "irfftn") else None
  if f is None:
    pytest.skip("covered with the default norm")
  ref = reference if norm is None else (lambda a: reference(a, norm=norm))
  expected = ref(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
  eager = f(x)
  jitted = axle.jit(f)(x)
  expected_dtype = np.float32 if expected.dtype.kind == "f" else np.complex64
  assert eager.dtype == expected_dtype and jitted.dtype == expected_dtype
  scale = np.abs(expected).max() + 1
  np.testing.assert_allclose(np.asarray(eager), expected, atol=2e-5 * scale, rtol=1e-4)
  np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), atol=2e-5 * scale, rtol=1e-4)


def test_dtypes():
  assert jnp.fft.fft(np.arange(4)).dtype == np.complex64
  assert jnp.fft.fft(np.ones(4, bool)).dtype == np.complex64
  assert jnp.fft.fft(np.ones(4, np.float16)).dtype == np.complex64
  assert jnp.fft.irfft(np.ones(4, np.float16)).dtype == np.float32
  assert jnp.fft.rfft(np.arange(4)).dtype == np.complex64


def test_fftfreq():
  np.testing.assert_allclose(jnp.fft.fftfreq(5, 0.5), np.fft.fftfreq(5, 0.5), rtol=1e-6)
  np.testing.assert_allclose(jnp.fft.fftfreq(6), np.fft.fftfreq(6), rtol=1e-6)
  np.testing.assert_allclose(jnp.fft.rfftfreq(7, 2.0), np.fft.rfftfreq(7, 2.0), rtol=1e-6)
  assert jnp.fft.fftfreq(4).dtype == np.float32
  assert jnp.fft.fftfreq(4, dtype=np.float16).dtype == np.float16


@pytest.mark.parametrize("name,args", [
    ("fft", (lambda a: lax.fft(a, lax.FftType.FFT, (4,)), np.ones((3, 4), np.complex64))),
    ("ifft", (lambda a: lax.fft(a, "ifft", (3, 4)), np.ones((3, 4), np.complex64))),
    ("rfft", (lambda a: lax.fft(a, lax.FftType.RFFT, (4,)), np.ones((3, 4), np.float32))),
    ("irfft", (lambda a: lax.fft(a, lax.FftType.IRFFT, (3, 6)), np.ones((3, 4), np.complex64))),
])
def test_printed_fft_equation(name, args):
  fun, x = args
  # JAX wraps lax.fft in a jit named fft; the fft equation itself must print the same.
  ours = [l.strip() for l in str(axle.make_jaxpr(fun)(x)).splitlines() if "= fft[" in l]
  theirs = [l.strip() for l in REFERENCE["jaxprs"][name].splitlines() if "= fft[" in l]
  assert ours == theirs and ours


ERROR_CASES = {
    "fft_lengths": lambda: lax.fft(np.ones((3,), np.complex64), lax.FftType.FFT, (4,)),
    "fft_rank": lambda: lax.fft(np.ones((3,), np.complex64), lax.FftType.FFT, (1, 1, 3)),
    "rfft_complex": lambda: jnp.fft.rfft(np.ones(4, np.complex64)),
    "fft_n0": lambda: jnp.fft.fft(np.ones(4, np.float32), n=0),
    "fft_norm": lambda: jnp.fft.fft(np.ones(4, np.float32), norm="bad"),
    "fftn_repeated": lambda: jnp.fft.fftn(np.ones((4, 4), np.float32), axes=(0, 0)),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_jax(name):
  kind, message = REFERENCE["errors"][name]
  with pytest.raises(Exception) as info:
    ERROR_CASES[name]()
  assert type(info.value).__name__ == kind
  assert str(info.value) == message


def _ri(z):
  return jnp.real(z) + 0.3 * jnp.imag(z)


@pytest.mark.parametrize("name,fun,nargs", [
    ("fft", lambda x: _ri(jnp.fft.fft(x)), 1),
    ("fft_complex", lambda x, y: _ri(jnp.fft.fft(x + 1j * y)), 2),
    ("ifft2", lambda x, y: _ri(jnp.fft.ifft2(x + 1j * y)), 2),
    ("rfft", lambda x: _ri(jnp.fft.rfft(x)), 1),
    ("rfftn", lambda x: _ri(jnp.fft.rfftn(x)), 1),
    ("irfft_even", lambda x, y: jnp.fft.irfft(x + 1j * y), 2),
    ("irfft_odd", lambda x, y: jnp.fft.irfft(x + 1j * y, n=5), 2),
    ("irfft2", lambda x, y: jnp.fft.irfft2(x + 1j * y), 2),
])
def test_grads(name, fun, nargs):
  axle.config.update("jax_enable_x64", True)
  try:
    rng = np.random.default_rng(1)
    args = [rng.standard_normal((4, 3)) for _ in range(nargs)]
    check_grads(fun, args, order=2, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)
  finally:
    axle.config.update("jax_enable_x64", False)


def test_batching_rule():
  x = XC
  out, dim = batching.primitive_batchers[fft_p]([x], [1], fft_type=lax.FftType.FFT, fft_lengths=(6,))
  for i in range(x.shape[1]):
    np.testing.assert_allclose(np.take(np.asarray(out), i, axis=dim), np.fft.fft(x[:, i]), atol=1e-4)


def test_lax_fft_is_staged_as_jit_named_fft_as_jax():
  # Expected text recorded from JAX 0.10.2 (make_jaxpr of lax.fft and of its vmap).
  import axle
  from axle import lax
  import axle.numpy as jnp
  text = str(axle.make_jaxpr(lambda x: lax.fft(x, "fft", (8,)))(jnp.ones(8)))
  assert text == """{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          c:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[8] = fft[fft_lengths=(8,) fft_type=0] c
        in (b,) }
    ] a
  in (b,) }"""
  batched = str(axle.make_jaxpr(axle.vmap(jnp.fft.fft))(jnp.ones((3, 8), jnp.complex64)))
  assert batched == """{ lambda ; a:c64[3,8]. let
    b:c64[3,8] = jit[
      name=fft
      jaxpr={ lambda ; a:c64[3,8]. let
          b:c64[3,8] = jit[
            name=fft
            jaxpr={ lambda ; a:c64[3,8]. let
                b:c64[3,8] = fft[fft_lengths=(8,) fft_type=0] a
              in (b,) }
          ] a
        in (b,) }
    ] a
  in (b,) }"""


def test_jnp_fft_of_real_and_integer_inputs_converts_inside_the_jit_as_jax():
  # Expected text recorded from JAX 0.10.2: jnp.fft leaves the conversion to lax.fft, inside its
  # jit equation (so an eager jnp.fft.fft of a real array is one compiled program)
  # (the text of lax.fft's jaxpr, checked against JAX's above)
  real = jnp.ones(8, jnp.float32)
  assert str(axle.make_jaxpr(jnp.fft.fft)(real)) == str(
      axle.make_jaxpr(lambda x: lax.fft(x, "fft", (8,)))(real))
  assert "convert_element_type" in str(axle.make_jaxpr(jnp.fft.fft)(real))
  text = str(axle.make_jaxpr(jnp.fft.rfft)(jnp.ones(8, jnp.int32)))
  assert text == """{ lambda ; a:i32[8]. let
    b:c64[5] = jit[
      name=fft
      jaxpr={ lambda ; a:i32[8]. let
          c:f32[8] = convert_element_type[new_dtype=float32 weak_type=False] a
          b:c64[5] = fft[fft_lengths=(8,) fft_type=2] c
        in (b,) }
    ] a
  in (b,) }"""
  with axle.enable_x64(True):  # (int32 and float16 to complex64, int64 to complex128, as JAX)
    for dtype, complex_dtype in [(np.int32, np.complex64), (np.float16, np.complex64),
                                 (np.int64, np.complex128)]:
      assert jnp.fft.fft(jnp.ones(4, dtype)).dtype == complex_dtype
  x = jnp.asarray(np.linspace(-1.0, 1.0, 16, dtype=np.float32))
  np.testing.assert_array_equal(np.asarray(jnp.fft.fft(x)), np.asarray(axle.jit(jnp.fft.fft)(x)))
