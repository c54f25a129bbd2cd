# The classic XOR example found in many blog tutorials: sigmoid MLP with BCELoss.
import torch
import torch.nn as nn

X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
Y = torch.tensor([[0.], [1.], [1.], [0.]])


class XOR(nn.Module):
    def __init__(self, input_dim=2, output_dim=1):
        super(XOR, self).__init__()
        self.lin1 = nn.Linear(input_dim, 2)
        self.lin2 = nn.Linear(2, output_dim)

    def forward(self, x):
        x = self.lin1(x)
        x = torch.sigmoid(x)
        x = self.lin2(x)
        return torch.sigmoid(x)


def weights_init(model):
    for m in model.modules():
        if isinstance(m, nn.Linear):
            # initialize the weight tensor, here we use a normal distribution
            m.weight.data.normal_(0, 1)


torch.manual_seed(2)
model = XOR()
weights_init(model)
loss_func = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)

epochs = 600
steps = X.size(0)
for i in range(epochs):
    for j in range(steps):
        data_point = torch.randint(X.size(0), (1,))
        x_var = X[data_point]
        y_var = Y[data_point]

        optimizer.zero_grad()
        y_hat = model(x_var)
        loss = loss_func.forward(y_hat, y_var)
        loss.backward()
        optimizer.step()

    if i % 150 == 0:
        print("Epoch: {0}, Loss: {1}, ".format(i, loss.data.numpy()))

model_params = list(model.parameters())
print(model(X).round())
print(model_params[0].shape, model_params[1].shape)
print(torch.nn.functional.binary_cross_entropy(model(X), Y).item() < 0.7)
