"""Multi-device inputs are checked before XLA sees them: XLA:CPU segfaults or aborts on a
per-device buffer of the wrong shape or dtype, on a layout over another number of devices,
and on devices in another order than the executable's (shared/xla-multidevice/NOTES.md).

XLA fixes the device count when its client starts, so the checks run in one fresh process
with 4 CPU devices; each prints one line, and the process must end normally."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHECKS = r'''
import numpy as np
import axle as jax
from axle._src.core import ShapedArray
from axle._src.xla import client

jax.config.update("jax_num_cpu_devices", 4)
devs = tuple(jax.devices())
f32 = np.float32
aval = ShapedArray((8, 3), np.dtype(f32))
rows = client.hlo_sharding([4, 1])
pieces = [np.full((2, 3), k, f32) for k in range(4)]


def attempt(name, fn):
  try:
    fn()
  except ValueError as e:
    print(f"{name}: {e}")
  else:
    print(f"{name}: no error")


attempt("shape", lambda: client.put_shards(pieces[:3] + [np.ones((3, 3), f32)], aval, devs, rows))
attempt("dtype", lambda: client.put_shards(pieces[:3] + [np.ones((2, 3), np.int32)], aval, devs,
                                           rows))
attempt("tiles", lambda: client.put_shards(pieces, aval, devs, client.hlo_sharding([2, 1])))
attempt("uneven", lambda: client.put_shards(pieces, ShapedArray((7, 3), np.dtype(f32)), devs,
                                            rows))
singles = [client.put(p, ShapedArray(p.shape, p.dtype), d) for p, d in zip(pieces, devs)]
wrong = client.put(np.ones((1, 3), f32), ShapedArray((1, 3), np.dtype(f32)), devs[3])
attempt("assemble", lambda: client.assemble_buffers(singles[:3] + [wrong], aval, devs, rows))
attempt("duplicates", lambda: client.compile_spmd("", [aval], [aval], devs[:3] + devs[:1]))
attempt("replicas", lambda: client.compile("", [aval], client.CompileOptions(num_replicas=2),
                                           devs[:1]))

text = """module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.add %a, %a : tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }
}"""
exe = client.compile_spmd(text, [aval], [aval], devs)
(out,) = exe.execute([client.put_shards(pieces, aval, devs, rows)])
print("run:", [float(np.asarray(memoryview(s))[0, 0]) for s in client.shard_buffers(out)])
small = ShapedArray((4, 3), np.dtype(f32))
attempt("argument shape", lambda: exe.execute([client.put_shards(
    [p[:1] for p in pieces], small, devs, rows)]))
attempt("device order", lambda: exe.execute([client.put_shards(pieces, aval, devs[::-1], rows)]))
attempt("count", lambda: exe.execute([]))
print("end")
'''


def test_multi_device_inputs_are_checked_before_xla():
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env.pop("XLA_FLAGS", None)
  out = subprocess.run([sys.executable, "-c", CHECKS], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=120)
  assert out.returncode == 0, f"exit status {out.returncode}\n{out.stderr[-3000:]}"
  lines = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
  need = ("an array of shape (8, 3) and dtype float32 laid out by {devices=[4,1]0,1,2,3} over "
          "4 devices needs pieces of shape (2, 3) and dtype float32")
  assert lines["shape"] == ("put_shards: the piece for device CpuDevice(id=3) (piece 3) has "
                            "shape (3, 3) and dtype float32; " + need)
  assert lines["dtype"] == ("put_shards: the piece for device CpuDevice(id=3) (piece 3) has "
                            "shape (2, 3) and dtype int32; " + need)
  assert lines["tiles"] == ("the sharding {devices=[2,1]0,1} lays an array out over 2 devices, "
                            "but 4 devices were given")
  assert lines["uneven"] == ("the sharding {devices=[4,1]0,1,2,3} splits dimension 0 (of size "
                             "7) of an array of shape (7, 3) into 4 pieces, which does not "
                             "divide it evenly")
  assert lines["assemble"] == ("assemble_buffers: the piece for device CpuDevice(id=3) (piece "
                               "3) has shape (1, 3) and dtype float32; " + need)
  assert lines["duplicates"].startswith("compile_spmd: duplicate devices")
  assert lines["replicas"].startswith("compile: 2 replicas x 1 partitions need as many distinct "
                                      "devices")
  assert lines["run"] == "[0.0, 2.0, 4.0, 6.0]"
  assert lines["argument shape"] == ("argument 0: expected f32[8,3], got a buffer of shape "
                                     "(4, 3) and dtype float32")
  assert lines["device order"] == ("argument 0: its buffer is laid out over the wrong devices "
                                   "or with the wrong sharding for this executable")
  assert lines["count"] == "SPMD executable expects 1 arguments, got 0"
  assert out.stdout.splitlines()[-1] == "end"
