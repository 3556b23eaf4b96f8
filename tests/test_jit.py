"""jit on XLA: caching and retracing, static and donated arguments, AOT lowering and
compilation, disable_jit, asynchronous results, devices and transfers, retrace explanations."""
import functools
import logging
import subprocess
import sys
import textwrap
import warnings

import ml_dtypes
import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle._src import cache_misses
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import ShapedArray
from axle._src.xla import client


# ---------------------------------------------------------------------------
# Tracing once per signature


def test_traces_once_per_signature_and_side_effects_run_at_trace_time():
  calls = []

  @axle.jit
  def f(x):
    calls.append(1)
    return x * 2.0

  x = jnp.arange(3.0)
  np.testing.assert_array_equal(f(x), [0.0, 2.0, 4.0])
  f(x)
  f(x + 1)
  assert len(calls) == 1
  f(jnp.arange(4.0))  # a new shape traces again
  assert len(calls) == 2
  f(jnp.arange(4))  # a new dtype too
  assert len(calls) == 3
  f(np.arange(4.0, dtype=np.float32))  # a NumPy array of a seen signature does not
  assert len(calls) == 3


def test_container_arguments_take_the_short_path_per_structure_and_avals():
  calls = []

  @axle.jit
  def f(params, scale):
    calls.append(1)
    return {k: v * scale["s"] for k, v in params.items()}, [params["a"].sum()]

  params = {"a": jnp.arange(3.0), "b": jnp.ones((2,), jnp.int32)}
  scale = {"s": jnp.asarray(2.0)}
  for _ in range(3):  # the repeated calls come from the short path: right answers, one trace
    out, (total,) = f(params, scale)
    np.testing.assert_array_equal(out["a"], [0.0, 2.0, 4.0])
    assert out["b"].dtype == np.float32 and float(total) == 3.0
  assert len(calls) == 1
  f({"a": jnp.arange(4.0), "b": params["b"]}, scale)  # a new shape of one leaf traces again
  assert len(calls) == 2
  f({"a": params["a"], "c": params["b"]}, scale)  # so does a new structure
  assert len(calls) == 3
  strong = jnp.asarray(2.0, dtype=jnp.float32)
  weak = axle.jit(lambda: 2.0)()
  assert weak.weak_type != strong.weak_type
  f(params, {"s": strong})
  f(params, {"s": weak})  # the same shape and dtype, another weak type: its own entry
  assert len(calls) == 4
  # NumPy arrays and Python scalars among the leaves: the general path, the same answers
  out, _ = f({"a": np.arange(3.0, dtype=np.float32), "b": params["b"]}, {"s": 3.0})
  np.testing.assert_array_equal(out["a"], [0.0, 3.0, 6.0])
  config.update("jax_debug_nans", True)
  try:  # a new trace state misses the short path
    with pytest.raises(FloatingPointError):
      f({"a": jnp.asarray([0.0, np.inf, 1.0]), "b": params["b"]}, {"s": jnp.asarray(0.0)})
  finally:
    config.update("jax_debug_nans", False)


def test_globals_are_baked_in_at_trace_time():
  state = {"scale": 2.0}

  @axle.jit
  def f(x):
    return x * state["scale"]

  x = jnp.ones(2)
  np.testing.assert_array_equal(f(x), [2.0, 2.0])
  state["scale"] = 10.0
  np.testing.assert_array_equal(f(x), [2.0, 2.0])


def test_results_are_device_backed_and_blockable():
  out = axle.jit(lambda x: x + 1.0)(jnp.arange(4.0))
  assert isinstance(out, Array) and out._buffer is not None
  assert out.block_until_ready() is out
  assert axle.block_until_ready({"a": out}) == {"a": out}
  np.testing.assert_array_equal(np.asarray(out), [1, 2, 3, 4])


def test_python_scalars_numpy_arrays_and_arrays_are_accepted():
  f = axle.jit(lambda x, y, z: x + y + z)
  out = f(1.0, np.float32(2.0), jnp.ones(2))
  np.testing.assert_array_equal(out, [4.0, 4.0])
  assert out.dtype == np.float32
  weak = axle.jit(lambda x: x)(1.0)
  assert weak.weak_type and weak.dtype == np.float32


