"""A heap of timed entries compared as native numbers, for the compiled event paths.

``heapq`` over tuples ``(time, number, ...)`` compares two entries element by element
as Python objects, a rich comparison each, and that was the largest single cost of an
event. Here an entry is a compiled object whose ``time`` and ``number`` are native
fields, and the heap's sifts compare those directly. Entries are ordered by time, then
by number (unique where the order must be exact), which makes the order of removal
independent of how the heap is laid out. Used by the clock's queue of plain calls
(``vsim.core.clock``) and each socket's completion queue (``vsim.cpu.machine``).
"""

from typing import Any, List


class Entry:
    """``time`` and ``number`` order it; ``first`` and ``second`` are what its user keeps."""

    def __init__(self, time: float, number: int, first: Any, second: Any) -> None:
        self.time = time
        self.number = number
        self.first = first
        self.second = second


class TimedHeap:
    """A binary heap of ``Entry``: ``entries[0]`` is the earliest (when not empty)."""

    def __init__(self) -> None:
        self.entries: List[Entry] = []

    def push(self, time: float, number: int, first: Any, second: Any) -> None:
        entries = self.entries
        entries.append(Entry(time, number, first, second))
        self._sift_up(len(entries) - 1)

    def pop(self) -> Entry:
        """Remove and return the earliest entry (the heap must not be empty). The last entry
        fills the hole down to a leaf along the earlier children, then moves up to its place,
        as ``heapq`` does: fewer comparisons than sifting it down."""
        entries = self.entries
        last = entries.pop()
        if not entries:
            return last
        head = entries[0]
        self._fill_from(0, last)
        return head

    def replace(self, time: float, number: int, first: Any, second: Any) -> None:
        """Remove the earliest entry and push a new one (``heapq.heapreplace``)."""
        self._fill_from(0, Entry(time, number, first, second))

    def _fill_from(self, pos: int, item: Entry) -> None:
        """Fill the hole at ``pos`` with ``item``: down to a leaf along the earlier children,
        then up. The comparisons are written out (mypyc calls, never inlines, a function)."""
        entries = self.entries
        n = len(entries)
        child = 2 * pos + 1
        while child < n:
            chosen = entries[child]
            right = child + 1
            if right < n:
                other = entries[right]
                t, u = chosen.time, other.time
                if not (t < u or (t == u and chosen.number < other.number)):
                    chosen = other
                    child = right
            entries[pos] = chosen
            pos = child
            child = 2 * pos + 1
        entries[pos] = item
        self._sift_up(pos)

    def _sift_up(self, pos: int) -> None:
        """Move the entry at ``pos`` up past every parent it comes before."""
        entries = self.entries
        item = entries[pos]
        time, number = item.time, item.number
        while pos > 0:
            parent = (pos - 1) >> 1
            above = entries[parent]
            if not (time < above.time or (time == above.time and number < above.number)):
                break
            entries[pos] = above
            pos = parent
        entries[pos] = item
