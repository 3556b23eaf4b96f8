"""axle.scipy.fft (jax.scipy.fft): type-2 DCTs against SciPy's definitions."""
import numpy as np
import pytest
import scipy.fft

import axle
import axle.scipy.fft as afft


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("axis", [0, -1])
def test_dct_idct_match_scipy(norm, axis):
  x = np.random.RandomState(0).randn(4, 6).astype(np.float32)
  np.testing.assert_allclose(afft.dct(x, axis=axis, norm=norm), scipy.fft.dct(x, axis=axis, norm=norm),
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(afft.idct(x, axis=axis, norm=norm), scipy.fft.idct(x, axis=axis, norm=norm),
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(afft.dctn(x, norm=norm), scipy.fft.dctn(x, norm=norm), rtol=1e-5, atol=1e-4)
  np.testing.assert_allclose(afft.idct(afft.dct(x, n=8, axis=axis, norm=norm), axis=axis, norm=norm),
                             scipy.fft.idct(scipy.fft.dct(x, n=8, axis=axis, norm=norm), axis=axis, norm=norm),
                             rtol=1e-5, atol=1e-5)


def test_dct_under_jit_and_grad():
  x = np.linspace(-1, 1, 5).astype(np.float32)
  np.testing.assert_allclose(axle.jit(afft.dct)(x), scipy.fft.dct(x), rtol=1e-5, atol=1e-5)
  grad = axle.grad(lambda v: afft.dct(v, norm="ortho")[1])(x)
  np.testing.assert_allclose(grad, scipy.fft.dct(np.eye(5, dtype=np.float32), norm="ortho", axis=0)[1],
                             rtol=1e-5, atol=1e-6)


def test_other_types_are_refused():
  with pytest.raises(NotImplementedError, match="type=2"):
    afft.dct(np.ones(3), type=1)
  with pytest.raises(ValueError, match="norm"):
    afft.idct(np.ones(3), norm="forward-ish")