def test_non_array_argument_error_points_to_static_argnums():
  f = axle.jit(lambda x, s: x)
  with pytest.raises(TypeError, match="static_argnums"):
    f(1.0, "hello")


def test_pytrees_in_and_out():
  f = axle.jit(lambda d, t: {"sum": d["a"] + t[0], "list": [t[1] * 2]})
  out = f({"a": jnp.ones(2)}, (jnp.ones(2), 3.0))
  np.testing.assert_array_equal(out["sum"], [2.0, 2.0])
  assert float(out["list"][0]) == 6.0


# ---------------------------------------------------------------------------
# static, keyword, method and partial arguments


def test_static_argnums_and_argnames_including_negative():
  traces = []

  def f(x, n, *, mode="add"):
    traces.append((n, mode))
    return x + n if mode == "add" else x * n

  g = axle.jit(f, static_argnums=(-1,), static_argnames="mode")
  x = jnp.ones(2)
  np.testing.assert_array_equal(g(x, 3), [4.0, 4.0])
  np.testing.assert_array_equal(g(x, 3, mode="mul"), [3.0, 3.0])
  g(x, 3)
  assert traces == [(3, "add"), (3, "mul")]
  g(x, 4)
  assert len(traces) == 3


def test_unhashable_static_argument_raises_clearly():
  f = axle.jit(lambda x, opts: x, static_argnums=1)
  with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
    f(jnp.ones(2), {"a": 1})


def test_keyword_arguments_methods_and_partial():
  class Model:
    def __init__(self, w):
      self.w = w

    @functools.partial(axle.jit, static_argnums=0)
    def apply(self, x):
      return x * self.w

    def __hash__(self):
      return id(self)

  assert float(Model(3.0).apply(jnp.asarray(2.0))) == 6.0
  f = axle.jit(lambda x, y=1.0: x - y)
  assert float(f(5.0, y=2.0)) == 3.0
  assert float(f(x=5.0)) == 4.0
  scaled = axle.jit(functools.partial(lambda s, x: s * x, 4.0))
  assert float(scaled(2.0)) == 8.0


# ---------------------------------------------------------------------------
# donation, keep_unused, inline


def test_donated_array_is_deleted_and_reuse_raises():
  f = axle.jit(lambda x, y: x + y, donate_argnums=0)
  x = jnp.ones(1000)
  y = jnp.ones(1000)
  out = f(x, y)
  np.testing.assert_array_equal(out, np.full(1000, 2.0))
  assert x.is_deleted() and not y.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    np.asarray(x)
  with pytest.raises(RuntimeError, match="deleted"):
    f(x, y)


def test_donate_argnames_and_unusable_donation_keeps_the_array():
  f = axle.jit(lambda x, y: (x * 2).sum(), donate_argnames="x")
  x = jnp.ones(8)
  assert float(f(x, 1.0)) == 16.0
  assert not x.is_deleted()  # no output of x's type to reuse its buffer for


def test_inline_stages_no_jit_equation():
  inner = axle.jit(lambda x: x * 2.0, inline=True)
  text = str(axle.make_jaxpr(lambda x: inner(x) + 1.0)(1.0))
  assert "jit" not in text and "mul" in text
  nested = axle.jit(lambda x: x * 2.0)
  assert "jit[" in str(axle.make_jaxpr(lambda x: nested(x) + 1.0)(1.0))


def test_keep_unused_still_computes():
  f = axle.jit(lambda x, unused: x + 1.0, keep_unused=True)
  assert float(f(1.0, jnp.zeros(3))) == 2.0


def test_nested_jit_lowers_to_a_called_function():
  inner = axle.jit(lambda x: x * 2.0)
  outer = axle.jit(lambda x: inner(x) + inner(x + 1.0))
  assert float(outer(1.0)) == 6.0
  text = outer.lower(1.0).as_text()
  assert "func.func private" in text and "call @" in text


# ---------------------------------------------------------------------------
# AOT: lower, compile


def stupid_fn(x):
  y = x
  for _ in range(1000):
    y = y * 1.0001
  return x


