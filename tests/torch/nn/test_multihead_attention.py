"""nn.MultiheadAttention, F.scaled_dot_product_attention, F.multi_head_attention_forward
and torch.baddbmm against PyTorch: values, the node chain PyTorch builds (with and
without need_weights, in train and eval mode, with masks, batch_first, kdim/vdim),
gradients, weights bitwise after the same seed, reprs and errors; finite-difference
gradient checks in float64."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

RNG = np.random.default_rng(11)


def A(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# -- scaled_dot_product_attention -----------------------------------------------------------
MASK = np.array([[1, 0, 1, 1, 0], [1, 1, 0, 1, 1], [0, 1, 1, 1, 1]], dtype=bool)


@pytest.mark.parametrize(
    "fn",
    [
        lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v),
        lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3),
        lambda F, q, k, v: F.scaled_dot_product_attention(
            q, k, v, attn_mask=k.new_tensor(MASK).bool()
        ),
        lambda F, q, k, v: F.scaled_dot_product_attention(
            q, k, v, attn_mask=k.new_tensor(MASK) * -2.0
        ),
        lambda F, q, k, v: F.scaled_dot_product_attention(
            q, k[..., :3, :], v[..., :3, :], is_causal=True
        ),
        lambda F, q, k, v: F.scaled_dot_product_attention(q[0], k[0], v[0]),
        lambda F, q, k, v: F.scaled_dot_product_attention(
            q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        ),
    ],
)
def test_sdpa_fused_path(fn, real_torch):
    check(
        lambda lib, q, k, v: fn(lib.nn.functional, q, k, v),
        A(2, 2, 3, 4),
        A(2, 2, 5, 4),
        A(2, 2, 5, 4),
    )


def test_sdpa_layout_follows_the_query(real_torch):
    def fn(lib, q):
        out = lib.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), q.transpose(1, 2), q.transpose(1, 2)
        )
        return out.permute(2, 0, 1, 3).contiguous()

    check(fn, A(2, 3, 2, 4))


@pytest.mark.parametrize("masked", [False, True])
def test_sdpa_with_dropout_composes_the_math_form(masked, real_torch):
    def fn(lib, q, k, v):
        lib.manual_seed(3)
        mask = k.new_tensor(MASK) * -1.5 if masked else None
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, mask, dropout_p=0.4)

    check(fn, A(2, 2, 3, 4), A(2, 2, 5, 4), A(2, 2, 5, 4))


def test_sdpa_mask_that_needs_a_gradient(real_torch):
    check(
        lambda lib, q, k, v, m: lib.nn.functional.scaled_dot_product_attention(q, k, v, m),
        A(2, 3, 4),
        A(2, 5, 4),
        A(2, 5, 4),
        A(3, 5),
    )


def test_sdpa_second_derivative_is_refused_as_pytorch_does(real_torch):
    def fn(lib, q):
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        (g,) = lib.autograd.grad((out * out).sum(), q, create_graph=True)
        return g

    check(fn, A(1, 3, 4))


SDPA_ERRORS = [
    lambda F, q: F.scaled_dot_product_attention(q, q, q.double()),
    lambda F, q: F.scaled_dot_product_attention(q, q, q, attn_mask=q[0, 0] > 0, is_causal=True),
]


@pytest.mark.parametrize("fn", SDPA_ERRORS)
def test_sdpa_errors(fn, real_torch):
    check_error(lambda lib, q: fn(lib.nn.functional, q), A(1, 3, 3))


def test_sdpa_gradients_by_finite_differences():
    F = gtorch.nn.functional
    q, k, v = (
        gtorch.tensor(RNG.standard_normal(s), requires_grad=True)
        for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3))
    )
    mask = gtorch.tensor(MASK)
    gradcheck(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.7), q, k, v
    )
    gradcheck(
        lambda q, k, v: F.scaled_dot_product_attention(q, k[:, :3], v[:, :3], is_causal=True),
        q,
        k,
        v,
    )


# -- baddbmm -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda torch, s, a, b: torch.baddbmm(s, a, b),
        lambda torch, s, a, b: torch.baddbmm(s[:1], a, b, beta=0.5, alpha=2),
        lambda torch, s, a, b: torch.baddbmm(s[0], a, b, alpha=-1.5),
        lambda torch, s, a, b: s[0, :1].baddbmm(a, b, beta=0),
    ],
)
def test_baddbmm(fn, real_torch):
    check(fn, A(3, 2, 5), A(3, 2, 4), A(3, 4, 5))


def test_baddbmm_gradients_by_finite_differences():
    def t(*shape):
        return gtorch.tensor(RNG.standard_normal(shape), requires_grad=True)

    args = (t(1, 2, 3), t(2, 2, 4), t(2, 4, 3))
    fn = lambda s, a, b: gtorch.baddbmm(s, a, b, beta=0.5, alpha=1.5)  # noqa: E731
    gradcheck(fn, *args)
    gradgradcheck(fn, *args)


def test_baddbmm_errors(real_torch):
    check_error(lambda lib, s, a: lib.baddbmm(s, a, a), A(2, 3, 3), A(2, 3, 4))
    check_error(lambda lib, s, a: lib.baddbmm(s, a[0], a), A(2, 3, 3), A(2, 3, 4))


# -- MultiheadAttention ----------------------------------------------------------------------
def _mha(lib, x, kw, call, train=True):
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(4, 2, **kw)
    m.train(train)
    return m(x, x, x, **call) if call.pop("self", True) else m(x, x[:2] * 2, x[:2] * 3, **call)


CASES = [
    ({}, {}),
    ({}, {"need_weights": False}),
    ({}, {"average_attn_weights": False}),
    ({"bias": False}, {}),
    ({"dropout": 0.3}, {}),
    ({"dropout": 0.3}, {"need_weights": False}),
    ({}, {"attn_mask": "causal", "is_causal": True}),
    ({}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
    ({}, {"attn_mask": "float"}),
    ({}, {"attn_mask": "float", "need_weights": False}),
    ({}, {"key_padding_mask": "kpm"}),
    ({}, {"key_padding_mask": "kpm", "need_weights": False}),
    ({}, {"self": False}),
    ({}, {"self": False, "need_weights": False}),
]


def _masks(lib, call, x):
    call = dict(call)
    n = x.shape[0]
    if call.get("attn_mask") == "causal":
        call["attn_mask"] = lib.ones(n, n, dtype=lib.bool).triu(1)
    elif call.get("attn_mask") == "float":
        call["attn_mask"] = lib.arange(n * n, dtype=lib.float32).reshape(n, n) * -0.1
    if call.get("key_padding_mask") == "kpm":
        call["key_padding_mask"] = lib.tensor([[False, False, True], [False, True, False]])
    return call


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize(("kw", "call"), CASES)
def test_multihead_attention_matches_pytorch(kw, call, train, real_torch):
    check(lambda lib, x: _mha(lib, x, dict(kw), _masks(lib, call, x), train), A(3, 2, 4))


@pytest.mark.parametrize("need_weights", [True, False])
def test_batch_first_unbatched_and_separate_dims(need_weights, real_torch):
    def fn(lib, x, k, v):
        lib.manual_seed(1)
        bf = lib.nn.MultiheadAttention(4, 2, batch_first=True)
        sep = lib.nn.MultiheadAttention(4, 1, kdim=3, vdim=5)
        return (
            bf(x, x, x, need_weights=need_weights),
            bf(x[0], x[0], x[0], need_weights=need_weights),
            sep(x.transpose(0, 1), k, v, need_weights=need_weights),
        )

    check(fn, A(2, 3, 4), A(5, 2, 3), A(5, 2, 5))


LAYERS = """
nn = torch.nn
torch.manual_seed(0)
m = nn.MultiheadAttention(6, 2)
print(m)
print([(n, tuple(p.shape)) for n, p in m.named_parameters()])
print(m.in_proj_weight.flatten()[:5].tolist(), m.out_proj.weight.flatten()[-3:].tolist())
print(m.in_proj_bias.abs().sum().item(), m.out_proj.bias.tolist())
s = nn.MultiheadAttention(6, 3, kdim=2, vdim=4, bias=False, batch_first=True, dropout=0.1)
print(s, [(n, tuple(p.shape)) for n, p in s.named_parameters()])
print(s.q_proj_weight[0].tolist(), s.k_proj_weight[-1].tolist(), s.in_proj_weight, s.bias_k)
print(s._qkv_same_embed_dim, s.head_dim, s.kdim, s.vdim, s.dropout, s.batch_first)
print(list(m.state_dict()), type(m.out_proj).__name__, isinstance(m.out_proj, nn.Linear))
for make in [lambda: nn.MultiheadAttention(5, 2), lambda: nn.MultiheadAttention(0, 2),
             lambda: nn.MultiheadAttention(4, 0)]:
    try:
        make()
    except (AssertionError, ValueError) as e:
        print(type(e).__name__, e)
