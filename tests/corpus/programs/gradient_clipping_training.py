# A typical training loop from blog tutorials: Adam, gradient clipping, early stopping,
# keeping the best weights with copy.deepcopy, and model.eval() for validation.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(200, 5)
true_w = torch.tensor([[1.0], [-2.0], [0.5], [0.0], [3.0]])
y = X @ true_w + 0.1 * torch.randn(200, 1)
X_train, X_val = X[:160], X[160:]
y_train, y_val = y[:160], y[160:]

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-4)
criterion = nn.MSELoss()

best_loss = float('inf')
best_state = None
patience, bad_epochs = 3, 0
for epoch in range(40):
    model.train()
    perm = torch.randperm(160)
    for i in range(0, 160, 32):
        idx = perm[i:i + 32]
        optimizer.zero_grad()
        loss = criterion(model(X_train[idx]), y_train[idx])
        loss.backward()
        total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X_val), y_val).item()
    if epoch % 5 == 0:
        print(f"epoch {epoch:2d} train {loss.item():.4f} val {val_loss:.4f} grad-norm {total_norm:.3f}")
    if val_loss < best_loss - 1e-4:
        best_loss = val_loss
        best_state = copy.deepcopy(model.state_dict())
        bad_epochs = 0
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            print(f"early stopping at epoch {epoch}")
            break

model.load_state_dict(best_state)
print(f"best val loss {best_loss:.5f}")
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(model[0].weight.grad.abs().max())
print(type(total_norm), total_norm.shape)
