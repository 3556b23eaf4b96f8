"""Device objects. Until the XLA client lands (jit issue), axle has one host device."""
from __future__ import annotations


class CpuDevice:
  """A CPU device, printed as JAX prints it: ``CpuDevice(id=0)``."""
  platform = "cpu"
  device_kind = "cpu"

  def __init__(self, id: int = 0):
    self.id = id
    self.process_index = 0

  def __repr__(self):
    return f"CpuDevice(id={self.id})"

  def __eq__(self, other):
    return isinstance(other, CpuDevice) and other.id == self.id

  def __hash__(self):
    return hash(("cpu", self.id))


_default = CpuDevice(0)


def default_device() -> CpuDevice:
  """The device arrays live on by default."""
  return _default
