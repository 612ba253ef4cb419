"""What a finished run shows the code that reports on it: ``FinishedRun``.

The summary (``vsim.results.run_summary`` and the sections it draws from
``uplink_summary`` and ``voice_quality``) and the traces
(``vsim.results.simulation_trace``) read a run's built components after it
ran: its VMs' CPU groups, media servers, vNICs and traffic, its uplink and
receivers. ``vsim.engines.simulation.Simulation`` is such a run; this protocol
names the part of it the reports may read, so that they depend on that and
not on how the host is built, and mypy checks that ``Simulation`` offers it.
Every member is read-only: a report reads a run, it never changes one.
"""

from typing import Any, Mapping, Optional, Protocol, Sequence, Tuple, Union

from vsim.config.schema_scenario import Scenario
from vsim.cpu.machine import Machine
from vsim.cpu.world import Group, World
from vsim.guest.measuring_client import MeasuringClient
from vsim.guest.media_server import MediaServer
from vsim.guest.replayed_traffic import ReplayedTraffic
from vsim.guest.request_response import RequestResponseTraffic
from vsim.guest.sip_service import SipService
from vsim.guest.traffic_vm import TrafficVm
from vsim.guest.web_app import WebApp
from vsim.metrics.jitter_buffer import AdaptiveBuffer, FixedBuffer
from vsim.net.shared_uplink import SharedUplink
from vsim.net.uniform_fifo import UniformFifo
from vsim.net.vnic_tx import VnicTransmit


class HostWorlds(Protocol):
    """Worlds a host runs beside its VMs (its background tasks, the outer hypervisor's steal)."""

    @property
    def worlds(self) -> Sequence[World]:
        """The worlds, one per task or per logical CPU stolen from."""


class CpuBoundVmRun(Protocol):
    """A CPU-bound VM (``vsim.guest.cpu_bound``) as its summary reads it."""

    @property
    def name(self) -> str:
        """The VM's name, that of its CPU group."""

    @property
    def worlds(self) -> Sequence[World]:
        """Its vCPUs."""

    @property
    def demand(self) -> float:
        """The share of each vCPU's time it asks for."""


class FinishedRun(Protocol):
    """A host after its run, as the summary and the traces read it (see the module's docstring)."""

    @property
    def scenario(self) -> Scenario:
        """The scenario the host was built from."""

    @property
    def machine(self) -> Machine:
        """The host's logical CPUs and their scheduler."""

    @property
    def uplink(self) -> Union[UniformFifo, SharedUplink]:
        """The host's uplink: the frames-only FIFO or a scheduler's ports and flows."""

    @property
    def vms(self) -> Sequence[Group]:
        """The media-server VMs' CPU groups, the measuring one first."""

    @property
    def vm_group(self) -> Mapping[str, str]:
        """Each VM's scenario group ("vm" for [vm]'s), by VM name."""

    @property
    def servers(self) -> Sequence[MediaServer]:
        """The media servers, in the order of ``vms``."""

    @property
    def vnics(self) -> Sequence[VnicTransmit]:
        """The media servers' vNIC transmit paths, in the order of ``vms``."""

    @property
    def receivers(self) -> Sequence[MeasuringClient]:
        """One recorder per media server of its monitored conference, in the order of ``vms``."""

    @property
    def receiver_groups(self) -> Sequence[str]:
        """The scenario group of each receiver's VM."""

    @property
    def client(self) -> Optional[MeasuringClient]:
        """The first receiver (the measuring client's, with a measuring conference)."""

    @property
    def measuring(self) -> bool:
        """Whether the first VM hosts a measuring conference."""

    @property
    def jitter_buffer(self) -> Union[FixedBuffer, AdaptiveBuffer]:
        """The jitter buffer the receivers play through."""

    @property
    def codec(self) -> Any:
        """The codec model's values (``packet_interval``, ``payload_bytes``, ...)."""

    @property
    def ip_bytes(self) -> int:
        """IP bytes of a media frame."""

    @property
    def rtp_interval(self) -> float:
        """Seconds between two frames of a stream."""

    @property
    def background(self) -> Tuple[float, float]:
        """[vm]'s guest background bursts: (work of a burst in core-seconds, mean interval)."""

    @property
    def traffic(self) -> Sequence[TrafficVm]:
        """The bulk traffic VMs' sources."""

    @property
    def traffic_groups(self) -> Sequence[str]:
        """The scenario group of each of ``traffic``."""

    @property
    def traffic_vms(self) -> Sequence[Group]:
        """The bulk traffic VMs' CPU groups."""

    @property
    def cpu_bound(self) -> Sequence[CpuBoundVmRun]:
        """The CPU-bound VMs."""

    @property
    def sip(self) -> Sequence[SipService]:
        """The SIP servers with the clients calling them."""

    @property
    def web_apps(self) -> Sequence[WebApp]:
        """The web applications with the users asking them."""

    @property
    def rr(self) -> Optional[RequestResponseTraffic]:
        """The request/response chains, if the scenario has any."""

    @property
    def replay(self) -> Optional[ReplayedTraffic]:
        """The replayed packets' traffic, if the scenario has a ``packets_replay`` group."""

    @property
    def background_tasks(self) -> HostWorlds:
        """The host's always-runnable tasks outside the VMs."""

    @property
    def host_steal(self) -> HostWorlds:
        """The outer hypervisor's worlds replaying the steal trace, one per logical CPU it takes."""
