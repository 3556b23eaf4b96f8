"""jax.scipy.optimize.minimize (BFGS) against JAX 0.10.2's outputs, recorded by
tools/record_scipy_optimize_reference.py, and analytic minimizers."""
import builtins
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

# Under jit every output is JAX's, bit for bit (iterates, counts, inverse Hessian).


@pytest.mark.parametrize("case_id,body", cases.CASES, ids=[c[0] for c in cases.CASES])
def test_matches_jax(case_id, body):
  want = REFERENCE[case_id]
  if "error" in want:
    with pytest.raises(getattr(builtins, want["error"])) as info:
      eval(body, NAMESPACE)
    assert type(info.value).__name__ == want["error"]
    assert str(info.value).split(",")[0] == want["message"].split(",")[0]
    return
  got = jax.tree_util.tree_leaves(eval(body, NAMESPACE))
  assert len(got) == len(want["leaves"])
  for leaf, expected in zip(got, want["leaves"]):
    leaf = np.asarray(leaf)
    assert leaf.dtype.name == expected["dtype"] and list(leaf.shape) == expected["shape"]
    np.testing.assert_array_equal(leaf.ravel().astype(np.float64), expected["values"])


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
