"""``jax_cpu_enable_async_dispatch``: programs give the same results whether the CPU client runs
them in the caller's thread (axle's default) or on XLA's dispatch threads (JAX's default),
including callbacks that run programs of their own and several devices. Each mode runs in a
fresh interpreter: the flag is read when the client is created."""
import os
import subprocess
import sys

PROGRAM = r"""
import numpy as np
import axle as jax, axle.numpy as jnp
from axle import lax
from axle.experimental import io_callback

print(jax.config.jax_cpu_enable_async_dispatch)

def inner(a):  # a callback running programs of its own while the outer one runs
  a = jnp.asarray(a)
  return np.asarray(jnp.sin(a) + jax.jit(lambda z: z * 2)(a))

spec = jax.ShapeDtypeStruct((3,), np.float32)
f = jax.jit(lambda v: lax.fori_loop(0, 3, lambda i, c: c + jax.pure_callback(inner, spec, c), v))
g = jax.jit(lambda v: io_callback(lambda a: np.asarray(jnp.cos(a)), spec, v, ordered=True))
key = jax.random.PRNGKey(0)
k1, k2 = jax.random.split(key)
x = jnp.arange(4.0)
results = [f(jnp.ones(3)), g(jnp.ones(3)), jax.random.uniform(k2, (5,)),
           jax.random.normal(jax.random.fold_in(k1, 3), (1000,)).sum(),
           jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x.reshape(4, 1))]
for r in results:
  print(np.asarray(r).tobytes().hex())
"""


def _run(mode: str | None) -> list[str]:
  env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
  env.pop("JAX_CPU_ENABLE_ASYNC_DISPATCH", None)
  if mode is not None:
    env["JAX_CPU_ENABLE_ASYNC_DISPATCH"] = mode
  out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                       env=env, timeout=240)
  assert out.returncode == 0, out.stderr[-3000:]
  return out.stdout.split()


def test_both_dispatch_modes_give_the_same_results():
  default, synchronous, asynchronous = _run(None), _run("0"), _run("1")
  assert default[0] == "False" and synchronous[0] == "False" and asynchronous[0] == "True"
  assert default[1:] == synchronous[1:] == asynchronous[1:]
  assert len(default) == 6