x = torch.randn(3, 2, 6)
for call in [lambda: m(x, x, x[:2]), lambda: m(x, x, x, attn_mask=torch.ones(2, 2)),
             lambda: m(x, x, x, is_causal=True), lambda: m(x[0, 0], x[0, 0], x[0, 0]),
             lambda: m(x, x, x, key_padding_mask=torch.ones(2, 3, dtype=torch.long)),
             lambda: m(x, x, x, attn_mask=torch.ones(4, 3, 3)),
             lambda: m(x[0], x[0], x[0], attn_mask=torch.ones(3, 2, 2))]:
    try:
        call()
    except (AssertionError, RuntimeError) as e:
        print(type(e).__name__, e)
out, w = m(x, x, x, key_padding_mask=torch.tensor([[0.0, 0.0, -1.0], [0.0, -2.0, 0.0]]),
           attn_mask=torch.zeros(3, 3, dtype=torch.bool))
print(out.shape, w.shape, out.grad_fn, w.grad_fn)
"""


def test_layers_print_as_pytorch(real_torch):
    ours = printed(LAYERS, gtorch)
    assert ours == printed(LAYERS, real_torch)
    assert "Error:" not in ours.splitlines()[-1]


def test_mha_gradients_by_finite_differences():
    gtorch.manual_seed(0)
    m = gtorch.nn.MultiheadAttention(4, 2, kdim=3, vdim=2).double()
    q = gtorch.tensor(RNG.standard_normal((3, 2, 4)), requires_grad=True)
    k = gtorch.tensor(RNG.standard_normal((2, 2, 3)), requires_grad=True)
    v = gtorch.tensor(RNG.standard_normal((2, 2, 2)), requires_grad=True)
    gradcheck(lambda q, k, v: m(q, k, v)[0], q, k, v)
    gradcheck(lambda q, k, v: m(q, k, v, need_weights=False)[0], q, k, v)
    gradgradcheck(lambda q, k, v: m(q, k, v, average_attn_weights=False)[1], q, k, v)


# -- TransformerEncoderLayer -----------------------------------------------------------------
ENCODER_CASES = [
    {},
    {"norm_first": True, "activation": "gelu"},
    {"batch_first": True, "dropout": 0.0, "bias": False},
    {"activation": "relu", "layer_norm_eps": 1e-3},
]


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("kw", ENCODER_CASES)
def test_transformer_encoder_layer_matches_pytorch(kw, train, real_torch):
    def fn(lib, x):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(4, 2, 8, **kw)
        layer.train(train)
        mask = lib.ones(3, 3, dtype=lib.bool).triu(1)
        kpm = lib.tensor([[False, False, True], [False, False, False]])
        if kw.get("batch_first"):
            x = x.transpose(0, 1)
        return layer(x), layer(x, src_mask=mask, is_causal=True), layer(x, src_key_padding_mask=kpm)

    check(fn, A(3, 2, 4))


ENCODER_LAYERS = """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=6)
print(layer)
print([n for n, _ in layer.named_parameters()])
print(layer.linear1.weight.flatten()[:4].tolist(), layer.self_attn.in_proj_weight[0].tolist())
print(layer.activation_relu_or_gelu, layer.norm_first, layer.activation.__name__)
gelu = torch.nn.TransformerEncoderLayer(4, 2, activation=torch.nn.GELU(), norm_first=True)
print(gelu.activation_relu_or_gelu, gelu.activation, gelu.linear1)
try:
    torch.nn.TransformerEncoderLayer(4, 2, activation='tanh')
except RuntimeError as e:
    print(e)
"""


def test_transformer_encoder_layer_prints_as_pytorch(real_torch):
    assert printed(ENCODER_LAYERS, gtorch) == printed(ENCODER_LAYERS, real_torch)
