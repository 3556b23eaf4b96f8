"""``jax.distributed`` failure modes: each must reach the surviving processes as a Python
``JaxRuntimeError`` naming what happened, within a bounded time, and the process must end
normally (XLA's coordination runtime would abort it: shared/xla-multidevice/NOTES.md).

Each case runs real processes on 127.0.0.1 (``tests/multiprocess_failure_worker.py``) with
short timeouts, all cases at once; a hang fails through the subprocess timeout."""
import os
import socket
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(os.path.dirname(__file__), "multiprocess_failure_worker.py")


def _env():
  env = dict(os.environ)
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  env.pop("XLA_FLAGS", None)
  return env


def _free_port() -> int:
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return probe.getsockname()[1]


SCENARIOS = {"peer_dies": (0, 1), "coordinator_dies": (0, 1), "peer_dies_early": (0, 1),
             "peer_raises": (0, 1), "peer_dies_slowly": (0, 1), "three_processes": (0, 1, 2),
             "never_joins": (0,)}


@pytest.fixture(scope="module")
def outcomes() -> dict:
  """Every scenario's processes, all started at once (they mostly wait for timeouts):
  {scenario: {rank: (exit status, stdout, stderr)}}."""
  procs = {}
  for scenario, ranks in SCENARIOS.items():
    port = _free_port()
    for rank in ranks:
      procs[scenario, rank] = subprocess.Popen(
          [sys.executable, WORKER, str(rank), str(port), scenario], env=_env(), cwd=ROOT,
          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  results = {scenario: {} for scenario in SCENARIOS}
  try:
    for (scenario, rank), proc in procs.items():
      out, err = proc.communicate(timeout=180)
      results[scenario][rank] = (proc.returncode, out, err)
  finally:
    for proc in procs.values():
      if proc.poll() is None:
        proc.kill()
  return results


def _raised(result) -> str:
  returncode, out, err = result
  assert returncode == 0, f"exit status {returncode} (negative: killed by a signal)\n{err[-3000:]}"
  lines = [line for line in out.splitlines() if line.startswith("RAISED ")]
  assert lines, f"no error raised\n{out}\n{err[-3000:]}"
  return lines[0][len("RAISED "):]


@pytest.mark.parametrize("scenario,victim", [("peer_dies", 1), ("coordinator_dies", 0),
                                             ("peer_dies_early", 1)])
def test_dead_peer_raises_in_the_survivor(outcomes, scenario, victim):
  """A process that dies (after a collective, before any, or the one that started the
  coordinator): the survivor's pending collective raises instead of aborting or hanging."""
  results = outcomes[scenario]
  survivor = 1 - victim
  message = _raised(results[survivor])
  assert message.startswith(f"JaxRuntimeError: distributed: process {victim} of this "
                            f"2-process job (coordinator 127.0.0.1:"), message
  assert "heartbeat_timeout_seconds=4 s" in message and "restart the whole job" in message
  assert results[victim][0] == 0


def test_dead_peer_in_a_three_process_job(outcomes):
  """One device per process (XLA runs the launch inline): both survivors raise, naming the
  dead process, and leave the job without aborting each other."""
  results = outcomes["three_processes"]
  for survivor in (0, 1):
    message = _raised(results[survivor])
    assert message.startswith("JaxRuntimeError: distributed: process 2 of this 3-process job "
                              "(coordinator 127.0.0.1:"), message
  assert results[2][0] == 0


def test_peer_that_exits_with_an_error(outcomes):
  """A peer whose program fails leaves through the exit-time shutdown (a barrier, bounded by
  shutdown_timeout_seconds) while the survivor waits in a collective: the survivor raises."""
  results = outcomes["peer_raises"]
  message = _raised(results[0])
  assert message.startswith("JaxRuntimeError: distributed: process 1 of this 2-process job "
                            "(coordinator 127.0.0.1:"), message
  assert "it shut down (or exited) while this process still needed it" in message
  assert results[1][0] == 1 and "process 1 stops with an error" in results[1][2]


def test_dead_peer_with_the_default_heartbeat_timeout(outcomes):
  """With JAX's 100 s heartbeat timeout the survivor's collective fails first (the dead
  peer's connection closes): it raises at once, naming the failed collective."""
  results = outcomes["peer_dies_slowly"]
  message = _raised(results[0])
  assert message.startswith("JaxRuntimeError: distributed: a collective of process 0 with "
                            "another process of this 2-process job (coordinator 127.0.0.1:"), message
  assert "Gloo" in message and "probably died" in message and "restart the whole job" in message
  assert float(results[0][1].split("SECONDS ")[1].split()[0]) < 60
  assert results[1][0] == 0


def test_process_that_never_joins(outcomes):
  (result,) = outcomes["never_joins"].values()
  message = _raised(result)
  assert message.startswith("JaxRuntimeError: distributed.initialize: process 0 could not "
                            "join the 2-process job at 127.0.0.1:"), message
  assert "initialization_timeout=2 s" in message


CHECKS = r"""
import socket, sys
import axle

def port():
  with socket.socket() as s:
    s.bind(('127.0.0.1', 0))
    return s.getsockname()[1]

def attempt(*args, **kwargs):
  try:
    axle.distributed.initialize(*args, **kwargs)
  except Exception as e:
    print(f'{type(e).__name__}: {e}')
  else:
    print('no error')

busy = socket.socket(); busy.bind(('127.0.0.1', 0)); busy.listen()
attempt(f'127.0.0.1:{busy.getsockname()[1]}', 2, 0)
attempt(f'127.0.0.1:{port()}', 2, 1, initialization_timeout=1)
attempt('127.0.0.1:1', 2, 2)
attempt('127.0.0.1:1', 2, 1.0)
attempt(None, 2, 0)
attempt('127.0.0.1', 2, 0)
attempt('127.0.0.1:1', 2, 0, heartbeat_timeout_seconds=0)
print(axle.distributed.is_initialized(), axle.process_count())
"""


def test_initialize_errors():
  out = subprocess.run([sys.executable, "-c", CHECKS], capture_output=True, text=True,
                       env=_env(), cwd=ROOT, timeout=120)
  lines = out.stdout.splitlines()
  assert len(lines) == 8, out.stdout + out.stderr[-3000:]
  assert lines[0].startswith("JaxRuntimeError: distributed.initialize: process 0 cannot start "
                             "the coordination service on 127.0.0.1:"), lines[0]
  assert "Address already in use" in lines[0] and "Pick a free port" in lines[0]
  assert lines[1].startswith("JaxRuntimeError: distributed.initialize: process 1 found no "
                             "coordinator listening at 127.0.0.1:"), lines[1]
  assert "initialization_timeout=1 s" in lines[1]
  assert lines[2] == ("ValueError: process_id and num_processes must be nonnegative, with "
                      "process_id < num_processes. Got process_id=2, num_processes=2.")
  assert lines[3] == ("TypeError: process_id must be a nonnegative int. Got process_id=1.0 of "
                      "type <class 'float'>.")
  assert lines[4] == "ValueError: coordinator_address should be defined."
  assert lines[5] == "ValueError: coordinator_address must be 'host:port', got '127.0.0.1'"
  assert lines[6] == ("ValueError: distributed.initialize: heartbeat_timeout_seconds must be a "
                      "positive whole number of seconds, got 0")
  assert lines[7] == "False 1"


LOCAL_IDS = r"""
import sys
import axle as jax
rank, port = int(sys.argv[1]), int(sys.argv[2])
jax.config.update("jax_num_cpu_devices", 2)
jax.distributed.initialize(f"127.0.0.1:{port}", 2, rank, local_device_ids=rank + 5)
print(jax.device_count(), jax.local_device_count(), jax.config.read("jax_cuda_visible_devices"),
      jax.config.read("jax_rocm_visible_devices"), flush=True)
jax.distributed.shutdown()
"""


def test_local_device_ids_on_cpu():
  """As in JAX on CPU: the ids go to the GPU visibility flags; every CPU device stays."""
  port = _free_port()
  procs = [subprocess.Popen([sys.executable, "-c", LOCAL_IDS, str(rank), str(port)],
                            env=_env(), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True) for rank in range(2)]
  outs = [p.communicate(timeout=120) for p in procs]
  for rank, (p, (out, err)) in enumerate(zip(procs, outs)):
    assert p.returncode == 0, err[-3000:]
    assert out.splitlines()[-1] == f"4 2 {rank + 5} {rank + 5}", out
