"""Every code example of the three PyTorch tutorials, ported torch -> gradcalc (docs/pytorch.md).

Each test mirrors one example of the texts: the same statements with `torch` replaced by
`gradcalc`, and the same printed results. PyTorch prints `dtype=torch.float64` for tensors
that are not of its default dtype; gradcalc's one dtype is float64, so it never prints a
dtype (as PyTorch does with `torch.set_default_dtype(torch.float64)`). The expected
texts below are copied from the tutorials; `printed_as_in_tutorial` drops that suffix.

The seed files are:
- 000: backward's requirements (scalar / weighted / error), MyReLU and Exp Functions, and
  the official tutorial's dynamic graph (`while y.norm() < 1000`), y = (a+b)(b+c);
- 002: torch.autograd.backward() with weights picking Jacobian rows (Variable, FloatTensor);
- 003: scalar outputs: mean of a chain, non-scalar n.backward(p), sum(), mean(), and the
  Jacobian built row by row with one-hot weights.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gradcalc
from gradcalc.autograd import Function, Variable

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def printed_as_in_tutorial(text: str) -> str:
    """A tutorial's printed output as gradcalc prints it (float64 is the default dtype)."""
    return text.replace(", dtype=torch.float64", "")


def squash(text: str) -> str:
    """Runs of spaces as one (the web copies of the texts lost the alignment spaces)."""
    return re.sub(r"[ \t]+", " ", text).strip()


def seed_text(prefix: str) -> str:
    files = sorted(SEEDS.glob(f"{prefix}_*.txt")) if SEEDS.is_dir() else []
    if not files:
        pytest.skip(f"seed text {prefix} not found beside the repository ({SEEDS})")
    return files[0].read_text(encoding="utf-8")


def assert_printed(capsys, expected: str, seed: str | None = None) -> None:
    """What the port printed equals what the tutorial shows (and the tutorial shows it)."""
    out = capsys.readouterr().out
    assert out.strip() == printed_as_in_tutorial(expected).strip()
    if seed is not None and SEEDS.is_dir():
        assert squash(expected) in squash(seed_text(seed))


# --------------------------------------------------------------------------- seed 000


def test_000_scalar_output_needs_no_gradient_argument(capsys):
    # 一. 标量对向量求导: y.backward() directly
    x = gradcalc.ones(2, requires_grad=True)  # x = [1,1]
    y = 2 * x[0] ** 3 + 2 * x[1] ** 3
    y.backward()
    print(x.grad)
    assert_printed(capsys, "tensor([6., 6.])")


def test_000_vector_output_with_grad_tensors(capsys):
    # 二. tensor 对 tensor: the gradients are weighted by grad_tensors
    x = gradcalc.ones(3, requires_grad=True)  # x = [1,1,1]
    y = 2 * x ** 2
    gradients = gradcalc.tensor([0.1, 1.0, 0.001], dtype=gradcalc.float)
    y.backward(gradients)
    print(x.grad)
    assert_printed(capsys, "tensor([0.4000, 4.0000, 0.0040])")
    np.testing.assert_allclose(x.grad.numpy(), [0.4, 4.0, 0.004])


def test_000_vector_output_without_grad_tensors_is_an_error():
    # 三. 无 gradients 就会报错
    x = gradcalc.ones(3, requires_grad=True)
    y = 2 * x ** 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar "
                                           "outputs"):
        y.backward()
    assert x.grad is None
    assert "grad can be implicitly created only for scalar outputs" in seed_text("000")


class MyReLU(Function):
    """The tutorial's MyReLU, in the static style PyTorch requires today."""

    @staticmethod
    def forward(ctx, input_):
        # 在forward中，需要定义MyReLU这个运算的forward计算过程
        ctx.save_for_backward(input_)  # 将输入保存起来，在backward时使用
        output = input_.clamp(min=0)  # relu就是截断负数，让所有负数等于0
        return output

    @staticmethod
    def backward(ctx, grad_output):
        # dloss / dx = (dloss / doutput) * (doutput / dx)
        input_, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input_ < 0] = 0  # 所有未达到阈值（激活值<0）的单元的梯度都为0
        return grad_input


class LegacyMyReLU(Function):
    """The tutorial's text as written: non-static methods, `self` where ctx is meant."""

    def forward(self, input_):
        self.save_for_backward(input_)
        output = input_.clamp(min=0)
        return output

    def backward(self, grad_output):
        input_, = self.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input_ < 0] = 0
        return grad_input


