# A toy GAN as in introductory GAN tutorials: a generator learns to imitate samples from
# N(4, 1.25) against a discriminator, with BCELoss, two Adam optimizers and .detach().
import torch
import torch.nn as nn

torch.manual_seed(111)

def real_data(n):
    return torch.randn(n, 1) * 1.25 + 4.0

def noise(n):
    return torch.rand(n, 1)

G = nn.Sequential(nn.Linear(1, 16), nn.ELU(), nn.Linear(16, 16), nn.ELU(), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
print(G)
print(D)

criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
batch = 32
real_labels = torch.ones(batch, 1)
fake_labels = torch.zeros(batch, 1)

for epoch in range(200):
    # 1. Train D on real + fake
    D.zero_grad()
    d_real_error = criterion(D(real_data(batch)), real_labels)
    d_real_error.backward()
    d_fake_data = G(noise(batch)).detach()  # detach to avoid training G on these labels
    d_fake_error = criterion(D(d_fake_data), fake_labels)
    d_fake_error.backward()
    d_optimizer.step()

    # 2. Train G on D's response (but DO NOT train D on these labels)
    G.zero_grad()
    g_fake_data = G(noise(batch))
    g_error = criterion(D(g_fake_data), real_labels)  # we want to fool, so pretend it's all genuine
    g_error.backward()
    g_optimizer.step()

    if epoch % 50 == 0:
        print("Epoch %s: D (%.4f real_err, %.4f fake_err) G (%.4f err)" %
              (epoch, d_real_error.item(), d_fake_error.item(), g_error.item()))

with torch.no_grad():
    samples = G(noise(1000))
print(f"generated mean {samples.mean():.2f}, std {samples.std():.2f}")
print(d_fake_data.requires_grad, g_fake_data.grad_fn)
