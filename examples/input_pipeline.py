"""A tf.data input pipeline with augmentation, for image classification.

Functions passed to `Dataset.map`, `filter`, `flat_map`, `interleave`, ... are always run
as graphs, even with `tf.config.run_functions_eagerly(True)`. Lines that tflint reports
carry a trailing comment naming the code; all other lines are correct.

`python examples/input_pipeline.py` (needs TensorFlow) stops with the error TFL104
predicts ("Cannot convert a symbolic tf.Tensor ... to a numpy array"); use `tf.clip_by_value`
in `clip_pixels` and it runs. The TFL103 noise scale then silently stays one number.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 32
NUM_CLASSES = 10
AUTOTUNE = tf.data.AUTOTUNE
#: NumPy on Python constants is evaluated once and is a constant anyway: fine
CHANNEL_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
CHANNEL_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def synthetic_examples(n: int) -> tf.data.Dataset:
    rng = np.random.default_rng(42)  # eager: runs once, when the dataset is built
    images = rng.integers(0, 256, size=(n, IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8)
    labels = rng.integers(0, NUM_CLASSES, size=(n,))
    return tf.data.Dataset.from_tensor_slices({"image": images, "label": labels})


def decode(example):
    image = tf.cast(example["image"], tf.float32) / 255.0
    image = (image - CHANNEL_MEAN) / CHANNEL_STD  # NumPy constants broadcast as tensors
    return image, example["label"]


def augment(image, label, seed):
    image = tf.image.stateless_random_flip_left_right(image, seed)
    image = tf.image.stateless_random_brightness(image, 0.2, seed)
    noise_scale = np.random.uniform(0.0, 0.05)  # TFL103: drawn once, the same for every image
    image = image + tf.random.normal(tf.shape(image), stddev=noise_scale)
    return image, label


def clip_pixels(image, label):
    return np.clip(image, -3.0, 3.0), label  # TFL104: NumPy cannot read a symbolic tensor


def keep_known_labels(image, label):
    return label < NUM_CLASSES


def one_hot(image, label):
    return image, tf.one_hot(label, NUM_CLASSES)


def make_pipeline(n: int = 1024, batch_size: int = 64, training: bool = True) -> tf.data.Dataset:
    ds = synthetic_examples(n).map(decode, num_parallel_calls=AUTOTUNE)
    ds = ds.filter(keep_known_labels)
    if training:
        seeds = tf.data.experimental.RandomDataset(seed=1).batch(2)
        ds = tf.data.Dataset.zip((ds, seeds)).map(lambda xy, s: augment(xy[0], xy[1], s),
                                                  num_parallel_calls=AUTOTUNE)
        ds = ds.map(clip_pixels)
        ds = ds.shuffle(1000, seed=0)
    return ds.map(one_hot).batch(batch_size).prefetch(AUTOTUNE)


def channel_stats(ds: tf.data.Dataset, epochs: int = 5) -> list[float]:
    """Mean pixel value per epoch, computed with a graph per batch."""
    means = []
    for epoch in range(epochs):
        batch_mean = tf.function(lambda images: tf.reduce_mean(images))  # TFL402: retraced each epoch
        values = [float(batch_mean(images)) for images, _ in ds]  # a Python loop over a dataset: fine
        means.append(sum(values) / max(len(values), 1))
    return means


if __name__ == "__main__":
    pipeline = make_pipeline()
    for images, labels in pipeline.take(1):
        print(images.shape, labels.shape)  # eager code: prints real values
    print(channel_stats(make_pipeline(256, training=False), epochs=2))
