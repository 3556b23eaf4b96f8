"""Host callbacks and effects: jax.debug.print/callback/breakpoint, pure_callback, io_callback.

The expected texts were produced by JAX 0.10.2 on the same programs (run by hand with the
reference interpreter; the programs are the test bodies with ``import jax``)."""
import io
import sys
import traceback

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax
from axle._src.interpreters import staging


def _lines(capsys):
  jax.effects_barrier()
  return capsys.readouterr().out.splitlines()


# ---------------------------------------------------------------------------
# debug.print under each transformation


def _f(x):
  jax.debug.print("x={x} y={}", x * 2, x=x)
  return x + 1


def test_debug_print_eager_jit_vmap_grad(capsys):
  _f(1.)
  jax.jit(_f)(2.)
  jax.vmap(_f)(jnp.arange(3.))
  jax.grad(_f)(1.)  # the forward pass only
  assert _lines(capsys) == ["x=1.0 y=2.0", "x=2.0 y=4.0", "x=0.0 y=0.0", "x=1.0 y=2.0",
                            "x=2.0 y=4.0", "x=1.0 y=2.0"]


def test_debug_print_pytrees_and_arrays(capsys):
  jax.debug.print("{} {x}", jnp.arange(3), x={"a": 1})
  jax.jit(lambda x: jax.debug.print("{} {x}", x, x={"a": x}))(jnp.arange(3.))
  jax.vmap(lambda x: jax.debug.print("v {} {}", x, 5))(jnp.arange(6.).reshape(3, 2))
  assert _lines(capsys) == ["[0 1 2] {'a': Array(1, dtype=int32, weak_type=True)}",
                            "[0. 1. 2.] {'a': Array([0., 1., 2.], dtype=float32)}",
                            "v [0. 1.] 5", "v [2. 3.] 5", "v [4. 5.] 5"]


def test_debug_print_in_scan_while_cond(capsys):
  def f(x):
    jax.debug.print("in scan {}", x)
    return x
  lax.scan(lambda c, y: (f(c) + y, None), 0., jnp.arange(3.))
  lax.fori_loop(0, 3, lambda i, c: (jax.debug.print("i={i} c={c}", i=i, c=c), c + 1.)[1], 0.)
  lax.cond(True, lambda x: jax.debug.print("true {}", x), lambda x: jax.debug.print("false {}", x), 3)
  jax.vmap(lambda p, x: lax.cond(p, lambda x: jax.debug.print("true {}", x),
                                 lambda x: jax.debug.print("false {}", x), x))(
      jnp.array([True, False]), jnp.arange(2))
  jax.jit(lambda x: lax.while_loop(lambda c: c < 3, lambda c: (jax.debug.print("w {}", c), c + 1)[1], x))(0)
  assert _lines(capsys) == ["in scan 0.0", "in scan 0.0", "in scan 1.0", "i=0 c=0.0", "i=1 c=1.0",
                            "i=2 c=2.0", "true 3", "false 0", "false 1", "true 0", "true 1",
                            "w 0", "w 1", "w 2"]


def test_debug_print_under_jit_of_vmap_and_grad(capsys):
  jax.jit(jax.vmap(lambda x: (jax.debug.print("jv {}", x), x)[1]))(jnp.arange(2))
  g = jax.jit(jax.grad(lambda x: (jax.debug.print("jg {}", x), jnp.sin(x))[1]))(1.)
  assert np.isclose(float(g), np.cos(1.0))
  jax.grad(jax.checkpoint(lambda x: (jax.debug.print("ck {}", x), jnp.sin(x))[1]))(1.)
  lines = _lines(capsys)
  assert lines[:3] == ["jv 0", "jv 1", "jg 1.0"]
  assert set(lines[3:]) == {"ck 1.0"}  # remat re-runs the forward pass


def test_debug_print_format_checked_when_traced():
  with pytest.raises(IndexError):
    jax.debug.print("{} {}", 1)
  with pytest.raises(ValueError, match=r"Unused positional arguments to `jax.debug.print`: \[2\]"):
    jax.debug.print("{}", 1, 2)
  with pytest.raises(KeyError):
    jax.debug.print("{x}", y=2)


def test_debug_callback_gets_arrays_and_kwargs():
  seen = []
  jax.jit(lambda x: jax.debug.callback(lambda *a, **k: seen.append((a, k)), x, y=x * 2))(jnp.arange(3.))
  jax.effects_barrier()
  (args, kwargs), = seen
  assert isinstance(args[0], jax.Array) and args[0].tolist() == [0., 1., 2.]
  assert kwargs["y"].tolist() == [0., 2., 4.]


