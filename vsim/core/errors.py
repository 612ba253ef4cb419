"""Errors that reach the user.

``InputError`` is bad input (a config, a trace, a command-line argument). The
CLI prints its one-line message on stderr and exits with code 2. The message
always names where the problem is (file, key path or line) and what was
expected, so that a user can fix it without reading code. What it quotes of a file
is a short excerpt (``excerpt``), and nothing it prints can drive a terminal:
control characters are shown escaped.
"""


EXCERPT_LIMIT = 40  # characters of a file's text (a key, a value) an error quotes at most


class InputError(Exception):
    """Bad user input: one line naming the source, the location and the expectation."""

    def __init__(self, source, where, expected, depends_on=()):
        self.source = str(source) if source is not None else "<input>"
        self.where = where
        self.expected = expected
        self.depends_on = tuple(depends_on)  # other keys whose values the refusal rests on
        super().__init__(self.one_line())

    def __reduce__(self):
        """Pickle by its parts, so an error raised in a worker process arrives intact."""
        return InputError, (self.source, self.where, self.expected, self.depends_on)

    def one_line(self):
        location = f"{self.source}: {self.where}" if self.where else self.source
        return printable(f"{location}: {self.expected}".replace("\n", " "))


def printable(text):
    """``text`` with each character that is not printable (a terminal escape, a NUL) escaped."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def excerpt(text, limit=EXCERPT_LIMIT):
    """At most ``limit`` characters of ``text`` (a key or value read from a file), printable,
    with ``…`` where it was cut: what an error may quote of a file someone else wrote."""
    shown = printable(str(text))
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def did_you_mean(name, names):
    """``did you mean 'x'?`` for the closest of ``names`` to ``name``, or None if none is close."""
    import difflib  # here: start-up pays for it only when a name is misspelt
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


class InputNote(UserWarning):
    """Input read with a defect it could get past (a capture cut short in its last packet):
    ``vsim`` prints the message as a ``vsim: note:`` line on stderr and carries on."""
