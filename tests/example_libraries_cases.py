"""Cases shared by tools/record_example_libraries_reference.py (run under real JAX) and
tests/test_example_libraries.py (run under axle). NumPy only: no jax/axle here.

Sources are evaluated with ``stax``, ``optimizers``, ``jnp``, ``random`` (and ``jax``) bound to
either library.
"""
import numpy as np

# (case_id, layer source, input shape (a list of shapes for multi-input layers),
#  apply kwargs source)
LAYER_CASES = [
    ("Dense", "stax.Dense(4)", (2, 3), "{}"),
    ("Dense.inits", "stax.Dense(3, W_init=stax.normal(0.5), b_init=stax.ones)", (2, 5), "{}"),
    ("Conv", "stax.Conv(4, (3, 3), strides=(1, 2), padding='SAME')", (2, 7, 7, 3), "{}"),
    ("Conv.valid", "stax.Conv(2, (2, 2))", (1, 4, 5, 2), "{}"),
    ("GeneralConv", "stax.GeneralConv(('NCHW', 'OIHW', 'NCHW'), 4, (2, 3), padding='VALID')",
     (2, 3, 6, 6), "{}"),
    ("Conv1DTranspose", "stax.Conv1DTranspose(3, (3,), strides=(2,), padding='SAME')",
     (2, 5, 2), "{}"),
    ("ConvTranspose", "stax.ConvTranspose(3, (3, 3), strides=(2, 2), padding='VALID')",
     (2, 4, 4, 2), "{}"),
    ("GeneralConvTranspose",
     "stax.GeneralConvTranspose(('NCHW', 'OIHW', 'NCHW'), 3, (2, 2), strides=(2, 2), "
     "padding='SAME')", (2, 2, 4, 4), "{}"),
    ("BatchNorm", "stax.BatchNorm()", (4, 3, 3, 2), "{}"),
    ("BatchNorm.axis0", "stax.BatchNorm(axis=0, center=False)", (5, 3), "{}"),
    ("BatchNorm.noscale", "stax.BatchNorm(axis=(0, 1), scale=False)", (4, 3, 2), "{}"),
    ("BatchNorm.inits", "stax.BatchNorm(beta_init=stax.normal(), gamma_init=stax.normal())",
     (4, 3, 3, 2), "{}"),
    ("Relu", "stax.Relu", (3, 5), "{}"),
    ("Tanh", "stax.Tanh", (3, 5), "{}"),
    ("Sigmoid", "stax.Sigmoid", (3, 5), "{}"),
    ("Elu", "stax.Elu", (3, 5), "{}"),
    ("LeakyRelu", "stax.LeakyRelu", (3, 5), "{}"),
    ("Softplus", "stax.Softplus", (3, 5), "{}"),
    ("Gelu", "stax.Gelu", (3, 5), "{}"),
    ("Selu", "stax.Selu", (3, 5), "{}"),
    ("Exp", "stax.Exp", (3, 5), "{}"),
    ("LogSoftmax", "stax.LogSoftmax", (3, 5), "{}"),
    ("Softmax", "stax.Softmax", (3, 5), "{}"),
    ("elementwise", "stax.elementwise(jnp.sin)", (3, 5), "{}"),
    ("elementwise.kwargs", "stax.elementwise(jnp.clip, min=-0.5, max=0.5)", (3, 5), "{}"),
    ("Flatten", "stax.Flatten", (2, 3, 4), "{}"),
    ("Identity", "stax.Identity", (2, 3), "{}"),
    ("Dropout.train", "stax.Dropout(0.7)", (4, 6), "{'rng': random.PRNGKey(1)}"),
    ("Dropout.test", "stax.Dropout(0.7, mode='test')", (4, 6), "{'rng': random.PRNGKey(1)}"),
    ("MaxPool", "stax.MaxPool((2, 2))", (2, 5, 5, 3), "{}"),
    ("MaxPool.strided", "stax.MaxPool((2, 2), strides=(2, 2))", (2, 6, 6, 3), "{}"),
    ("MaxPool.nchw", "stax.MaxPool((2, 2), spec='NCHW')", (2, 3, 5, 5), "{}"),
    ("AvgPool", "stax.AvgPool((2, 2), strides=(1, 1), padding='SAME')", (2, 5, 5, 3), "{}"),
    ("AvgPool.valid", "stax.AvgPool((3, 3), strides=(2, 2))", (2, 7, 7, 1), "{}"),
    ("SumPool", "stax.SumPool((3, 3), padding='SAME')", (2, 5, 5, 3), "{}"),
    ("serial", "stax.serial(stax.Dense(4), stax.Relu, stax.Dense(2))", (2, 3), "{}"),
    ("serial.dropout", "stax.serial(stax.Dense(6), stax.Dropout(0.5), stax.Dense(2))", (3, 4),
     "{'rng': random.PRNGKey(7)}"),
    ("parallel", "stax.parallel(stax.Dense(2), stax.Dense(3))", [(2, 3), (2, 4)], "{}"),
    ("FanOut.FanInSum",
     "stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Dense(3)), stax.FanInSum)",
     (2, 5), "{}"),
    ("FanInConcat",
     "stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Dense(2)), "
     "stax.FanInConcat())", (2, 5), "{}"),
    ("FanInConcat.axis", "stax.FanInConcat(axis=1)", [(2, 3, 4), (2, 2, 4)], "{}"),
    ("shape_dependent", "stax.shape_dependent(lambda shape: stax.Dense(shape[-1] * 2))",
     (2, 3), "{}"),
    ("resnet_block",
     "stax.serial(stax.FanOut(2), stax.parallel(stax.serial(stax.Conv(2, (3, 3), "
     "padding='SAME'), stax.BatchNorm(), stax.Relu), stax.Identity), stax.FanInSum)",
     (2, 4, 4, 2), "{}"),
]