def test_000_my_relu_function(capsys):
    x = gradcalc.tensor([-2.0, -1.0, 0.0, 0.5, 3.0], requires_grad=True)
    y = MyReLU.apply(x)
    print(y)
    y.backward(gradcalc.ones_like(y))
    print(x.grad)
    assert_printed(capsys, "tensor([0.0000, 0.0000, 0.0000, 0.5000, 3.0000], "
                           "grad_fn=<MyReLUBackward>)\n"
                           "tensor([0., 0., 1., 1., 1.])")
    # only input < 0 is zeroed, so at 0 this ReLU passes the gradient; the built-in relu
    # follows PyTorch's relu'(0) = 0
    x.grad.zero_()
    gradcalc.relu(x).backward(gradcalc.ones(5))
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


def test_000_my_relu_legacy_style():
    # Calling an instance, as in PyTorch before 0.4, raises PyTorch's error ...
    x = gradcalc.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward "
                                           "method is deprecated"):
        LegacyMyReLU()(x)
    # ... and the class's methods, called through apply, work as in PyTorch (self is ctx)
    y = LegacyMyReLU.apply(x)
    y.sum().backward()
    assert y.tolist() == [0.0, 2.0]
    assert x.grad.tolist() == [0.0, 1.0]


class Exp(Function):
    """The official example quoted in the tutorial."""

    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)  # 保留e^x
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result  # 恰好（dloss/dout）*e^x


def test_000_exp_function(capsys):
    input = gradcalc.tensor([0.0, 1.0, 2.0], requires_grad=True)  # noqa: A001 - as in the text
    # Use it by calling the apply method:
    output = Exp.apply(input)
    print(output)
    output.backward(gradcalc.ones(3))
    print(input.grad)
    assert_printed(capsys, "tensor([1.0000, 2.7183, 7.3891], grad_fn=<ExpBackward>)\n"
                           "tensor([1.0000, 2.7183, 7.3891])")
    np.testing.assert_allclose(input.grad.numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-15)


def test_000_exp_function_differentiates_again():
    x = gradcalc.tensor([0.5, -1.0], requires_grad=True)
    y = Exp.apply(x * 3).sum()
    (g,) = gradcalc.autograd.grad(y, x, create_graph=True)  # 3 e^{3x}
    (h,) = gradcalc.autograd.grad(g.sum(), x)  # 9 e^{3x}
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.exp([1.5, -3.0]))
    np.testing.assert_allclose(h.numpy(), 9 * np.exp([1.5, -3.0]))


def test_000_dynamic_graph_and_grad_tensors(capsys):
    # the official tutorial's example
    x = gradcalc.tensor([2, 3, 4], dtype=gradcalc.float, requires_grad=True)
    print(x)
    y = x * 2
    while y.norm() < 1000:
        y = y * 2
    print(y)
    y.backward(gradcalc.ones_like(y))
    print(x.grad)
    # the web copy of the text lost the alignment spaces that PyTorch prints
    assert capsys.readouterr().out == (
        "tensor([2., 3., 4.], requires_grad=True)\n"
        "tensor([ 512.,  768., 1024.], grad_fn=<MulBackward0>)\n"
        "tensor([256., 256., 256.])\n")
    assert squash("tensor([2., 3., 4.], requires_grad=True)\n"
                  "tensor([ 512.,  768., 1024.], grad_fn=<MulBackward0>)\n"
                  "tensor([256., 256., 256.])") in squash(seed_text("000"))


def test_000_dynamic_graph_without_grad_tensors_is_an_error():
    x = gradcalc.tensor([2, 3, 4], dtype=gradcalc.float, requires_grad=True)
    y = x * 2
    while y.norm() < 1000:
        y = y * 2
    with pytest.raises(RuntimeError) as error:
        y.backward()
    assert str(error.value) == "grad can be implicitly created only for scalar outputs"
    assert f"RuntimeError: {error.value}" in seed_text("000")
    assert y.grad_fn.name() == "MulBackward0"
    assert x.grad_fn is None


def test_000_graph_of_a_plus_b_times_b_plus_c():
    # y = (a+b)(b+c): every leaf is created by the user; backward runs the chain rule
    a = gradcalc.tensor(1.0, requires_grad=True)
    b = gradcalc.tensor(2.0, requires_grad=True)
    c = gradcalc.tensor(3.0, requires_grad=True)
    y = (a + b) * (b + c)
    y.backward()
    assert y.item() == 15.0
    assert (a.grad.item(), b.grad.item(), c.grad.item()) == (5.0, 8.0, 3.0)


