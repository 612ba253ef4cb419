"""``vsim probe``: measured traces taken on the Linux machine vsim runs on.

Each probe builds a small, named piece of the kernel (network namespaces
joined by a veth pair with a tc bottleneck, or cgroups of CPU-bound workers,
or nothing but periodic sleeping threads), measures it, tears it down and
writes a vsim trace (``vsim.traces.vsim_trace``) whose metadata holds the
exact setup, so that a scenario can reproduce it. One module per job:

- ``arguments`` / ``command``: the subcommands' arguments and their dispatch;
- ``machine``: facts about the machine (kernel, CPUs, steal time, load) and
  the root and tool checks;
- ``guard``: hard deadlines, signal handling and ordered teardown;
- ``names`` / ``cleanup``: the names of what probes create, and removal of
  leftovers by name prefix;
- ``clock``: absolute-deadline sleeps; ``stats``: sample summaries, RFC 3550 jitter;
- ``timer``, ``cyclictest``, ``load``, ``timer_probe``: periodic-wakeup lateness,
  in Python and by rt-tests, idle or under CPU load;
- ``netns``, ``qdisc``, ``rtp``, ``send``, ``sink``, ``pcap``, ``netstats``,
  ``net_probe``: the network probe;
- ``cgroups``, ``cpu_worker``, ``cpu_probe``: the CPU probe;
- ``steal``, ``steal_probe``: each CPU's steal time, sampled from /proc/stat.
"""
