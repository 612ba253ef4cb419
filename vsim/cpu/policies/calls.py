"""The calls the machine makes of its policy at every event, as a compiled base class.

A policy is any object with ``CpuPolicy``'s methods (``vsim.cpu.policies.protocol``). Called
through that protocol, each call from the compiled machine is a Python method call: the
method looked up by name, a float argument boxed, the arguments parsed again on the far
side, some ten times an event. vsim's own policies derive from ``PolicyCalls``, which the
machine calls as native methods through its table; a policy written in Python may derive
from it too (it is open to interpreted subclasses), and one that does not is called
through ``ForwardedCalls``, which passes each call on. The methods here are only the
hot ones; a policy's flags and its ``entitle`` stay with the protocol.
"""

from typing import TYPE_CHECKING, Any, List, Optional

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # only the mypyc build reads the decorator
    def mypyc_attr(*_args, **_kwargs):  # type: ignore[misc,no-redef]
        return lambda cls: cls

from vsim.cpu.world import World

if TYPE_CHECKING:
    from vsim.cpu.machine import Machine


@mypyc_attr(allow_interpreted_subclasses=True)
class PolicyCalls:
    """``CpuPolicy``'s per-event methods (their meaning is the protocol's). The defaults do
    nothing where doing nothing is a policy's choice (``on_wake``, ``charge``, the run-queue
    hooks, no preemption) and raise where every policy must decide."""

    def on_wake(self, machine: "Machine", world: World) -> None:
        return None

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        return None

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        raise NotImplementedError("a policy must pick the world to run")

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        return None

    def slice_end(self, machine: "Machine", world: World) -> float:
        raise NotImplementedError("a policy must say when a slice may end")

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        raise NotImplementedError("a policy must say whether a quantum check preempts")

    def on_block(self, machine: "Machine", world: World) -> None:
        return None

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        return None


class ForwardedCalls(PolicyCalls):
    """The per-event calls of a policy that does not derive from ``PolicyCalls``, passed on."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def on_wake(self, machine: "Machine", world: World) -> None:
        self.policy.on_wake(machine, world)

    def charge(self, machine: "Machine", world: World, occupancy: float) -> None:
        self.policy.charge(machine, world, occupancy)

    def pick(self, machine: "Machine", ready: List[World], lcpu: int) -> Optional[World]:
        return self.policy.pick(machine, ready, lcpu)

    def preempt_victim(self, machine: "Machine", world: World) -> Optional[int]:
        return self.policy.preempt_victim(machine, world)

    def slice_end(self, machine: "Machine", world: World) -> float:
        return self.policy.slice_end(machine, world)

    def preempts_at_quantum(self, machine: "Machine", best: World, current: World) -> bool:
        return self.policy.preempts_at_quantum(machine, best, current)

    def on_block(self, machine: "Machine", world: World) -> None:
        self.policy.on_block(machine, world)

    def on_unthrottle(self, machine: "Machine", world: World) -> None:
        self.policy.on_unthrottle(machine, world)


def calls_of(policy: Any) -> PolicyCalls:
    """``policy``'s per-event calls: the policy itself where it derives from ``PolicyCalls``."""
    return policy if isinstance(policy, PolicyCalls) else ForwardedCalls(policy)
