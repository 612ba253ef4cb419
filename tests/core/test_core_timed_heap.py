"""The compiled timed heap gives entries back in heapq's order over (time, number) tuples."""

import heapq

from hypothesis import given, strategies as st

from vsim.core.timed_heap import TimedHeap

times = st.sampled_from([0.0, 0.5, 1.0, 1.0 + 1e-12, 2.0, float("inf")])
operations = st.lists(st.tuples(st.sampled_from(["push", "pop", "replace"]), times), max_size=80)


def key(entry):
    return entry.time, entry.number


@given(operations)
def test_pushes_pops_and_replaces_follow_heapq(ops):
    heap, reference = TimedHeap(), []
    for number, (op, time) in enumerate(ops):
        if op == "push" or not reference:
            heap.push(time, number, "payload", number)
            heapq.heappush(reference, (time, number))
        elif op == "pop":
            entry = heap.pop()
            assert key(entry) == heapq.heappop(reference) and entry.second == entry.number
        else:
            heap.replace(time, number, "payload", number)
            heapq.heapreplace(reference, (time, number))
        assert [key(entry) for entry in heap.entries[:1]] == reference[:1]
    drained = []
    while heap.entries:
        drained.append(key(heap.pop()))
    assert drained == sorted(reference)


def test_equal_times_come_out_in_number_order():
    heap = TimedHeap()
    for number in (5, 3, 9, 1):
        heap.push(1.0, number, None, None)
    assert [heap.pop().number for _ in range(4)] == [1, 3, 5, 9]
