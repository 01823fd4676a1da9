"""tflint rules: one module per rule family, one class per rule (installed as tflint.rules)."""
