"""Splitting the lines of a CSV trace, each line's defect named by its number.

Python's ``csv`` module raises its own ``csv.Error`` on a line it cannot split: a field
longer than its limit (``field larger than field limit (131072)``), a NUL byte. A trace
from someone else may hold either; ``csv_rows`` turns it into the one-line ``InputError``
naming the file and line.
"""

import csv

from vsim.core.errors import InputError


def csv_rows(texts, numbers, path):
    """(line number, fields) of each line of ``texts``, whose line numbers in ``path`` are
    ``numbers``, in step."""
    reader = csv.reader(texts)
    for number in numbers:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(path, f"line {number}", f"expected CSV fields ({exc})") from None
        yield number, row
