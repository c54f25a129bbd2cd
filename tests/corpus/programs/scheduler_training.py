# A training loop from blog tutorials with learning-rate schedules: CosineAnnealingLR with
# warm-up by LambdaLR, ReduceLROnPlateau on a validation loss, MultiStepLR for comparison.
import math
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, MultiStepLR, ReduceLROnPlateau

torch.manual_seed(42)
X = torch.randn(64, 3)
y = X @ torch.tensor([[0.5], [-1.0], [2.0]]) + 0.05 * torch.randn(64, 1)

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = CosineAnnealingLR(optimizer, T_max=10, eta_min=1e-4)
for epoch in range(12):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch:2d} lr {scheduler.get_last_lr()[0]:.6f} loss {loss.item():.6f}")

warmup = 3
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = LambdaLR(optimizer, lr_lambda=lambda e: (e + 1) / warmup if e < warmup else 0.5 * (1 + math.cos(math.pi * (e - warmup) / 10)))
for epoch in range(6):
    optimizer.step()
    scheduler.step()
    print(epoch, optimizer.param_groups[0]['lr'])

optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
plateau = ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=1)
val_losses = [1.0, 0.9, 0.91, 0.92, 0.93, 0.8, 0.85, 0.86, 0.87]
for epoch, val in enumerate(val_losses):
    optimizer.step()
    plateau.step(val)
    print(f"epoch {epoch}: val {val} -> lr {optimizer.param_groups[0]['lr']}")
print(plateau.best, plateau.num_bad_epochs)

optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
multi = MultiStepLR(optimizer, milestones=[2, 4], gamma=0.1)
for epoch in range(6):
    optimizer.step()
    multi.step()
print(multi.get_last_lr(), multi.last_epoch)
print(multi.state_dict())
