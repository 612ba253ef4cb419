"""Trees written as flat tables (``[[netioc.node]]``, ``[[htb.node]]``): each node names its
parent, and the leaves name the VM groups whose vNICs they carry."""

from vsim.config.typed import fail


def tree_layout(tables, key, source):
    """(children by name, tables by name, {group: leaf name}) of the flat ``tables`` under ``key``.

    Members are allowed on leaves only, and every leaf needs some: a node with children and
    members, or a leaf that no traffic uses, is an error naming ``key.node[i].members``.
    (Names, parents and members were checked when the section was read, ``check_tree_tables``.)
    """
    children: dict[str, list[str]] = {table.name: [] for table in tables}
    for table in tables:
        if table.parent is not None:
            children[table.parent].append(table.name)
    leaf_of = {}
    for index, table in enumerate(tables):
        if table.members and children[table.name]:
            fail(source, f"{key}.node[{index}].members",
                 f"expected members on a leaf only; {table.name!r} has nodes below it")
        if not table.members and not children[table.name]:
            fail(source, f"{key}.node[{index}].members",
                 f"expected the VM groups whose traffic leaf {table.name!r} carries; no traffic "
                 f"uses it")
        leaf_of.update({member: table.name for member in table.members})
    return children, {table.name: table for table in tables}, leaf_of


def check_tree_tables(nodes, source, path):
    """Nodes listed flat, parents first: each name once, each parent listed before its
    children, each VM group among the members of one node only."""
    names = set()
    for index, node in enumerate(nodes):
        where = f"{path}.node[{index}]"
        if node.name in names:
            fail(source, f"{where}.name", f"expected a name used once in the tree, got {node.name!r}")
        if node.parent is not None and node.parent not in names:
            fail(source, f"{where}.parent", f"expected a node listed before it, got {node.parent!r}")
        names.add(node.name)
    node_of: dict[str, str] = {}
    for index, node in enumerate(nodes):
        for member in node.members:
            if member in node_of:
                other = ("listed twice" if node_of[member] == node.name
                         else f"also a member of {node_of[member]!r}")
                fail(source, f"{path}.node[{index}].members", f"expected each VM group in the "
                     f"members of one node only; {member!r} is {other}")
            node_of[member] = node.name
