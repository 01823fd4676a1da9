"""What constructing a Keras object makes: weights, a Keras 3 seed variable, or nothing.

The tables were checked on Keras 3.15 (``layer.weights`` after a call, and whether a
``tf.function`` that constructs the layer on a second trace raises)."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from tflint.semantic.syntax import code

#: the Keras classes whose construction makes state: layers, optimizers, metrics, models
KERAS_STATEFUL_PREFIXES = ("keras.layers.", "keras.optimizers.", "keras.metrics.", "keras.Model",
                           "keras.Sequential", "keras.models.Model", "keras.models.Sequential")

#: Keras layers that own no variables and no seed state: constructing one per trace is
#: wasteful but does not fail
STATELESS_LAYERS = frozenset({
    "Flatten", "Reshape", "Permute", "RepeatVector", "Lambda", "Activation", "ReLU", "Softmax", "LeakyReLU",
    "ELU", "ThresholdedReLU", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
    "Dot", "Cropping1D", "Cropping2D", "Cropping3D", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
    "UpSampling1D", "UpSampling2D", "UpSampling3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
    "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
    "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
    "GlobalMaxPool3D", "Masking", "InputLayer", "Input", "InputSpec", "Identity", "Layer", "Wrapper",
    # preprocessing layers with no weights and no seed (built twice in a tf.function on
    # Keras 3.15 without error)
    "Resizing", "Rescaling", "CenterCrop", "Hashing", "CategoryEncoding", "AutoContrast", "Equalization",
    "UnitNormalization", "Discretization",
})

#: lookup layers that own no variable when given their vocabulary (Keras 3.15: no
#: weights, built twice in a tf.function without error); without one they need ``adapt``
VOCABULARY_LAYERS = frozenset({"StringLookup", "IntegerLookup", "TextVectorization"})

#: Keras 3 layers that create a variable (a ``SeedGenerator``'s state) in their
#: constructor: every ``Random*`` preprocessing layer and these
SEED_LAYERS = frozenset({
    "AlphaDropout", "AugMix", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "CutMix", "Dropout", "GRU", "GRUCell",
    "GaussianDropout", "GaussianNoise", "LSTM", "LSTMCell", "MixUp", "RandAugment", "SimpleRNN", "SimpleRNNCell",
    "Solarization", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "Bidirectional",
})

#: of those, the ones whose only variable is the seed (no weights): harmless in Keras 2
SEED_ONLY_LAYERS = frozenset({
    "AlphaDropout", "AugMix", "CutMix", "Dropout", "GaussianDropout", "GaussianNoise", "MixUp", "RandAugment",
    "Solarization", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D",
})


class KerasConstruction(NamedTuple):
    """What a call of a Keras class makes when it runs."""

    qualified: str
    #: a layer (its weights are made when it is built or first called, not constructed)
    layer: bool
    #: it makes a variable in its constructor under Keras 3: a seed generator's state
    seed: bool
    #: that seed is its only variable: it has no weights
    seed_only: bool


def keras_construction(sem, call: cst.Call) -> KerasConstruction | None:
    """What constructing ``call`` makes, when it is a Keras layer, optimizer, metric or
    model that owns state; None for anything else, and for the Keras objects that own no
    variable at all (weightless layers, a ``TimeDistributed``/``RNN``/``Sequential`` of
    existing or weightless layers, a ``Normalization`` with fixed statistics, dot-product
    ``Attention``, schedules and specs)."""
    q = sem.qualified_startswith(call.func, KERAS_STATEFUL_PREFIXES)
    if q is None:
        return None
    parts = q.split(".")
    last = parts[-1]
    if not last[:1].isupper() or last in STATELESS_LAYERS or "schedules" in parts or last.endswith("Spec"):
        return None
    if last in ("TimeDistributed", "RNN") and _wraps_stateless_or_existing(sem, call):
        return None  # wraps a layer made elsewhere (or one with no weights): owns none itself
    if last == "Sequential" and _sequential_of_stateless(sem, call):
        return None  # holds only layers with no weights (or made elsewhere): owns none itself
    if last == "Model" and ({a.keyword.value for a in call.args if a.keyword is not None} & {"inputs", "outputs"} or
                            len([a for a in call.args if a.keyword is None and not a.star]) >= 2):
        # a functional model wires layers that exist already (``Model(inputs=model.input,
        # outputs=model.layers[-3].output)``): it makes no variable of its own; a layer
        # made inline for it is a construction of its own (set 128's signature export)
        return None
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if last == "Normalization" and keywords >= {"mean", "variance"}:
        return None  # fixed statistics: no variables (weights == [])
    if last in VOCABULARY_LAYERS and "vocabulary" in keywords:
        return None  # a fixed vocabulary: no variables
    if last == "Attention" and not any(
            a.keyword is not None and (a.keyword.value == "use_scale" and code(a.value) != "False" or
                                       a.keyword.value == "score_mode" and "concat" in code(a.value))
            for a in call.args):
        return None  # dot-product attention without a learned scale: no weights
    random = last.startswith("Random")
    if (last in SEED_ONLY_LAYERS or random) and any(
            r.startswith(("tensorflow.python.keras.", "tf_keras.")) for r in sem.raw_qualified(call.func)):
        return None  # Keras 2's own copy (``from tensorflow.python.keras.layers import Dropout``): no seed variable
    return KerasConstruction(q, "layers" in parts, last in SEED_LAYERS or random, last in SEED_ONLY_LAYERS or random)


def _stateless_layer_call(sem, v: cst.BaseExpression) -> bool:
    if not isinstance(v, cst.Call):
        return False
    q = sem.qualified_startswith(v.func, KERAS_STATEFUL_PREFIXES)
    return q is not None and q.rsplit(".", 1)[-1] in STATELESS_LAYERS


def _wraps_stateless_or_existing(sem, call: cst.Call) -> bool:
    """``TimeDistributed(self.pool)`` / ``TimeDistributed(MaxPooling2D(2))``: the wrapped
    layer is an existing object or has no weights, and the wrapper makes none of its own."""
    arg = next((a.value for a in call.args if a.keyword is None or a.keyword.value in ("layer", "cell")), None)
    return isinstance(arg, (cst.Name, cst.Attribute, cst.Subscript)) or \
        arg is not None and _stateless_layer_call(sem, arg)


def _sequential_of_stateless(sem, call: cst.Call) -> bool:
    """``Sequential([Resizing(...), Rescaling(1 / 255)])``: every layer it is given has no
    weights and no seed (a layer class of the project included), or is an existing object;
    the container makes none of its own."""
    arg = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "layers"), None)
    if not isinstance(arg, (cst.List, cst.Tuple)) or not arg.elements:
        return False
    return all(isinstance(el.value, (cst.Name, cst.Attribute, cst.Subscript)) or _stateless_layer_call(sem, el.value)
               or sem.weightless_layer_construction(el.value) for el in arg.elements)
