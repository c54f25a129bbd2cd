# Tutorial-style learning-rate schedules: StepLR, ExponentialLR, printing get_last_lr().
import torch
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR, ExponentialLR

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
x = torch.randn(16, 2)
y = x @ torch.tensor([[1.5], [-2.0]]) + 0.3

for epoch in range(8):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch}: lr={scheduler.get_last_lr()[0]:.4f} loss={loss.item():.5f}")

optimizer = optim.Adam(model.parameters(), lr=0.01)
scheduler = ExponentialLR(optimizer, gamma=0.9)
for epoch in range(4):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr(), optimizer.param_groups[0]['lr'])
print(scheduler.state_dict())
print(optimizer.state_dict()['param_groups'][0]['betas'])
