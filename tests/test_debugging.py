"""Debugging aids: source information, debug_nans/infs, leak checking, compile logging,
print_saved_residuals and checkify. Expected messages are JAX 0.10.2's."""
import inspect
import logging
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import axle
from axle._src import traceback_util
import axle.numpy as jnp
from axle import lax
from axle._src.checkpoint import saved_residuals
from axle.ad_checkpoint import checkpoint_name, print_saved_residuals
from axle.experimental import checkify


def _line_of(fun, text: str) -> int:
  lines, start = inspect.getsourcelines(fun)
  return start + next(i for i, line in enumerate(lines) if text in line)


# ---------------------------------------------------------------------------
# Source information


def _scoped(x):
  with axle.named_scope("scope1"):
    y = jnp.sin(x) * 2.0
  return jnp.cos(y)


def test_equations_record_file_line_column_and_function():
  jaxpr = axle.make_jaxpr(_scoped)(1.0)
  line = _line_of(_scoped, "jnp.sin(x) * 2.0")
  info = jaxpr.eqns[0].source_info
  assert (info.file_name, info.line, info.column, info.function_name) == (__file__, line, 8, "_scoped")
  assert str(info) == f"{__file__}:{line}:8 (_scoped)"
  assert info.name_stack == ("scope1",)
  assert jaxpr.eqns[2].source_info.name_stack == ()


def test_pretty_print_with_source_info_and_name_stack():
  jaxpr = axle.make_jaxpr(_scoped)(1.0)
  line = _line_of(_scoped, "jnp.sin(x) * 2.0")
  text = jaxpr.pretty_print(source_info=True)
  assert text.splitlines()[1] == f"    b:f32[] = sin a           # {__file__}:{line}:8 (_scoped)"
  assert text.splitlines()[3] == f"    d:f32[] = cos c           # {__file__}:{line + 1}:9 (_scoped)"
  with_names = jaxpr.pretty_print(source_info=True, name_stack=True).splitlines()
  assert with_names[2].strip() == "# [scope1]" and with_names[6].strip() == "# []"
  assert str(jaxpr) == jaxpr.pretty_print()  # plain printing unchanged
  assert "#" not in str(jaxpr)


def test_transformed_equations_keep_the_user_location():
  def f(x):
    return jnp.sin(x)
  line = _line_of(f, "jnp.sin(x)")
  jaxpr = axle.make_jaxpr(axle.grad(f))(1.0)
  assert {eqn.source_info.line for eqn in jaxpr.eqns if eqn.primitive.name in ("sin", "cos")} == {line}
  batched = axle.make_jaxpr(axle.vmap(axle.jit(f)))(jnp.ones(3))
  inner = batched.eqns[0].params["jaxpr"].jaxpr
  assert inner.eqns[0].source_info.line == line


def test_named_call_names_appear_in_the_lowered_program():
  named = axle.named_call(_scoped, name="outer")
  text = axle.jit(named).lower(1.0).as_text(debug_info=True)
  line = _line_of(_scoped, "jnp.sin(x) * 2.0")
  assert 'loc("jit(_scoped)/outer/scope1/sin"' in text
  assert f'"{__file__}":{line}:8' in text
  assert 'loc("x")' in text
  plain = axle.jit(named).lower(1.0).as_text()
  assert "loc(" not in plain
  assert float(axle.jit(named)(1.0)) == pytest.approx(float(np.cos(np.sin(1.0) * 2)), rel=1e-5)


def test_named_scope_rejects_non_strings():
  with pytest.raises(TypeError, match="must be a string"):
    with axle.named_scope(3):
      pass


# ---------------------------------------------------------------------------
# print_saved_residuals and checkpoint policies


def _g(W, x):
  y = jnp.dot(W, x)
  return jnp.sin(y)


def _f(W1, W2, x):
  return _g(W2, _g(W1, x))


_W1, _W2, _X = jnp.ones((5, 4)), jnp.ones((3, 5)), jnp.ones(4)


