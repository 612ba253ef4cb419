"""``vsim probe cleanup``: remove namespaces, veths, cgroups and temporary directories that probes left behind.

A probe removes what it made when it ends, even on SIGINT or SIGTERM; only a
probe killed outright (SIGKILL, a crash of the machine's power) leaves
anything. Leftovers are found by the name prefixes of ``names``; those whose
owning probe is still running are kept unless ``force``. Qdiscs live on the
probes' veths, so they go with them. Temporary directories (a capture, the
workers' results) are looked for where ``tempfile`` puts them ($TMPDIR, else
/tmp), as the probes made them there. The net and cpu probes remove what dead
probes left before they start (``remove_dead``), so leftovers do not pile up.
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
    gone (or all). Without ``ip`` there are no namespaces or links to look for: no probe could make them."""
    namespaces, links = [], []
    if shutil.which("ip") is not None:
        namespaces = [name for name in netns.list_netns() if _leftover(name, NETNS_PREFIX, force)]
        links = [name for name in netns.list_links() if _leftover(name, VETH_PREFIX, force)]
    groups = []
    hierarchy = cgroups.find_cpu_hierarchy()
    if hierarchy is not None:
        groups = [path for path in sorted(hierarchy.root.iterdir())
                  if path.is_dir() and _leftover(path.name, CGROUP_PREFIX, force)]
    return namespaces, links, groups, temporary_dirs(force)


def remove(namespaces, links, groups, directories):
    """Remove the given leftovers (as ``leftovers`` lists them), each whatever became of the
    others; (the names of what went, ``name: why`` of what would not go)."""
    steps = ([(name, netns.delete_netns) for name in namespaces] + [(name, netns.delete_link) for name in links]
             + [(path, cgroups.remove_tree) for path in groups] + [(path, remove_dir) for path in directories])
    removed, failed = [], []
    for item, step in steps:
        try:
            step(item)
            removed.append(str(item))
        except (OSError, RuntimeError) as exc:
            failed.append(f"{item}: {exc}")
    return removed, failed


def remove_dead(probe, note):
    """Before probe ``probe`` (as 'net') sets anything up: remove what probes that are gone left, with
    a line naming it, so that a probe killed outright costs nothing past the next run."""
    removed, failed = remove(*leftovers())
    if removed:
        note(f"vsim: probe {probe}: removed what probes killed earlier left: {', '.join(removed)}")
    for failure in failed:
        note(f"vsim: warning: could not remove what a probe killed earlier left, {failure}")


def run(args, note):
    """Remove the leftovers; a line saying what went."""
    machine.require_root("cleanup")
    machine.require_tools("cleanup", "ip", hint="install iproute2")
    found = leftovers(args.force)
    namespaces, links, groups, directories = found
    if any(found):
        note(f"vsim: probe cleanup: removing {len(namespaces)} namespace(s), {len(links)} link(s), "
             f"{len(groups)} cgroup(s), {len(directories)} temporary directory(ies)")
    removed, failed = remove(*found)
    for failure in failed:
        note(f"vsim: warning: could not remove {failure}")
    line = f"removed {len(removed)}: {', '.join(removed)}" if removed else "nothing left behind by probes"
    return line + (f"; {len(failed)} could not be removed (named above)" if failed else "")
