"""The dynamic verifier: run tf.functions eagerly and as graphs and compare what they do.

Nothing in this package imports TensorFlow at import time. TensorFlow is imported only in the
child processes that run user code (``tflint.verify._child``) and by the pytest plugin when
``--tflint-verify`` is given, so ``import tflint`` stays cheap and TensorFlow-free.
"""
