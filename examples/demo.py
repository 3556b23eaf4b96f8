"""axle demo (a placeholder until autodiff lands: the gradient is written by hand).

Fits a linear model with an update step compiled by XLA through ``jax.jit``, using axle's eager
arrays around it, and prints the jaxpr of the step.
"""
import numpy as np

import axle as jax
import axle.numpy as jnp


def predict(w, b, x):
  return x @ w + b


@jax.jit
def update(w, b, x, y, learning_rate=0.1):
  error = predict(w, b, x) - y
  grad_w = x.T @ error * (2.0 / x.shape[0])
  grad_b = error.mean() * 2.0
  return w - learning_rate * grad_w, b - learning_rate * grad_b


def main():
  rng = np.random.default_rng(0)
  x = jnp.asarray(rng.normal(size=(64, 3)).astype(np.float32))
  true_w = jnp.array([1.5, -2.0, 0.5])
  y = x @ true_w + 0.3
  w, b = jnp.zeros(3), jnp.float32(0.0)
  for step in range(200):
    w, b = update(w, b, x, y)
    if step % 50 == 0:
      loss = ((predict(w, b, x) - y) ** 2).mean()
      print(f"step {step:3d}  loss {float(loss):.6f}")
  print("learned w:", w, "b:", b)
  print(jax.make_jaxpr(update)(w, b, x, y))


if __name__ == "__main__":
  main()
