"""Short, safe descriptions of values for failure details. Standard library only."""

import reprlib

from .values import Opaque


class _SafeRepr(reprlib.Repr):
    """A short repr of a decoded value (the grader holds only plain data and opaque markers)."""

    def __init__(self):
        reprlib.Repr.__init__(self)
        self.maxstring, self.maxother, self.maxlist, self.maxtuple, self.maxdict, self.maxset = 120, 80, 12, 12, 8, 12
        self.maxlevel = 4

    def repr_instance(self, x, level):
        if type(x) is Opaque:
            return repr(x)
        try:
            return reprlib.Repr.repr_instance(self, x, level)
        except Exception:
            return "<%s>" % type(x).__name__


_SHORT = _SafeRepr()


def short_repr(value):
    try:
        return _SHORT.repr(value)[:300]
    except Exception:
        return "<%s>" % type(value).__name__