def test_lower_as_text_and_compile():
  f = axle.jit(lambda x: x + 1.0)
  lowered = f.lower(jnp.arange(4.0))
  text = lowered.as_text()
  assert "stablehlo.add" in text and "func.func public @main" in text
  assert '"stablehlo.' not in text  # MLIR's pretty syntax, as JAX shows it, not the generic form
  compiled = lowered.compile()
  assert "HloModule" in compiled.as_text()
  np.testing.assert_array_equal(compiled(jnp.arange(4.0)), [1, 2, 3, 4])
  costs = compiled.cost_analysis()
  assert costs["flops"] == 4.0
  assert compiled.memory_analysis().argument_size_in_bytes == 16
  with pytest.raises(TypeError, match="Argument types differ"):
    compiled(jnp.arange(5.0))


def test_lower_accepts_shape_dtype_structs():
  lowered = axle.jit(lambda x: x * 2).lower(axle.ShapeDtypeStruct((2, 3), np.float32))
  assert "tensor<2x3xf32>" in lowered.as_text()


def test_stupid_fn_compiles_to_a_single_copy():
  hlo = axle.jit(stupid_fn).lower(jnp.arange(4.0)).compile().as_text()
  assert "multiply" not in hlo
  entry = hlo[hlo.index("ENTRY"):]
  instructions = [line for line in entry.splitlines()[1:] if "=" in line]
  assert len(instructions) == 2 and "copy(" in instructions[-1], entry


def test_elementwise_chain_is_fused():
  f = axle.jit(lambda x: jnp.abs(x * 2.0 + 1.0) - 3.0)
  hlo = f.lower(jnp.ones(1000)).compile().as_text()
  assert "fusion" in hlo


# ---------------------------------------------------------------------------
# disable_jit, errors


def test_disable_jit_runs_op_by_op():
  seen = []

  @axle.jit
  def f(x):
    seen.append(type(x))
    return x + 1

  f(jnp.ones(2))  # compiled and cached first
  f(jnp.ones(2))
  assert len(seen) == 1 and seen[0] is not Array
  with axle.disable_jit():
    f(jnp.ones(2))
    f(jnp.ones(2))
  assert seen[1:] == [Array, Array]
  f(jnp.ones(2))
  assert len(seen) == 3


def test_deleted_array_errors():
  x = jnp.ones(3) + 1
  x.delete()
  assert x.is_deleted()
  with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
    x + 1


# ---------------------------------------------------------------------------
# Retrace explanations


def test_retrace_warning_names_the_argument_and_what_changed():
  f = axle.jit(lambda x: x.sum())
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for n in range(1, 11):
      f(jnp.ones(n))
  messages = [str(w.message) for w in caught if issubclass(w.category, cache_misses.RetraceWarning)]
  assert len(messages) == 1  # once per function
  assert "argument 'x' changed shape from f32[8] to f32[9]" in messages[0]
  assert "9 compilations so far" in messages[0]


def test_explain_cache_misses_logs_every_miss(caplog):
  f = axle.jit(lambda x, n: x * n, static_argnums=1)
  config.update("jax_explain_cache_misses", True)
  try:
    with caplog.at_level(logging.WARNING, logger="axle"):
      f(jnp.ones(2), 2)
      f(jnp.ones(2), 3)
      f(jnp.ones(2, dtype=np.int32), 3)
  finally:
    config.update("jax_explain_cache_misses", False)
  text = "\n".join(r.getMessage() for r in caplog.records)
  assert "never been traced before" in text
  assert "static argument 1 changed value from 2 to 3" in text
  assert "argument 'x' changed dtype from float32 to int32" in text


def test_describe_changes_for_weak_types_and_structure():
  old = cache_misses.Signature(["x"], [ShapedArray((), np.float32, True)], 1, (), ())
  new = cache_misses.Signature(["x"], [ShapedArray((), np.float32, False)], 1, (), ())
  (change,) = cache_misses.describe_changes(old, new)
  assert "weakly typed" in change and "strongly typed" in change


# ---------------------------------------------------------------------------
# Devices and transfers


