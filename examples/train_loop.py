"""A custom training loop for a small image classifier.

Runs as it is (`python examples/train_loop.py`, needs TensorFlow) on random data shaped
like MNIST. tflint reads it without running it: `tflint check examples/`. Every line that
tflint reports carries a trailing comment naming the code and what goes wrong; all other
lines are correct TensorFlow code that tflint must leave alone.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import tensorflow as tf

log = logging.getLogger(__name__)

BATCH_SIZE = 64
EPOCHS = 3
FINE_TUNE_EPOCHS = 20
BASE_LEARNING_RATE = 1e-3

model = tf.keras.Sequential(
    [
        tf.keras.layers.Input(shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(16, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10),
    ]
)
optimizer = tf.keras.optimizers.Adam(BASE_LEARNING_RATE)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
val_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

#: losses collected by the Python loop below (outside the graph): correct
epoch_losses: list[float] = []
#: the same idea inside the graph: appended once per trace, holds symbolic tensors
traced_losses = []
steps_taken = 0


def make_dataset(n: int, seed: int) -> tf.data.Dataset:
    rng = np.random.default_rng(seed)  # eager code: NumPy randomness is fine here
    images = rng.random((n, 28, 28, 1), dtype=np.float32)
    labels = rng.integers(0, 10, size=(n,))
    return tf.data.Dataset.from_tensor_slices((images, labels)).batch(BATCH_SIZE)


@tf.function
def train_step(images, labels, learning_rate):
    global steps_taken
    print("Tracing train_step for images of shape", images.shape)  # deliberate, shapes only
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.learning_rate.assign(learning_rate)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_accuracy.update_state(labels, logits)
    traced_losses.append(loss)  # TFL105: appended once per trace, stores a symbolic tensor
    steps_taken += 1  # TFL106: counts traces, not steps
    print("loss:", loss)  # TFL101: printed once, and only as a symbolic tensor
    tf.print("loss:", loss)  # runs on every step
    return loss


@tf.function
def val_step(images, labels):
    started = time.time()  # TFL102: frozen at trace time
    logits = model(images, training=False)
    val_accuracy.update_state(labels, logits)
    return tf.reduce_mean(loss_fn(labels, logits)), started


def evaluate(dataset: tf.data.Dataset) -> float:
    val_accuracy.reset_state()
    for images, labels in dataset:
        val_step(images, labels)
    return float(val_accuracy.result())


def train() -> None:
    train_ds = make_dataset(1024, seed=0)
    val_ds = make_dataset(256, seed=1)
    for epoch in range(EPOCHS):
        start = time.time()  # eager code: measures each epoch
        train_accuracy.reset_state()
        learning_rate = tf.constant(BASE_LEARNING_RATE * 0.5**epoch)  # a tensor: one graph
        losses = []
        for images, labels in train_ds:
            losses.append(float(train_step(images, labels, learning_rate)))
        epoch_losses.append(float(np.mean(losses)))
        log.info("epoch %d: loss %.4f, accuracy %.3f, val accuracy %.3f, %.1fs",
                 epoch, epoch_losses[-1], train_accuracy.result(), evaluate(val_ds),
                 time.time() - start)

    # fine-tuning with a smaller learning rate, passed as a Python float per epoch
    for epoch in range(FINE_TUNE_EPOCHS):
        for images, labels in train_ds.take(4):
            train_step(images, labels, 1e-4 / (epoch + 1))  # TFL401: one new graph per epoch


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    train()
