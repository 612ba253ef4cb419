"""The bounds and fixed ports that ``vsim probe``'s arguments are checked against.

Kept apart from the probes, which load NumPy, so that the command line's parser (and with it
``vsim --help`` and ``--version``) is built without them.
"""

from vsim.net.header_sizes import IPV4_HEADER, UDP_HEADER

MAX_WORKERS = 256  # worker processes in all VMs: each is a Python process, started PER_WORKER_S apart

VOICE_SOURCE_PORT_BASE = 30000
FLOOD_SOURCE_PORT = 31000
MAX_STREAMS = FLOOD_SOURCE_PORT - VOICE_SOURCE_PORT_BASE  # stream i sends from port 30000 + i

VETH_MTU = 1500
MAX_FLOOD_PAYLOAD_BYTES = VETH_MTU - IPV4_HEADER - UDP_HEADER
