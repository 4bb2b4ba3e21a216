"""gradcalc.nn's Module, Parameter and layers behave as PyTorch's: registration, names,
state_dict round trips, train/eval, zero_grad, and the layers' shapes and values."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc
from gradcalc import nn
from gradcalc.nn import functional as F


class TwoLayers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.out = nn.Linear(4, 2, bias=False)
        self.scale = nn.Parameter(gradcalc.ones(1))
        self.note = "not a parameter"
        self.register_buffer("steps", gradcalc.zeros(1))

    def forward(self, x):
        return self.out(F.relu(self.hidden(x))) * self.scale


def test_parameters_are_registered_by_dotted_name_in_assignment_order():
    model = TwoLayers()
    names = [n for n, _ in model.named_parameters()]
    assert names == ["scale", "hidden.weight", "hidden.bias", "out.weight"]
    assert all(p.requires_grad and p.is_leaf for p in model.parameters())
    assert list(model.state_dict()) == names + ["steps"]
    assert [type(m).__name__ for m in model.modules()] == ["TwoLayers", "Linear", "Linear"]


def test_an_operation_on_a_parameter_gives_a_plain_tensor():
    p = nn.Parameter(gradcalc.tensor([1.0, 2.0]))
    y = p * 2
    assert type(y) is gradcalc.Tensor and not y.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor([1., 2.]")


def test_state_dict_round_trip_and_errors():
    a, b = TwoLayers(), TwoLayers()
    b.load_state_dict(a.state_dict())
    x = gradcalc.tensor(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "out.weight"'):
        b.load_state_dict({k: v for k, v in a.state_dict().items() if k != "out.weight"})
    with pytest.raises(RuntimeError, match="size mismatch for scale"):
        b.load_state_dict({**a.state_dict(), "scale": gradcalc.ones(2)})
    keys = b.load_state_dict({"scale": gradcalc.ones(1)}, strict=False)
    assert "hidden.weight" in keys.missing_keys and keys.unexpected_keys == []


def test_zero_grad_train_eval_and_dropout():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    x = gradcalc.ones(4, 2)
    model(x).sum().backward()
    assert model[0].weight.grad is not None
    model.zero_grad()
    assert model[0].weight.grad is None
    model.eval()
    assert not model[1].training
    assert np.array_equal(model(x).detach().numpy(), model[0](x).detach().numpy())
    model.train()
    gradcalc.manual_seed(0)
    first = model(x).detach().numpy()
    gradcalc.manual_seed(0)
    assert np.array_equal(model(x).detach().numpy(), first)  # seeded: the same mask
    kept = first[first != 0]
    full = model[0](x).detach().numpy()
    assert set(np.round(kept, 12)) <= set(np.round(2 * full.reshape(-1), 12))


def test_sequential_indexing_and_repr():
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(2 * 2 * 2, 3), nn.Tanh(), nn.Sigmoid())
    assert len(model) == 7 and isinstance(model[0], nn.Conv2d)
    assert isinstance(model[1:3], nn.Sequential) and len(model[1:3]) == 2
    out = model(gradcalc.randn(5, 1, 4, 4))
    assert out.shape == (5, 3)
    assert repr(model).startswith("Sequential(\n  (0): Conv2d(1, 2, kernel_size=(3, 3)")


def test_linear_is_x_times_w_transposed_plus_b():
    layer = nn.Linear(3, 2)
    layer.load_state_dict({"weight": gradcalc.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]]),
                           "bias": gradcalc.tensor([0.5, -0.5])})
    out = layer(gradcalc.tensor([[1.0, 1.0, 2.0]]))
    assert out.tolist() == [[9.5, -0.5]]


def test_default_initialisation_bounds_are_pytorchs():
    gradcalc.manual_seed(1)
    conv = nn.Conv2d(4, 6, 3)
    bound = 1.0 / np.sqrt(4 * 9)
    assert conv.weight.shape == (6, 4, 3, 3) and conv.bias.shape == (6,)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound


def test_a_module_without_forward_says_so():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)
