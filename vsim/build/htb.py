"""A scenario's ``[htb]`` tables as the htb class tree of its uplink.

``[[htb.node]]`` tables list the classes flat, each naming its parent, with
rates in Mb/s as ``tc class add ... htb rate R ceil C burst B cburst CB``
sets them; leaves name the VM groups whose vNICs they carry (``members``),
as a tc filter would direct their packets. This module turns them into a
``vsim.net.uplink.htb_tree.HtbTree`` (which checks what htb refuses) and says
which leaf each group's traffic goes to.
"""

from vsim.core.errors import InputError
from vsim.net.uplink.htb_tree import HtbClass, HtbTree
from vsim.config.tree_tables import tree_layout

MBPS = 1e6


def htb_tree(scenario, source):
    """(HtbTree, {group name: leaf name}) of ``scenario``'s htb tables."""
    tables = scenario.htb.node
    children, by_name, leaf_of = tree_layout(tables, "htb", source)

    def build(name):
        table = by_name[name]
        return HtbClass(name, table.rate_mbps * MBPS,
                        ceil=None if table.ceil_mbps is None else table.ceil_mbps * MBPS,
                        burst=table.burst_bytes, cburst=table.cburst_bytes,
                        quantum=table.quantum_bytes, prio=table.prio, limit=table.limit_packets,
                        children=tuple(build(child) for child in children[name]))

    try:
        tree = HtbTree([build(table.name) for table in tables if table.parent is None], source=source)
    except InputError as error:  # the tree names the class: keep it under htb
        raise InputError(source, f"htb.{error.where}", error.expected) from None
    return tree, leaf_of
