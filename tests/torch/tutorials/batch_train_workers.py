# In the style of the popular "batch training" tutorials: a shuffled TensorDataset read in
# mini-batches by a DataLoader with worker processes, inside `if __name__ == "__main__":`.
import torch
import torch.utils.data as Data

torch.manual_seed(1)  # reproducible

BATCH_SIZE = 4

x = torch.linspace(1, 12, 12)  # x data
y = torch.linspace(12, 1, 12)  # y data

torch_dataset = Data.TensorDataset(x, y)
loader = Data.DataLoader(
    dataset=torch_dataset,
    batch_size=BATCH_SIZE,
    shuffle=True,
    num_workers=2,  # worker processes load the batches
)


def show_batch():
    for epoch in range(3):  # the whole dataset, three times
        for step, (batch_x, batch_y) in enumerate(loader):
            print(
                "Epoch: ",
                epoch,
                "| Step: ",
                step,
                "| batch x: ",
                batch_x.numpy(),
                "| batch y: ",
                batch_y.numpy(),
            )


if __name__ == "__main__":
    show_batch()
    print(torch.rand(2))
