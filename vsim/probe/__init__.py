"""``vsim probe``: measured traces taken on the Linux machine vsim runs on.

Each probe builds a small, named piece of the kernel (network namespaces
joined by a veth pair with a tc bottleneck, or cgroups of CPU-bound workers,
or nothing but periodic sleeping threads), measures it, tears it down and
writes a vsim trace (``vsim.validate.vsim_trace``) whose metadata holds the
exact setup, so that a scenario can reproduce it. One module per job:

- ``machine``: facts about the machine (kernel, CPUs, steal time, load) and
  the root and tool checks;
- ``guard``: hard deadlines, signal handling and ordered teardown;
- ``names``: the names probes give what they create, and their owners;
- ``cleanup``: removal of leftovers by name prefix;
- ``timer`` / ``cyclictest``: periodic-wakeup lateness, in Python and by rt-tests;
- ``qdisc``, ``netns``, ``rtp``, ``pcap``, ``send``, ``sink``, ``net``,
  ``netstats``: the network probe;
- ``cgroups``, ``cpu_worker``, ``cpu``: the CPU probe.
"""
