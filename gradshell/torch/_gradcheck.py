"""torch.autograd.gradcheck / gradgradcheck: compare backward's gradients with central
finite differences, element by element, as PyTorch's default (slow) mode does.

The numerical Jacobian perturbs each input element by ±eps in place and differences
the outputs; the analytical one runs `autograd.grad` once per output element. They
must agree within `atol + rtol * |numerical|`; failures raise `GradcheckError` with
PyTorch's message, both Jacobians printed as (input elements × output elements).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from gradshell.core import dtypes
from gradshell.core.engine import grad as autograd_grad
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import empty, zeros, zeros_like

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""

    __module__ = "torch.autograd.gradcheck"


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _diff_inputs(inputs: tuple) -> list:
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs: tuple) -> None:
    found = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype is not dtypes.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not "
                    "of double precision floating point or complex. ",
                    stacklevel=4,
                )
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size(), strict=True)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck."
                )
            found = True
    if not found:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )


def _same_shape_and_dtype(a: Tensor, b: Tensor, eps: float, idx: tuple) -> None:
    where = f"on index {idx} "
    if a.shape != b.shape:
        raise AssertionError(
            "Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{where}by {eps}, but got: shapes {a.shape} and {b.shape}."
        )
    if a.dtype != b.dtype:
        raise AssertionError(
            "Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{where}by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
        )


def _numerical_jacobians(func, inputs: tuple, outputs: tuple, eps: float) -> list:
    """For each differentiable input: one Jacobian per float output, (in numel, out numel)."""
    result = []
    float_outputs = [o for o in outputs if o.is_floating_point()]
    for inp in _diff_inputs(inputs):
        cols = [zeros((inp.numel(), o.numel()), dtype=o.dtype) for o in float_outputs]
        flat = inp.data.view(-1) if inp.is_contiguous() else None
        data = inp.data
        for k in range(inp.numel()):
            idx = _unravel(k, tuple(inp.shape))
            entry = flat[k] if flat is not None else data[idx]
            orig = entry.clone()
            entry.copy_(orig - eps)
            outa = _run(func, inputs)
            entry.copy_(orig + eps)
            outb = _run(func, inputs)
            entry.copy_(orig)
            diffs = []
            for a, b in zip(outa, outb, strict=False):
                _same_shape_and_dtype(a, b, eps, idx)
                diffs.append(((b - a) / (2 * eps)).detach().reshape(-1))
            float_diffs = [d for d, o in zip(diffs, outputs, strict=False) if o.is_floating_point()]
            for col, d in zip(cols, float_diffs, strict=False):
                col[k] = d
        result.append(cols)
    return result


def _unravel(k: int, shape: tuple) -> tuple:
    idx = []
    for s in reversed(shape):
        idx.append(k % s)
        k //= s
    return tuple(reversed(idx))


def _run(func, inputs: tuple) -> tuple:
    return tuple(a.clone() for a in _as_tuple(func(*inputs)))


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _analytical_jacobian(inputs: tuple, output: Tensor, nondet_tol: float) -> list:
    diff = _diff_inputs(inputs)
    first = _jacobian_rows(diff, output)
    second = _jacobian_rows(diff, output)
    jac1, sizes_ok = _stack(first, diff, output.numel())
    jac2, _ = _stack(second, diff, output.numel())
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(jac1, jac2, strict=True):
        if a.numel() != 0 and float((a - b).abs().max()) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + _NONDET_NOTE
            )
    return jac1


def _jacobian_rows(diff: list, output: Tensor) -> list:
    base = zeros_like(output.detach())
    flat = base.view(-1)
    rows: list = [[] for _ in diff]
    for j in range(flat.numel()):
        flat.zero_()
        flat[j] = 1.0
        grads = autograd_grad(output, diff, base, retain_graph=True, allow_unused=True)
        for i, g in enumerate(grads):
            rows[i].append(g.clone() if isinstance(g, Tensor) else None)
    return rows


def _stack(rows: list, diff: list, numel_out: int) -> tuple:
    out, sizes_ok = [], True
    for inp, per_output in zip(diff, rows, strict=True):
        jac = zeros((inp.numel(), numel_out), dtype=inp.dtype)
        for j, g in enumerate(per_output):
            if g is None:
                continue
            if g.size() != inp.size():
                sizes_ok = False
                continue
            jac[:, j] = g.reshape(-1)
        out.append(jac)
    return out, sizes_ok


def _allclose(a: Tensor, b: Tensor, rtol: float, atol: float) -> bool:
    dt = dtypes.promote_types(a.dtype, b.dtype)
    return bool(a.to(dt).allclose(b.to(dt), rtol, atol))


def _mismatch(analytical: Tensor, numerical: Tensor, out_idx: int, in_idx: int) -> str:
    return (
        f"Jacobian mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


def _check_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    diff = _diff_inputs(inputs)
    grads = autograd_grad(
        outputs, diff, [zeros_like(o.detach()) for o in outputs], allow_unused=True
    )
    for gi, di in zip(grads, diff, strict=True):
        if gi is None:
            continue
        if not bool(gi.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grads(func, inputs: tuple, n_outputs: int) -> None:
    # PyTorch feeds undefined output grads; backward nodes see them as zeros, so zeros
    # stand in for them here (calling func as often as PyTorch does).
    checks = [_differentiable_outputs(func(*inputs))]
    if len(checks[0]) > 1:
        checks += [_differentiable_outputs(func(*inputs)) for _ in range(n_outputs)]
    diff = _diff_inputs(inputs)
    for outs in checks:
        try:
            grads = autograd_grad(
                outs, diff, [zeros_like(o.detach()) for o in outs], allow_unused=True
            )
        except RuntimeError as e:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        for gi in grads:
            if gi is not None and not bool(gi.eq(0).all()):
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"'
                )


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad) -> bool:
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = _as_tuple(func(*tupled))
    outputs = _differentiable_outputs(func_out)
    if not outputs:
        for per_input in _numerical_jacobians(func, tupled, func_out, eps):
            for jac in per_input:
                if int(jac.ne(0).sum()) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = _numerical_jacobians(func, tupled, func_out, eps)
    # numerical[input][output] over all float outputs; keep the differentiable ones
    keep = [
        i for i, o in enumerate(o for o in func_out if o.is_floating_point()) if o.requires_grad
    ]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(tupled, o, nondet_tol)
        for j, a in enumerate(analytical):
            n = numerical[j][keep[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j))
    _check_mul_by_grad_output(outputs, tupled)
    if check_undefined_grad:
        _check_undefined_grads(func, tupled, len(outputs))
    return True


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check backward's gradients of `func(*inputs)` against finite differences
    (use float64 inputs); True, or GradcheckError (False with raise_exception=False)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError(
            "gradshell does not support torch.autograd.gradcheck with forward-mode or batched "
            "checks yet"
        )
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of the function that maps (inputs, grad_outputs)
    to the gradients of `func` (random grad_outputs in [-1, 1) when not given)."""
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled))
        grad_outs = []
        for x in outs:
            dt = x.dtype if x.is_floating_point() else dtypes.float64
            grad_outs.append(empty(tuple(x.shape), dtype=dt).uniform_(-1, 1).requires_grad_())
        tupled_grad_outputs = tuple(grad_outs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    n_out = len(tupled_grad_outputs)
    diff_in = {i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(
            x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n_out])
        )
        outputs = _differentiable_outputs(func(*input_args))
        gos = tuple(x.requires_grad_() if i in diff_go else x for i, x in enumerate(args[-n_out:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grads = autograd_grad(outputs, diff_args, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        new_func,
        tupled + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
    )


# PyTorch names this module lacks; the module is torch.autograd.gradcheck to learners.
_NOT_YET = frozenset({"get_numerical_jacobian", "get_analytical_jacobian"})


def __getattr__(name: str):
    if name in _NOT_YET:
        from gradshell.torch._missing import not_supported

        raise not_supported(f"torch.autograd.gradcheck.{name}")
    raise AttributeError(f"module 'torch.autograd.gradcheck' has no attribute '{name}'")
