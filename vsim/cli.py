"""Command-line interface (filled in below)."""


def main(argv=None):
    return 0
