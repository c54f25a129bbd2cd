# ruff: noqa: E741, I001 - written as the tutorial writes it
# In the style of Dive into Deep Learning, "Concise Implementation of Linear Regression":
# a TensorDataset, a shuffling DataLoader, nn.Linear, MSELoss and SGD, plus a custom Dataset.
import torch
from torch.utils import data
import torch.utils.data as Data
from torch.utils.data import Dataset, DataLoader


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter = load_array((features, labels), 10)
print(next(iter(data_iter)))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i


for xb, yb in DataLoader(Squares(5), batch_size=2, shuffle=True):
    print(xb, yb)

net = torch.nn.Sequential(torch.nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = torch.nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:.4f}")
print(type(data_iter))
print(Data.random_split(range(6), [0.5, 0.5]))
