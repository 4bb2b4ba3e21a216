"""A class's work, as data: the answer key (`key`), the submissions turned into tasks judged
one at a time (`classfile`), the gradebook and the class picture (`gradebook`), and saved
verdicts judged again from their receipts (`replay`). One answer is
`gradcalc.homework.answer`; a whole run of a class, with its workers and files, is
`gradcalc.run.classrun`."""
