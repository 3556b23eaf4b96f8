"""``axle.example_libraries.stax`` (JAX's). Re-exports only."""
from axle._src.example_libraries.stax import (  # noqa: F401
    AvgPool, BatchNorm, Conv, Conv1DTranspose, ConvTranspose, Dense, Dropout, Elu, Exp,
    FanInConcat, FanInSum, FanOut, Flatten, Gelu, GeneralConv, GeneralConvTranspose, Identity,
    LeakyRelu, LogSoftmax, MaxPool, Relu, Selu, Sigmoid, Softmax, Softplus, SumPool, Tanh,
    elementwise, glorot_normal, normal, ones, parallel, serial, shape_dependent, zeros,
)