# ---------------------------------------------------------------------------
# Ordered effects


def test_ordered_prints_across_jit_calls(capsys):
  f = jax.jit(lambda x: (jax.debug.print("a {}", x, ordered=True),
                         jax.debug.print("b {}", x, ordered=True), x)[2])
  g = jax.jit(lambda x: (jax.debug.print("c {}", x, ordered=True), x)[1])
  for i in range(3):
    f(i)
    g(i)
  assert _lines(capsys) == [f"{k} {i}" for i in range(3) for k in "abc"]


def test_ordered_prints_through_nested_jit_cond_scan_loop(capsys):
  @jax.jit
  def inner(x):
    jax.debug.print("inner {}", x, ordered=True)
    return x + 1

  @jax.jit
  def outer(x):
    for i in range(2):
      jax.debug.print("before {}", i, ordered=True)
      x = inner(x)
    lax.cond(x > 0, lambda: jax.debug.print("in cond", ordered=True), lambda: None)
    c, _ = lax.scan(lambda c, y: ((jax.debug.print("s {}", y, ordered=True), c + y)[1], None),
                    0., jnp.arange(2.))
    jax.debug.print("mid", ordered=True)
    w = lax.fori_loop(0, 2, lambda i, c: (jax.debug.print("w {}", i, ordered=True), c)[1], c)
    jax.debug.print("end {}", w, ordered=True)
    return x

  outer(0)
  assert _lines(capsys) == ["before 0", "inner 0", "before 1", "inner 1", "in cond", "s 0.0",
                            "s 1.0", "mid", "w 0", "w 1", "end 1.0"]


def test_effects_on_jaxprs_and_dce():
  def h(x):
    jax.experimental.io_callback(lambda v: None, None, x)
    jax.pure_callback(np.sin, x, x)  # unused and pure: may be removed
    jax.debug.print("p {}", x, ordered=True)
    return x
  closed = jax.make_jaxpr(h)(1.)
  assert [e.primitive.name for e in closed.eqns] == ["io_callback", "pure_callback", "debug_print"]
  assert sorted(map(repr, closed.effects)) == ["IO", "OrderedDebug"]
  nested = jax.make_jaxpr(jax.jit(h))(1.)
  assert nested.effects == closed.effects and nested.eqns[0].effects == closed.effects
  kept = staging.dce_jaxpr(closed.jaxpr, [False])
  assert [e.primitive.name for e in kept.eqns] == ["io_callback", "debug_print"]
  assert not jax.make_jaxpr(lambda x: jnp.sin(x))(1.).effects


def test_unused_io_callback_still_runs_under_jit():
  calls = []
  jax.jit(lambda x: (jax.experimental.io_callback(lambda v: calls.append(float(v)), None, x), x)[1])(2.)
  jax.effects_barrier()
  assert calls == [2.0]


# ---------------------------------------------------------------------------
# pure_callback / io_callback


def test_pure_callback_eager_and_jit_and_printing():
  out = jax.jit(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))(1.)
  assert out.dtype == np.float32 and np.isclose(float(out), np.sin(1.0))
  tree = jax.pure_callback(lambda a, b: {"s": a + b}, {"s": jax.ShapeDtypeStruct((2,), jnp.float32)},
                           jnp.ones(2), b=jnp.ones(2))
  assert tree["s"].tolist() == [2., 2.]
  text = str(jax.make_jaxpr(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))(1.))
  assert text == ("{ lambda ; a:f32[]. let\n    b:f32[] = pure_callback[\n"
                  "      callback=_FlatCallback(callback_func=<ufunc 'sin'>, in_tree=PyTreeDef(((*,), {})))\n"
                  "      result_avals=(ShapedArray(float32[]),)\n      sharding=None\n"
                  "      vmap_method=None\n    ] a\n  in (b,) }")


