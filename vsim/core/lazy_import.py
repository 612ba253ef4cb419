"""Modules imported on first use, so that ``vsim --version`` and ``vsim --help`` start fast.

scipy.stats alone takes about a second to import; a module that needs it in
one or two functions holds a ``lazy_module`` instead, which imports the real
module the first time one of its attributes is read.
"""

import importlib


class lazy_module:
    """Stands for the module ``name``, imported when an attribute is first read."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self):
        return f"<module {self._name!r}, imported on first use>"
