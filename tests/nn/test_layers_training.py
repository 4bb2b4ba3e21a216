"""PyTorch's beginner training loops run with only the import changed (`import gradcalc as
torch`), and reproduce PyTorch's losses over 20 steps.

The initial weights and the data come from formulas (sin of an arange), loaded into the
model with `load_state_dict`, so both libraries start from the same numbers: gradcalc's
random stream is not PyTorch's. The expected losses were measured by running this very
code with `import torch` (PyTorch 2.13.0, CPU, float64) and are written in.
"""

from __future__ import annotations

import math

import gradcalc as torch
from gradcalc import nn, optim


def data_weights(torch, shape, k):
    """Deterministic values from a formula (the same in both libraries)."""
    n = math.prod(shape)
    return (torch.sin(torch.arange(n) * 0.37 + k) * 0.5).reshape(*shape)


def linear_regression():
    torch.set_default_dtype(torch.float64)
    x = torch.arange(20).reshape(20, 1) / 10.0
    y = 2.0 * x + 1.0 + 0.1 * torch.sin(torch.arange(20).reshape(20, 1))
    model = nn.Linear(1, 1)
    model.load_state_dict({"weight": torch.tensor([[0.3]]), "bias": torch.tensor([-0.2])})
    criterion = nn.MSELoss()
    optimizer = optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def two_layer_mlp():
    torch.set_default_dtype(torch.float64)
    x = data_weights(torch, (32, 4), 0.0) * 2.0
    y = torch.arange(32) % 3
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    state = {name: data_weights(torch, tuple(p.shape), i + 1.0)
             for i, (name, p) in enumerate(model.named_parameters())}
    model.load_state_dict(state)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(20):
        pred = model(x)
        loss = loss_fn(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses




def small_cnn():
    torch.set_default_dtype(torch.float64)
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
            self.conv2 = nn.Conv2d(4, 8, 3)
            self.fc = nn.Linear(8 * 2 * 2, 2)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.relu(self.conv2(x))
            x = torch.flatten(x, 1)
            return self.fc(x)

    net = Net()
    net.load_state_dict({name: data_weights(torch, tuple(p.shape), i + 0.5)
                         for i, (name, p) in enumerate(net.named_parameters())})
    images = data_weights(torch, (8, 1, 8, 8), 3.0) * 2.0
    labels = torch.arange(8) % 2
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        outputs = net(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


TORCH_LOSSES = {
    "linear_regression": [
        8.864374336095336, 5.571397792151834, 3.503022742502843, 2.203819044490433,
        1.3877320353067806, 0.8750913934004515, 0.5530465529104258, 0.35071628077549655,
        0.22358018469869786, 0.14367505607405043, 0.09343721605642476, 0.061834907603364374,
        0.04193905998948268, 0.029397491678240916, 0.021476560695674468, 0.016459227442605,
        0.013266979319944073, 0.011222362432027368, 0.009899828265309944, 0.009032050796091559],
    "two_layer_mlp": [
        1.1019022080858853, 1.095558731108184, 1.0943838529024899, 1.0943102134076237,
        1.0930539270674309, 1.090794947068276, 1.0884644439151392, 1.0866867100395192,
        1.0854790210480796, 1.0844230718582517, 1.0830773581577358, 1.0813627141387054,
        1.0795189835042724, 1.07775245224284, 1.0760782372235413, 1.0745825732860772,
        1.0730861310438156, 1.0715446658942105, 1.0699262219369818, 1.0684060860671476],
    "small_cnn": [
        0.5656591428873776, 0.5300837353104378, 0.537414685788409, 0.44571646969174467,
        0.4157505526485026, 0.38277702703820393, 0.30600881004634084, 0.2746197332596102,
        0.22640734557183886, 0.16740591495514212, 0.150220824567095, 0.08961524404676743,
        0.0806295296992844, 0.0524572236636751, 0.028543617984475966, 0.02892096779481424,
        0.019628376154730662, 0.009357031423053247, 0.0063543561026937955,
        0.0064818746577000085],
}


def _same(losses: list[float], expected: list[float]) -> None:
    assert len(losses) == 20
    for got, want in zip(losses, expected, strict=True):
        assert abs(got - want) <= 1e-10, (got, want)


def test_linear_regression_with_sgd():
    _same(linear_regression(), TORCH_LOSSES["linear_regression"])


def test_two_layer_mlp_with_adam_and_cross_entropy():
    _same(two_layer_mlp(), TORCH_LOSSES["two_layer_mlp"])


def test_small_cnn_with_momentum_and_weight_decay():
    _same(small_cnn(), TORCH_LOSSES["small_cnn"])
