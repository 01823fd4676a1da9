"""The per-file TensorFlow model that every rule asks, one concern per module:

- :mod:`.names`: qualified names of TensorFlow and Keras, small syntax helpers;
- :mod:`.objects`: classes, functions and contexts;
- :mod:`.builder`: the one walk over the libcst tree that builds the model;
- :mod:`.model`: :class:`SemanticModel`, name resolution and call binding;
- :mod:`.values`: what an expression is (tensor, Python value, dataset, ...);
- :mod:`.execution`: when a line runs (traced or eager, and why);
- :mod:`.project`: the project-wide index (other modules' imports, roots and calls, read
  with CPython's ``ast``), and :mod:`.cache`, its cache in ``.tflint_cache/``.
"""

from tflint.semantic.builder import build
from tflint.semantic.model import SemanticModel
from tflint.semantic.names import (
    DATASET_METHODS,
    DATASET_ONLY_METHODS,
    INIT_SCOPE_NAMES,
    KERAS_MODEL_BASES,
    KERAS_STEP_METHODS,
    PY_FUNCTION_NAMES,
    TF_FUNCTION_NAMES,
    canonical,
    dotted_name,
    is_container_value,
    is_first_call_test,
    is_python_literal,
    names_tracing,
    target_names,
)
from tflint.semantic.objects import ClassInfo, Ctx, FunctionInfo

__all__ = [
    "DATASET_METHODS", "DATASET_ONLY_METHODS", "INIT_SCOPE_NAMES", "KERAS_MODEL_BASES", "KERAS_STEP_METHODS",
    "PY_FUNCTION_NAMES", "TF_FUNCTION_NAMES", "ClassInfo", "Ctx", "FunctionInfo", "SemanticModel", "build",
    "canonical", "dotted_name", "is_container_value", "is_first_call_test", "is_python_literal", "names_tracing",
    "target_names",
]
