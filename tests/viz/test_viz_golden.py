"""Golden-file tests: each view rendered to text at a fixed width without colour.

Seed 000 is replayed in the legacy style it was written in (0.2's rules let the second
`y.backward(...)` through `y = x * 2` succeed and accumulate 0.2 → 0.4)."""

from __future__ import annotations

SEED_000_PART_1 = [
    "from torch.autograd import Variable",
    "x = Variable(torch.ones(2,2), requires_grad=True)",
    "y = x + 2",
    "z = y*y*3",
    "out = z.mean()",
    "%explain out",
    "%graph out",
    "out.backward()",
    "%explain out",
    "x.grad",
]

SEED_000_PART_2 = [
    "from torch.autograd import Variable",
    "x = Variable(torch.Tensor([2,2,2]), requires_grad=True)",
    "y = x*2",
    "y.backward(torch.FloatTensor([0.1, 1, 10]))",
    "%ledger x",
    "y.backward(torch.FloatTensor([0.1, 1, 10]))",
    "%ledger x",
    "x.grad.data.zero_()",
    "%ledger x",
    "x.grad",
    "y.backward(torch.FloatTensor([0.1, 1, 10]))",
    "%ledger x",
]


def test_seed_000_explain_graph_and_first_backward(legacy, run_cells, golden):
    golden("seed000_part1.txt", run_cells(legacy, SEED_000_PART_1))


def test_seed_000_ledger_after_one_two_backward_and_zero(legacy, run_cells, golden):
    golden("seed000_part2.txt", run_cells(legacy, SEED_000_PART_2))


def test_compact_panels_and_per_path_shares(vs, run_cells, golden):
    cells = [
        "a = torch.tensor([1., 2., 3.], requires_grad=True)",
        "b = a + a",
        "s = (b * b).sum()",
        "s.backward(retain_graph=True)",
        "%viz compact",
        "s.backward()",
        "a.grad = None",
        "%ledger a --all",
    ]
    golden("shares_compact.txt", run_cells(vs, cells))


def test_summarised_large_gradient(vs, run_cells, golden):
    cells = [
        "w = torch.ones(40, 40, requires_grad=True)",
        "(w * 2).sum().backward()",
        "(w * 3).sum().backward()",
        "w.grad.zero_()",
    ]
    golden("large.txt", run_cells(vs, cells))


def test_errors_explained_in_english_and_chinese(vs, run_cells, golden):
    cells = [
        "%xmode explain",
        "x = torch.tensor([2., 2., 2.], requires_grad=True)",
        "y = x * 2",
        "y.backward()",
        "y.backward(torch.ones(3))",
        "y.backward(torch.ones(3))",
        "%lang zh",
        "y.backward(torch.ones(3))",
        "y.grad",
        "%lang en",
        "n = torch.tensor([1, 2], requires_grad=True)",
    ]
    golden("errors.txt", run_cells(vs, cells))


def test_predict_then_reveal(vs, run_cells, golden):
    cells = [
        "x = torch.ones(2, 2, requires_grad=True)",
        "%predict d((((x + 2) * (x + 2)) * 3).mean())/dx = [[4.5, 4.5], [4.5, 3]]",
    ]
    golden("predict.txt", run_cells(vs, cells))


def test_explain_without_formula_and_with_gradient_argument(vs, run_cells, golden):
    cells = [
        "x = torch.tensor([1., 2., 3.], requires_grad=True)",
        "y = x[[2, 0, 0]] * x",  # IndexBackward0 has no formula, on purpose
        "%explain y torch.tensor([1., 0.5, 0.25])",
        "m = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)",
        "v = (m @ m.t()).sum()",
        "%explain v",
        "a = torch.tensor([1., 2.], requires_grad=True)",
        "b = a + a",
        "c = (b * a).sum()",
        "%explain c",
    ]
    golden("explain_more.txt", run_cells(vs, cells))
