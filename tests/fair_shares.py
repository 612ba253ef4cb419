"""The closed form of weighted fair sharing with caps, for scheduler tests: what each group gets."""


def water_filled(weights, caps, cpus):
    """CPUs per group when ``cpus`` are shared by weight, no group above its cap (bisection on
    the price of a unit of weight: each group gets weight x price, at most its cap)."""
    if sum(caps) <= cpus:
        return list(caps)
    low, high = 0.0, cpus / min(weights)
    for _ in range(200):
        price = (low + high) / 2
        if sum(min(c, price * w) for w, c in zip(weights, caps)) < cpus:
            low = price
        else:
            high = price
    return [min(c, high * w) for w, c in zip(weights, caps)]