def test_print_saved_residuals(capsys):
  sin_line, dot_line = _line_of(_g, "jnp.sin(y)"), _line_of(_g, "jnp.dot(W, x)")
  print_saved_residuals(_f, _W1, _W2, _X)
  assert capsys.readouterr().out.splitlines() == [
      "f32[5,4] from the argument W1", "f32[3,5] from the argument W2", "f32[4] from the argument x",
      f"f32[5] output of sin from {__file__}:{sin_line}:9 (_g)",
      f"f32[5] output of cos from {__file__}:{sin_line}:9 (_g)",
      f"f32[3] output of cos from {__file__}:{sin_line}:9 (_g)"]
  policy = axle.checkpoint_policies.dots_with_no_batch_dims_saveable
  print_saved_residuals(axle.checkpoint(_f, policy=policy), _W1, _W2, _X)
  assert capsys.readouterr().out.splitlines()[3:] == [
      f"f32[5] output of dot_general from {__file__}:{dot_line}:6 (_g)",
      f"f32[3] output of dot_general from {__file__}:{dot_line}:6 (_g)"]


def test_saved_residuals_named_and_nested_checkpoints():
  def f(x):
    return jnp.sin(checkpoint_name(jnp.sin(x), "a")) * 2
  policy = axle.checkpoint_policies.save_only_these_names("a")
  described = [d for _, d in saved_residuals(axle.checkpoint(f, policy=policy), 1.0)]
  assert described[0] == "from the argument x" and described[1].startswith("named 'a' from ")
  assert len(described) == 2

  def chain(x):
    for _ in range(4):
      x = jnp.sin(x)
    return x
  nested = lambda x: jnp.sin(axle.checkpoint(chain)(axle.checkpoint(chain)(x)))
  kinds = [d.split(" from ")[0] for _, d in saved_residuals(nested, 1.0)]
  assert kinds == ["from the argument x", "output of sin", "output of cos"]  # x, the middle value, cos of the outer sin


@pytest.mark.parametrize("policy", [None, "dots_with_no_batch_dims_saveable", "everything_saveable",
                                    "dots_saveable"])
def test_checkpoint_policies_give_the_same_gradients(policy):
  loss = lambda W1, W2, x: jnp.sum(_f(W1, W2, x) ** 2)
  expected = axle.grad(loss, argnums=(0, 1, 2))(_W1 * 0.1, _W2 * 0.2, _X)
  pol = None if policy is None else getattr(axle.checkpoint_policies, policy)
  checked = axle.checkpoint(loss, policy=pol)
  for fn in (axle.grad(checked, argnums=(0, 1, 2)), axle.jit(axle.grad(checked, argnums=(0, 1, 2)))):
    for a, b in zip(expected, fn(_W1 * 0.1, _W2 * 0.2, _X)):
      np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


# ---------------------------------------------------------------------------
# debug_nans / debug_infs

_DEOPT = ("Invalid nan value encountered in the output of a jax.jit function. Calling the "
          "de-optimized version.")


def _log_of_negative(x):
  w = 3 * jnp.square(x)
  return jnp.log(-w)


def test_debug_nans_eager_and_jit(capsys):
  with axle.debug_nans(True):
    assert axle.config.jax_debug_nans
    with pytest.raises(FloatingPointError, match=r"(?m)^invalid value \(nan\) encountered in log$") as eager:
      _log_of_negative(5.0)
    assert capsys.readouterr().out == _DEOPT + "\n"
    # as JAX's eager op (a jitted dispatch), the traceback carries the filtering note
    assert any("JAX has removed its internal frames" in note for note in eager.value.__notes__)
    with pytest.raises(FloatingPointError, match=r"(?m)^invalid value \(nan\) encountered in log$") as info:
      axle.jit(_log_of_negative)(5.0)
    assert capsys.readouterr().out == (_DEOPT + "\n") * 2
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(fr.filename == __file__ and fr.lineno == _line_of(_log_of_negative, "jnp.log(-w)")
               for fr in frames)
    assert float(jnp.log(2.0)) == pytest.approx(np.log(2.0))  # clean values pass
  assert not axle.config.jax_debug_nans
  assert np.isnan(float(axle.jit(_log_of_negative)(5.0)))  # flag off: no check


def test_debug_infs_and_the_no_culprit_message(capsys):
  with axle.debug_infs(True):
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in div"):
      jnp.array(1.0) / 0.0
    with pytest.raises(FloatingPointError,
                       match=r"invalid value \(inf\) encountered in jit\(<lambda>\)\. .*no operation"):
      axle.jit(lambda x: x * 2)(jnp.inf)  # Python float: the op-by-op run has no axle operation
  with axle.debug_nans(True):
    assert float(axle.jit(lambda x: x * 2)(jnp.inf)) == np.inf  # only infs were not asked for
  capsys.readouterr()


