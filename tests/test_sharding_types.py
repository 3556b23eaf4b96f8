"""Sharding in types over several CPU devices: unreduced arrays, sharded types of traced
values, shard_map under jit. The checks run in one fresh process with 8 devices
(``tests/sharding_types_worker.py``), each reported as its own test."""
import os
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(__file__), "sharding_types_worker.py")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = ["shard_map_infers_in_specs_of_traced_arguments",
          "remat_with_collectives_in_eager_shard_map", "partition_spec_unreduced_field",
          "unreduced_arrays", "sharded_types_of_traced_values",
          "explicit_axes_inside_jit_types_values", "axis_index_groups_in_pmap_and_shard_map",
          "grad_through_explicit_pcast_in_shard_map",
          "varying_types_in_traced_shard_map_bodies", "sharding_type_errors_under_jit",
          "psum_invariant_and_its_transpose_in_shard_map"]


@pytest.fixture(scope="module")
def worker_results():
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env.pop("XLA_FLAGS", None)
  env.pop("PJRT_NPROC", None)
  proc = subprocess.run([sys.executable, WORKER], capture_output=True, text=True, env=env,
                        timeout=600, cwd=ROOT)
  results = {}
  for line in proc.stdout.splitlines():
    status, _, rest = line.partition(" ")
    name = rest.split(":")[0].split(" ")[0]
    results[name] = (status, rest, proc.stderr[-4000:])
  if proc.returncode != 0 and not results:
    pytest.fail(f"worker crashed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
  return results


@pytest.mark.parametrize("name", CHECKS)
def test_sharding_types(worker_results, name):
  assert name in worker_results, f"check {name} did not run (worker crashed?)"
  status, detail, stderr = worker_results[name]
  assert status == "PASS", f"{detail}\n{stderr}"
