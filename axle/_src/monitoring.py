"""Event listeners for monitoring (JAX's ``jax.monitoring``): libraries record events and
durations; registered listeners are called with them. axle itself records none."""
from __future__ import annotations

from typing import Callable

_event_listeners: list = []
_event_duration_listeners: list = []
_scalar_listeners: list = []


def register_event_listener(callback: Callable) -> None:
  """``callback(event: str, **kwargs)`` is called by ``record_event``."""
  _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
  """``callback(event: str, duration_secs: float, **kwargs)`` is called by
  ``record_event_duration_secs``."""
  _event_duration_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
  """``callback(event: str, value, **kwargs)`` is called by ``record_scalar``."""
  _scalar_listeners.append(callback)


def record_event(event: str, **kwargs) -> None:
  for callback in list(_event_listeners):
    callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
  for callback in list(_event_duration_listeners):
    callback(event, duration, **kwargs)


def record_scalar(event: str, value, **kwargs) -> None:
  for callback in list(_scalar_listeners):
    callback(event, value, **kwargs)


def clear_event_listeners() -> None:
  _event_listeners.clear()
  _event_duration_listeners.clear()
  _scalar_listeners.clear()
