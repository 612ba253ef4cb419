"""``vsim probe cleanup``: remove namespaces, veths, cgroups and temporary directories that probes left behind.

A probe removes what it made when it ends, even on SIGINT or SIGTERM; only a
probe killed outright (SIGKILL, a crash of the machine's power) leaves
anything. Leftovers are found by the name prefixes of ``names``; those whose
owning probe is still running are kept unless ``force``. Qdiscs live on the
probes' veths, so they go with them. Temporary directories (a capture, the
workers' results) are looked for where ``tempfile`` puts them ($TMPDIR, else
/tmp), as the probes made them there.
"""

import shutil
import tempfile
from pathlib import Path

from vsim.probe import cgroups, machine, netns
from vsim.probe.names import CGROUP_PREFIX, NETNS_PREFIX, TMP_PREFIX, VETH_PREFIX, owner, owner_alive


def _leftover(name, prefix, force):
    pid = owner(name) if name.startswith(prefix) else None
    return pid is not None and (force or not owner_alive(pid))


def temporary_dirs(force=False):
    """The temporary directories made by probes that are gone (or all)."""
    return [path for path in sorted(Path(tempfile.gettempdir()).iterdir())
            if path.is_dir() and _leftover(path.name, TMP_PREFIX, force)]


def remove_dir(path):
    """Remove a temporary directory and what it holds; nothing if it is already gone."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass


def leftovers(force=False):
    """(namespaces, root-namespace links, cgroup directories, temporary directories) made by probes that are
    gone (or all)."""
    namespaces = [name for name in netns.list_netns() if _leftover(name, NETNS_PREFIX, force)]
    links = [name for name in netns.list_links() if _leftover(name, VETH_PREFIX, force)]
    groups = []
    hierarchy = cgroups.find_cpu_hierarchy()
    if hierarchy is not None:
        groups = [path for path in sorted(hierarchy.root.iterdir())
                  if path.is_dir() and _leftover(path.name, CGROUP_PREFIX, force)]
    return namespaces, links, groups, temporary_dirs(force)


def run(args, note):
    """Remove the leftovers; a line saying what went."""
    machine.require_root("cleanup")
    machine.require_tools("cleanup", "ip", hint="install iproute2")
    namespaces, links, groups, directories = leftovers(args.force)
    if namespaces or links or groups or directories:
        note(f"vsim: probe cleanup: removing {len(namespaces)} namespace(s), {len(links)} link(s), "
             f"{len(groups)} cgroup(s), {len(directories)} temporary directory(ies)")
    for name in namespaces:
        netns.delete_netns(name)
    for name in links:
        netns.delete_link(name)
    for path in groups:
        cgroups.remove_tree(path)
    for path in directories:
        remove_dir(path)
    removed = namespaces + links + [str(path) for path in groups + directories]
    return f"removed {len(removed)}: {', '.join(removed)}" if removed else "nothing left behind by probes"