def test_debug_nans_from_the_environment():
  code = ("import axle, axle.numpy as jnp\n"
          "try:\n  jnp.sqrt(-1.0)\nexcept FloatingPointError as e:\n  print('raised', e)\n")
  env = dict(os.environ, JAX_DEBUG_NANS="1", PYTHONPATH=os.getcwd())
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       check=True).stdout
  assert out.splitlines()[-1] == "raised invalid value (nan) encountered in sqrt"


def test_debug_nans_under_grad(capsys):
  with axle.debug_nans(True):
    with pytest.raises(FloatingPointError, match="encountered in"):
      axle.grad(lambda x: jnp.sqrt(x) * 0 + jnp.log(x))(-1.0)
  capsys.readouterr()


# ---------------------------------------------------------------------------
# disable_jit, checking_leaks, log_compiles


def test_disable_jit_runs_python():
  seen = []

  @axle.jit
  def f(x):
    seen.append(type(x).__name__)
    return x + 1
  with axle.disable_jit():
    assert float(f(1.0)) == 2.0
  assert seen == ["float"]


def test_checking_leaks_names_where_the_tracer_was_created():
  leaked = []

  def f(x):
    y = jnp.sin(x) * 2
    leaked.append(y)
    return x
  with axle.checking_leaks():
    with pytest.raises(Exception, match=r"(?s)Leaked trace DynamicJaxprTrace.*created on line "
                       rf"{__file__}:{_line_of(f, 'jnp.sin(x) * 2')}:8"):
      axle.jit(f)(2.0)
  leaked.clear()
  with axle.checking_leaks():
    assert float(axle.jit(lambda x: x + 1)(1.0)) == 2.0  # no leak, no error
  assert not axle.config.jax_check_tracer_leaks


def test_log_compiles(caplog):
  def my_function(x):
    return x * 3

  with caplog.at_level(logging.WARNING), axle.log_compiles():
    axle.jit(my_function)(jnp.ones(3))
  messages = [r.getMessage() for r in caplog.records]
  assert any(m.startswith("Finished tracing my_function for jit in ") for m in messages)
  assert "Compiling jit(my_function) with global shapes and types (ShapedArray(float32[3]),). " \
         "Argument mapping: (UnspecifiedValue,)." in messages
  assert any(m.startswith("Finished XLA compilation of jit(my_function) in ") or
             m.startswith("Finished jaxpr to MLIR module conversion jit(my_function)")
             for m in messages)


# ---------------------------------------------------------------------------
# checkify


def _checked_fn(x, i):
  checkify.check(x > 0, "x must be positive, got {}", x)
  return jnp.log(x) + jnp.arange(3.)[i]


def test_checkify_user_nan_and_index_checks():
  f32 = jnp.float32
  err, out = checkify.checkify(_checked_fn, errors=checkify.all_checks)(f32(-1.), 5)
  assert err.get() == "x must be positive, got -1.0 (`check` failed)"
  assert np.isnan(float(out))
  err, out = axle.jit(checkify.checkify(_checked_fn, errors=checkify.all_checks))(f32(2.), 1)
  assert err.get() is None and float(out) == pytest.approx(np.log(2) + 1)
  err.throw()  # nothing to raise
  err, _ = checkify.checkify(_checked_fn, errors=checkify.index_checks)(f32(2.), 5)
  assert err.get() == ("out-of-bounds indexing for array of shape (3,): index 5 is out of bounds "
                       "for axis 0 with size 3. ")
  err, _ = checkify.checkify(_checked_fn, errors=checkify.nan_checks)(f32(-2.), 1)
  assert err.get() == "nan generated by primitive: log."
  with pytest.raises(checkify.JaxRuntimeError, match="nan generated by primitive: log"):
    err.throw()


def test_checkify_division_and_formatting():
  err, _ = checkify.checkify(lambda a, b: a // b, errors=checkify.div_checks)(jnp.int32(3), jnp.int32(0))
  assert err.get() == "division by zero"
  assert isinstance(err.get_exception(), ValueError)

  def h(x):
    checkify.check(x > 0, "x={x} must be positive", x=x)
    return x
  assert checkify.checkify(h)(jnp.float32(-3.))[0].get() == "x=-3.0 must be positive (`check` failed)"
  with pytest.raises(TypeError, match="need to be PyTrees of arrays"):
    checkify.checkify(lambda x: checkify.check(x > 0, "{}", 1.0))(1.0)


def test_check_outside_checkify():
  with pytest.raises(checkify.JaxRuntimeError, match=r"x must be positive, got -1.0 \(`check` failed\)"):
    _checked_fn(jnp.float32(-1.), 1)
  with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check which was not "
                     "functionalized"):
    axle.jit(_checked_fn)(jnp.float32(1.), 1)


