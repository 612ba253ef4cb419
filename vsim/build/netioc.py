"""A scenario's ``[netioc]`` tables as the NetIOC tree of its uplink.

``[[netioc.node]]`` tables list the nodes flat, each naming its parent, with
rates in Mb/s; leaves name the VM groups whose vNICs they carry
(``members``). This module turns them into a ``vsim.net.hclock.tree.Tree``
(which checks what NetIOC refuses: reservations over 75 % of the uplink, a
limit below a reservation, ...) and says which leaf each group's traffic is
charged to.
"""

import math

from vsim.core.errors import InputError
from vsim.net.hclock.tree import Node, Tree
from vsim.config.tree_tables import tree_layout

MBPS = 1e6


def netioc_tree(scenario, rate_bps, source):
    """(Tree, {group name: leaf name}) of ``scenario``'s NetIOC tables on a ``rate_bps`` uplink."""
    tables = scenario.netioc.node
    children, by_name, leaf_of = tree_layout(tables, "netioc", source)

    def build(name):
        table = by_name[name]
        limit = math.inf if table.limit_mbps is None else table.limit_mbps * MBPS
        return Node(name, table.kind, table.shares, table.reservation_mbps * MBPS, limit,
                    tuple(build(child) for child in children[name]))

    roots = [build(table.name) for table in tables if table.parent is None]
    try:
        tree = Tree(roots, rate_bps, source=source, unit=("Mb/s", MBPS), key_suffix="_mbps")
    except InputError as error:
        raise InputError(source, _node_key(error.where), error.expected) from None
    return tree, leaf_of


def _node_key(where):
    """The scenario key of what the tree refused: ``netioc.node.NAME.KEY`` for a node's
    ``parent.NAME.KEY``, ``netioc.node.KEY`` for the sum over all nodes."""
    *path, key = where.split(".")
    return f"netioc.node.{path[-1]}.{key}" if path else f"netioc.node.{key}"
