"""jax.scipy.optimize.minimize (BFGS) against JAX 0.10.2's outputs, recorded by
tools/record_scipy_optimize_reference.py, and analytic minimizers."""
import json
import pathlib

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle.scipy.optimize import OptimizeResults, minimize
from tests import scipy_optimize_cases as cases

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" /
                        "scipy_optimize_reference.json").read_text())["cases"]
NAMESPACE = {"jax": jax, "jnp": jnp, "minimize": minimize}
exec(cases.PRELUDE, NAMESPACE)

# Iteration and evaluation counts are exact. float32 values agree to rounding accumulated over
# the iterations: Rosenbrock's valley, stopped by a failed line search (status 3), amplifies the
# last bits into the final function value and gradient (up to 3e-2 relative; x agrees to 5e-6), and the last inverse-Hessian updates
# near a converged quadratic divide by tiny curvatures (y.s), so hess_inv agrees to ~3e-3.
RTOL = {"rosen_jit": 5e-2, "rosen_maxiter": 1e-4}
HESS_INV_ATOL = 5e-3


@pytest.mark.parametrize("case_id,body", cases.CASES, ids=[c[0] for c in cases.CASES])
def test_matches_jax(case_id, body):
  want = REFERENCE[case_id]
  if "error" in want:
    with pytest.raises(getattr(__builtins__, want["error"], None) or Exception) as info:
      eval(body, NAMESPACE)
    assert type(info.value).__name__ == want["error"]
    assert str(info.value).split(",")[0] == want["message"].split(",")[0]
    return
  got = jax.tree_util.tree_leaves(eval(body, NAMESPACE))
  assert len(got) == len(want["leaves"])
  for i, (leaf, expected) in enumerate(zip(got, want["leaves"])):
    leaf = np.asarray(leaf)
    assert leaf.dtype.name == expected["dtype"] and list(leaf.shape) == expected["shape"]
    is_hess_inv = len(got) == len(OptimizeResults._fields) and i == 5
    np.testing.assert_allclose(leaf.ravel().astype(np.float64), expected["values"],
                               rtol=RTOL.get(case_id, 2e-5),
                               atol=HESS_INV_ATOL if is_hess_inv else 2e-6)


def test_quadratic_minimum_is_the_linear_solve():
  a = NAMESPACE["A"]
  b = NAMESPACE["B"]
  result = minimize(NAMESPACE["quadratic"], jnp.zeros(3), (a, b), method="BFGS")
  assert isinstance(result, OptimizeResults) and bool(result.success)
  np.testing.assert_allclose(result.x, np.linalg.solve(np.asarray(a), np.asarray(b)), rtol=1e-5)
  np.testing.assert_allclose(result.jac, 0, atol=1e-5)
  # BFGS's inverse-Hessian estimate approaches the true inverse on a quadratic
  np.testing.assert_allclose(result.hess_inv, np.linalg.inv(np.asarray(a)), atol=1e-2)


def test_bad_arguments_say_what_to_do():
  with pytest.raises(ValueError, match="1-D"):
    minimize(NAMESPACE["rosen"], jnp.zeros((2, 2)), method="BFGS")
  with pytest.raises(TypeError, match="gtol"):
    minimize(NAMESPACE["rosen"], jnp.zeros(2), method="BFGS", options={"gtoll": 1.})