def test_devices():
  assert repr(axle.devices()[0]) == "CpuDevice(id=0)"
  assert axle.device_count() == axle.local_device_count() == len(axle.devices()) >= 1
  assert axle.default_backend() == "cpu"
  x = jnp.ones(2)
  assert x.devices() == {axle.devices()[0]}
  assert repr(x.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"


def test_device_count_follows_xla_flags():
  code = "import axle; print(axle.device_count(), repr(axle.devices()[-1]))"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**__import__("os").environ,
                            "XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
  assert out.stdout.strip() == "4 CpuDevice(id=3)"
  assert "PjRt" not in out.stderr  # INFO lines are silenced


def test_device_put_get_on_pytrees():
  tree = {"a": np.arange(3, dtype=np.float32), "b": [1.0, np.int32(2)]}
  on_device = axle.device_put(tree)
  assert all(isinstance(leaf, Array) and leaf._buffer is not None
             for leaf in axle.tree_util.tree_leaves(on_device))
  assert on_device["b"][0].weak_type
  back = axle.device_get(on_device)
  assert isinstance(back["a"], np.ndarray)
  np.testing.assert_array_equal(back["a"], [0, 1, 2])
  with pytest.raises(TypeError, match="not a valid JAX type"):
    axle.device_put("text")


_ROUND_TRIP_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
                      np.float16, ml_dtypes.bfloat16, np.float32, np.complex64]
_ROUND_TRIP_DTYPES_X64 = [np.int64, np.uint64, np.float64, np.complex128]


def _round_trip(dtype):
  rng = np.random.default_rng(0)
  value = (rng.standard_normal((3, 4)) * 50).astype(dtype)
  strided = value[:, ::2]  # non-contiguous
  for host in (value, strided, value[0, 0].reshape(())):
    aval = ShapedArray(host.shape, np.dtype(dtype))
    back = client.to_host(client.put(np.ascontiguousarray(host), aval), aval)
    assert back.dtype == np.dtype(dtype)
    assert back.shape == host.shape
    assert back.tobytes() == np.ascontiguousarray(host).tobytes()
    # and through jit (identity), including the bf16 read path
    out = np.asarray(axle.jit(lambda x: x)(host))
    assert out.dtype == np.dtype(dtype) and out.tobytes() == np.ascontiguousarray(host).tobytes()


@pytest.mark.parametrize("dtype", _ROUND_TRIP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_transfers_round_trip_exactly(dtype):
  _round_trip(dtype)


@pytest.mark.parametrize("dtype", _ROUND_TRIP_DTYPES_X64, ids=lambda d: np.dtype(d).name)
def test_transfers_round_trip_exactly_x64(dtype, x64):
  _round_trip(dtype)


def test_host_value_is_read_once_and_is_read_only():
  out = axle.jit(lambda x: x * 2)(jnp.arange(3.0))
  first = np.asarray(out)
  assert np.asarray(out) is first or np.shares_memory(np.asarray(out), first)
  assert not first.flags.writeable


def test_x64_results_keep_64_bits(x64):
  out = axle.jit(lambda x: x + 1)(np.array([2**40], np.int64))
  assert out.dtype == np.int64 and int(out[0]) == 2**40 + 1


# ---------------------------------------------------------------------------
# Eager fallback through XLA


def test_primitive_without_kernel_runs_eagerly_through_xla(monkeypatch):
  from axle._src.lax import elementwise
  monkeypatch.setattr(elementwise.add_p, "impl", None)
  out = lax.add(jnp.arange(3.0), 1.5)
  assert isinstance(out, Array) and out.dtype == np.float32 and out.weak_type is False
  np.testing.assert_array_equal(out, [1.5, 2.5, 3.5])


def test_pytest_process_never_imports_jax():
  f = axle.jit(lambda x: (x * 2).sum())
  f(jnp.ones(3)).block_until_ready()
  f.lower(jnp.ones(3)).compile().as_text()
  assert "jax" not in sys.modules


# ---------------------------------------------------------------------------
# Persistent compilation cache


_CACHE_SCRIPT = textwrap.dedent("""
    import os, stat, time, axle, axle.numpy as jnp
    from axle._src.xla import execution
    def f(x):
      for i in range(50):
        x = x * 1.5 + i
      return x
    out = axle.jit(f)(jnp.ones(3))
    print(float(out[0]))
""")


def _run_cache_script(directory, min_time="0"):
  import os
  env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(directory),
         "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": min_time}
  out = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT], capture_output=True, text=True,
                       env=env, check=True)
  return out.stdout.strip(), out.stderr