@pytest.mark.parametrize("method, seen_shapes", [
    ("sequential", [((2,), (2,))] * 3),
    ("sequential_unrolled", [((2,), (2,))] * 3),
    ("expand_dims", [((3, 2), (1, 2))]),
    ("broadcast_all", [((3, 2), (3, 2))]),
    ("legacy_vectorized", [((3, 2), (2,))]),
])
def test_pure_callback_vmap_methods(method, seen_shapes):
  seen = []

  def cb(a, b):
    seen.append((a.shape, b.shape))
    return np.asarray(a) + np.asarray(b)

  x = jnp.arange(6.).reshape(3, 2)
  y = jnp.ones(2)
  for fn in (jax.vmap, lambda f, **k: jax.jit(jax.vmap(f, **k))):
    seen.clear()
    out = fn(lambda x, y: jax.pure_callback(cb, x, x, y, vmap_method=method), in_axes=(0, None))(x, y)
    jax.effects_barrier()
    assert out.tolist() == (np.arange(6.).reshape(3, 2) + 1).tolist()
    assert seen == seen_shapes


def test_pure_callback_vmap_errors():
  x = jnp.arange(6.).reshape(3, 2)
  with pytest.raises(NotImplementedError, match="Got vmap_method=None"):
    jax.vmap(lambda x: jax.pure_callback(lambda a: a, x, x))(x)
  with pytest.raises(ValueError, match="but got: bogus"):
    jax.pure_callback(lambda a: a, x, x, vmap_method="bogus")


def test_callbacks_are_not_differentiable():
  with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
    jax.grad(lambda x: jax.pure_callback(np.sin, x, x))(1.)
  with pytest.raises(ValueError, match="Pure callbacks do not support transpose"):
    jax.linear_transpose(lambda x: jax.pure_callback(np.sin, x, x), 1.)(1.)
  with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
    jax.grad(lambda x: jax.experimental.io_callback(np.sin, x, x))(1.)


def test_pure_callback_in_custom_jvp_and_custom_vjp():
  @jax.custom_jvp
  def f(x):
    return jax.pure_callback(np.sin, x, x)
  f.defjvp(lambda p, t: (f(p[0]), jax.pure_callback(np.cos, p[0], p[0]) * t[0]))
  assert np.isclose(float(jax.grad(f)(1.)), np.cos(1.0))
  assert np.isclose(float(jax.jit(jax.grad(f))(1.)), np.cos(1.0))

  @jax.custom_vjp
  def g(x):
    return jax.pure_callback(np.sin, x, x)
  g.defvjp(lambda x: (g(x), x), lambda x, ct: (jax.pure_callback(np.cos, x, x) * ct,))
  assert np.isclose(float(jax.grad(g)(1.)), np.cos(1.0))


def test_io_callback_ordered_and_vmap():
  seen = []
  f = jax.jit(lambda x: jax.experimental.io_callback(lambda a: (seen.append(float(a)), a)[1], x, x,
                                                     ordered=True))
  for i in range(3):
    f(float(i))
  assert seen == [0.0, 1.0, 2.0]
  with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
    jax.vmap(f)(jnp.arange(3.))
  seen.clear()
  out = jax.vmap(lambda x: jax.experimental.io_callback(lambda a: (seen.append(float(a)), a)[1], x, x))(
      jnp.arange(3.))
  assert seen == [0.0, 1.0, 2.0] and out.tolist() == [0., 1., 2.]


def test_callbacks_in_scan_cond_while():
  sin = lambda x: jax.pure_callback(np.sin, x, x)
  ys = jax.jit(lambda xs: lax.scan(lambda c, x: (c, sin(x)), 0., xs)[1])(jnp.arange(3.))
  assert np.allclose(ys.tolist(), np.sin(np.arange(3.)))
  out = jax.jit(lambda x: lax.cond(x > 0, sin, lambda x: x, x))(1.)
  assert np.isclose(float(out), np.sin(1.))
  out = jax.jit(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + sin(0. * c) + 1, x))(0.)
  assert float(out) == 3.0


# ---------------------------------------------------------------------------
# Errors raised in or about callbacks


def _raises_key_error(x):
  raise KeyError("boom")


@pytest.mark.parametrize("jitted", [False, True])
def test_exception_in_callback_keeps_type_and_traceback(jitted):
  f = lambda x: jax.pure_callback(_raises_key_error, jax.ShapeDtypeStruct((), jnp.float32), x)
  with pytest.raises(KeyError, match="boom") as info:
    (jax.jit(f) if jitted else f)(1.)
  frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
  assert "_raises_key_error" in frames
  # The program is still usable afterwards.
  assert np.isclose(float(jax.jit(lambda x: jax.pure_callback(np.cos, x, x))(0.)), 1.0)


