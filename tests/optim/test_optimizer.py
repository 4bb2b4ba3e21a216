"""gradcalc.optim against PyTorch 2.13.0's parameter values after each of six steps
(float64, CPU), measured by hand and written in; and the optimizers' bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc

CONFIGS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum_dampening": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    "sgd_nesterov_decay": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
    "sgd_maximize": ("SGD", dict(lr=0.01, maximize=True)),
    "adam": ("Adam", dict(lr=0.1)),
    "adam_decay_amsgrad": (
        "Adam",
        dict(lr=0.05, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True),
    ),
    "adamw": ("AdamW", dict(lr=0.05)),
}


def run(torch, name):
    kind, kw = CONFIGS[name]
    p = torch.tensor([1.5, -0.5, 0.25], requires_grad=True)
    opt = getattr(torch.optim, kind)([p], **kw)
    out = []
    for _ in range(6):
        opt.zero_grad()
        loss = ((p - torch.tensor([0.5, 1.0, -2.0])) ** 2 * torch.tensor([1.0, 3.0, 0.5])).sum() + (
            p**4
        ).sum() * 0.1
        loss.backward()
        opt.step()
        out.append(p.detach().numpy().tolist())
    return out


TORCH = {
    "sgd": [
        [1.165, 0.40500000000000014, 0.02437499999999998],
        [0.9687533150000001, 0.7593427950000001, -0.17806307928710943],
        [0.838636311875871, 0.8862235908133552, -0.36003094136090114],
        [0.7473161683507359, 0.9266481106223605, -0.5221611259834068],
        [0.6811584458244655, 0.9388315978059076, -0.6642502773283697],
        [0.6322850872485463, 0.9424330132171456, -0.7861018052910945],
    ],
    "sgd_momentum_dampening": [
        [1.165, 0.40500000000000014, 0.02437499999999998],
        [0.7261273205, 1.4675399565000002, -0.32039415550097666],
        [0.2887640451266523, 2.1389622810307896, -0.7473379060210774],
        [-0.07596406690657709, 1.990867585904863, -1.2075864660715387],
        [-0.3235721244674831, 1.220472475307868, -1.6279716448398331],
        [-0.4301707045940076, 0.38361559775255394, -1.9115514989998368],
    ],
    "sgd_nesterov_decay": [
        [1.19715, 0.3149500000000002, 0.04671249999999997],
        [0.9011397451573684, 0.9732288692299547, -0.20981733570725772],
        [0.6486738656455937, 1.316460875097566, -0.4937474658243483],
        [0.4536899528231284, 1.345551450302384, -0.7803010514462052],
        [0.3187889869221898, 1.206295836735872, -1.043384195042424],
        [0.24000381413544472, 1.0416623437337096, -1.2572411670579962],
    ],
    "sgd_maximize": [
        [1.5335, -0.5905, 0.2725625],
        [1.5685948508815002, -0.6867536063705, 0.2953691200174619],
        [1.6054047944618122, -0.7892543985833028, 0.31842588667219546],
        [1.6440634871350714, -0.8985762398086486, 0.34173929276773646],
        [1.6847200079608757, -1.0153929971291686, 0.3653163268059561],
        [1.7275412466803959, -1.1405041508439318, 0.3891645047240814],
    ],
    "adam": [
        [1.4000000002985076, -0.40000000011049724, 0.15000000044321332],
        [1.3006376864643663, -0.30024992125722794, 0.050152348934660404],
        [1.2024010338556619, -0.2009379684246733, -0.04943936490825686],
        [1.1058199805347826, -0.10227125305164868, -0.14866421960787896],
        [1.0114593775695409, -0.00447827166992984, -0.24739817961230906],
        [0.9199094312718559, 0.09218842907999147, -0.34549725356820016],
    ],
    "adam_decay_amsgrad": [
        [1.4500000001428572, -0.45000000005494506, 0.20000000021917808],
        [1.4001791743582344, -0.40008408747356217, 0.15005923934520246],
        [1.3506626362758047, -0.3503104576886986, 0.10021672758075831],
        [1.3015777432842683, -0.30073827134244563, 0.05051097341252666],
        [1.2530524365095832, -0.25142716482037036, 0.000979966058634353],
        [1.2052136045481157, -0.20243679977424142, -0.04833875951361439],
    ],
    "adamw": [
        [1.4492500001492536, -0.4497500000552487, 0.19987500022160667],
        [1.3986523143100051, -0.39957914751199264, 0.14980970162617688],
        [1.348297214067223, -0.34952535202549356, 0.09982704418024616],
        [1.2982786714230836, -0.2996279597503331, 0.04995007272539894],
        [1.248693823618194, -0.24992775543233808, 0.00020213352002947105],
        [1.1996423614911045, -0.20046696298534555, -0.04939290570683932],
    ],
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_steps_are_pytorchs(name):
    np.testing.assert_allclose(run(gradcalc, name), TORCH[name], rtol=1e-13, atol=1e-14)


def test_zero_grad_and_state_dict_round_trip():
    p = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    opt = gradcalc.optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    saved = opt.state_dict()
    assert saved["param_groups"][0]["lr"] == 0.1 and saved["param_groups"][0]["params"] == [0]
    np.testing.assert_array_equal(saved["state"][0]["momentum_buffer"], [2.0, 4.0])
    opt.zero_grad()
    assert p.grad is None
    fresh = gradcalc.optim.SGD([p], lr=0.5)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == 0.1 and fresh.param_groups[0]["momentum"] == 0.9


def test_a_parameter_without_a_gradient_is_left_alone():
    a = gradcalc.tensor([1.0], requires_grad=True)
    b = gradcalc.tensor([5.0], requires_grad=True)
    opt = gradcalc.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    assert b.tolist() == [5.0] and a.tolist() != [1.0]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: gradcalc.optim.SGD(p, lr=-1.0), "Invalid learning rate"),
        (lambda p: gradcalc.optim.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires"),
        (lambda p: gradcalc.optim.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
        (lambda p: gradcalc.optim.SGD([], lr=0.1), "empty parameter list"),
    ],
)
def test_bad_settings_raise_pytorchs_value_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make([gradcalc.tensor([1.0], requires_grad=True)])
