"""Errors caused by a ``--set`` value name the ``--set``, not the file it overrides.

A scenario is read from its file and then overridden by ``--set dotted.key=value``
assignments before it is checked, so an error found by the checks carries the
file as its source. When the key at fault is one an assignment set (or lies
inside it: ``sweep.values[1]`` inside ``sweep.values``), the user typed the
bad value on the command line, and the error says so. When an assignment
set a key inside the one at fault (a misspelt table the assignment made, a
table whose parts no longer agree), or one of the keys a sum over named
tables adds up (``netioc.node.reservation_mbps``, every node's
``netioc.node.NAME.reservation_mbps``), the error names the file with that
``--set``: either may be at fault. So does an error whose check rests on a
key an assignment set (a reservation refused because ``--set host.scheduler``
chose a Linux policy): ``InputError.depends_on`` names such keys.
"""

from contextlib import contextmanager

from vsim.core.errors import InputError, excerpt


def assignment_key(assignment):
    """The dotted key of ``dotted.key=value``, spaces around its parts removed."""
    key_text = assignment.partition("=")[0]
    return ".".join(part.strip() for part in key_text.split("."))


def overriding_assignment(where, assignments):
    """The last of ``assignments`` whose key is ``where`` or contains it, or None."""
    if not where:
        return None
    for assignment in reversed(assignments):
        key = assignment_key(assignment)
        if where == key or where.startswith((f"{key}.", f"{key}[")):
            return assignment
    return None


def assignment_inside(where, assignments):
    """The last of ``assignments`` whose key lies inside ``where``, or None."""
    if not where:
        return None
    for assignment in reversed(assignments):
        if assignment_key(assignment).startswith((f"{where}.", f"{where}[")):
            return assignment
    return None


def assignment_summed(where, assignments):
    """The last of ``assignments`` whose key is one of the terms of the sum at ``where``: for
    ``PREFIX.KEY`` (a sum over named tables), a key ``PREFIX.NAME.KEY``; or None."""
    prefix, _, key = (where or "").rpartition(".")
    if not prefix:
        return None
    for assignment in reversed(assignments):
        parts = assignment_key(assignment).split(".")
        if len(parts) >= 2 and parts[-1] == key and ".".join(parts[:-2]) == prefix:
            return assignment
    return None


def assignment_depended_on(keys, assignments):
    """The last of ``assignments`` that set one of ``keys`` (or a table holding it), or None."""
    for assignment in reversed(assignments):
        if any(overriding_assignment(key, [assignment]) for key in keys):
            return assignment
    return None


@contextmanager
def depending_on(*keys):
    """Mark an ``InputError`` raised inside as resting on the values of ``keys`` too."""
    try:
        yield
    except InputError as exc:
        raise InputError(exc.source, exc.where, exc.expected, exc.depends_on + keys) from None


@contextmanager
def blaming_overrides(source, assignments):
    """Re-raise an ``InputError`` of ``source`` at a key that one of ``assignments`` set as an
    error of that ``--set``."""
    try:
        yield
    except InputError as exc:
        if exc.source != source:
            raise
        assignments = list(assignments)
        assignment = overriding_assignment(exc.where, assignments)
        if assignment is not None:
            raise InputError(f"--set {excerpt(assignment, 80)}", exc.where, exc.expected) from None
        inside = (assignment_inside(exc.where, assignments)
                  or assignment_summed(exc.where, assignments)
                  or assignment_depended_on(exc.depends_on, assignments))
        if inside is not None:
            raise InputError(f"{source} with --set {excerpt(inside, 80)}", exc.where, exc.expected) from None
        raise
