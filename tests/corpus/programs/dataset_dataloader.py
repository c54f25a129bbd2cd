# Official "Datasets & DataLoaders" tutorial style: a custom Dataset with transforms,
# random_split, Subset, a collate_fn and iterating over batches.
import torch
from torch.utils.data import Dataset, DataLoader, random_split, Subset


class PointsDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        g = torch.Generator().manual_seed(0)
        self.points = torch.rand(n, 2, generator=g)
        self.labels = (self.points.sum(dim=1) > 1).long()
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        point = self.points[idx]
        label = self.labels[idx]
        if self.transform:
            point = self.transform(point)
        if self.target_transform:
            label = self.target_transform(label)
        return point, label


def one_hot(y):
    return torch.zeros(2, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)


ds = PointsDataset(10, transform=lambda p: p * 10, target_transform=one_hot)
print(len(ds))
x, y = ds[0]
print(x, y)

torch.manual_seed(0)
train_set, val_set = random_split(ds, [8, 2])
print(len(train_set), len(val_set), type(train_set).__name__)
loader = DataLoader(train_set, batch_size=3, shuffle=True)
for i, (xb, yb) in enumerate(loader):
    print(i, xb.shape, yb.tolist())

train_features, train_labels = next(iter(loader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")

sub = Subset(ds, [0, 2, 4])
print([sub[i][1].tolist() for i in range(len(sub))])


def collate(batch):
    xs = torch.stack([b[0] for b in batch])
    ys = torch.stack([b[1] for b in batch]).argmax(dim=1)
    return xs, ys


for xb, yb in DataLoader(ds, batch_size=4, collate_fn=collate):
    print(xb.sum().item(), yb)

plain = DataLoader([(i, float(i) ** 2) for i in range(5)], batch_size=2)
for batch in plain:
    print(batch)
dict_loader = DataLoader([{'x': torch.tensor([i, i]), 'id': i} for i in range(4)], batch_size=2)
print(next(iter(dict_loader)))
print(len(DataLoader(ds, batch_size=3)), len(DataLoader(ds, batch_size=3, drop_last=True)))
