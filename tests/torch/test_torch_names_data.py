"""gradshell/torch/_torch_names.py lists real PyTorch's public names; it must match the
installed PyTorch 2.13. Regenerate it with

    .venv/bin/python tests/torch/test_torch_names_data.py > gradshell/torch/_torch_names.py
"""

from __future__ import annotations

import importlib
import textwrap
import types

from support import oracle

MODULES = (
    "torch",
    "torch.amp",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.backends",
    "torch.cuda",
    "torch.distributions",
    "torch.distributions.constraints",
    "torch.distributions.transforms",
    "torch.fft",
    "torch.linalg",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.modules",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.random",
    "torch.special",
    "torch.utils",
    "torch.utils.data",
)


def _public(obj) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _block(names, indent: str) -> str:
    body = textwrap.fill(" ".join(names), 92, break_on_hyphens=False, break_long_words=False)
    return textwrap.indent(f'"""\n{body}\n"""', indent)


def collect(torch) -> dict[str, list[str]]:
    """Every name the data module records, from the real PyTorch module `torch`."""
    public = {m: _public(importlib.import_module(m)) for m in MODULES}
    public["torch.Tensor"] = _public(torch.Tensor)
    submodules = sorted(
        f"{m}.{n}"
        for m in MODULES
        for n in public[m]
        if isinstance(getattr(importlib.import_module(m), n), types.ModuleType)
        and getattr(importlib.import_module(m), n).__name__.startswith("torch.")
    )
    return {
        **public,
        "#submodules": submodules,
        "#python functions": [
            n for n in public["torch"] if isinstance(getattr(torch, n), types.FunctionType)
        ],
        "#python methods": [
            n
            for n in public["torch.Tensor"]
            if isinstance(getattr(torch.Tensor, n), types.FunctionType)
        ],
    }


def render(torch) -> str:
    """The source of gradshell/torch/_torch_names.py."""
    data = collect(torch)
    version = torch.__version__.split("+")[0]
    lines = [
        f'"""Public names of real PyTorch {version}, generated from it by',
        "tests/torch/test_torch_names_data.py (which also checks them against PyTorch).",
        "",
        'A name listed here that gradshell lacks raises "gradshell does not support torch.X',
        'yet"; any other name raises AttributeError, as in PyTorch."""',
        "",
        "from __future__ import annotations",
        "",
        "",
        "def _names(block: str) -> frozenset[str]:",
        "    return frozenset(block.split())",
        "",
        "",
        "#: module (or 'torch.Tensor') -> its public names",
        "PUBLIC: dict[str, frozenset[str]] = {",
    ]
    for key, names in data.items():
        if not key.startswith("#"):
            lines.append(f'    "{key}": _names(')
            lines.append(_block(names, "        "))
            lines.append("    ),")
    lines.append("}")
    lines += [
        "",
        "#: submodules a fresh `import torch` makes reachable (`import torch.fft` works)",
        "SUBMODULES = _names(",
        _block(data["#submodules"], "    "),
        ")",
        "",
        "#: torch functions written in Python: PyTorch's argument parser (axis=, keepdims=,",
        "#: out=) does not apply to them.",
        "PYTHON_FUNCTIONS = _names(",
        _block(data["#python functions"], "    "),
        ")",
        "",
        "#: Tensor methods written in Python (no axis=/keepdims= either).",
        "PYTHON_METHODS = _names(",
        _block(data["#python methods"], "    "),
        ")",
    ]
    return "\n".join(lines) + "\n"


def _collect_fresh(_torch) -> dict[str, list[str]]:
    """`collect` in a fresh interpreter: `dir(torch)` also lists the submodules this
    process happens to have imported, which depends on the tests that ran before."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve()
    code = (
        "import importlib.util, json, sys, torch\n"
        f"sys.path.insert(0, {str(here.parents[1] / 'lib')!r})\n"
        f"spec = importlib.util.spec_from_file_location('names_data', {str(here)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(json.dumps(module.collect(torch)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(done.stdout)


def test_committed_names_match_real_pytorch(real_torch):
    from gradshell.torch import _torch_names

    data = oracle.computed("collect", _collect_fresh, real_torch)  # recorded whole
    for key, names in data.items():
        if key == "#submodules":
            assert _torch_names.SUBMODULES <= frozenset(names)
        elif key == "#python functions":
            assert _torch_names.PYTHON_FUNCTIONS == frozenset(names)
        elif key == "#python methods":
            assert _torch_names.PYTHON_METHODS == frozenset(names)
        else:
            committed = _torch_names.PUBLIC[key]
            assert committed <= frozenset(names), (key, sorted(committed - frozenset(names)))

            # names beyond a fresh `import torch`: submodules other tests imported since
            def not_modules(torch, key=key, committed=committed, names=names) -> list:
                owner = torch.Tensor if key == "torch.Tensor" else importlib.import_module(key)
                extra = [n for n in names if n not in committed]
                return [n for n in extra if not isinstance(getattr(owner, n), types.ModuleType)]

            assert oracle.computed(f"extras {key}", not_modules, real_torch) == []


if __name__ == "__main__":
    import sys

    import torch as _torch

    sys.stdout.write(render(_torch))
