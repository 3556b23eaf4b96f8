"""Loads the JSON references recorded from real JAX (see tools/record_*_reference.py)."""
import json
import os

_DATA_DIR = os.path.join(os.path.dirname(__file__), "data")


def load_reference(file_name: str):
  """The parsed contents of tests/data/<file_name>."""
  with open(os.path.join(_DATA_DIR, file_name)) as f:
    return json.load(f)
