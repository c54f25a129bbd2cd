"""PyTorch's process-wide settings belong to a session: print options, default dtype,
grad mode and the random generator of one session do not leak into another in the same
process, and each session finds its own again."""

from __future__ import annotations

from gradshell.shell.session import Session


def _session() -> Session:
    s = Session(viz=False)
    assert s.run_cell("import torch").error is None
    return s


def test_settings_do_not_leak_between_sessions():
    a = _session()
    for cell in (
        "torch.set_printoptions(precision=2)",
        "torch.set_default_dtype(torch.float64)",
        "torch.set_grad_enabled(False)",
        "torch.manual_seed(5)",
    ):
        assert a.run_cell(cell).error is None
    b = _session()
    assert b.run_cell("torch.tensor([1/3])").output == "tensor([0.3333])\n"
    assert b.run_cell("torch.tensor([1.]).dtype").output == "torch.float32\n"
    assert b.run_cell("torch.is_grad_enabled()").output == "True\n"
    # ... and a finds its own settings again, its random stream where it left it
    assert a.run_cell("torch.tensor([1/3])").output == "tensor([0.33])\n"
    assert a.run_cell("torch.tensor([1.]).dtype").output == "torch.float64\n"
    assert a.run_cell("torch.is_grad_enabled()").output == "False\n"
    b.run_cell("torch.manual_seed(5)")
    first_b = b.run_cell("torch.rand(2, dtype=torch.float32).tolist()").output
    assert a.run_cell("torch.rand(2, dtype=torch.float32).tolist()").output == first_b


def test_a_lesson_step_rebuilt_starts_from_fresh_settings():
    from lessonkit import runtime_at

    rt, _ = runtime_at("accumulation", "first-backward")
    rt.run_cell("torch.set_printoptions(precision=1)")
    assert rt.run_cell("torch.tensor([1/3])").output == "tensor([0.3])\n"
    rt.rebuild(0)  # `reset` in a lesson
    assert rt.run_cell("torch.tensor([1/3])").output == "tensor([0.3333])\n"
