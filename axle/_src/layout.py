"""``jax.experimental.layout``'s ``Layout`` and ``Format``: an array's memory layout and its
(layout, sharding) pair. axle always uses XLA's default layout, so these are descriptions only:
``Layout()``/``Format()`` with no arguments mean "the default"."""
from __future__ import annotations


class Layout:
  """A memory layout: the dimensions' order from major to minor (None: XLA's default)."""

  def __init__(self, major_to_minor=None, tiling=(), sub_byte_element_size_in_bits: int = 0):
    self.major_to_minor = None if major_to_minor is None else tuple(major_to_minor)
    self.tiling = tuple(tiling)
    self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

  def __repr__(self):
    return f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling})"

  def __eq__(self, other):
    return (isinstance(other, Layout) and self.major_to_minor == other.major_to_minor
            and self.tiling == other.tiling)

  def __hash__(self):
    return hash((Layout, self.major_to_minor, self.tiling))


class Format:
  """An array's layout together with its sharding."""

  def __init__(self, layout: Layout | None = None, sharding=None):
    if sharding is None and layout is not None and not isinstance(layout, Layout):
      layout, sharding = None, layout  # Format(sharding) as JAX accepts
    self.layout = layout
    self.sharding = sharding

  def __repr__(self):
    return f"Format({self.layout}, {self.sharding})"

  def __eq__(self, other):
    return isinstance(other, Format) and (self.layout, self.sharding) == (other.layout, other.sharding)

  def __hash__(self):
    return hash((Format, self.layout, self.sharding))


DeviceLocalLayout = Layout  # the older name
