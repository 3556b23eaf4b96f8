"""What a user reads when something goes wrong: filtered tracebacks, messages that recommend
only what exists, and deep pytrees that do not hit the recursion limit."""
import os
import traceback

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import tree_util
from axle._src import traceback_util

_AXLE_DIR = os.path.dirname(os.path.abspath(axle.__file__))


def _frames(exc):
  return [f.filename for f in traceback.extract_tb(exc.__traceback__)]


def _axle_frames(exc):
  return [f for f in _frames(exc) if os.path.abspath(f).startswith(_AXLE_DIR + os.sep)]


def _user_error(x):
  return jnp.dot(x, jnp.ones((4, 5)))


@pytest.fixture
def filtering():
  old = axle.config.jax_traceback_filtering

  def set_mode(mode):
    axle.config.update("jax_traceback_filtering", mode)

  yield set_mode
  axle.config.update("jax_traceback_filtering", old)


@pytest.mark.parametrize("transform", [
    lambda f: axle.jit(f),
    lambda f: axle.grad(lambda x: f(x).sum()),
    lambda f: axle.vmap(f),
    lambda f: axle.make_jaxpr(f),
])
def test_tracebacks_hide_axle_frames_by_default(filtering, transform):
  filtering("auto")
  x = jnp.ones((2, 3))
  with pytest.raises(TypeError, match="dot_general requires contracting dimensions") as info:
    transform(_user_error)(x)
  exc = info.value
  # the user's frames stay; of axle's, only the function the user called (jnp.dot)
  assert any(f == __file__ for f in _frames(exc))
  assert len(_axle_frames(exc)) <= 1, _axle_frames(exc)
  assert traceback_util.FILTERING_NOTE in getattr(exc, "__notes__", [])


def test_full_traceback_behind_the_flag(filtering):
  filtering("off")
  with pytest.raises(TypeError) as info:
    axle.jit(_user_error)(jnp.ones((2, 3)))
  assert len(_axle_frames(info.value)) > 5
  assert not getattr(info.value, "__notes__", None)


def test_traceback_filtering_rejects_unknown_modes(filtering):
  filtering("sometimes")
  with pytest.raises(ValueError, match="jax_traceback_filtering"):
    axle.jit(_user_error)(jnp.ones((2, 3)))


def test_leak_message_recommends_only_what_exists():
  leaked = []

  @axle.jit
  def f(x):
    leaked.append(x)
    return x

  f(jnp.ones(2))
  with pytest.raises(axle.errors.UnexpectedTracerError) as info:
    leaked[0] + 1
  # It recommends jax.checking_leaks and JAX_CHECK_TRACER_LEAKS, as JAX does: both must exist.
  assert "`jax.checking_leaks` context manager" in str(info.value)
  with axle.checking_leaks():
    assert axle.config.jax_check_tracer_leaks
  assert "escape the scope of the transformation" in str(info.value)


def _nested(depth, wrap):
  tree = 1.0
  for _ in range(depth):
    tree = wrap(tree)
  return tree


@pytest.mark.parametrize("wrap", [lambda t: [t], lambda t: (t, None), lambda t: {"a": t}],
                         ids=["list", "tuple", "dict"])
def test_deep_pytrees_do_not_hit_the_recursion_limit(wrap):
  tree = _nested(5000, wrap)
  leaves, treedef = tree_util.tree_flatten(tree)
  assert leaves == [1.0]
  assert treedef.num_nodes >= 5001
  rebuilt = tree_util.tree_unflatten(treedef, [2.0])
  assert tree_util.tree_leaves(rebuilt) == [2.0]
  assert tree_util.tree_structure(rebuilt) == treedef
  assert hash(treedef) == hash(tree_util.tree_structure(rebuilt))
  assert repr(treedef).startswith("PyTreeDef(")
  doubled = tree_util.tree_map(lambda x: x * 2, tree)
  assert tree_util.tree_leaves(doubled) == [2.0]
  assert len(tree_util.tree_flatten_with_path(tree)[0]) == 1
  assert tree_util.tree_map(lambda a, b: a + b, tree, doubled) is not None


def test_deep_pytree_through_jit():
  tree = _nested(5000, lambda t: [t])
  out = axle.jit(lambda t: tree_util.tree_leaves(t)[0] * 2)(tree)
  np.testing.assert_allclose(np.asarray(out), 2.0)
