"""Closed-loop web users (an Olio-like benchmark driver): how many, and how long each thinks.

A web application's load comes from its users, emulated off the host (seed
001's Olio clients): each user asks for an operation (a page and the objects
on it, request after request), waits for the last response, thinks for a
while and asks for the next, so the load is a closed loop, its rate set by
the users, their think time and the response time
(``vsim.guest.web_app``). Think times are drawn from an exponential
distribution of mean ``think_time``, as Olio's driver draws its cycle times
(Faban's ``@NegativeExponential``, mean 5,000 ms in Olio's ``UIDriver``).
The users' requests come in to the host, which NetIOC does not schedule; the
responses go out as full frames (``ip_bytes``) through the web VM's port.
"""

from vsim.net.sources.validate import non_negative, whole

THINK_TIME = 5.0
"""Olio's mean cycle time, s: the driver's ``@NegativeExponential(cycleMean = 5000)`` and the
Olio workload page ("In Olio, the mean cycle time is 5 seconds"), taken as the think time
(the response times are a small part of it)."""

MAX_USERS = 100_000
"""Most users one application may have: each is a closed loop the simulation follows request by
request."""

MTU = 1500
"""IP bytes of a full response frame (a 1500-byte Ethernet MTU)."""


class WebUsers:
    """``users`` closed-loop users of a web application, thinking ``think_time`` s on average."""

    elastic = False
    discrete = True
    ip_bytes = float(MTU)

    def __init__(self, users, think_time=THINK_TIME, source="<input>", where="traffic"):
        self.users = whole(users, "users", source, where, 1, MAX_USERS)
        self.think_time = non_negative(think_time, "think_time", source, where)
