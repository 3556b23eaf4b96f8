"""Records the JAX 0.10.2 answers of the ecosystem programs (tests/ecosystem/programs/*.py).

Each program is a small real use of one library (an optax training loop, a numpyro NUTS run,
a diffrax solve and its gradient, ...) that prints its numbers with `_show.show`. This script
runs every program with the real-JAX interpreter, which must have the pinned libraries of
tests/ecosystem/requirements.txt installed (`pip install --no-deps -r ...`), and writes their
output to tests/ecosystem/reference.json, which tests/ecosystem/test_ecosystem.py compares
axle's output (`python -m axle.run program.py`) against.

Usage: python tools/record_ecosystem_reference.py --jax-python /path/to/jax/venv/bin/python
       (or set $JAX_PYTHON)
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "ecosystem" / "programs"
OUT = ROOT / "tests" / "ecosystem" / "reference.json"
REQUIREMENTS = ROOT / "tests" / "ecosystem" / "requirements.txt"


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"),
                      help="interpreter with jax 0.10.2 and the pinned libraries (default: $JAX_PYTHON)")
  parser.add_argument("--only", nargs="*", help="program names to (re-)record; default: all")
  args = parser.parse_args()
  if not args.jax_python:
    parser.error("give the real-JAX interpreter with --jax-python or $JAX_PYTHON")
  version = subprocess.run([args.jax_python, "-c", "import jax; print(jax.__version__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
  if version != "0.10.2":
    print(f"warning: references should come from jax 0.10.2, this interpreter has {version}",
          file=sys.stderr)
  reference = json.loads(OUT.read_text()) if OUT.exists() else {}
  reference["_meta"] = {"jax": version, "requirements": [
      line for line in REQUIREMENTS.read_text().splitlines() if line and not line.startswith("#")]}
  names = args.only or sorted(p.stem for p in PROGRAMS.glob("*.py") if not p.stem.startswith("_"))
  for name in names:
    env = dict(os.environ, PYTHONHASHSEED="0")
    run = subprocess.run([args.jax_python, f"{name}.py"], cwd=PROGRAMS, capture_output=True,
                         text=True, env=env, timeout=600)
    if run.returncode != 0:
      print(f"{name}: failed under JAX\n{run.stderr[-3000:]}", file=sys.stderr)
      return 1
    reference[name] = run.stdout
    print(f"{name}: {len(run.stdout.splitlines())} lines")
  OUT.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")
  print(f"wrote {OUT}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
