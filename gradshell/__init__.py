"""gradshell: an interactive teaching shell for PyTorch autograd.

`from gradshell import torch` gives gradshell's own torch-like namespace, backed by
an autograd core over NumPy (CuPy on a GPU).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    # Import lazily so that `import gradshell` stays cheap for the CLI.
    if name == "torch":
        import importlib

        return importlib.import_module("gradshell.torch")
    if name in ("set_exact", "is_exact"):
        # the switch between PyTorch-exact float kernels and NumPy's faster ufuncs
        from gradshell.core import kernels

        return getattr(kernels, name)
    raise AttributeError(f"module 'gradshell' has no attribute {name!r}")
