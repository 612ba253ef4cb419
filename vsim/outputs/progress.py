"""A progress bar on the terminal, and nothing at all anywhere else.

A long ``vsim run`` shows how far its simulated clock has got (``tqdm``
draws the bar, its rate and the time left). When stderr is not a terminal
(a pipe, a file, a test capturing it) no bar is drawn, so stderr holds only
what a script or a reader of logs needs: errors and notes.
"""

import sys
from contextlib import contextmanager


@contextmanager
def simulated_clock_bar(duration, description, stream=None):
    """Yield a callback taking the simulated time reached (0..``duration`` s), which moves
    a bar on ``stream`` (default stderr), or None when ``stream`` is not a terminal."""
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        yield None
        return
    from tqdm import tqdm  # only a terminal needs it

    with tqdm(total=duration, desc=description, unit="sim s", file=stream, leave=False,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:g} simulated s "
                         "[{elapsed}<{remaining}]") as bar:
        yield lambda reached: bar.update(reached - bar.n)