def test_000_graph_is_freed_after_backward_unless_retain_graph():
    # 每次 backward 之后计算图就被释放 ... retain_graph=True 让计算图不被立即释放
    a = gradcalc.tensor(1.0, requires_grad=True)
    b = gradcalc.tensor(2.0, requires_grad=True)
    y = (a + b) * (b + 3)
    y.backward(retain_graph=True)
    y.backward()
    assert (a.grad.item(), b.grad.item()) == (10.0, 16.0)  # accumulated twice
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time.*Specify retain_graph=True"):
        y.backward()
    # create_graph=True keeps the graph too (and records the backward pass)
    z = a * b
    z.backward(create_graph=True)
    z.backward()
    assert a.grad.item() == 10.0 + 2 * 2.0


# --------------------------------------------------------------------------- seed 002


def test_002_weights_pick_rows_of_the_jacobian(capsys):
    # y = (x1², x2²) at x = (2, 3): J = [[4, 0], [0, 6]]
    FloatTensorList = [gradcalc.FloatTensor([1, 1]), gradcalc.FloatTensor([1, 0]),  # noqa: N806
                       gradcalc.FloatTensor([0, 1])]
    for item in FloatTensorList:
        x = Variable(gradcalc.tensor([2.0, 3.0]), requires_grad=True)
        y = x**2
        y.backward(item, retain_graph=True)
        print(x.grad)
    assert_printed(capsys, "tensor([4., 6.])\ntensor([4., 0.])\ntensor([0., 6.])", seed="002")


def test_002_torch_autograd_backward_function():
    # torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False)
    x = gradcalc.tensor([2.0, 3.0], requires_grad=True)
    y = x**2
    gradcalc.autograd.backward(y, grad_tensors=gradcalc.tensor([1.0, 1.0]))
    assert x.grad.tolist() == [4.0, 6.0]
    # several outputs at once, each with its weights
    x.grad = None
    y1, y2 = x**2, x * 3
    gradcalc.autograd.backward([y1, y2], [gradcalc.tensor([1.0, 0.0]), gradcalc.tensor([0.0, 1.0])])
    assert x.grad.tolist() == [4.0, 3.0]


# --------------------------------------------------------------------------- seed 003

SIMPLE_GRADIENT = """\
**********
=====simple gradient======
input
tensor([2., 3.], dtype=torch.float64)
compute result is
tensor(91.5000, dtype=torch.float64, grad_fn=<MeanBackward0>)
input gradients are
tensor([15., 18.], dtype=torch.float64)"""