def layer_input(shape, seed=0):
  """The deterministic input for an input shape (a list of arrays for a list of shapes)."""
  rng = np.random.default_rng(seed)
  if isinstance(shape, list):
    return [rng.normal(size=s).astype(np.float32) for s in shape]
  return rng.normal(size=shape).astype(np.float32)


# (case_id, optimizer constructor source)
OPTIMIZER_CASES = [
    ("sgd", "optimizers.sgd(0.1)"),
    ("sgd.schedule", "optimizers.sgd(optimizers.exponential_decay(0.1, 2, 0.5))"),
    ("momentum", "optimizers.momentum(0.05, mass=0.9)"),
    ("nesterov", "optimizers.nesterov(0.05, mass=0.9)"),
    ("adagrad", "optimizers.adagrad(0.3)"),
    ("adagrad.momentum0", "optimizers.adagrad(0.3, momentum=0.0)"),
    ("rmsprop", "optimizers.rmsprop(0.05)"),
    ("rmsprop_momentum", "optimizers.rmsprop_momentum(0.05)"),
    ("adam", "optimizers.adam(0.1)"),
    ("adam.schedule", "optimizers.adam(optimizers.inverse_time_decay(0.1, 2, 1.0))"),
    ("adamax", "optimizers.adamax(0.1)"),
    ("sm3", "optimizers.sm3(0.3)"),
]
OPTIMIZER_STEPS = 6


def quadratic_problem():
  """Initial params (a pytree with a scalar, a vector and a matrix) and the constants of the
  quadratic loss ``sum_leaf 0.5 * c * (leaf - target)**2``."""
  rng = np.random.default_rng(3)
  params = {"w": rng.normal(size=(3,)).astype(np.float32),
            "m": rng.normal(size=(2, 3)).astype(np.float32),
            "s": np.float32(1.5)}
  targets = {"w": np.float32([1.0, -2.0, 0.5]),
             "m": rng.normal(size=(2, 3)).astype(np.float32),
             "s": np.float32(-0.5)}
  curvature = {"w": np.float32([1.0, 3.0, 0.5]), "m": np.float32(2.0), "s": np.float32(4.0)}
  return params, targets, curvature


LOSS_SOURCE = ("lambda p, t, c: sum(jnp.sum(0.5 * c[k] * (p[k] - t[k]) ** 2) "
               "for k in sorted(p))")

SCHEDULE_CASES = [
    ("constant", "optimizers.constant(0.3)"),
    ("exponential_decay", "optimizers.exponential_decay(0.5, 3, 0.8)"),
    ("inverse_time_decay", "optimizers.inverse_time_decay(0.5, 3, 0.8)"),
    ("inverse_time_decay.staircase", "optimizers.inverse_time_decay(0.5, 3, 0.8, staircase=True)"),
    ("polynomial_decay", "optimizers.polynomial_decay(0.5, 6, 0.1)"),
    ("polynomial_decay.power", "optimizers.polynomial_decay(0.5, 6, 0.1, power=2.0)"),
    ("piecewise_constant", "optimizers.piecewise_constant([2, 5], [1.0, 0.5, 0.1])"),
    ("make_schedule.scalar", "optimizers.make_schedule(0.25)"),
]
SCHEDULE_STEPS = list(range(0, 10))

CONV_NET_SOURCE = """stax.serial(
    stax.Conv(6, (3, 3), padding='SAME'), stax.BatchNorm(), stax.Relu,
    stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Conv(8, (3, 3), strides=(1, 1)), stax.Relu,
    stax.AvgPool((2, 2), strides=(1, 1)),
    stax.Flatten, stax.Dense(16), stax.Tanh, stax.Dense(10), stax.LogSoftmax)"""
CONV_NET_STEPS = 8


def conv_net_data():
  rng = np.random.default_rng(11)
  images = rng.normal(size=(16, 10, 10, 1)).astype(np.float32)
  labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 16)]
  return images, labels
