# 60-minute blitz, "Training a Classifier", with random images instead of CIFAR-10.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

classes = ('plane', 'car', 'bird', 'cat')

torch.manual_seed(0)
images = torch.randn(32, 3, 8, 8)
labels = torch.randint(0, 4, (32,))
trainset = torch.utils.data.TensorDataset(images, labels)
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4, shuffle=True, num_workers=0)

dataiter = iter(trainloader)
images_b, labels_b = next(dataiter)
print(' '.join(f'{classes[labels_b[j]]:5s}' for j in range(4)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 3 * 3, 20)
        self.fc2 = nn.Linear(20, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

for epoch in range(2):  # loop over the dataset multiple times

    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels_ = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels_)
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
        if i % 4 == 3:
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 4:.3f}')
            running_loss = 0.0

print('Finished Training')

correct = 0
total = 0
with torch.no_grad():
    for data in trainloader:
        images_, labels_ = data
        outputs = net(images_)
        _, predicted = torch.max(outputs.data, 1)
        total += labels_.size(0)
        correct += (predicted == labels_).sum().item()

print(f'Accuracy of the network on the {total} train images: {100 * correct // total} %')

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in trainloader:
        images_, labels_ = data
        outputs = net(images_)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels_, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1

for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
