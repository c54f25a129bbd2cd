"""Inspecting gradients with module hooks, in the style of PyTorch's hooks tutorial
(forward hooks to record activations, full backward hooks to see grad_input/grad_output)."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


net = Net()
activations = {}


def save_activation(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()

    return hook


def show_grads(module, grad_input, grad_output):
    name = type(module).__name__
    shapes_in = [None if g is None else tuple(g.shape) for g in grad_input]
    shapes_out = [tuple(g.shape) for g in grad_output]
    print(f"{name}: grad_input {shapes_in} grad_output {shapes_out}")
    print("  |grad_output| =", round(grad_output[0].norm().item(), 4))


handles = [net.fc1.register_forward_hook(save_activation("fc1"))]
for layer in (net.fc1, net.act, net.fc2):
    handles.append(layer.register_full_backward_hook(show_grads))

x = torch.randn(3, 4, requires_grad=True)
out = net(x)
print(out.grad_fn.name())
print(out)
out.pow(2).sum().backward()
print(activations["fc1"].shape)
print(x.grad)

# a hook can rescale the gradient flowing to the layer's input
for h in handles:
    h.remove()
x.grad = None


def halve(module, grad_input, grad_output):
    return tuple(None if g is None else g / 2 for g in grad_input)


net.act.register_full_backward_hook(halve)
net(x).pow(2).sum().backward()
print(x.grad)

# a pre-hook sees grad_output before the layer's backward runs
net.fc2.register_full_backward_pre_hook(lambda m, g: print("pre-hook:", tuple(g[0].shape)))
inputs = torch.randn(2, 4)
loss = net(inputs).sum()
loss.backward()
print(net.fc1.weight.grad.shape)

# hooks on a layer whose input needs no gradient fire with grad_input (None,)
probe = nn.Linear(4, 1)
probe.register_full_backward_hook(show_grads)
probe(torch.randn(5, 4)).sum().backward()

# returning the wrong number of gradients is an error
bad = nn.Linear(2, 2)
bad.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
try:
    bad(torch.randn(1, 2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
