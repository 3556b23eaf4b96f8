"""Records real JAX's answers for tests/issue14_snippets.py into tests/data/issue14_reference.json.

    python tools/record_issue14_reference.py --jax-python /path/to/jax-venv/bin/python
    JAX_PYTHON=/path/to/jax-venv/bin/python python tools/record_issue14_reference.py

The script re-runs itself under the JAX interpreter (``--jax-python`` or ``$JAX_PYTHON``).
"""
from snippet_reference import main

if __name__ == "__main__":
  main(__file__, __doc__.splitlines()[0], "issue14_snippets", "issue14_reference.json")
