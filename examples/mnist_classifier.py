"""A basic MNIST-style classifier built with stax and trained with optimizers.momentum —
the program of JAX's ``examples/mnist_classifier.py``, written against ``import axle as jax``.

    python examples/mnist_classifier.py          # runs on axle
    python examples/mnist_classifier.py --jax    # the same program on real JAX

No dataset is downloaded: the images are synthetic, of MNIST's shape (28 * 28 pixels in [0, 1],
10 one-hot classes), generated with NumPy from a fixed seed. Each class is a random "stroke"
prototype; an example keeps most of its prototype's pixels, shifted by up to two pixels, plus a
few stray pixels, so the task is learnable but not trivial. The network, loss, optimizer,
batching and per-epoch report follow JAX's example:
Dense(1024)-Relu-Dense(1024)-Relu-Dense(10)-LogSoftmax, momentum(0.001, mass=0.9), batches of
128 drawn from a fixed-seed permutation each epoch. (Training-set loss is printed as well.)
"""
import argparse
import itertools
import sys
import time

import numpy as np
import numpy.random as npr

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--jax", action="store_true", help="run under real JAX instead of axle")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--num-train", type=int, default=6144)
parser.add_argument("--num-test", type=int, default=1024)
args = parser.parse_args()

if args.jax:
  import jax
  import jax.numpy as jnp
  from jax import jit, grad, random
  from jax.example_libraries import optimizers, stax
  from jax.example_libraries.stax import Dense, Relu, LogSoftmax
else:
  import axle as jax
  import axle.numpy as jnp
  from axle import jit, grad, random
  from axle.example_libraries import optimizers, stax
  from axle.example_libraries.stax import Dense, Relu, LogSoftmax


def synthetic_mnist(num_train, num_test, seed=0):
  """(train_images, train_labels, test_images, test_labels): float32 images of shape
  (n, 784) in [0, 1] and one-hot float32 labels of shape (n, 10)."""
  rng = npr.RandomState(seed)
  num = num_train + num_test
  # Like MNIST: a zero background with sparse bright strokes. Each class has a prototype
  # stroke pattern; an example keeps ~80% of its prototype's pixels, is shifted by up to two
  # pixels, and gets a few stray bright pixels.
  prototypes = (rng.rand(10, 28, 28) < 0.3).astype(np.float32)
  labels = rng.randint(0, 10, num)
  images = prototypes[labels] * (rng.rand(num, 28, 28) < 0.8)
  shifts = rng.randint(-2, 3, size=(num, 2))
  images = np.stack([np.roll(img, tuple(s), axis=(0, 1)) for img, s in zip(images, shifts)])
  images = np.maximum(images, rng.rand(num, 28, 28) < 0.03).astype(np.float32)
  images = images.reshape(num, 28 * 28)
  one_hot = np.eye(10, dtype=np.float32)[labels]
  return images[:num_train], one_hot[:num_train], images[num_train:], one_hot[num_train:]


def loss(params, batch):
  inputs, targets = batch
  preds = predict(params, inputs)
  return -jnp.mean(jnp.sum(preds * targets, axis=1))


def accuracy(params, batch):
  inputs, targets = batch
  target_class = jnp.argmax(targets, axis=1)
  predicted_class = jnp.argmax(predict(params, inputs), axis=1)
  return jnp.mean(predicted_class == target_class)


init_random_params, predict = stax.serial(
    Dense(1024), Relu,
    Dense(1024), Relu,
    Dense(10), LogSoftmax)

if __name__ == "__main__":
  rng = random.key(0)

  step_size = 0.001
  num_epochs = args.epochs
  batch_size = 128
  momentum_mass = 0.9

  train_images, train_labels, test_images, test_labels = synthetic_mnist(args.num_train,
                                                                         args.num_test)
  num_train = train_images.shape[0]
  num_complete_batches, leftover = divmod(num_train, batch_size)
  num_batches = num_complete_batches + bool(leftover)

  def data_stream():
    rng = npr.RandomState(0)
    while True:
      perm = rng.permutation(num_train)
      for i in range(num_batches):
        batch_idx = perm[i * batch_size:(i + 1) * batch_size]
        yield train_images[batch_idx], train_labels[batch_idx]
  batches = data_stream()

  opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=momentum_mass)

  @jit
  def update(i, opt_state, batch):
    params = get_params(opt_state)
    return opt_update(i, grad(loss)(params, batch), opt_state)

  _, init_params = init_random_params(rng, (-1, 28 * 28))
  opt_state = opt_init(init_params)
  itercount = itertools.count()

  print(f"running on {'jax' if args.jax else 'axle'}; {num_train} training and "
        f"{test_images.shape[0]} test examples of shape {train_images.shape[1:]}")
  print("\nStarting training...")
  total = time.time()
  for epoch in range(num_epochs):
    start_time = time.time()
    for _ in range(num_batches):
      opt_state = update(next(itercount), opt_state, next(batches))
    epoch_time = time.time() - start_time

    params = get_params(opt_state)
    train_acc = accuracy(params, (train_images, train_labels))
    test_acc = accuracy(params, (test_images, test_labels))
    train_loss = loss(params, (train_images, train_labels))
    print(f"Epoch {epoch} in {epoch_time:0.2f} sec")
    print(f"Training set loss {float(train_loss):.6f}")
    print(f"Training set accuracy {train_acc}")
    print(f"Test set accuracy {test_acc}")
  print(f"total {time.time() - total:0.1f} sec", file=sys.stderr)
