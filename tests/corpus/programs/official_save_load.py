# Learn the Basics: "Save and Load the Model", and the recipe "Saving and loading models".
import torch
import torch.nn as nn
import torch.optim as optim


class TheModelClass(nn.Module):
    def __init__(self):
        super(TheModelClass, self).__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 8)
        self.fc3 = nn.Linear(8, 3)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        x = self.fc3(x)
        return x


torch.manual_seed(0)
model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())

x = torch.randn(4, 6)
loss = model(x).pow(2).mean()
loss.backward()
optimizer.step()

print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

PATH = "model_weights.pth"
torch.save(model.state_dict(), PATH)

model2 = TheModelClass()
print(model2.load_state_dict(torch.load(PATH, weights_only=True)))
model2.eval()
print(torch.equal(model(x), model2(x)))

torch.save({
    'epoch': 5,
    'model_state_dict': model.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': loss,
}, "checkpoint.tar")

checkpoint = torch.load("checkpoint.tar", weights_only=True)
model3 = TheModelClass()
optimizer3 = optim.SGD(model3.parameters(), lr=0.5)
model3.load_state_dict(checkpoint['model_state_dict'])
optimizer3.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
print(epoch, loss)
print(optimizer3.param_groups[0]['lr'], optimizer3.param_groups[0]['momentum'])
model3.train()

try:
    model3.load_state_dict({'fc1.weight': torch.zeros(12, 6)})
except RuntimeError as e:
    print(e)

print(model3.load_state_dict({'fc1.weight': torch.zeros(12, 6)}, strict=False))
print(model3.fc1.weight.sum())