def test_checkify_under_vmap_both_ways():
  xs, idx = jnp.array([1., -1., -2.]), jnp.array([0, 1, 2])
  err, _ = axle.vmap(checkify.checkify(_checked_fn))(xs, idx)
  assert err.get() == ("at mapped index 1: x must be positive, got -1.0 (`check` failed)\n"
                       "at mapped index 2: x must be positive, got -2.0 (`check` failed)")
  err, _ = checkify.checkify(axle.vmap(_checked_fn))(xs, idx)
  assert err.get() == "x must be positive, got -2.0 (`check` failed)"


def _scan_body(c, x):
  checkify.check(x < 3., "x too big: {}", x)
  return c + jnp.log(x), c


def test_checkify_scan_cond_while():
  scan = lambda xs: lax.scan(_scan_body, 0., xs)
  err, _ = checkify.checkify(scan, errors=checkify.all_checks)(jnp.array([1., 2., 4., 5.]))
  assert err.get() == "x too big: 4.0 (`check` failed)"
  # the check site was traced before log's: it is reported although the NaN came first
  err, _ = axle.jit(checkify.checkify(scan, errors=checkify.all_checks))(jnp.array([1., -2., 1., 5.]))
  assert err.get() == "x too big: 5.0 (`check` failed)"

  def g(p, x):
    return lax.cond(p, lambda x: jnp.sin(x) / x, lambda x: (checkify.check(x > 0, "neg"), x)[1], x)
  checked = axle.jit(checkify.checkify(g, errors=checkify.all_checks))
  assert checked(True, 0.)[0].get() == "division by zero"
  assert checked(False, -1.)[0].get() == "neg (`check` failed)"
  assert checked(False, 2.)[0].get() is None

  def w(x):
    def body(c):
      i, v = c
      checkify.check(v < 10, "v={v} exceeded", v=v)
      return i + 1, v * 2
    return lax.while_loop(lambda c: c[0] < 5, body, (0, x))
  assert checkify.checkify(w)(1.)[0].get() == "v=16.0 exceeded (`check` failed)"
  assert checkify.checkify(w)(0.1)[0].get() is None


def test_checkify_grad_index_scatter_and_checkpoint():
  def loss(x):
    checkify.check(x > 0, "x must be positive")
    return jnp.log(x)
  err, g = checkify.checkify(axle.grad(loss))(-1.)
  assert err.get() == "x must be positive (`check` failed)" and float(g) == -1.0
  err, g = checkify.checkify(axle.grad(loss))(2.)
  assert err.get() is None and float(g) == 0.5
  oob = "out-of-bounds indexing for array of shape (4,): index {} is out of bounds for axis 0 with size 4. "
  idx = checkify.index_checks
  assert checkify.checkify(axle.jit(lambda x: jnp.arange(4)[x]), errors=idx)(7)[0].get() == oob.format(7)
  assert checkify.checkify(lambda x: jnp.arange(4.)[jnp.array([1, x])], errors=idx)(7)[0].get() == oob.format(7)
  assert checkify.checkify(lambda x: jnp.arange(4.).at[x].set(1.), errors=idx)(9)[0].get() == oob.format(9)
  assert checkify.checkify(lambda x: jnp.arange(4.).at[jnp.array([0, x])].set(1.),
                           errors=idx)(9)[0].get() == oob.format(9)
  assert checkify.checkify(lambda x: axle.checkpoint(jnp.log)(x),
                           errors=checkify.nan_checks)(-1.)[0].get() == "nan generated by primitive: log."


def test_checkify_error_sets():
  assert checkify.float_checks == checkify.nan_checks | checkify.div_checks
  assert checkify.all_checks == checkify.float_checks | checkify.index_checks | checkify.user_checks
  with pytest.raises(TypeError, match="errors must be a set of checkify error kinds"):
    checkify.checkify(lambda x: x, errors={"nan"})


def test_jax_was_not_imported():
  assert "jax" not in sys.modules


def test_errors_from_staged_equations_name_the_user_line():
  def f(x):
    checkify.check(x > 0, "positive")
    return x
  with pytest.raises(ValueError, match="not functionalized") as info:
    axle.jit(f)(1.0)
  line = _line_of(f, "checkify.check(")
  # As in JAX, the lowering error is caused by a JaxStackTraceBeforeTransformation whose
  # traceback is the user's line; the note is traceback filtering's.
  assert info.value.__notes__ == [traceback_util.FILTERING_NOTE]
  source = info.value.__cause__
  assert type(source).__name__ == "JaxStackTraceBeforeTransformation"
  assert str(source).startswith("ValueError: ")
  frame = source.__traceback__
  assert (frame.tb_frame.f_code.co_filename, frame.tb_lineno, frame.tb_frame.f_code.co_name) == (
      __file__, line, "f")


