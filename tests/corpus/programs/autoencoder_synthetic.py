# An autoencoder tutorial on synthetic data: encoder/decoder nn.Modules, Adam, MSELoss,
# the bottleneck codes, and reconstruction error per sample.
import torch
from torch import nn

torch.manual_seed(0)
latent = torch.randn(120, 2)
mixing = torch.randn(2, 8)
data = torch.tanh(latent @ mixing) + 0.05 * torch.randn(120, 8)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=24, shuffle=True)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 2))
        self.decoder = nn.Sequential(nn.Linear(2, 6), nn.Tanh(), nn.Linear(6, 8))

    def forward(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return encoded, decoded


autoencoder = AutoEncoder()
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=0.01)
loss_func = nn.MSELoss()

for epoch in range(15):
    for step, (x,) in enumerate(loader):
        encoded, decoded = autoencoder(x)
        loss = loss_func(decoded, x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if epoch % 3 == 0:
        print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy())

autoencoder.eval()
with torch.no_grad():
    codes, recon = autoencoder(data[:5])
    per_sample = ((recon - data[:5]) ** 2).mean(dim=1)
print(codes)
print(per_sample)
print(autoencoder.encoder[0].weight.shape, len(list(autoencoder.parameters())))
