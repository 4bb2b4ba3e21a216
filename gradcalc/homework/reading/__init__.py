"""How students write formulas: the claim before an answer's `=` (`claims`: `f'(x) =`,
`dy/dx =`, `∇f =`), the printers of formulas in their notation (`student`), and the
parser's errors in their words (`wording`). Below the rest of `gradcalc.homework`."""
