"""axle demo: train a small MLP classifier with jit + value_and_grad + Adam, all in JAX's API.

The data is generated here (no download): 10 classes of noisy 8x8 "glyphs", each class a random
template, split into a training and a test set. The network (64-128-128-10, tanh) is initialised
with ``jax.random``, trained with an Adam step written with ``jax.tree_util.tree_map`` and
compiled by XLA through ``jax.jit``. Prints the loss per epoch and the final test accuracy.
"""
import sys
import time

import numpy as np

import axle as jax
import axle.numpy as jnp

NUM_CLASSES = 10
LAYER_SIZES = [64, 128, 128, NUM_CLASSES]
EPOCHS = 8
BATCH_SIZE = 128
LEARNING_RATE = 1e-3


def make_dataset(seed=0, train_per_class=400, test_per_class=100):
  """Noisy copies of one random 8x8 template per class (pixel values in [0, 1])."""
  rng = np.random.default_rng(seed)
  templates = (rng.random((NUM_CLASSES, 64)) < 0.35).astype(np.float32)

  def sample(count):
    labels = np.repeat(np.arange(NUM_CLASSES), count)
    flips = rng.random((labels.size, 64)) < 0.22
    images = np.abs(templates[labels] - flips) + rng.normal(0, 0.3, (labels.size, 64))
    order = rng.permutation(labels.size)
    return images[order].astype(np.float32), labels[order].astype(np.int32)

  return sample(train_per_class), sample(test_per_class)


def init_params(key):
  params = []
  for n_in, n_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
    key, w_key = jax.random.split(key)
    w = jax.random.normal(w_key, (n_in, n_out)) * jnp.sqrt(1.0 / n_in)
    params.append({"w": w, "b": jnp.zeros(n_out)})
  return params


def predict(params, images):
  activations = images
  for layer in params[:-1]:
    activations = jnp.tanh(activations @ layer["w"] + layer["b"])
  logits = activations @ params[-1]["w"] + params[-1]["b"]
  return jax.nn.log_softmax(logits)


def loss_fn(params, images, labels):
  log_probs = predict(params, images)
  return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


def adam_init(params):
  zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
  return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}


@jax.jit
def train_step(params, opt_state, images, labels):
  loss, grads = jax.value_and_grad(loss_fn)(params, images, labels)
  b1, b2, eps = 0.9, 0.999, 1e-8
  t = opt_state["t"] + 1
  m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt_state["m"], grads)
  v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt_state["v"], grads)
  scale = LEARNING_RATE * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
  params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                  params, m, v)
  return params, {"m": m, "v": v, "t": t}, loss


@jax.jit
def accuracy(params, images, labels):
  return jnp.mean(jnp.argmax(predict(params, images), axis=1) == labels)


def progress(epoch, done, total, loss, width=30):
  filled = int(width * done / total)
  bar = "#" * filled + "-" * (width - filled)
  sys.stdout.write(f"\repoch {epoch + 1}/{EPOCHS} [{bar}] loss {loss:.4f}")
  sys.stdout.flush()


def main():
  (train_x, train_y), (test_x, test_y) = make_dataset()
  params = init_params(jax.random.PRNGKey(0))
  opt_state = adam_init(params)
  batches = len(train_x) // BATCH_SIZE
  rng = np.random.default_rng(1)
  start = time.perf_counter()
  for epoch in range(EPOCHS):
    order = rng.permutation(len(train_x))
    losses = []
    for i in range(batches):
      index = order[i * BATCH_SIZE:(i + 1) * BATCH_SIZE]
      params, opt_state, loss = train_step(params, opt_state, train_x[index], train_y[index])
      losses.append(loss)
      if i % 5 == 0 or i == batches - 1:
        progress(epoch, i + 1, batches, float(loss))
    print(f"\repoch {epoch + 1}/{EPOCHS} [{'#' * 30}] mean loss {float(np.mean(losses)):.4f}"
          f"  train accuracy {float(accuracy(params, train_x, train_y)):.3f}")
  test_accuracy = float(accuracy(params, test_x, test_y))
  print(f"test accuracy: {test_accuracy:.3f}  ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
  main()