def test_exception_in_debug_callback_under_vmap_jit():
  def bad(x):
    raise ZeroDivisionError("in callback")
  with pytest.raises(ZeroDivisionError, match="in callback"):
    jax.jit(jax.vmap(lambda x: jax.debug.callback(bad, x)))(jnp.arange(2.))


@pytest.mark.parametrize("returned, message", [
    (lambda x: np.zeros(3, np.float32), r"Expected: \(\), Actual: \(3,\)"),
    (lambda x: np.zeros((), np.int32), "Expected: float32, Actual: int32"),
    (lambda x: (x, x), r"pytree structure PyTreeDef\(\(\*, \*\)\), but result_shape_dtypes declared"),
])
def test_result_mismatch_names_both(returned, message):
  f = lambda x: jax.pure_callback(returned, jax.ShapeDtypeStruct((), jnp.float32), x)
  for g in (f, jax.jit(f)):
    with pytest.raises(RuntimeError, match=message):
      g(1.)


# ---------------------------------------------------------------------------
# breakpoint, ShapeDtypeStruct


def test_breakpoint_reads_commands_from_stdin(monkeypatch, capsys):
  monkeypatch.setattr(sys, "stdin", io.StringIO("p y\np x + 1\nname\nfoo\nc\n"))

  def f(x):
    y = x * 2
    name = "hi"
    jax.debug.breakpoint()
    return y + 1

  jax.jit(f)(jnp.arange(3.))
  out = _lines(capsys)
  assert out == ["Entering jdb:", "(jdb) Array([0., 2., 4.], dtype=float32)",
                 "(jdb) Array([1., 2., 3.], dtype=float32)", "(jdb) 'hi'",
                 "(jdb) *** NameError: name 'foo' is not defined", "(jdb) "]


def test_breakpoint_list_and_where(monkeypatch, capsys):
  monkeypatch.setattr(sys, "stdin", io.StringIO("l\nw\nq\n"))

  def f(x):
    jax.debug.breakpoint()
    return x

  f(1.)
  out = capsys.readouterr().out
  assert "->      jax.debug.breakpoint()" in out
  assert "Traceback:" in out and "f(1.)" in out


def test_shape_dtype_struct_like_and_update():
  s = jax.ShapeDtypeStruct.like(jnp.ones((2, 3)))
  assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
  assert repr(jax.ShapeDtypeStruct((1,), jnp.int32).update(shape=(4,))) == \
      "ShapeDtypeStruct(shape=(4,), dtype=int32)"
  weak = jax.ShapeDtypeStruct.like(jax.ShapeDtypeStruct((1,), jnp.int32, weak_type=True))
  assert repr(weak) == "ShapeDtypeStruct(shape=(1,), dtype=int32, weak_type=True)"
  with pytest.raises(TypeError, match="unexpected fields"):
    s.update(colour="red")


def _ordered_print(x):
  jax.debug.print("{}", x, ordered=True)


@jax.custom_jvp
def _cj(x):
  _ordered_print(x)
  return x


_cj.defjvp(lambda primals, tangents: (_cj(primals[0]), tangents[0]))


@jax.custom_vjp
def _cv(x):
  _ordered_print(x)
  return x


_cv.defvjp(lambda x: (_cv(x), None), lambda _, g: (g,))


@pytest.mark.parametrize("name, fn", [
    ("jit", jax.jit(lambda x: (_ordered_print(x), x)[1])),
    ("custom_jvp", _cj),
    ("custom_vjp", _cv),
    ("checkpoint", jax.checkpoint(lambda x: (_ordered_print(x), x)[1])),
    ("cond", lambda x: lax.cond(x > 0, lambda: _ordered_print(x), lambda: None)),
    ("while", lambda x: lax.while_loop(lambda c: c < 2, lambda c: (_ordered_print(c), c + 1)[1], x)),
    ("scan", lambda x: lax.scan(lambda c, _: ((_ordered_print(c), c)[1], None), x, None, length=1)),
    ("vmap", lambda x: jax.vmap(lambda y: (_ordered_print(y), y)[1])(jnp.stack([x, x]))),
    ("grad", jax.grad(lambda x: (_ordered_print(x), x)[1])),
    ("jit of grad of custom_vjp", jax.jit(jax.grad(_cv))),
])
def test_effects_propagate_through_transformations(name, fn, capsys):
  assert [repr(e) for e in jax.make_jaxpr(fn)(1.).effects] == ["OrderedDebug"]
  fn(1.)
  assert "1.0" in _lines(capsys)
