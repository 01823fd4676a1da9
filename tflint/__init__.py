"""tflint: find where TensorFlow code changes meaning when it runs as a graph."""

__version__ = "0.1.0"

#: where the per-rule pages live; JSON/SARIF output links each finding to its page
DOCS_URL = "https://github.com/tflint-dev/tflint/blob/main/docs"
