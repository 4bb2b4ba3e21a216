"""`gradcalc.optim`: SGD (momentum, dampening, Nesterov, weight decay), Adam and AdamW,
with PyTorch's updates. Imported only when used."""

from gradcalc.optim.adam import Adam, AdamW
from gradcalc.optim.optimizer import Optimizer
from gradcalc.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
