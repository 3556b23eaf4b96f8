"""``python -m axle.run script.py [args]`` / ``python -m axle.run -m module [args]``: runs a JAX
program with axle registered as ``jax`` (see ``axle.alias_as_jax``). Re-exports only."""
from axle._src.jax_names import main as main

if __name__ == "__main__":
  main()
