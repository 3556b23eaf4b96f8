"""Several CPU devices: pmap, collectives, jax.sharding, SPMD jit and shard_map.

XLA fixes the number of CPU devices when its client starts, so these checks run in one fresh
process with 8 devices (``tests/multidevice_worker.py``); this module runs it once and reports
each check as its own test. The rest of the suite keeps one device."""
import os
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(__file__), "multidevice_worker.py")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = ["devices", "pmap_collectives", "pmap_signature", "pmap_errors", "pmap_transformations",
          "pmap_outputs", "pmap_back_to_back", "sharding_objects", "spmd_jit", "shard_map_basic",
          "make_array_and_visualize", "auto_and_explicit_axes", "out_sharding_on_creation",
          "lowered_and_compiled_text_over_a_mesh", "explicit_sharding_rules",
          "reshard_under_use_abstract_mesh", "typeof_of_jit_argument_over_a_mesh"]


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
def test_multidevice(worker_results, name):
  assert name in worker_results, f"check {name} did not run (worker crashed?)"
  status, detail, stderr = worker_results[name]
  assert status == "PASS", f"{detail}\n{stderr}"


def test_xla_flags_device_count():
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=3"
  code = "import axle; print(axle.device_count(), axle.devices())"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120, cwd=ROOT)
  assert out.stdout.strip() == "3 [CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2)]", out.stderr


def _example(*flags):
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env.pop("XLA_FLAGS", None)
  env.pop("PJRT_NPROC", None)
  out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "data_parallel.py"),
                        "--epochs", "1", *flags], capture_output=True, text=True, env=env,
                       timeout=300, cwd=ROOT)
  assert out.returncode == 0, out.stderr[-3000:]
  return [line for line in out.stdout.splitlines() if line.startswith("epoch")]


@pytest.fixture(scope="module")
def single_device_losses():
  return _example("--single")


@pytest.mark.parametrize("flags", [("--processes", "2"), ("--processes", "2", "--sharded")],
                         ids=["pmap", "jit-sharded"])
def test_two_processes_train_like_one(single_device_losses, flags):
  """2 processes x 4 CPU devices on 127.0.0.1 train the demo network data-parallel (pmap, or
  jit over a NamedSharding) to the losses of a single-device run."""
  assert single_device_losses and _example(*flags) == single_device_losses


def _free_port() -> int:
  import socket
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return probe.getsockname()[1]


def _env():
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env.pop("XLA_FLAGS", None)
  return env


def test_two_processes_global_arrays_and_multihost_utils():
  port = _free_port()
  worker = os.path.join(os.path.dirname(__file__), "multiprocess_worker.py")
  procs = [subprocess.Popen([sys.executable, worker, str(rank), str(port)], env=_env(), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
           for rank in range(2)]
  outs = [p.communicate(timeout=180) for p in procs]
  for p, (out, err) in zip(procs, outs):
    assert p.returncode == 0 and "PASS" in out, err[-3000:]


def test_distributed_errors_raise():
  code = ("import socket, axle\n"
          "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); port = s.getsockname()[1]\n"
          "try:\n"
          "  axle.distributed.initialize(f'127.0.0.1:{port}', 2, 0)\n"
          "except RuntimeError as e: print('busy:', 'in use' in str(e))\n"
          "free = socket.socket(); free.bind(('127.0.0.1', 0)); port = free.getsockname()[1]; free.close()\n"
          "try:\n"
          "  axle.distributed.initialize(f'127.0.0.1:{port}', 2, 1, initialization_timeout=1)\n"
          "except RuntimeError as e: print('missing:', 'no coordinator' in str(e))\n"
          "try:\n"
          "  axle.distributed.initialize('127.0.0.1:1', 2, 2)\n"
          "except ValueError as e: print('rank:', 'process_id=2' in str(e))\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(),
                       cwd=ROOT, timeout=120)
  assert out.stdout.split() == ["busy:", "True", "missing:", "True", "rank:", "True"], out.stderr


def test_single_device_aval_sharding_is_trivial():
  import axle as jax
  import axle.numpy as jnp
  assert repr(jax.typeof(jnp.ones(3)).sharding) == \
      "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
  assert repr(jax.typeof(1.0).sharding) == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P())"
  seen = []
  jax.jit(lambda x: seen.append(jax.typeof(x).sharding.spec))(jnp.ones((2, 3)))
  assert seen == [(None, None)]
  assert jnp.zeros(3, out_sharding=None).shape == (3,)