def test_more_checkpoint_policies_and_static_argnames(capsys):
  def f(x):
    y = checkpoint_name(jnp.sin(x), "y")
    z = checkpoint_name(jnp.sin(y), "z")
    return jnp.sin(z)
  policies = axle.checkpoint_policies
  offload = policies.save_and_offload_only_these_names(
      names_which_can_be_saved=["y"], names_which_can_be_offloaded=["z"], offload_src="device",
      offload_dst="pinned_host")
  kinds = [d.split(" from ")[0] for _, d in saved_residuals(axle.checkpoint(f, policy=offload), 1.)]
  assert kinds == ["from the argument x", "named 'y'", "named 'z'"]  # offloaded = saved here
  both = policies.save_from_both_policies(policies.dots_saveable, policies.save_only_these_names("y"))
  assert float(axle.grad(axle.checkpoint(f, policy=both))(1.)) == pytest.approx(
      float(axle.grad(f)(1.)))
  with pytest.raises(ValueError, match="should be exclusive"):
    policies.save_and_offload_only_these_names(names_which_can_be_saved=["a"],
                                               names_which_can_be_offloaded=["a"],
                                               offload_src="device", offload_dst="pinned_host")

  def g(x, n):
    for _ in range(n):
      x = jnp.sin(x)
    return x
  checked = axle.checkpoint(g, static_argnames="n")
  assert float(axle.grad(checked)(1., n=2)) == pytest.approx(float(axle.grad(g)(1., 2)))
  assert float(axle.grad(axle.checkpoint(g, static_argnums=1))(1., 3)) == pytest.approx(
      float(axle.grad(g)(1., 3)))


def test_checkify_custom_jvp_nan_set_and_python_scalars():
  @axle.custom_jvp
  def f(x):
    return jnp.log(x)
  f.defjvp(lambda p, t: (f(p[0]), t[0] * 100.))
  nan = checkify.nan_checks
  assert checkify.checkify(f, errors=nan)(jnp.float32(-1.))[0].get() == "nan generated by primitive: log."
  err, g = checkify.checkify(axle.grad(f), errors=nan)(2.)
  assert err.get() is None and float(g) == 100.0  # the custom rule still applies
  assert float(axle.grad(lambda x: checkify.checkify(f, errors=nan)(x)[1])(2.)) == 100.0
  # max passes a NaN through unreported; Python scalars reach the function as they are
  assert checkify.checkify(lambda x: jnp.maximum(x, 0.), errors=nan)(jnp.float32(np.nan))[0].get() is None
  assert checkify.checkify(jnp.sin, errors=nan)(jnp.float32(np.nan))[0].get() == \
      "nan generated by primitive: sin."
  seen = []
  checkify.checkify(lambda x: seen.append(type(x)) or x)(1.5)
  assert seen == [float]


def test_debug_nans_in_a_jit_under_grad_and_vmap_names_the_line(capsys):
  @axle.jit
  def f(x):
    return jnp.sqrt(x) * 0 + jnp.log(x)
  line = _line_of(f, "jnp.sqrt(x)")
  with axle.debug_nans(True):
    for run in (lambda: axle.grad(f)(-1.), lambda: axle.vmap(f)(jnp.array([1., -1.]))):
      with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in sqrt") as info:
        run()
      assert info.value.__notes__ == [
          f"The failing operation, sqrt, was staged at {__file__}:{line}:11 ({f.__wrapped__.__qualname__}).",
          traceback_util.FILTERING_NOTE]
      assert capsys.readouterr().out == (_DEOPT + "\n") * 2


def test_debug_check_runs_only_under_checkify():
  def f(x):
    checkify.debug_check(x > 0, "must be positive, got {}", x)
    return x
  assert float(f(jnp.float32(-1.))) == -1.  # dropped outside checkify, as in JAX
  assert float(axle.jit(f)(-1.)) == -1.
  err, out = checkify.checkify(f)(jnp.float32(-1.))
  assert float(out) == -1.
  with pytest.raises(checkify.JaxRuntimeError, match="must be positive, got -1.0"):
    err.throw()
  err, _ = axle.jit(checkify.checkify(f))(jnp.float32(2.))
  assert err.get() is None