def test_persistent_cache_stores_loads_and_rejects_corrupt_entries(tmp_path):
  import os
  directory = tmp_path / "cache"
  first, _ = _run_cache_script(directory)
  entries = [p for p in directory.iterdir() if p.suffix == ".axlexc"]
  assert len(entries) == 1
  assert (directory.stat().st_mode & 0o777) == 0o700
  again, stderr = _run_cache_script(directory)
  assert again == first and "corrupt" not in stderr
  # a truncated entry is ignored (and recompiled), never loaded
  data = entries[0].read_bytes()
  entries[0].write_bytes(data[: len(data) // 2])
  truncated, stderr = _run_cache_script(directory)
  assert truncated == first and "corrupt" in stderr
  # a flipped byte in the payload likewise
  data = bytearray(entries[0].read_bytes())
  data[-10] ^= 0xFF
  entries[0].write_bytes(bytes(data))
  flipped, stderr = _run_cache_script(directory)
  assert flipped == first and "corrupt" in stderr


def test_persistent_cache_skips_fast_compiles(tmp_path):
  directory = tmp_path / "cache"
  _run_cache_script(directory, min_time="1000")
  assert not directory.exists() or not any(p.suffix == ".axlexc" for p in directory.iterdir())


def test_numpy_argument_mutated_after_the_call_does_not_change_the_result():
  host = np.zeros(1 << 16, np.float32)
  out = axle.jit(lambda x: x + 1.0)(host)
  host[:] = 100.0
  assert float(np.asarray(out).max()) == 1.0


def test_jit_equation_evaluated_eagerly_runs_compiled():
  from axle._src import ir
  inner = axle.jit(lambda x: x * 3.0)
  closed = axle.make_jaxpr(lambda x: inner(x) + 1.0)(jnp.ones(2))
  (out,) = ir.eval_jaxpr(closed.jaxpr, closed.consts, jnp.ones(2))
  np.testing.assert_array_equal(out, [4.0, 4.0])


def test_asarray_of_a_numpy_array_does_not_alias_it():
  host = np.zeros(4, np.float32)
  array = jnp.asarray(host)
  host[:] = 5.0
  np.testing.assert_array_equal(array, np.zeros(4))


def test_large_closed_over_arrays_are_passed_not_inlined():
  table = jnp.arange(100_000, dtype=np.float32)
  f = axle.jit(lambda i: table[i] * 2.0)
  assert float(f(jnp.int32(99_999))) == 199_998.0
  text = f.lower(jnp.int32(0)).as_text()
  assert len(text) < 5_000  # the 400 kB constant is an argument of @main, not text
  assert "tensor<100000xf32>" in text


def test_library_jits_and_inner_traces_never_warn_about_retracing():
  inner = axle.jit(lambda x: jnp.where(x > 0, x, 0.0))
  with warnings.catch_warnings():
    warnings.simplefilter("error", cache_misses.RetraceWarning)
    for n in range(1, 12):  # jnp.where's own jit sees 11 shapes; `inner` is traced 11 times
      axle.make_jaxpr(lambda x: inner(x) + 1.0)(jnp.ones(n))


def test_constants_keep_signed_zeros_and_bool_patterns():
  signed = np.array([0.0, -0.0], np.float32)  # equal as numbers, not a splat
  out = np.asarray(axle.jit(lambda x: x + signed)(np.array([-0.0, -0.0], np.float32)))
  np.testing.assert_array_equal(np.signbit(out), [False, True])
  mask = np.array([[True, False], [True, True]])
  np.testing.assert_array_equal(axle.jit(lambda x: x & mask)(np.ones((2, 2), bool)), mask)


def test_jit_twice_of_the_same_function_shares_its_traces():
  traced = []

  def f(x):
    traced.append(1)
    return x + 1.0

  axle.jit(f)(4.0)
  axle.jit(f)(5.0)
  assert len(traced) == 1
  axle.jit(f, static_argnums=())(6.0)  # same options: still cached
  assert len(traced) == 1
  axle.jit(f)(jnp.array([5.0]))  # a new signature traces again
  assert len(traced) == 2
