"""The CPU cost of the network stack: TCP throughput and request/response rate from per-packet
and per-byte costs (``layers``, ``paths``, ``throughput``, ``request_response``)."""
