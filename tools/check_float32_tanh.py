"""Compares the C module's float32 tanh with the compiled program on every float32 input.

    python tools/check_float32_tanh.py

axle's eager jnp.tanh on float32 runs ``_host_kernels.float32_tanh`` (a copy of XLA CPU's
approximation) instead of a single-op program; the tests compare a sample of inputs. Run this
after changing the kernel, the jaxlib version or the machine type: it compares all 2**32 bit
patterns (in the vector loop and, shifted by three, in its tail) and prints the differences.
About a minute on two cores.
"""
import sys
import time

import numpy as np

import axle
import axle.numpy as jnp
from axle._src.lax import special


def main() -> int:
  if special._c_tanh is None:
    print("the C module's float32 tanh is not available here (not built, or no AVX2/FMA)")
    return 1
  compiled = axle.jit(jnp.tanh)
  chunk = 1 << 24
  different = 0
  start_time = time.time()
  for start in range(0, 1 << 32, chunk):
    x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
    want = np.asarray(compiled(x)).view(np.uint32)
    for offset in (0, 3):
      out = np.empty(chunk - offset, np.float32)
      special._c_tanh(x[offset:], out)
      wrong = np.flatnonzero(out.view(np.uint32) != want[offset:])
      different += wrong.size
      for index in wrong[:3]:
        print(f"x = {x[offset + index]!r} ({start + offset + index:#010x}): "
              f"{out[index]!r} here, {want[offset + index].view(np.float32)!r} compiled")
  print(f"{different} different of 2**32 inputs (twice), {time.time() - start_time:.0f} s")
  return 1 if different else 0


if __name__ == "__main__":
  sys.exit(main())