def test_003_simple_gradient(capsys):
    a = gradcalc.tensor([2, 3], dtype=gradcalc.float64, requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    out.backward()
    print('*' * 10)
    print('=====simple gradient======')
    print('input')
    print(a.data)
    print('compute result is')
    print(out)
    print('input gradients are')
    print(a.grad)
    assert_printed(capsys, SIMPLE_GRADIENT, seed="003")


def non_scalar_output(m):
    n = gradcalc.zeros(1, 2)
    n[0, 0] = m[0] ** 2
    n[0, 1] = m[1] ** 3
    return n


def print_non_scalar_result(m):
    print('*' * 10)
    print('=====non scalar output======')
    print('input')
    print(m)
    print('input gradients are')
    print(m.grad)


NON_SCALAR = """\
**********
=====non scalar output======
input
tensor([2., 4.], dtype=torch.float64, requires_grad=True)
input gradients are
tensor([{grad}], dtype=torch.float64)"""


def test_003_non_scalar_output_with_weights(capsys):
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    n = gradcalc.zeros(1, 2)
    n[0, 0] = m[0] ** 2
    n[0, 1] = m[1] ** 3
    # n.shape=[1,2]  m.shape=[2] m.unsqueeze(0).shape=[1,2]
    n.backward(m.unsqueeze(0))
    print_non_scalar_result(m)
    assert_printed(capsys, NON_SCALAR.format(grad="  8., 192."), seed="003")


def test_003_sum_is_weights_of_ones(capsys):
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    n = non_scalar_output(m)
    n.sum().backward()
    print_non_scalar_result(m)
    assert_printed(capsys, NON_SCALAR.format(grad=" 4., 48."), seed="003")


def test_003_explicit_weights_of_ones_equal_sum(capsys):
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    n = non_scalar_output(m)
    p = gradcalc.tensor([1., 1.]).unsqueeze(0)
    # n.shape=[1,2] , p.shape=[1,2]
    n.backward(p)
    print_non_scalar_result(m)
    assert_printed(capsys, NON_SCALAR.format(grad=" 4., 48."))


def test_003_mean(capsys):
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    n = non_scalar_output(m)
    n.mean().backward()
    print_non_scalar_result(m)
    assert_printed(capsys, NON_SCALAR.format(grad=" 2., 24."), seed="003")


JACOBIAN = """\
jacobian matrix is
tensor([[4., 3.],
        [2., 8.]])"""


def test_003_jacobian_row_by_row(capsys):
    j = gradcalc.zeros(2, 2)
    k = gradcalc.zeros(1, 2)
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    k[0, 0] = m[0] ** 2 + 3 * m[1]
    k[0, 1] = m[1] ** 2 + 2 * m[0]
    k.backward(gradcalc.FloatTensor([[1, 0]]), retain_graph=True)
    j[0, :] = m.grad
    m.grad.zero_()  # 梯度清零
    k.backward(gradcalc.FloatTensor([[0, 1]]))
    j[1, :] = m.grad
    print('jacobian matrix is')
    print(j)
    assert_printed(capsys, JACOBIAN, seed="003")
    # the graph was freed by the second backward (no retain_graph)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        k.backward(gradcalc.FloatTensor([[1, 1]]))


def test_003_weights_of_ones_sum_the_rows():
    # 如果k.backward([1,1])则结果为[6,11]
    m = gradcalc.tensor([2, 4], dtype=gradcalc.float64, requires_grad=True)
    k = gradcalc.zeros(1, 2)
    k[0, 0] = m[0] ** 2 + 3 * m[1]
    k[0, 1] = m[1] ** 2 + 2 * m[0]
    k.backward(gradcalc.FloatTensor([[1, 1]]))
    assert m.grad.tolist() == [6.0, 11.0]
    assert "[6,11]" in seed_text("003")


def test_003_jacobian_without_zeroing_accumulates():
    # forgetting m.grad.zero_() makes the second row the sum of both
    m = gradcalc.tensor([2.0, 4.0], requires_grad=True)
    k = gradcalc.stack([m[0] ** 2 + 3 * m[1], m[1] ** 2 + 2 * m[0]]).unsqueeze(0)
    k.backward(gradcalc.tensor([[1.0, 0.0]]), retain_graph=True)
    first = m.grad.tolist()
    k.backward(gradcalc.tensor([[0.0, 1.0]]))
    assert first == [4.0, 3.0]
    assert m.grad.tolist() == [6.0, 11.0]


def test_003_the_error_the_text_starts_from():
    m = gradcalc.tensor([2.0, 4.0], requires_grad=True)
    n = non_scalar_output(m)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        n.backward()
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in (
        seed_text("003"))


# --------------------------------------------------------------------------- seed lessons


def test_library_seed_retain_accumulate_zero_sequence():
    x = gradcalc.tensor([2.0, 3.0], requires_grad=True)
    y = x**2
    y.backward(gradcalc.tensor([1.0, 0.0]), retain_graph=True)
    assert x.grad.tolist() == [4.0, 0.0]
    y.backward(gradcalc.tensor([0.0, 1.0]), retain_graph=True)  # no zeroing: accumulates
    assert x.grad.tolist() == [4.0, 6.0]
    x.grad.zero_()
    y.backward(gradcalc.tensor([0.0, 1.0]))  # from zero again; frees the graph
    assert x.grad.tolist() == [0.0, 6.0]
    with pytest.raises(RuntimeError) as error:
        y.backward(gradcalc.tensor([1.0, 0.0]))
    assert str(error.value).startswith(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed).")
    assert "Specify retain_graph=True if you need to backward through the graph a second " \
           "time" in str(error.value)
    assert x.grad.tolist() == [0.0, 6.0]  # the failed call changed nothing


def test_library_seed_wrong_gradient_shape_names_both_shapes():
    x = gradcalc.ones(3, requires_grad=True)
    y = 2 * x**2
    with pytest.raises(RuntimeError) as error:
        y.backward(gradcalc.tensor([1.0, 1.0]))
    assert str(error.value) == ("Mismatch in shape: grad_output[0] has a shape of Size([2]) and "
                                "output[0] has a shape of Size([3]).")


def test_library_seed_create_graph_differentiates_again():
    x = gradcalc.tensor([1.0, 2.0], requires_grad=True)
    y = (x**3).sum()
    y.backward(create_graph=True)
    assert x.grad.tolist() == [3.0, 12.0]  # 3x²
    assert x.grad.grad_fn is not None
    first = x.grad
    x.grad = None
    first.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]  # 6x


def test_000_official_tutorial_with_gradcalc_imported_as_torch(capsys):
    import gradcalc as torch

    x = torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
    y = x * 2
    while y.norm() < 1000:
        y = y * 2
    y.backward(torch.ones_like(y))
    print(x.grad)

    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input_):
            ctx.save_for_backward(input_)
            return input_.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input_, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input_ < 0] = 0
            return grad_input

    z = MyReLU.apply(torch.FloatTensor([-1, 2]).requires_grad_())
    print(z)
    assert capsys.readouterr().out == ("tensor([256., 256., 256.])\n"
                                       "tensor([0., 2.], grad_fn=<MyReLUBackward>)\n")
