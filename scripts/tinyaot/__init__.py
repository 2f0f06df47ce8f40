"""tinyaot: a TensorFlow Lite to C compiler for microcontrollers."""

__version__ = "0.1.0"
