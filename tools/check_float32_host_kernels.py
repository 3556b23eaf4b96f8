"""Compares the C module's float32 tanh, sin, cos and tan with the compiled programs on
every float32 input.

    python tools/check_float32_host_kernels.py [NAME ...]

axle's eager jnp.tanh, sin, cos and tan on float32 run ``_host_kernels``' functions (a
copy of XLA CPU's tanh approximation; the C library's sinf, cosf and tanf, which XLA's
code calls) instead of single-op programs; the tests compare a sample of inputs. Run this after
changing the module, the jaxlib version, the C library or the machine type: it compares all
2**32 bit patterns (in the vector loop and, shifted by three, in its tail) and prints the
differences. About a minute per function on two cores.
"""
import sys
import time

import numpy as np

import axle
import axle.numpy as jnp
from axle._src.lax import special

_FUNCTIONS = {"tanh": jnp.tanh, "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan}


def check(name: str) -> int:
  c_kernel = special._c_kernels[name]
  if c_kernel is None:
    print(f"{name}: the C module's float32 {name} is not used here (not built, or not known "
          "to match XLA on this machine)")
    return 0
  compiled = axle.jit(_FUNCTIONS[name])
  chunk = 1 << 24
  different = 0
  start_time = time.time()
  for start in range(0, 1 << 32, chunk):
    x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
    want = np.asarray(compiled(x)).view(np.uint32)
    for offset in (0, 3):
      out = np.empty(chunk - offset, np.float32)
      c_kernel(x[offset:], out)
      wrong = np.flatnonzero(out.view(np.uint32) != want[offset:])
      different += wrong.size
      for index in wrong[:3]:
        print(f"{name}(x = {x[offset + index]!r} ({start + offset + index:#010x})): "
              f"{out[index]!r} here, {want[offset + index].view(np.float32)!r} compiled")
  print(f"{name}: {different} different of 2**32 inputs (twice), "
        f"{time.time() - start_time:.0f} s", flush=True)
  return different


def main() -> int:
  names = sys.argv[1:] or list(_FUNCTIONS)
  return 1 if sum(check(name) for name in names) else 0


if __name__ == "__main__":
  sys.exit(main())
